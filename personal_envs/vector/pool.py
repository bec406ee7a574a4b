"""Envs in worker processes that step at their own pace: :class:`EnvPool`.

Gymnasium's ``AsyncVectorEnv`` steps its envs in lockstep: each vector step waits for the slowest env. The text-mode
web envs have steps of very unequal cost (a step that loads a new page costs about ten times one that does not), so
on few cores the lockstep leaves cores idle and the throughput hardly grows with the number of envs. An
``EnvPool`` returns the first ``batch_size`` envs that have finished their step, with their ids; the caller sends
those envs their next actions while the others are still working (the asynchronous interface of EnvPool, Weng et
al. 2022). With ``batch_size == num_envs`` it is a lockstep vector env.

Episodes reset the Gymnasium 1.x way (next-step autoreset): the step after an episode ended resets that env,
ignores the action sent, and returns the first observation of the new episode with reward 0.

Example::

    pool = EnvPool.make("WebMall-v0", num_envs=4, batch_size=2, render="text")
    pool.async_reset(seed=0)
    while training:
        obs, rewards, terminated, truncated, infos, env_ids = pool.recv()
        pool.send(policy(obs), env_ids)
    pool.close()
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import os
import traceback
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium.vector.utils import concatenate, create_empty_array

#: What a worker answers: ``(env id, observation, reward, terminated, truncated, info)``.
Result = tuple[int, Any, float, bool, bool, dict[str, Any]]


class PoolError(RuntimeError):
    """An env of the pool raised, or its worker process died."""


def _worker(env_fn: Callable[[], gym.Env], index: int, pipe: Connection, parent_pid: int) -> None:
    """Worker process: one env; answers ``reset``/``step`` commands until ``close`` (or the parent is gone)."""
    from personal_envs.runner import die_with_parent

    die_with_parent(parent_pid)
    import personal_envs  # noqa: F401  (registers the ids in a spawned process)

    env: gym.Env | None = None
    needs_reset = False
    try:
        env = env_fn()
        pipe.send(("ready", (env.observation_space, env.action_space)))
        while True:
            command, payload = pipe.recv()
            if command == "close":
                break
            try:
                if command == "reset" or needs_reset:
                    seed, options = payload if command == "reset" else (None, None)
                    observation, info = env.reset(seed=seed, options=options)
                    reward: SupportsFloat = 0.0
                    terminated, truncated = False, False
                else:
                    observation, reward, terminated, truncated, info = env.step(payload)
                needs_reset = bool(terminated or truncated)
                pipe.send(("ok", (index, observation, float(reward), bool(terminated), bool(truncated), info)))
            except Exception as exc:  # noqa: BLE001 - reported to the caller, which raises PoolError
                pipe.send(("error", (index, f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}")))
    except (EOFError, KeyboardInterrupt, BrokenPipeError):
        pass
    except Exception as exc:  # noqa: BLE001 - the env could not be built
        pipe.send(("error", (index, f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}")))
    finally:
        if env is not None:
            env.close()
        pipe.close()


class EnvPool:
    """``num_envs`` envs in worker processes; :meth:`recv` returns the first ``batch_size`` that finished.

    Args:
        env_fns: One picklable function per env that builds it (``functools.partial(gym.make, id, **kwargs)``;
            :meth:`make` builds these).
        batch_size: How many finished envs :meth:`recv` waits for (``1 <= batch_size <= num_envs``; default all).
        context: The ``multiprocessing`` start method (``"spawn"``, ``"fork"``, ``"forkserver"``; default the
            platform's).
    """

    def __init__(self, env_fns: Sequence[Callable[[], gym.Env]], batch_size: int | None = None,
                 context: str | None = None) -> None:
        if not env_fns:
            raise ValueError("an EnvPool needs at least one env")
        self.num_envs = len(env_fns)
        self.batch_size = self.num_envs if batch_size is None else int(batch_size)
        if not 1 <= self.batch_size <= self.num_envs:
            raise ValueError(f"batch_size must be between 1 and num_envs={self.num_envs}, got {batch_size}")
        ctx: Any = multiprocessing.get_context(context)
        self._pipes: list[Connection] = []
        self._processes: list[Any] = []
        self._busy: set[int] = set()
        self._sent_at: dict[int, int] = {}  # when each working env was sent its command (a counter)
        self._sends = 0
        self._closed = False
        for index, env_fn in enumerate(env_fns):
            parent_end, child_end = ctx.Pipe()
            process = ctx.Process(target=_worker, args=(env_fn, index, child_end, os.getpid()),
                                  name=f"personal-envs-pool-{index}", daemon=True)
            process.start()
            child_end.close()
            self._pipes.append(parent_end)
            self._processes.append(process)
        spaces = [self._answer(index) for index in range(self.num_envs)]
        self.single_observation_space, self.single_action_space = spaces[0]

    @classmethod
    def make(cls, env_id: str, num_envs: int, batch_size: int | None = None, context: str | None = None,
             **kwargs: Any) -> EnvPool:
        """A pool of ``num_envs`` ``gym.make(env_id, **kwargs)`` envs."""
        return cls([functools.partial(gym.make, env_id, **kwargs) for _ in range(num_envs)], batch_size, context)

    @property
    def processes(self) -> list[Any]:
        """The worker processes, one per env (in env-id order)."""
        return list(self._processes)

    def async_reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Reset every env (env ``i`` with ``seed + i`` when a seed is given); the results come from :meth:`recv`."""
        self._check_open()
        if self._busy:
            raise ValueError(f"envs {sorted(self._busy)} are still working; recv() their results first")
        for index, pipe in enumerate(self._pipes):
            pipe.send(("reset", (None if seed is None else seed + index, options)))
            self._mark_busy(index)

    def send(self, actions: Sequence[Any], env_ids: Sequence[int] | np.ndarray) -> None:
        """Send each env of ``env_ids`` its action (envs whose results :meth:`recv` returned, and only those)."""
        self._check_open()
        ids = [int(env_id) for env_id in env_ids]
        if len(ids) != len(actions):
            raise ValueError(f"{len(actions)} actions for {len(ids)} env ids")
        if len(set(ids)) != len(ids):
            raise ValueError(f"env ids repeat: {ids}")
        for env_id in ids:
            if not 0 <= env_id < self.num_envs:
                raise ValueError(f"no env {env_id} in a pool of {self.num_envs}")
            if env_id in self._busy:
                raise ValueError(f"env {env_id} is still working on its last action; recv() its result first")
        for env_id, action in zip(ids, actions, strict=True):
            self._pipes[env_id].send(("step", action))
            self._mark_busy(env_id)

    def recv(self) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]], np.ndarray]:
        """Wait for ``batch_size`` envs to finish: ``(observations, rewards, terminated, truncated, infos,
        env_ids)``, observations batched as a vector env batches them (in the order of ``env_ids``)."""
        self._check_open()
        if len(self._busy) < self.batch_size:
            raise ValueError(f"only {len(self._busy)} envs are working, fewer than batch_size={self.batch_size}")
        results: list[Result] = []
        while len(results) < self.batch_size:
            ready = wait([self._pipes[index] for index in self._busy])
            # of the envs that are done, those sent their command first answer first: none waits for ever
            for index in sorted((self._pipes.index(pipe) for pipe in ready),  # type: ignore[arg-type]
                                key=self._sent_at.__getitem__)[:self.batch_size - len(results)]:
                results.append(self._answer(index))
                self._busy.discard(index)
        # a new batch each time: what an earlier recv() returned stays as it was (a rollout buffer may hold it)
        batch: Any = create_empty_array(self.single_observation_space, n=len(results))
        observations = concatenate(self.single_observation_space, [r[1] for r in results], batch)
        return (observations, np.array([r[2] for r in results], dtype=np.float64),
                np.array([r[3] for r in results], dtype=bool), np.array([r[4] for r in results], dtype=bool),
                [r[5] for r in results], np.array([r[0] for r in results], dtype=np.int64))

    def close(self) -> None:
        """Stop the workers (their envs are closed); idempotent."""
        if self._closed:
            return
        self._closed = True
        for pipe in self._pipes:
            with contextlib.suppress(BrokenPipeError, OSError):
                pipe.send(("close", None))
        for process in self._processes:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
                process.join()
        for pipe in self._pipes:
            pipe.close()

    def __enter__(self) -> EnvPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _mark_busy(self, index: int) -> None:
        self._busy.add(index)
        self._sent_at[index] = self._sends
        self._sends += 1

    def _answer(self, index: int) -> Any:
        try:
            kind, payload = self._pipes[index].recv()
        except (EOFError, OSError) as exc:
            self.close()
            raise PoolError(f"the worker of env {index} died (exit code {self._processes[index].exitcode})") from exc
        if kind == "error":
            self.close()
            raise PoolError(f"env {payload[0]} failed: {payload[1]}")
        return payload

    def _check_open(self) -> None:
        if self._closed:
            raise PoolError("the pool is closed")
