"""Temporary guard of the move to one reader of phone state (``personal_envs.knowu.state``): every official variant
scores its untouched, oracle and always-act end states exactly as it did before (same score, same reason).

``state_golden.json`` holds a SHA-256 per (variant, scenario) of ``"<score>|<reason>"`` recorded with the old
readers (no official text is stored).  ``PERSONAL_ENVS_RECORD_STATE=1`` rewrites it.
"""

from __future__ import annotations

import hashlib
import json
import os
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from personal_envs.core.task import EpisodeTrace
from personal_envs.knowu.baselines import AlwaysActPolicy
from personal_envs.knowu.env import KnowUEnv
from personal_envs.simulators.phone.phone import Phone
from tests.knowu.helpers import run_oracle, task_index

GOLDEN = Path(__file__).with_name("state_golden.json")
RECORD = os.environ.get("PERSONAL_ENVS_RECORD_STATE") == "1"


def _digest(score: float, reason: str) -> str:
    return hashlib.sha256(f"{score:.6f}|{reason}".encode()).hexdigest()[:16]


def _always_act(env: KnowUEnv, task_id: str) -> dict[str, Any]:
    policy = AlwaysActPolicy(env)
    obs, info = env.reset(options={"task_index": task_index(env, task_id)})
    policy.reset(obs, info)
    for _ in range(env.max_steps):
        obs, _, terminated, truncated, info = env.step(policy.act(obs, info))
        if terminated or truncated:
            break
    return info


def outcomes(official_dir: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for split in ("general", "personalized", "proactive"):
        with closing(KnowUEnv(split=split, data_dir=str(official_dir), screenshot=False,
                              share_browser=True)) as env:
            for task in env.tasks:
                phone = Phone(now=task.start)
                task.prepare(phone)
                verdict = task.verify(phone, EpisodeTrace())
                found[f"{task.task_id}|untouched"] = _digest(verdict.score, verdict.reason)
                info = run_oracle(env, task.task_id)
                found[f"{task.task_id}|oracle"] = _digest(info["score"], info["metrics"]["reason"])
                if split == "proactive":
                    info = _always_act(env, task.task_id)
                    found[f"{task.task_id}|always_act"] = _digest(info["score"], info["metrics"]["reason"])
    return found


def test_every_variant_scores_its_end_states_as_before(official_dir: Path) -> None:
    found = outcomes(official_dir)
    if RECORD:
        GOLDEN.write_text(json.dumps(found, indent=0, sort_keys=True) + "\n", encoding="utf-8")
        pytest.skip("recorded")
    expected = json.loads(GOLDEN.read_text(encoding="utf-8"))
    changed = sorted(k for k in expected if found.get(k) != expected[k])
    assert len(found) == len(expected) == 42 * 2 + 86 * 2 + 64 * 3 and not changed, changed[:20]
