"""Head-to-head battles: two policies run the same task in separate browser contexts, in parallel.

:func:`run_side` runs one policy through one episode and returns its trace (JSON-ready, with the policy's name,
score and metrics) and its labelled screenshots; :func:`run_battle` runs both sides on two threads, writes
``<out_dir>/<battle_id>/{a,b}.json`` and ``{a,b}.gif``, stores the battle in the :class:`ArenaStore` and, when a
voter is given, asks it for the vote.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from personal_envs.browserarena.arena.gif import step_captions, write_gif
from personal_envs.browserarena.arena.store import ArenaStore, BattleRecord
from personal_envs.core.recorder import write_json_atomic
from personal_envs.policies.base import Policy

EnvFactory = Callable[[], gym.Env[Any, Any]]
PolicyFactory = Callable[[gym.Env[Any, Any]], Policy]


@dataclass
class SideResult:
    """One side of a battle."""

    model: str
    trace: dict[str, Any]
    frames: list[np.ndarray] = field(default_factory=list)
    score: float = 0.0
    error: str = ""


def run_side(make_env: EnvFactory, make_policy: PolicyFactory, model: str, task_index: int, *,
             seed: int = 0, reset_options: dict[str, Any] | None = None) -> SideResult:
    """Run one episode of ``model`` (a policy) on task ``task_index``; the env is closed afterwards."""
    env = make_env()
    try:
        policy = make_policy(env)
        policy.attach(env.unwrapped)
        obs, info = env.reset(seed=seed, options={"task_index": task_index, **(reset_options or {})})
        policy.reset(obs, info)
        score, done = 0.0, False
        while not done:
            action = policy.act(obs, info)
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
            if done:
                score = float(info.get("score", reward))
        base = env.unwrapped
        trace = dict(getattr(base, "browser_trace", {}))
        trace.update({"model": model, "score": score, "metrics": _jsonable_metrics(info.get("metrics", {}))})
        frames = list(getattr(base, "frames", []))
        return SideResult(model, trace, frames, score)
    except Exception as exc:  # a crashing policy loses the battle but must not take the arena down
        return SideResult(model, {"model": model, "error": f"{type(exc).__name__}: {exc}", "steps": []},
                          error=f"{type(exc).__name__}: {exc}")
    finally:
        env.close()


def _jsonable_metrics(metrics: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in metrics.items() if k != "trace_summary"}


@dataclass
class BattleResult:
    """A finished battle."""

    battle_id: str
    side_a: SideResult
    side_b: SideResult
    record: BattleRecord


def run_battle(
    make_env: EnvFactory,
    policies: Mapping[str, PolicyFactory],
    task_index: int,
    *,
    store: ArenaStore,
    out_dir: str | Path,
    env_id: str = "",
    seed: int = 0,
    voter: Any = None,
    reset_options: dict[str, Any] | None = None,
) -> BattleResult:
    """Run the two ``policies`` (``{model name: factory}``, in left/right order) on one task, in parallel.

    Returns the battle; it is stored in ``store`` and, if ``voter`` is given, already voted on.
    """
    if len(policies) != 2:
        raise ValueError("a battle needs exactly two policies")
    (model_a, factory_a), (model_b, factory_b) = policies.items()
    battle_id = uuid.uuid4().hex[:12]
    folder = Path(out_dir) / battle_id
    folder.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="arena-side") as pool:
        future_a = pool.submit(run_side, make_env, factory_a, model_a, task_index, seed=seed,
                               reset_options=reset_options)
        future_b = pool.submit(run_side, make_env, factory_b, model_b, task_index, seed=seed,
                               reset_options=reset_options)
        side_a, side_b = future_a.result(), future_b.result()
    paths: dict[str, str] = {}
    for tag, side in (("a", side_a), ("b", side_b)):
        trace_path, gif_path = folder / f"{tag}.json", folder / f"{tag}.gif"
        write_json_atomic(trace_path, side.trace, indent=1)
        write_gif(side.frames, gif_path, captions=step_captions(side.trace))
        paths[f"trace_{tag}"], paths[f"gif_{tag}"] = str(trace_path), str(gif_path)
    task_text = str(side_a.trace.get("task") or side_b.trace.get("task") or "")
    task_id = str(side_a.trace.get("task_id") or side_b.trace.get("task_id") or task_index)
    record = BattleRecord(
        battle_id=battle_id, env_id=env_id, task_id=task_id, task_text=task_text, model_a=model_a, model_b=model_b,
        created=time.time(), extra={"score_a": side_a.score, "score_b": side_b.score, "error_a": side_a.error,
                                    "error_b": side_b.error}, **paths,
    )
    store.add_battle(record)
    if voter is not None:
        vote = voter.vote(record, side_a.trace, side_b.trace)
        store.record_vote(battle_id, vote.winner, vote.voter, vote.reason, source=vote.source)
        record = store.battle(battle_id)
    return BattleResult(battle_id, side_a, side_b, record)
