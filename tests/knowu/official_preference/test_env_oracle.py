"""Official preference variants in ``KnowU-Personalized-v0`` with the release as data directory: the oracle through
the phone's UI, the record's labels, and no answer key in what the agent sees."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import closing

import pytest

from personal_envs.knowu.env import KnowUEnv
from tests.knowu.helpers import run_oracle
from tests.knowu.official_preference.release import NEEDS_RELEASE, RELEASE

pytestmark = NEEDS_RELEASE
RUN_SLOW = os.environ.get("PERSONAL_ENVS_SLOW_TESTS", "1") == "1"
#: One variant per app family (shop, SMS + contacts, files, Mastodon photo, mail photo, Mattermost, food).
SAMPLE = ("BuyColaPreferenceTask@student", "HighlightImportantSmsSenderPreferenceAskUserTask@developer",
          "SortFilesByHabitPreferenceAskUserTask@grandma", "MastodonSharePhotosPreferenceAskUserTask@student",
          "ShareFavoritePhotosPreferenceAskUserTask@user", "MattermostLeaveNoticeTask@student",
          "OrderLunchTradeoffTask@grandma")
#: Variants the oracle completes through the UI with the deterministic fallback judge: all of them.
ORACLE_SUCCESSES = 86


@pytest.fixture(scope="module")
def env() -> Iterator[KnowUEnv]:
    with closing(KnowUEnv(family="personalized", data_dir=str(RELEASE), screenshot=False)) as environment:
        yield environment


def test_the_split_is_the_86_official_variants(env: KnowUEnv) -> None:
    assert env.num_tasks == 86
    assert env.tasks[0].task_set == "KnowU-Bench 0dd7989"


def test_the_oracle_succeeds_through_the_ui_on_a_sample(env: KnowUEnv) -> None:
    for variant in SAMPLE:
        info = run_oracle(env, variant)
        metrics = info["metrics"]
        assert metrics["success"], (variant, info.get("reason"))
        assert metrics["judge"] == "fallback" and metrics["task_set"] == "KnowU-Bench 0dd7989"
        assert metrics["official_task"] == variant and metrics["rule_score"] > 0


@pytest.mark.skipif(not RUN_SLOW, reason="the oracle on all 86 variants takes minutes; PERSONAL_ENVS_SLOW_TESTS=0 "
                                         "skips it")
def test_the_oracle_on_every_variant(env: KnowUEnv) -> None:
    succeeded = 0
    for task in env.tasks:
        info = run_oracle(env, task.task_id)
        metrics = info["metrics"]
        # the official rule base is reached everywhere (the commutes are scored by the judge alone)
        assert metrics["rule_score"] > 0 or metrics["combination"] == "judge", task.task_id
        succeeded += bool(metrics["success"])
    assert succeeded == ORACLE_SUCCESSES


@pytest.mark.skipif(not RUN_SLOW, reason="the oracle on all 86 variants takes minutes; PERSONAL_ENVS_SLOW_TESTS=0 "
                                         "skips it")
def test_with_a_judge_that_agrees_the_oracle_succeeds_on_all_86() -> None:
    from personal_envs.knowu.official.preference.judge import JudgeProtocol, OfficialPreferenceJudge
    from personal_envs.llm.client import ChatClient
    from personal_envs.llm.testing import ScriptedChatServer

    with ScriptedChatServer(lambda request: "<think>matches</think><score>1.0</score>") as server:
        judge = OfficialPreferenceJudge(JudgeProtocol.from_release(RELEASE),
                                        ChatClient(base_url=server.base_url, model="m"))
        with closing(KnowUEnv(family="personalized", data_dir=str(RELEASE), screenshot=False,
                              judge=judge)) as environment:
            results = [run_oracle(environment, task.task_id)["metrics"] for task in environment.tasks]
        assert len(server.requests) == 86
    assert sum(1 for m in results if m["success"]) == 86
    assert {m["judge"] for m in results} == {"llm"}
