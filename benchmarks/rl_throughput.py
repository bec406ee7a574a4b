"""RL throughput: env-steps per second of ``make_rl_env`` envs in Gymnasium vector envs, 1, 2 and 4 envs, sync and
async, with a profile of one env that shows where the time of a step goes.

Each env is the one the reference agents train on (``make_rl_env`` with the benchmark's fixed slots and features;
for PersonalWAB the frozen MiniLM features of ``examples/train_personalwab.py``).  Actions are drawn uniformly among
the valid slots of ``info["action_mask"]`` (the policy's cost is left out: this measures the envs).  For every
setting the script prints the warm-up time (PersonalWAB: every task's request and history embedded in one batch,
as ``examples/train_personalwab.py`` does before training), the start-up time (building the envs, their data and
models, the first reset) and the steady-state env-steps/s over ``--steps`` env steps after ``--warmup`` steps.  Async vector envs get MiniLM from the shared
embedding service (``personal_envs/core/embedding_service.py``; the warm-up fills the service's cache) unless
``--embeddings local`` makes every worker load its own copy (``--torch-threads 1`` for one torch thread each; such
workers start with empty caches, the warm-up of this process does not reach them).  Every worker's own memos
(candidates, features, review scores) start empty: short runs measure workers that meet most tasks for the first
time.

    python benchmarks/rl_throughput.py                                   # PersonalWAB-SingleTurn and WebMall-Basic
    python benchmarks/rl_throughput.py --ids PersonalWAB-MultiTurn-v0 --envs 1 4 --steps 2000
    python benchmarks/rl_throughput.py --embeddings local --torch-threads 1 --backends async --envs 4  # one model per worker
    python benchmarks/rl_throughput.py --ids KnowU-Proactive-v0 \
        --env-kwargs '{"render": "text", "personas": "runs/knowu/personas_train_101"}'   # generated personas
    python benchmarks/rl_throughput.py --ids PersonalWAB-SingleTurn-v0 \
        --env-kwargs '{"split": "train", "train_generate": {"n_users": 60, "n_products": 1000}}'  # a quicker warm-up

Needs the ``rl`` extra (sb3 is not used; Gymnasium's vector envs are).
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import json
import os
import pstats
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks._measure import machine, tree_pss_mb  # noqa: E402


@dataclass(frozen=True)
class Workload:
    """An env id with the env and ``make_rl_env`` arguments the reference agents use."""

    env_id: str
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    rl_kwargs: dict[str, Any] = field(default_factory=dict)
    #: ``"module:function"`` filling the embedding caches for every task before the clock starts (``function(env)``).
    warm: str | None = None
    #: What each env does once per process when it is built (counted in the start-up, not in the steps), as a long
    #: training run has it done: e.g. PersonalWAB's recommender (torch imported and the SASRec loaded on the first
    #: ``recommend`` call, about 2 s per worker, which otherwise falls into the measured steps of a short run).
    prepare: Callable[[gym.Env[Any, Any]], Any] | None = None


def load_recommender(env: gym.Env[Any, Any]) -> Any:
    """Load a PersonalWAB env's recommender now (it is loaded on the first ``recommend`` call otherwise)."""
    return env.unwrapped.backend.recommender()  # type: ignore[attr-defined]


WORKLOADS: dict[str, Workload] = {
    "PersonalWAB-SingleTurn-v0": Workload(
        "PersonalWAB-SingleTurn-v0", {"split": "train"},
        {"max_actions": 13, "features": "personal_envs.personalwab.features:make_features"},
        "personal_envs.personalwab.features:warm_embeddings", load_recommender),
    "PersonalWAB-MultiTurn-v0": Workload(
        "PersonalWAB-MultiTurn-v0", {"split": "train"},
        {"max_actions": 13, "features": "personal_envs.personalwab.features:make_features", "slot_history": True},
        "personal_envs.personalwab.features:warm_embeddings", load_recommender),
    "WebMall-Basic-v0": Workload("WebMall-Basic-v0", {"render": "text", "split": "train"}, {"max_actions": 64}),
    # the decision slots and features of examples/train_knowu.py (personal_envs.knowu.rl.RL_ENV_OPTIONS)
    "KnowU-Proactive-v0": Workload(
        "KnowU-Proactive-v0", {"render": "text"},
        {"provider": "personal_envs.knowu.rl:make_candidates", "max_actions": 3,
         "features": "personal_envs.knowu.rl:make_features"},
        "personal_envs.knowu.rl:warm_features"),
}


