"""Throughput of the browserless text mode next to the browser mode, in one run (issue 32).

For each id and each mode the script drives one env and prints, for each workload, steps/s and resets/s:

* ``random``: the parity walk's seeded random actions (:func:`personal_envs.textmode.parity.random_web_action`:
  clicks on links and buttons, fills, Enter, drop-downs, ``goto`` into the shops, scrolls, ``go_back``);
* ``oracle``: the env's oracle (WebMall) over the tasks in order;
* BrowserArena: ``random`` is :func:`personal_envs.browserarena.text_parity.random_arena_action`'s BrowserUse actions
  (its parity walk's), and ``baseline`` the id's scripted baselines in turn over the tasks in order (BrowserArena has
  no oracle); both modes without screenshots and with ``wait`` capped at 0 s;
* ``replay`` (KnowU): :func:`personal_envs.simulators.phone.walk.random_phone_action`'s random device actions (taps on
  what the dump shows, long presses, drags, scrolls, typing, Enter, back, home, open_app), the same task and the same
  40 actions each episode, timed after a first episode has shown every screen once (an RL policy revisiting
  screens); KnowU's ``random`` workload uses the same device actions without repeating.  KnowU's browser mode runs
  without screenshots (the text mode has none).

Only the env's own time counts (``step`` / ``reset``; the policy choosing its action is not timed).  ``wall`` is
elapsed time; ``cpu`` is this process's CPU time, shown for the text mode only, where everything runs in this
process: on a shared machine it is the figure that says what one core does (the browser mode's Chromium runs in
other processes, so its CPU figure would not count the browser).  Then the text mode with 1 and 4 async envs
(``gym.make_vec(..., vectorization_mode="async")``, env-steps/s of the random workload, timed after
``--vector-warmup`` untimed vector steps): per wall second, and per CPU-second of the workers and the main process
together.  On a shared machine the wall figure follows the load; the CPU figure staying level from 1 to 4 envs says
that nothing is serialised, so the throughput grows with the free cores.  ``--processes N`` also runs N processes
that each step their own env at their own pace (no lockstep) and sums their rates: a vector step waits for its
slowest env, and a step that loads a new page costs ten times one that does not.  ``--warmup N`` first runs N
untimed random steps on each env (a long RL run's steady state: page caches filled, fonts loaded); by default the
envs are timed fresh.

    python benchmarks/text_mode.py                      # every id, 300 steps and 20 resets per mode
    python benchmarks/text_mode.py --ids WebMall-v0 --steps 1000 --resets 50 --vector 1 4
    python benchmarks/text_mode.py --ids WebMall-v0 --modes text --steps 3000 --warmup 500 --vector
    python benchmarks/text_mode.py --ids WebMall-v0 --modes text --steps 2000 --vector 1 2 --processes 1 2
    python benchmarks/text_mode.py --ids KnowU-General-v0 --steps 1000 --resets 50 --vector 1 4
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402

import personal_envs  # noqa: E402,F401
import personal_envs.textmode as textmode  # noqa: E402
from benchmarks._measure import machine  # noqa: E402
from personal_envs.browserarena.text_parity import random_arena_action, walk_urls  # noqa: E402
from personal_envs.core.registration import entry_for  # noqa: E402
from personal_envs.simulators.phone.walk import random_phone_action  # noqa: E402
from personal_envs.textmode.parity import random_web_action  # noqa: E402

#: Ids with a text mode and the keyword arguments of both modes.
TEXT_IDS: dict[str, dict[str, Any]] = {
    "WebMall-v0": {"data_dir": "shipped"},
    "KnowU-General-v0": {"screenshot": False},
    "KnowU-Personalized-v0": {"screenshot": False},
    "KnowU-Proactive-v0": {"screenshot": False},
    **{f"BrowserArena-{name}-v0": {"screenshot": False, "max_wait_s": 0, "extraction_model": None}
       for name in ("Captcha", "PopupBanner", "DirectNavigation")},
}


@dataclass
class Clock:
    """Wall and CPU seconds spent inside the env, and how many calls."""

    wall: float = 0.0
    cpu: float = 0.0
    calls: int = 0

    def time(self, call: Callable[[], Any], count: bool = True) -> Any:
        """Run ``call`` and add its wall and CPU time (and one call, when ``count``)."""
        wall, cpu = time.perf_counter(), time.process_time()
        result = call()
        self.wall += time.perf_counter() - wall
        self.cpu += time.process_time() - cpu
        self.calls += int(count)
        return result

    def rates(self) -> tuple[float, float]:
        """Calls per wall second and per CPU second."""
        return self.calls / max(self.wall, 1e-9), self.calls / max(self.cpu, 1e-9)


def random_actor(env: Any, seed: int) -> Callable[[dict[str, Any]], Any]:
    """The random walk's policy for an env: web actions into its first four shops, or device actions on a phone."""
    rng = np.random.default_rng(seed)
    origins = list(getattr(env.unwrapped, "origins", {}).values())[:4]
    urls = walk_urls()

    def act(obs: dict[str, Any]) -> dict[str, Any]:
        if "elements" in obs:
            return random_arena_action(obs, rng, urls)
        if "ui_xml" in obs:
            return random_phone_action(obs["ui_xml"], rng)
        return random_web_action(obs["axtree"], origins, rng)

    return act


