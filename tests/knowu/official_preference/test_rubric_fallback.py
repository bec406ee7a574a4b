"""The deterministic judge written from each official class's rubric (for the profiles the project's templates do
not read): it reads the official class's facts (Kevin's address, the field of interest, the courier, the price
threshold, the weekend alarm), its oracle meets every judged line, and each near miss of the oracle fails."""

from __future__ import annotations

import copy
import functools
from typing import Any

from personal_envs.knowu.judge import is_success
from personal_envs.knowu.official.preference import reading as rd
from personal_envs.knowu.official.preference.variants import (
    OfficialPreferenceTask,
    build_variant,
)
from personal_envs.knowu.profiles import load_profile
from personal_envs.knowu.taskspec import AnswerCheck
from tests.knowu.official_preference.release import NEEDS_RELEASE, PROFILES, source

pytestmark = NEEDS_RELEASE


def _variant(variant: str) -> OfficialPreferenceTask:
    name, role = variant.split("@")
    return build_variant(source(), name, role, PROFILES / f"{role}.yaml")


@functools.cache
def rubric_variants() -> tuple[str, ...]:
    """The variants judged by their class's rubric (built when a test first asks, not at collection)."""
    return tuple(v for v in source().variant_names("preference") if _variant(v).values.get("fallback_kind") == "official rubric")


#: Near misses the official code does not penalize either: the notice class takes a post in any channel (its rubric
#: judges style and completeness only), and the news class's workflow line is "N/A, assign 1.0" without an app
#: trajectory, so skipping the search page costs nothing.
OFFICIALLY_UNJUDGED = {("LateUrgentRouteWithNoticeTask", "wrong channel"),
                       ("SearchTopInfoPreferenceAskUserTask", "wrong page")}


def _oracle_end(task: OfficialPreferenceTask) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The oracle's end state and trace, realized on the state (no phone)."""
    state, trace = task.spec.initial_state(), []
    if task.ask_first:
        trace.append({"action_type": "ask_user", "text": task.ask_first, "user_reply": "as usual"})
    for check in task.oracle_checks:
        check.realize(state, trace)
    return state, trace


def test_the_variants_the_project_templates_cannot_read_use_the_class_rubric() -> None:
    # the 33 variants that used to run on a reference persona's plan, minus the three whose profile the project's
    # template reads once both shops hold the cart, as the official image's do (CartManagement@user,
    # DeleteItemOverBudget@student and @user)
    assert len(rubric_variants()) == 30
    assert {"SearchTopInfoPreferenceAskUserTask@student", "BuyColaPreferenceTask@developer",
            "SetAlarmPreferenceAskUser2Task@grandma", "CommuteRoutingSunnyTask@grandma"} <= set(rubric_variants())


def test_the_oracle_meets_the_rubric_and_every_near_miss_fails() -> None:
    for variant in rubric_variants():
        _check_oracle_and_near_misses(variant)


def _check_oracle_and_near_misses(variant: str) -> None:
    task = _variant(variant)
    final, trace = _oracle_end(task)
    result = task.score_state(final, trace)
    assert is_success(result.score), (variant, result.reason, result.judge)
    assert result.judge is not None and "official rubric" in result.judge.reasoning
    misses = [(label, mutate) for check in task.oracle_checks for label, mutate in check.near_misses()
              if not (isinstance(check, AnswerCheck) and check.keywords == ())
              and (task.official_name, label) not in OFFICIALLY_UNJUDGED]
    assert misses, variant
    for label, mutate in misses:
        state, steps = copy.deepcopy(final), copy.deepcopy(trace)
        mutate(state, steps)
        worse = task.score_state(state, steps)
        assert worse.score < result.score, (variant, label, worse.reason, worse.judge)


def test_search_top_info_mails_kevin_about_the_users_field() -> None:
    task = _variant("SearchTopInfoPreferenceAskUserTask@grandma")
    mail = next(c for c in task.oracle_checks if hasattr(c, "to"))
    assert mail.to == "kevin@example.com" and "weather forecast" in mail.subject
    final, trace = _oracle_end(task)
    final["mail"]["sent"][-1]["to"] = ["zhao.lei@qinc-lab.example.cn"]
    verdict = task.score_state(final, trace).judge
    assert verdict is not None and "recipient 0.00" in verdict.reasoning


def test_the_field_the_official_judge_hint_reads_is_absent_from_every_official_profile() -> None:
    # the official hint reads preferences.hobby.field_of_interest: "unknown" for all four roles
    for role in ("user", "developer", "student", "grandma"):
        doc = load_profile(PROFILES / f"{role}.yaml").to_dict()
        doc = doc.get("user_profile", doc)
        assert rd.get(doc, "preferences.hobby.field_of_interest") is None
    assert rd.field_of_interest(load_profile(PROFILES / "user.yaml").to_dict().get("user_profile", {})) is not None


def test_profile_readers_parse_the_official_wordings() -> None:
    grandma = load_profile(PROFILES / "grandma.yaml").to_dict().get("user_profile", {})
    developer = load_profile(PROFILES / "developer.yaml").to_dict().get("user_profile", {})
    student = load_profile(PROFILES / "student.yaml").to_dict().get("user_profile", {})
    assert rd.platform_credits(grandma, "food") == ({"chilemei": 1.0, "tuantuan": 0.5},
                                                    "preferences.diet.delivery_platform")
    assert rd.platform_credits(developer, "food")[0] == {"tuantuan": 1.0, "chilemei": 0.5}
    assert rd.platform_credits(student, "shop")[0] == {"jingdian": 0.0, "taodian": 1.0}
    assert rd.courier(grandma)[0] == "Zhongtong Express" and rd.courier(developer)[0] == "SF Express"
    assert rd.courier(student) is None
    assert rd.payment(grandma) == ("wechat_pay", "preferences.shopping.payment_method")
    assert rd.negated_words("No black clothes and no one-piece outfits") == ["black", "one-piece"]


def test_the_over_budget_threshold_comes_from_the_profile() -> None:
    task = _variant("DeleteItemOverBudgetPreferenceAskUserTask@grandma")
    prune = task.oracle_checks[0]
    prices = {i["id"]: i["price"] for i in task.spec.initial_state()[prune.app_name]["cart"]}
    # "exceeds 150 yuan": every clothing item above 150, nothing else
    assert set(prune.remove) == {i for i, p in prices.items() if p > 150 and i.startswith("c")}


def test_the_weekend_alarm_follows_the_grandma_habit() -> None:
    task = _variant("SetAlarmPreferenceAskUser2Task@grandma")
    alarm = task.oracle_checks[0]
    assert (alarm.time, alarm.ringtone, alarm.days) == ("06:00", "Krypton", ("Sat", "Sun"))
    final, trace = _oracle_end(task)
    final["clock"]["alarms"][-1]["ringtone"] = "Classic Bell"
    assert task.score_state(final, trace).score < 1.0


def test_an_unstated_dimension_is_not_judged_and_the_reason_says_so() -> None:
    task = _variant("BuyColaPreferenceTask@developer")
    final, trace = _oracle_end(task)
    verdict = task.score_state(final, trace).judge
    assert verdict is not None
    assert "(the profile has no preferences.diet.soft_drinks: only the kind of product judged)" in verdict.reasoning
    final["jingdian"]["orders"][-1]["items"][0]["id"] = "sprite"
    assert task.score_state(final, trace).score < 1.0
