"""Battles between a pool of models, as the arena runs them: a random pair, random sides, anonymous until the vote.

:func:`pick_pair` draws two different models of the pool in random order (the first plays on the left, as
``model_a``); :func:`run_pool_battle` runs them on one task; :func:`run_pending` runs every task submitted to the
store (:meth:`ArenaStore.submit_task`) as a battle of a random pair.  The vote page keeps the two models hidden until
the annotator has voted.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from personal_envs.browserarena.arena.runner import BattleResult, EnvFactory, PolicyFactory, run_battle
from personal_envs.browserarena.arena.store import ArenaStore
from personal_envs.browserarena.arena.submission import SubmissionError, check_submission


def pick_pair(models: Sequence[str], rng: random.Random) -> tuple[str, str]:
    """Two different models in random left / right order."""
    unique = list(dict.fromkeys(models))
    if len(unique) < 2:
        raise ValueError("a battle needs a pool of at least two different models")
    left, right = rng.sample(unique, 2)
    return left, right


def run_pool_battle(make_env: EnvFactory, pool: Mapping[str, PolicyFactory], task_index: int, *,
                    store: ArenaStore, out_dir: str | Path, rng: random.Random, env_id: str = "", seed: int = 0,
                    voter: Any = None, reset_options: dict[str, Any] | None = None) -> BattleResult:
    """One battle of a random pair from ``pool`` on task ``task_index`` (see :func:`run_battle`)."""
    left, right = pick_pair(list(pool), rng)
    return run_battle(make_env, {left: pool[left], right: pool[right]}, task_index, store=store, out_dir=out_dir,
                      env_id=env_id, seed=seed, voter=voter, reset_options=reset_options)


@dataclass(frozen=True)
class PendingFailure:
    """A submitted task that could not run as a battle, and why."""

    task_id: str
    env_id: str
    error: str


def run_pending(store: ArenaStore, pool: Mapping[str, PolicyFactory], make_env: Callable[[str], EnvFactory], *,
                out_dir: str | Path, rng: random.Random, seed: int = 0, limit: int | None = None,
                allowed_origins: Sequence[str] | None = None,
                failures: list[PendingFailure] | None = None) -> list[BattleResult]:
    """Run the store's pending submitted tasks, each as a battle of a random pair from ``pool``.

    ``make_env(env_id)`` returns the env factory for a task's env id; the task text and start URL reach the env
    through ``reset(options={"task", "start_url"})`` (the Open env's custom tasks).  Every task is checked again
    (:func:`~personal_envs.browserarena.arena.submission.check_submission`: a database may hold tasks an older
    version accepted); a task that is refused or whose battle fails is marked ``failed`` with the reason (appended
    to ``failures``) and the next task runs.
    """
    results = []
    for task in store.tasks("pending")[:limit]:
        store.set_task_status(task.task_id, "running")
        try:
            checked = check_submission(task.text, env_id=task.env_id, start_url=task.start_url,
                                       allowed_origins=allowed_origins)
            options: dict[str, Any] = {"task": checked.text, "task_id": task.task_id}
            if checked.start_url:
                options["start_url"] = checked.start_url
            result = run_pool_battle(make_env(task.env_id), pool, 0, store=store, out_dir=out_dir, rng=rng,
                                     env_id=task.env_id, seed=seed, reset_options=options)
        except Exception as exc:  # noqa: BLE001 - one bad task must not stop the others
            error = str(exc) if isinstance(exc, SubmissionError) else f"{type(exc).__name__}: {exc}"
            store.set_task_status(task.task_id, "failed", error=error)
            if failures is not None:
                failures.append(PendingFailure(task.task_id, task.env_id, error))
            continue
        store.set_task_status(task.task_id, "done", result.battle_id)
        results.append(result)
    return results