def run_random(env: Any, steps: int, seed: int) -> Clock:
    """``steps`` random actions (episode ends reset, not counted)."""
    act = random_actor(env, seed)
    clock = Clock()
    obs, _ = env.reset(seed=seed)
    for _ in range(steps):
        action = act(obs)
        obs, _, terminated, truncated, _ = clock.time(lambda action=action: env.step(action))
        if terminated or truncated:
            obs, _ = env.reset()
    return clock


def run_oracle(env: Any, steps: int, seed: int) -> Clock:
    """The oracle over the tasks in order until ``steps`` steps ran."""
    from personal_envs.webmall.oracle import make_oracle

    clock = Clock()
    index = 0
    while clock.calls < steps:
        obs, info = env.reset(seed=seed, options={"task_index": index % env.unwrapped.num_tasks})
        index += 1
        oracle = make_oracle(env.unwrapped)
        oracle.reset(obs, info)
        for _ in range(env.unwrapped.max_steps):
            action = oracle.act(obs, info)
            obs, _, terminated, truncated, info = clock.time(lambda action=action: env.step(action))
            if terminated or truncated or clock.calls >= steps:
                break
    return clock


def run_baselines(env: Any, steps: int, seed: int) -> Clock:
    """The id's scripted baselines (BrowserArena) in turn, over the tasks in order, until ``steps`` steps ran."""
    from personal_envs.runner import make_policy

    env_id = env.spec.id
    names = [name for name in entry_for(env_id).policies if name != "browser-use"]
    clock = Clock()
    index = 0
    while clock.calls < steps:
        policy = make_policy(env_id, names[index % len(names)], env, seed=seed)
        policy.attach(env.unwrapped)
        obs, info = env.reset(seed=seed, options={"task_index": index // len(names)})
        index += 1
        policy.reset(obs, info)
        for _ in range(env.unwrapped.max_steps):
            action = policy.act(obs, info)
            obs, _, terminated, truncated, info = clock.time(lambda action=action: env.step(action))
            if terminated or truncated or clock.calls >= steps:
                break
    return clock


def run_replay(env: Any, steps: int, seed: int, length: int = 40) -> Clock:
    """Episodes that repeat: the same task and the same ``length`` seeded random actions each episode, timed
    (resets included) after a first episode has shown every screen once."""
    clock = Clock()

    def episode(timed: bool) -> None:
        act = random_actor(env, seed)
        def run(call: Callable[[], Any], count: bool = True) -> Any:
            return clock.time(call, count) if timed else call()

        obs, _ = run(lambda: env.reset(seed=seed, options={"task_index": 0}), count=False)  # timed, not a step
        for _ in range(length):
            action = act(obs)
            obs, _, terminated, truncated, _ = run(lambda action=action: env.step(action))
            if terminated or truncated or (timed and clock.calls >= steps):
                return

    episode(timed=False)
    while clock.calls < steps:
        episode(timed=True)
    return clock


def run_resets(env: Any, resets: int, seed: int) -> Clock:
    """Resets, each on a task drawn by the env's seeded generator."""
    env.reset(seed=seed)
    clock = Clock()
    for _ in range(resets):
        clock.time(env.reset)
    return clock


def _cpu_seconds(pids: list[int]) -> float | None:
    """User + system CPU seconds the processes ``pids`` have used so far (Linux ``/proc``; None elsewhere)."""
    total = 0.0
    try:
        for pid in pids:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None
    return total


@dataclass
class VectorRate:
    """Env-steps per wall second of async envs, and per CPU-second of the workers and the main process together
    (the figure that says how the throughput grows with free cores: constant when nothing is serialised)."""

    wall: float
    cpu: float | None


def run_vector(env_id: str, kwargs: dict[str, Any], num_envs: int, steps: int, seed: int, warmup: int = 0
               ) -> VectorRate:
    """``num_envs`` async text-mode envs on the random workload, timed after ``warmup`` untimed vector steps (each
    worker starts cold: imports, fonts, empty page caches)."""
    vec = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="async", render="text",
                       vector_kwargs={"shared_memory": False}, **kwargs)
    try:
        probe = gym.make(env_id, render="text", **kwargs)
        actors = [random_actor(probe, seed + i) for i in range(num_envs)]
        probe.close()
        workers = [process.pid for process in getattr(vec, "processes", []) if process.pid is not None]
        obs, _ = vec.reset(seed=seed)
        clock = Clock()
        start_cpu: float | None = None
        for step in range(warmup + steps):
            if step == warmup:
                clock = Clock()
                start_cpu = _cpu_seconds(workers)
            actions = tuple(actors[i]({key: value[i] for key, value in obs.items()}) for i in range(num_envs))
            obs, *_ = clock.time(lambda actions=actions: vec.step(actions))
        end_cpu = _cpu_seconds(workers)
        cpu = None
        if start_cpu is not None and end_cpu is not None:
            cpu = steps * num_envs / max(end_cpu - start_cpu + clock.cpu, 1e-9)
        return VectorRate(steps * num_envs / clock.wall, cpu)
    finally:
        vec.close()


def run_pool(env_id: str, kwargs: dict[str, Any], num_envs: int, batch_size: int, steps: int, seed: int,
             warmup: int = 0) -> float:
    """An :class:`~personal_envs.vector.EnvPool` of ``num_envs`` text-mode envs answering ``batch_size`` at a
    time, on the random workload: env-steps per wall second of the whole loop, the random policy's time in the
    main process included (the workers go on stepping meanwhile; ``N:N`` is the lockstep on the same footing), after
    ``warmup`` untimed env-steps per env."""
    from personal_envs.vector import EnvPool

    with EnvPool.make(env_id, num_envs, batch_size, render="text", **kwargs) as pool:
        probe = gym.make(env_id, render="text", **kwargs)
        actors = [random_actor(probe, seed + i) for i in range(num_envs)]
        probe.close()
        pool.async_reset(seed=seed)
        done, timed_from, started = 0, -1, 0.0
        while timed_from < 0 or done - timed_from < steps * num_envs:
            if timed_from < 0 and done >= warmup * num_envs:
                timed_from, started = done, time.perf_counter()
            obs, *_, env_ids = pool.recv()
            actions = [actors[env_id]({key: value[row] for key, value in obs.items()})
                       for row, env_id in enumerate(env_ids.tolist())]
            pool.send(actions, env_ids)
            done += len(env_ids)
        return (done - timed_from) / (time.perf_counter() - started)


def _independent_walk(job: tuple[str, dict[str, Any], int, int, int]) -> float:
    """One process's own env on the random workload (after ``warmup`` untimed steps): env-steps per wall second."""
    env_id, kwargs, steps, seed, warmup = job
    env = gym.make(env_id, render="text", **kwargs)
    try:
        run_random(env, warmup, seed + 1000)
        return run_random(env, steps, seed).rates()[0]
    finally:
        env.close()


def run_processes(env_id: str, kwargs: dict[str, Any], count: int, steps: int, seed: int, warmup: int) -> float:
    """Env-steps per wall second of ``count`` processes each stepping its own text-mode env at its own pace (no
    lockstep: what the envs give when nothing waits for the slowest of them), summed."""
    import multiprocessing

    jobs = [(env_id, kwargs, steps, seed + index, warmup) for index in range(count)]
    with multiprocessing.get_context("spawn").Pool(count) as pool:
        return float(sum(pool.map(_independent_walk, jobs)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ids", nargs="*", default=list(TEXT_IDS), choices=list(TEXT_IDS))
    parser.add_argument("--modes", nargs="*", default=["browser", "text"])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--resets", type=int, default=20)
    parser.add_argument("--vector", type=int, nargs="*", default=[1, 4])
    parser.add_argument("--processes", type=int, nargs="*", default=[],
                        help="also run N independent processes, each with its own env, and sum their rates")
    parser.add_argument("--pool", nargs="*", default=[], metavar="N:B",
                        help="also run an EnvPool of N envs answering B at a time (personal_envs.vector)")
    parser.add_argument("--vector-warmup", type=int, default=100,
                        help="untimed vector steps before the timed ones (each worker starts with empty caches)")
    parser.add_argument("--warmup", type=int, default=0,
                        help="untimed random steps on each env before its timed workloads (a long RL run's steady "
                             "state: page caches filled, fonts loaded); 0 times a fresh env")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(machine(), f"load average {os.getloadavg()[0]:.1f}")
    build = "compiled (scripts/build_native.py)" if textmode.COMPILED else "Python sources"
    print(f"text mode: {build}; " + (f"{args.warmup} untimed random steps per env first" if args.warmup
                                      else "fresh envs"))
    print(f"{'id':<34} {'mode':<8} {'workload':<8} {'steps/s wall':>12} {'steps/s cpu':>12} {'resets/s wall':>14} "
          f"{'resets/s cpu':>13}")
    for env_id in args.ids:
        kwargs = TEXT_IDS[env_id]
        for mode in args.modes:
            env = gym.make(env_id, render=mode, **kwargs)
            try:
                if args.warmup:
                    run_random(env, args.warmup, args.seed + 1000)
                resets = run_resets(env, args.resets, args.seed)
                second: tuple[str, Callable[[Any, int, int], Clock]] = (
                    ("replay", run_replay) if env_id.startswith("KnowU") else
                    ("baseline", run_baselines) if env_id.startswith("BrowserArena") else ("oracle", run_oracle))
                workloads = (("random", run_random), second)
                for workload, run in workloads:
                    steps = run(env, args.steps, args.seed)
                    step_wall, step_cpu = steps.rates()
                    reset_wall, reset_cpu = resets.rates()
                    cpu = f"{step_cpu:>12.1f}" if mode == "text" else f"{'-':>12}"
                    reset_cpu_text = f"{reset_cpu:>13.1f}" if mode == "text" else f"{'-':>13}"
                    print(f"{env_id:<34} {mode:<8} {workload:<8} {step_wall:>12.1f} {cpu} {reset_wall:>14.1f} "
                          f"{reset_cpu_text}", flush=True)
            finally:
                env.close()
        if "text" in args.modes:
            for num_envs in args.vector:
                rate = run_vector(env_id, kwargs, num_envs, args.steps, args.seed,  # the same walk length per env
                                  warmup=args.vector_warmup)
                cpu = f"{rate.cpu:>12.1f}" if rate.cpu is not None else f"{'-':>12}"
                print(f"{env_id:<34} text x{num_envs:<2} {'random':<8} {rate.wall:>12.1f} {cpu} env-steps/s "
                      "(async vector; cpu: workers and main process)", flush=True)
            for spec in args.pool:
                num_envs, batch_size = (int(part) for part in spec.split(":"))
                pool_rate = run_pool(env_id, kwargs, num_envs, batch_size, args.steps, args.seed, args.vector_warmup)
                print(f"{env_id:<34} text {spec:<3} {'random':<8} {pool_rate:>12.1f} {'-':>12} env-steps/s "
                      "(EnvPool N:B, wall of the loop, policy included)", flush=True)
            for count in args.processes:
                total = run_processes(env_id, kwargs, count, args.steps, args.seed, args.vector_warmup)
                print(f"{env_id:<34} text p{count:<2} {'random':<8} {total:>12.1f} {'-':>12} env-steps/s "
                      "(independent processes, summed wall rates)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