def env_factory(workload: Workload, torch_threads: int = 0, prime: bool = False) -> Callable[[], gym.Env[Any, Any]]:
    """A picklable-by-reference thunk building one RL env (imports inside: it runs in the worker); ``torch_threads``
    > 0 sets the worker's torch threads (a per-process MiniLM with ``--embeddings local``); ``prime`` runs the
    workload's warm-up on the new env, filling the worker's own memos (from the service's cache when it is warm)."""

    def build() -> gym.Env[Any, Any]:
        import personal_envs  # noqa: F401  (registers the ids)
        if torch_threads > 0:
            import torch

            torch.set_num_threads(torch_threads)
        from personal_envs.wrappers.rl import make_rl_env

        env = make_rl_env(workload.env_id, env_kwargs=dict(workload.env_kwargs), **workload.rl_kwargs)
        if workload.prepare is not None:
            workload.prepare(env)
        if prime and workload.warm is not None:
            from personal_envs.core.registration import load_object

            load_object(workload.warm)(env)
        return env

    return build


def warm(workload: Workload, backend: str) -> float:
    """Fill the embedding caches the measured envs will read: this process's memo (sync) or the shared service's
    cache (async workers ask the service); returns the seconds it took."""
    if workload.warm is None:
        return 0.0
    from personal_envs.core.registration import load_object

    started = time.perf_counter()
    previous = os.environ.get("PERSONAL_ENVS_EMBEDDINGS", "auto")
    if backend == "async" and previous == "auto":
        os.environ["PERSONAL_ENVS_EMBEDDINGS"] = "service"
    if backend == "async":  # this process's memos would answer instead of the service, leaving the service cold
        from personal_envs.core.embedding import clear_cache
        from personal_envs.personalwab.similarity import clear_pair_cache

        clear_cache()
        clear_pair_cache()
    try:
        env = env_factory(workload)()
        load_object(workload.warm)(env)
        env.close()
    finally:
        os.environ["PERSONAL_ENVS_EMBEDDINGS"] = previous
    return time.perf_counter() - started


