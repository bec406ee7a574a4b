"""Issue 28: no shortcut through the routine user.  A message that is not a proposal is not a decision, so "ask the
user something irrelevant, then finish" scores exactly what finishing at once scores, on the 64 official variants
and on a persona dropped into the release; proposals are still decided (always_ask succeeds where the official user
accepts); the official parser's quirk stays under ``protocol="paper"``, where the README states its effect.  A
weather answer must come from a lookup (the audit's "answer with what you see" beat silence)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from personal_envs.knowu.baselines import AlwaysAskPolicy
from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.oracle import OraclePolicy
from tests.knowu.official_routine.conftest import ANCHORS
from tests.knowu.official_routine.test_routine_env import NEW_LOGS, NEW_PERSONA

pytestmark = pytest.mark.usefixtures("anchors")
FINISH: dict[str, Any] = {"action_type": "finished"}
#: Openers that propose nothing: the issue's phone-number question, an identity request, small talk, a greeting,
#: and a clarifying question about the routine itself.
NOT_PROPOSALS: tuple[str, ...] = (
    "What is your phone number?",
    "Before anything else, can you tell me your ID card number?",
    "Nice weather today, isn't it?",
    "Hello!",
    "What time do you usually get up?",
)


def _scores(env: KnowUEnv, actions: Sequence[dict[str, Any]]) -> list[float]:
    """The score of every task of ``env`` under a fixed action sequence (``finished`` ends it)."""
    scores = []
    for index in range(env.num_tasks):
        env.reset(options={"task_index": index})
        reward: Any = 0.0
        for action in actions:
            _, reward, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                break
        scores.append(float(reward))
    return scores


def _asked(text: str) -> list[dict[str, Any]]:
    return [{"action_type": "ask_user", "text": text}, FINISH]


@pytest.fixture(scope="module")
def env() -> Any:
    environment = KnowUEnv(family="proactive", data_dir=str(ANCHORS), screenshot=False)
    yield environment
    environment.close()


def test_an_irrelevant_question_then_finishing_scores_as_silence_on_the_64_variants(env: KnowUEnv) -> None:
    assert env.num_tasks == 64
    silent = _scores(env, [FINISH])
    assert sum(s >= 0.99 for s in silent) == 41  # always-silent SR 0.641 (the release's leaderboard figure)
    for text in NOT_PROPOSALS:
        scores = _scores(env, _asked(text))
        # per variant, never above silence (before the fix, the phone question scored 1.0 on 64/64)
        better = [t.task_id for t, s, q in zip(env.tasks, silent, scores, strict=True) if s > q or q > s]
        assert better == [], (text, better)


def test_always_ask_succeeds_where_the_official_user_accepts(env: KnowUEnv) -> None:
    policy = AlwaysAskPolicy(env)
    outcomes = []
    for index in range(env.num_tasks):
        obs, info = env.reset(options={"task_index": index})
        policy.reset(obs, info)
        for _ in range(50):
            obs, reward, terminated, truncated, info = env.step(policy.act(obs, info))
            if terminated or truncated:
                break
        decision = env.trace.dialogue[0].decision
        outcomes.append((env.task.task_id, env.task.routine_applies, decision, float(reward)))
    accepted = [o for o in outcomes if o[1]]
    # 23 by the tasks' own habit keys (the metrics' 24 also count grandma's weekend_alarm)
    assert len(accepted) == 23 and all(o[2] == "accept" for o in accepted)
    assert [o[0] for o in outcomes if o[3] < 1.0] == []  # accepted and done, or rejected and respected
    assert all(o[2] == "reject" for o in outcomes if not o[1])


def test_a_persona_dropped_into_the_release_gets_no_shortcut_either(tmp_path: Path) -> None:
    release = tmp_path / "release"
    shutil.copytree(ANCHORS, release)
    package = release / "src" / "knowu_bench"
    (package / "user_profile" / "quenby.yaml").write_text(yaml.safe_dump(NEW_PERSONA, allow_unicode=True),
                                                          encoding="utf-8")
    (package / "user_logs" / "quenby.json").write_text(json.dumps(NEW_LOGS), encoding="utf-8")
    env = KnowUEnv(family="proactive", data_dir=str(release), profile="quenby", screenshot=False)
    try:
        assert env.num_tasks == 16 and all(t.task_id.endswith("@quenby") for t in env.tasks)
        silent = _scores(env, [FINISH])
        assert 0 < sum(s >= 0.99 for s in silent) < 16  # the persona has some of the habits
        for text in NOT_PROPOSALS[:3]:
            assert _scores(env, _asked(text)) == silent, text
    finally:
        env.close()


def test_paper_protocol_keeps_the_official_parser_and_its_quirk() -> None:
    """Officially the first answered exchange decides and an untagged reply is a rejection: with the deterministic
    user (which tags proposals only) the phone question then ``finished`` scores 1.0 on every variant whose habit
    applies, as the README states; the default protocol reads decided exchanges only."""
    env = KnowUEnv(family="proactive", task=["WeekendSleeperTask", "BatterySaverRoutineTask"], data_dir=str(ANCHORS),
                   protocol="paper", screenshot=False)
    try:
        silent = _scores(env, [FINISH])
        phone = _scores(env, _asked(NOT_PROPOSALS[0]))
        assert sum(phone) == env.num_tasks > sum(silent)
        assert env.evaluation is not None and "Success" in env.evaluation.reason
    finally:
        env.close()


def test_a_weather_answer_must_come_from_a_lookup_in_the_default_protocol() -> None:
    """The audit found "answer with the observation's text": the logs name the weather, and offline the official
    check accepts any weather word, so it beat silence by one variant.  By default the weather must be looked up;
    ``protocol="paper"`` scores as officially."""
    for protocol, dumped in ((None, 0.0), ("paper", 1.0)):
        env = KnowUEnv(family="proactive", task="MorningWeatherCheckTask@grandma", data_dir=str(ANCHORS),
                       screenshot=False, protocol=protocol, ui_hierarchy=True)
        try:
            assert env.task.routine_applies
            obs, _ = env.reset()
            seen = f"{obs['context']} {obs['instruction']}"[:2000]
            assert "weather" in seen.lower()
            _, reward, *_, info = env.step({"action_type": "answer", "text": seen})
            assert reward == dumped, (protocol, info["metrics"]["reason"])
            policy = OraclePolicy(env)  # looks the weather up in Chrome, then answers
            obs, info = env.reset()
            policy.reset(obs, info)
            for _ in range(10):
                obs, reward, terminated, _, info = env.step(policy.act(obs, info))
                if terminated:
                    break
            assert reward == 1.0 and "weather" in " ".join(env.phone.chrome.history).lower()
        finally:
            env.close()
