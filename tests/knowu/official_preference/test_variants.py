"""The 86 official preference variants: they build, score the official way, and near misses fail as officially."""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from personal_envs.knowu.official.preference.judge import JudgeProtocol, OfficialPreferenceJudge
from personal_envs.knowu.official.preference.variants import (
    MissingProfileField,
    OfficialPreferenceTask,
    build_variant,
)
from personal_envs.llm.client import ChatClient
from personal_envs.llm.testing import ScriptedChatServer
from tests.knowu.official_preference.release import NEEDS_RELEASE, PROFILES, RELEASE, source

pytestmark = NEEDS_RELEASE


def _official_variants() -> list[str]:
    """Class x role as the official registry enumerates them, derived from the files here."""
    roles = sorted(p.stem for p in PROFILES.glob("*.yaml") if p.stem != "template")
    names = []
    for path in sorted((RELEASE / "src/knowu_bench/tasks/definitions/preference").glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("Base"):
                supported = None
                for item in node.body:
                    if isinstance(item, ast.Assign) and any(getattr(t, "id", "") == "supported_profiles"
                                                            for t in item.targets):
                        supported = ast.literal_eval(item.value)
                names += [f"{node.name}@{r}" for r in roles if supported is None or r in supported]
    return sorted(names)


def _build(variant: str, judge: OfficialPreferenceJudge | None = None) -> OfficialPreferenceTask:
    name, role = variant.split("@")
    return build_variant(source(), name, role, PROFILES / f"{role}.yaml", judge=judge)


def _realized(task: OfficialPreferenceTask) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    state, trace = task.spec.initial_state(), []
    if task.ask_first:
        trace.append({"action_type": "ask_user", "text": task.ask_first, "user_reply": "as usual",
                      "user_decision": None})
    for check in task.oracle_checks:
        check.realize(state, trace)
    trace.append({"action_type": "finished"})
    return state, trace


def test_exactly_the_86_official_variants_build() -> None:
    names = source().variant_names("preference")
    assert len(names) == 86
    assert sorted(names) == _official_variants()
    for variant in names:
        task = _build(variant)
        assert task.task_id == variant and task.instruction
        assert task.spec.lam == task.spec.lam  # built with the official lambda table


def test_the_request_is_the_official_text_for_the_role() -> None:
    sunny = _build("CommuteRoutingSunnyTask@grandma").instruction
    assert "地坛公园" in sunny and "{" not in sunny  # the official per-role destination filled in
    privacy = _build("MastodonPrivacyDefaultTestTask@grandma").instruction
    assert "公园散步" in privacy
    assert _build("LateNightCommuteTask@developer").instruction.startswith("It's already 11:30 PM")


def test_a_profile_without_a_needed_field_names_it(tmp_path: Path) -> None:
    document = yaml.safe_load((PROFILES / "student.yaml").read_text(encoding="utf-8"))
    del document["user_profile"]["locations"]["work"]
    path = tmp_path / "newcomer.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    with pytest.raises(MissingProfileField, match=r"user_profile\.locations\.work"):
        build_variant(source(), "CommuteRoutingSunnyTask", "newcomer", path)
    # templates that do not need the field still build for that profile
    assert build_variant(source(), "BuyColaPreferenceTask", "newcomer", path).task_id == "BuyColaPreferenceTask@newcomer"


def test_doing_nothing_fails_as_the_official_check_fails() -> None:
    for variant in source().variant_names("preference"):
        task = _build(variant)
        result = task.score_state(task.spec.initial_state(), [{"action_type": "finished"}])
        if variant in ("HighlightImportantSmsSenderPreferenceAskUserTask@student",
                       "HighlightImportantSmsSenderPreferenceAskUserTask@grandma"):
            assert result.score == 1.0, variant  # not important: leaving it alone is the right call
        elif variant.startswith(("SortFilesByHabit", "LateUrgentRoute")):
            # the Download list stays unsorted; the late notice asks the judge even without a post (official)
            assert result.score < 0.99 and result.base == 0.0, variant
        else:
            assert result.score == 0.0 and result.judge is None, (variant, result)


def _scripted(score: float) -> Iterator[tuple[OfficialPreferenceJudge, ScriptedChatServer]]:
    server = ScriptedChatServer(lambda request: f"<think>judged</think><score>{score}</score>").start()
    try:
        judge = OfficialPreferenceJudge(JudgeProtocol.from_release(RELEASE),
                                        ChatClient(base_url=server.base_url, model="m"))
        yield judge, server
    finally:
        server.close()


def test_with_a_judge_the_official_combinations_hold() -> None:
    for judge, server in _scripted(1.0):
        # the judge alone: a commute plan, with the official rubric filled with the role's destination
        task = _build("LateNightCommuteTask@developer", judge)
        result = task.score_state(task.spec.initial_state(), [{"action_type": "answer", "text": "Take a taxi."}])
        assert (result.score, result.judge.kind if result.judge else None) == (1.0, "llm")
        prompt = server.requests[-1]["messages"][1]["content"]
        address = task.user_doc["locations"]["home"]["address"]
        assert f"Does the route go from the origin to {address}?" in prompt
        assert task.persona in prompt and task.instruction in prompt

        # highlight: min(base, 0.4 base + 0.6 judge): the contact saved without the star caps at 0.5
        task = _build("HighlightImportantSmsSenderPreferenceAskUserTask@developer", judge)
        state, trace = _realized(task)
        for contact in state["contacts"]["contacts"]:
            contact["highlighted"] = False
        assert task.score_state(state, trace).score == pytest.approx(0.5)
        # ... and highlighting a non-important sender scores 0 without asking the judge
        task = _build("HighlightImportantSmsSenderPreferenceAskUserTask@student", judge)
        state = task.spec.initial_state()
        state["contacts"]["contacts"].append({"name": "x", "phone": task.values["sender_phone"], "email": "",
                                              "note": "", "highlighted": True})
        result = task.score_state(state, [])
        assert result.score == 0.0 and result.judge is None

        # sort files: a wrong sort caps the judge at 0.5; asking earns 0.2 of the base
        task = _build("SortFilesByHabitPreferenceAskUserTask@grandma", judge)
        state, trace = _realized(task)
        state["files"]["view"].update(sort_key="size", sort_order="desc")
        result = task.score_state(state, trace)
        assert result.base == pytest.approx(0.2) and result.score == pytest.approx(0.4 * 0.2 + 0.6 * 0.5)
        state, trace = _realized(task)
        assert task.score_state(state, trace[1:]).score == pytest.approx(0.4 * 0.8 + 0.6)

        # the Mastodon photo: the image part is 0.6; a toot without the photo keeps only 0.4 * judge
        task = _build("MastodonSharePhotosPreferenceAskUserTask@student", judge)
        state, trace = _realized(task)
        assert task.score_state(state, trace).score == pytest.approx(1.0)
        assert server.requests[-1]["messages"][1]["content"][1]["type"] == "image_url"  # the photo is sent
        state["mastodon"]["posts"][-1]["media"] = []
        assert task.score_state(state, trace).score == pytest.approx(0.4)

        # photo mail: a wrong recipient keeps the attachment's 0.2 and the judge part
        task = _build("ShareFavoritePhotosPreferenceAskUserTask@user", judge)
        state, trace = _realized(task)
        state["mail"]["sent"][-1]["to"] = ["someone@example.com"]
        assert task.score_state(state, trace).score == pytest.approx(0.2 + 0.6)

        # late with notice: no Mattermost post keeps only 0.7 * judge
        task = _build("LateUrgentRouteWithNoticeTask@user", judge)
        result = task.score_state(task.spec.initial_state(), [{"action_type": "answer", "text": "Taxi now."}])
        assert result.score == pytest.approx(0.7)

        # lunch: 0.5 + 0.5 * judge
        task = _build("OrderLunchPreferenceTask@developer", judge)
        state, trace = _realized(task)
        assert task.score_state(state, trace).score == pytest.approx(1.0)


def test_without_an_endpoint_the_fallback_is_labelled_and_misses_fail() -> None:
    succeeded = 0
    for variant in source().variant_names("preference"):
        task = _build(variant)
        state, trace = _realized(task)
        result = task.score_state(state, trace)
        assert result.judge is not None and result.judge.kind == "fallback", variant
        succeeded += result.score > 0.99
        if result.score > 0.99 and task.fallback_checks:
            # a profile-aware miss: the project's preference checks break, the official action still happens
            for check in task.fallback_checks:
                for label, mutate in check.near_misses():
                    broken_state, broken_trace = copy.deepcopy(state), copy.deepcopy(trace)
                    mutate(broken_state, broken_trace)
                    broken = task.score_state(broken_state, broken_trace)
                    assert broken.score < 0.99, (variant, label)
    assert succeeded >= 53


#: Apps the official setup seeds per role (the SMS sender, Mom, the user's own photo, the Download files).
PER_ROLE_APPS = {"HighlightImportantSmsSenderPreferenceAskUserTask": {"messages", "contacts"},
                 "MessagesAskMomForMoneyTask": {"contacts", "messages"},
                 "ShareFavoritePhotosPreferenceAskUserTask": {"gallery"},
                 "MastodonSharePhotosPreferenceAskUserTask": {"gallery"}}


def test_the_world_does_not_depend_on_the_hidden_profile() -> None:
    worlds: dict[str, dict[str, Any]] = {}
    for variant in source().variant_names("preference"):
        name, role = variant.split("@")
        state = _build(variant).spec.initial_state()
        shared = {app: value for app, value in state.items() if app not in PER_ROLE_APPS.get(name, set())}
        if name in worlds:
            assert shared == worlds[name], variant  # same apps and contents for every role
        worlds[name] = shared
    # the official per-role seeding: the important-SMS sender differs by role, as in the official scenarios
    senders = {_build(f"HighlightImportantSmsSenderPreferenceAskUserTask@{r}").spec.initial_state()["messages"][
        "threads"][0]["number"] for r in ("developer", "student", "user", "grandma")}
    assert len(senders) == 4
