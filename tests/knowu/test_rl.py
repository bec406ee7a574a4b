"""The KnowU-Proactive decision for RL (personal_envs/knowu/rl.py): fixed slots on the real env, features from what
the agent sees only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import personal_envs  # noqa: F401  (registers the ids)
from personal_envs.knowu.rl import (
    BEHAVIOURS,
    DECISION_SLOTS,
    ProactiveFeatures,
    make_candidates,
    parse_goal,
    trigger_text,
    user_decision,
)
from personal_envs.wrappers.rl import make_rl_env

ASK, FINISH, ACT = DECISION_SLOTS.index("ask_user"), DECISION_SLOTS.index("finished"), DECISION_SLOTS.index("act")


def _embed(texts: list[str]) -> np.ndarray:
    """A deterministic stand-in for MiniLM in the parsing tests: hashed bag of words, L2-normalised."""
    rows = np.zeros((len(texts), 384), np.float32)
    for row, text in zip(rows, texts, strict=True):
        for word in text.lower().split():
            row[hash(word) % 384] += 1.0
    return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)


@pytest.fixture(scope="module")
def official_env(official_dir: Path) -> Any:
    env = gym.make("KnowU-Proactive-v0", data_dir=str(official_dir), render="text")
    yield env
    env.close()


def _index(env: Any, task_id: str) -> int:
    ids = [task.task_id for task in env.unwrapped.tasks]
    return ids.index(task_id)


def _rl(env: Any) -> Any:
    return make_rl_env(env, provider=make_candidates(env), max_actions=3, features=ProactiveFeatures(embed=_embed))


def test_the_goal_is_parsed_into_log_entries_and_status_lines(official_env: Any) -> None:
    observation, _ = official_env.reset(options={"task_index": _index(official_env, "BatterySaverRoutineTask@developer")})
    entries, status = parse_goal(observation["instruction"])
    assert len(entries) == observation["instruction"].count("\n- [")
    assert status == ["System Status: Battery Level 15%"]
    assert all(not e.behaviour.startswith(("(", "At ")) for e in entries)  # place and clock time stripped
    assert min(e.minute for e in entries) >= 0 and max(e.minute for e in entries) < 1440
    assert trigger_text(status, observation["context"]) == "It is Friday 12:00. Battery 15%. " + status[0]
    assert user_decision("<think>x</think>\n<decision>Accept</decision>") == "accept"
    assert user_decision("Which alarm do you mean?") is None


def test_features_read_only_the_instruction_context_and_reply(official_env: Any) -> None:
    features = ProactiveFeatures(embed=_embed)
    assert features.dim == 384 + 6 + 8 + 5 * len(BEHAVIOURS) + 3
    observation, _ = official_env.reset(options={"task_index": 0})
    vector = features(observation)
    assert vector.shape == (features.dim,) and np.all(np.abs(vector) <= 1.0)
    visible = {key: observation[key] for key in ("instruction", "context", "user_reply")}
    assert np.array_equal(features(visible), vector)
    other, _ = official_env.reset(options={"task_index": 1})
    assert not np.array_equal(features(other), vector)
    replied = features({**visible, "user_reply": "<decision>reject</decision>"})
    assert replied[-3:].tolist() == [1.0, 0.0, 1.0] and np.array_equal(replied[:-3], vector[:-3])


def _play(env: Any, task_id: str, slots: list[int]) -> tuple[float, list[list[bool]]]:
    observation, info = env.reset(options={"task_index": _index(env.unwrapped, task_id)})
    masks, reward, done = [], 0.0, False
    for slot in slots:
        masks.append(env.action_masks().tolist())
        observation, reward, terminated, truncated, info = env.step(slot)
        done = terminated or truncated
        if done:
            break
    while not done:  # a committed act runs to its end through the act slot
        masks.append(env.action_masks().tolist())
        assert masks[-1] == [False, False, True]
        observation, reward, terminated, truncated, info = env.step(ACT)
        done = terminated or truncated
    return float(info["score"]), masks


def test_the_decision_slots_drive_the_real_episode(official_env: Any) -> None:
    env = _rl(official_env)
    # habit applies, autonomous routine: acting succeeds, staying silent fails
    score, masks = _play(env, "BatterySaverRoutineTask@developer", [ACT])
    assert score == 1.0 and masks[0] == [True, True, True] and len(masks) >= 3
    assert _play(env, "BatterySaverRoutineTask@developer", [FINISH])[0] == 0.0
    # asking: the user accepts (habit) and the act follows; asked once, the question is not offered again
    score, masks = _play(env, "BatterySaverRoutineTask@developer", [ASK, ACT])
    assert score == 1.0 and masks[1] == [True, False, True]
    # no habit: acting fails, the user rejects the proposal and stopping scores
    assert _play(env, "BirthdayWishTask@developer", [ACT])[0] == 0.0
    observation, _ = env.reset(options={"task_index": _index(official_env, "BirthdayWishTask@developer")})
    observation, _, done, _, _ = env.step(ASK)
    assert not done and observation[-2:].tolist() == [0.0, 1.0]  # the reply's decision: rejected
    _, reward, done, _, info = env.step(FINISH)
    assert done and info["score"] == 1.0


def test_the_rl_env_passes_sb3_check_env(official_env: Any) -> None:
    from stable_baselines3.common.env_checker import check_env

    check_env(_rl(official_env), warn=False)