def sample(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random valid slot per row of ``masks`` (slot 0 for a row without any)."""
    actions = np.zeros(len(masks), dtype=np.int64)
    for row, mask in enumerate(masks):
        valid = np.flatnonzero(mask)
        actions[row] = rng.choice(valid) if len(valid) else 0
    return actions


def masks_of(info: dict[str, Any], count: int, size: int) -> np.ndarray:
    masks = info.get("action_mask")
    if masks is None:
        return np.ones((count, size), dtype=bool)
    return np.asarray(masks, dtype=bool).reshape(count, size)


@dataclass
class Figure:
    env_id: str
    backend: str
    envs: int
    warm_s: float
    startup_s: float
    steps: int
    seconds: float
    episodes: int
    memory_mb: float

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds if self.seconds > 0 else float("nan")


def measure(workload: Workload, backend: str, count: int, steps: int, warmup: int, seed: int,
            torch_threads: int = 0, prime_workers: bool = False) -> Figure:
    """Start-up time, then ``steps`` env steps (after ``warmup``) of ``count`` envs in a ``backend`` vector env."""
    warm_s = warm(workload, backend)
    asynchronous = backend == "async"
    thunks = [env_factory(workload, torch_threads if asynchronous else 0, prime_workers and asynchronous)
              for _ in range(count)]
    started = time.perf_counter()
    vector: gym.vector.VectorEnv[Any, Any, Any]
    if backend == "async":
        vector = gym.vector.AsyncVectorEnv(thunks, context="spawn")
    else:
        vector = gym.vector.SyncVectorEnv(thunks)
    try:
        size = int(vector.single_action_space.n)  # type: ignore[attr-defined]
        _, info = vector.reset(seed=seed)
        startup = time.perf_counter() - started
        rng = np.random.default_rng(seed)
        masks = masks_of(info, count, size)
        episodes, done_steps, clock = 0, 0, 0.0
        for index in range(warmup + steps):
            if index == warmup:
                clock = time.perf_counter()
                done_steps = 0
            _, _, terminated, truncated, info = vector.step(sample(masks, rng))
            masks = masks_of(info, count, size)
            done_steps += count
            episodes += int(np.sum(terminated | truncated)) if index >= warmup else 0
        seconds = time.perf_counter() - clock
        memory = tree_pss_mb()
    finally:
        vector.close()
    return Figure(workload.env_id, backend, count, warm_s, startup, done_steps, seconds, episodes, memory)


# ---------------------------------------------------------------------------------------------- profile
def profile(workload: Workload, steps: int, seed: int, top: int) -> None:
    """Profile ``steps`` steps of one env (no vector env): the step's parts, then the costliest functions."""
    warm(workload, "sync")
    env = env_factory(workload)()
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    for _ in range(20):  # warm caches the way a long run has them warm
        _, _, terminated, truncated, info = env.step(int(sample(info["action_mask"][None], rng)[0]))
        if terminated or truncated:
            _, info = env.reset()
    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.enable()
    resets = 0
    for _ in range(steps):
        _, _, terminated, truncated, info = env.step(int(sample(info["action_mask"][None], rng)[0]))
        if terminated or truncated:
            _, info = env.reset()
            resets += 1
    profiler.disable()
    wall = time.perf_counter() - started
    env.close()
    stats = pstats.Stats(profiler)
    table: dict[tuple[str, int, str], tuple[Any, ...]] = stats.stats  # type: ignore[attr-defined]
    base = type(env.unwrapped)

    def cumulative(path_suffix: str, name: str) -> float:
        return sum(entry[3] for (path, _, function), entry in table.items()
                   if function == name and path.replace(os.sep, "/").endswith(path_suffix))

    def method(name: str) -> float:  # the env's own method, wherever in its class hierarchy it is defined
        code = getattr(base, name).__code__
        entry = table.get((code.co_filename, code.co_firstlineno, code.co_name))
        return float(entry[3]) if entry else 0.0

    parts = [
        (f"{base.__name__}.step (the env itself)", method("step")),
        (f"{base.__name__}.reset", method("reset")),
        ("DiscreteActions._refresh (candidate slots)", cumulative("wrappers/discrete.py", "_refresh")),
        ("FeatureObservation.observation (features)", cumulative("wrappers/features.py", "observation")),
        ("  of which embed() (MiniLM, memoised)", cumulative("core/embedding.py", "embed")),
        ("  of which the MiniLM model itself", cumulative("core/embedding.py", "encode_local")),
    ]
    print(f"\nprofile of one env, {steps} steps + {resets} resets, {wall:.2f} s under cProfile "
          f"({steps / wall:.0f} steps/s profiled):")
    for label, seconds in parts:
        print(f"  {label:<48} {seconds:7.3f} s  {100 * seconds / wall:5.1f} %  {1000 * seconds / steps:7.3f} ms/step")
    print(f"\n  top {top} functions by own time:")
    rows = sorted(table.items(), key=lambda item: item[1][2], reverse=True)[:top]
    for (path, line, function), entry in rows:
        short = "/".join(Path(path).parts[-2:]) if path != "~" else "builtin"
        print(f"  {entry[2]:7.3f} s own {entry[3]:7.3f} s cum {entry[1]:8d} calls  {short}:{line} {function}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", nargs="+", default=["PersonalWAB-SingleTurn-v0", "WebMall-Basic-v0"],
                        choices=sorted(WORKLOADS))
    parser.add_argument("--envs", nargs="+", type=int, default=[1, 2, 4])
    parser.add_argument("--backends", nargs="+", choices=["sync", "async"], default=["sync", "async"])
    parser.add_argument("--steps", type=int, default=2000, help="measured env steps per setting (all envs together)")
    parser.add_argument("--warmup", type=int, default=50, help="vector steps before the clock starts")
    parser.add_argument("--profile-steps", type=int, default=1000, help="steps of the profile (0: no profile)")
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--embeddings", choices=["auto", "local", "service"], default="auto",
                        help="PERSONAL_ENVS_EMBEDDINGS for the run (auto: async workers use the shared service)")
    parser.add_argument("--torch-threads", type=int, default=0,
                        help="torch threads of each async worker (0: torch's default), for --embeddings local")
    parser.add_argument("--prime-workers", action="store_true",
                        help="every async worker runs the warm-up on its env at start-up (counted in start-up)")
    parser.add_argument("--env-kwargs", type=json.loads, default=None,
                        help="JSON object replacing the ids' env arguments, e.g. a smaller train world")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    os.environ["PERSONAL_ENVS_EMBEDDINGS"] = args.embeddings
    print(machine())
    print(f"load average at start: {' '.join(f'{v:.2f}' for v in os.getloadavg())}; "
          f"PERSONAL_ENVS_EMBEDDINGS={args.embeddings}")
    for env_id in args.ids:
        workload = WORKLOADS[env_id]
        if args.env_kwargs is not None:
            workload = dataclasses.replace(workload, env_kwargs=dict(args.env_kwargs))
        print(f"\n{env_id}  env_kwargs={workload.env_kwargs}  make_rl_env{workload.rl_kwargs}")
        print(f"  {'backend':<7} {'envs':>4} {'warm s':>6} {'start-up s':>10} {'env-steps':>9} {'seconds':>8} {'env-steps/s':>11} "
              f"{'episodes':>8} {'PSS MB':>7}")
        for backend in args.backends:
            for count in args.envs:
                figure = measure(workload, backend, count, max(1, args.steps // count), args.warmup, args.seed,
                                 args.torch_threads, args.prime_workers)
                print(f"  {backend:<7} {count:>4} {figure.warm_s:>6.1f} {figure.startup_s:>10.1f} {figure.steps:>9} {figure.seconds:>8.2f} "
                      f"{figure.steps_per_s:>11.0f} {figure.episodes:>8} {figure.memory_mb:>7.0f}", flush=True)
        if args.profile_steps:
            profile(workload, args.profile_steps, args.seed, args.top)
    print(f"\nload average at end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
