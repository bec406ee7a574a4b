"""The deterministic judge written from each class's rubric: it reads the class's facts (Kevin's address, the field
of interest, the courier, the price threshold, the weekend alarm), its oracle meets every judged line through the
UI, and each near miss of the oracle (one goal broken) scores lower, as the rubric says."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import closing
from typing import Any

import pytest
import yaml

from personal_envs.core.task import EpisodeTrace
from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.official.preference import reading as rd
from personal_envs.knowu.official.preference.variants import PreferenceTask, build_variant
from personal_envs.knowu.oracle import Alarm, Prune, Reply
from personal_envs.knowu.state import read_state
from personal_envs.simulators.phone.phone import Phone
from tests.knowu.near_misses import check_near_misses
from tests.knowu.official_preference.release import (
    NEEDS_RELEASE,
    PROFILES,
    RELEASE,
    personas,
    source,
)

pytestmark = NEEDS_RELEASE
RUN_SLOW = os.environ.get("PERSONAL_ENVS_SLOW_TESTS", "1") == "1"

def _variant(variant: str) -> PreferenceTask:
    name, role = variant.split("@")
    return build_variant(source(), name, role, PROFILES / f"{role}.yaml", personas=personas())


def _profile(role: str) -> dict[str, Any]:
    return dict(yaml.safe_load((PROFILES / f"{role}.yaml").read_text(encoding="utf-8"))["user_profile"])


@pytest.fixture(scope="module")
def env() -> Iterator[KnowUEnv]:
    with closing(KnowUEnv(family="personalized", data_dir=str(RELEASE), screenshot=False)) as environment:
        yield environment


def test_every_class_is_judged_by_its_rubric_and_near_misses_fail(env: KnowUEnv) -> None:
    """One variant per class (every variant under the slow tests)."""
    firsts: dict[str, str] = {}
    for task in env.tasks:
        firsts.setdefault(task.task_id.split("@")[0], task.task_id)
    variants = [t.task_id for t in env.tasks] if RUN_SLOW else list(firsts.values())
    checked = sum(check_near_misses(env, v) for v in variants)
    assert len(firsts) == 26 and checked >= 40


def test_search_top_info_mails_kevin_about_the_users_field() -> None:
    task = _variant("SearchTopInfoPreferenceAskUserTask@grandma")
    mail = task.rubric.oracle[-1]
    assert getattr(mail, "to", "") == "kevin@example.com" and "weather forecast" in getattr(mail, "subject", "")


def test_the_field_the_official_judge_hint_reads_is_absent_from_every_official_profile() -> None:
    # the official hint reads preferences.hobby.field_of_interest: "unknown" for all four roles
    for role in ("user", "developer", "student", "grandma"):
        assert rd.get(_profile(role), "preferences.hobby.field_of_interest") is None
    assert rd.field_of_interest(_profile("user")) is not None


def test_profile_readers_parse_the_official_wordings() -> None:
    grandma, developer, student = _profile("grandma"), _profile("developer"), _profile("student")
    assert rd.platform_credits(grandma, "food") == ({"chilemei": 1.0, "tuantuan": 0.5},
                                                    "preferences.diet.delivery_platform")
    assert rd.platform_credits(developer, "food")[0] == {"tuantuan": 1.0, "chilemei": 0.5}  # type: ignore[index]
    assert rd.platform_credits(student, "shop")[0] == {"jingdian": 0.0, "taodian": 1.0}  # type: ignore[index]
    assert rd.courier(grandma)[0] == "Zhongtong Express" and rd.courier(developer)[0] == "SF Express"  # type: ignore[index]
    assert rd.courier(student) is None
    assert rd.payment(grandma) == ("wechat_pay", "preferences.shopping.payment_method")
    assert rd.negated_words("No black clothes and no one-piece outfits") == ["black", "one-piece"]


def test_the_over_budget_threshold_comes_from_the_profile() -> None:
    task = _variant("DeleteItemOverBudgetPreferenceAskUserTask@grandma")
    prune = next(g for g in task.rubric.oracle if isinstance(g, Prune))
    prices = {i["id"]: i["price"] for i in task.world[prune.app]["cart"]}
    # "exceeds 150 yuan": every clothing item above 150, nothing else
    assert set(prune.ids) == {i for i, p in prices.items() if p > 150 and i.startswith("c")}


def test_the_weekend_alarm_follows_the_grandma_habit() -> None:
    alarm = next(g for g in _variant("SetAlarmPreferenceAskUser2Task@grandma").rubric.oracle if isinstance(g, Alarm))
    assert (alarm.time, alarm.ringtone, alarm.days) == ("06:00", "Krypton", ("Sat", "Sun"))


def test_an_unstated_dimension_is_not_judged_and_the_reason_says_so() -> None:
    task = _variant("BuyColaPreferenceTask@developer")
    phone = Phone(now=task.start)
    task.prepare(phone)
    order = task.rubric.oracle[0]
    shop = phone.shop(order.app)  # type: ignore[union-attr]
    from personal_envs.simulators.phone.apps.shop import CartItem, Order

    shop.orders.append(Order("O1", [CartItem(order.item)], "", "", order.address, "alipay", "", 0.0, task.start))  # type: ignore[union-attr]
    value, why = task.rubric.score(read_state(phone, EpisodeTrace()), [])
    assert "(the profile has no preferences.diet.soft_drinks: only the kind of product judged)" in why
    assert value == pytest.approx(1.0)


def test_commute_answers_are_judged_on_the_mode_and_destination() -> None:
    task = _variant("CommuteRoutingBadWeatherTask@user")
    phone = Phone(now=task.start)
    task.prepare(phone)
    reply = next(g for g in task.rubric.oracle if isinstance(g, Reply))
    for text, good in ((reply.text, True), ("Cycle there, it is only a short ride.", False)):
        trace = EpisodeTrace()
        trace.answer = text
        assert (task.rubric.score(read_state(phone, trace), [])[0] > 0.99) is good, text
