"""Throughput of one text-mode env over a long random walk, window by window (issue 32): what an RL run sees as the
page caches and the layout memo fill, and whether memory levels off.

One env from a fresh process takes ``--steps`` random actions (``text_mode.py``'s random workload; an episode end
resets, not timed) and every ``--window`` steps the script prints the window's steps per CPU-second and per wall
second, the rate so far, and the process's peak resident memory.  Only ``env.step`` is timed.

    python benchmarks/text_mode_long.py                          # WebMall-v0, 20,000 steps, windows of 1,000
    python benchmarks/text_mode_long.py --id KnowU-Proactive-v0 --steps 5000
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium as gym  # noqa: E402

import personal_envs  # noqa: E402,F401  (registers the ids)
import personal_envs.textmode as textmode  # noqa: E402
from benchmarks._measure import machine  # noqa: E402
from benchmarks.text_mode import TEXT_IDS, random_actor  # noqa: E402


def peak_rss_mib() -> float:
    """This process's peak resident memory in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--id", default="WebMall-v0", choices=list(TEXT_IDS))
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--window", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)
    print(machine(), f"load average {os.getloadavg()[0]:.1f}")
    print(f"{args.id}, text mode: " + ("compiled (scripts/build_native.py)" if textmode.COMPILED else "Python sources")
          + f"; {args.steps} random steps from a fresh process")
    print(f"{'steps':>7} {'window cpu':>11} {'window wall':>12} {'so far cpu':>11} {'peak MiB':>9}")
    env = gym.make(args.id, render="text", **TEXT_IDS[args.id])
    act = random_actor(env, args.seed)
    obs, _ = env.reset(seed=args.seed)
    window_cpu = window_wall = total_cpu = 0.0
    try:
        for step in range(1, args.steps + 1):
            action = act(obs)
            wall, cpu = time.perf_counter(), time.process_time()
            obs, _, terminated, truncated, _ = env.step(action)
            spent = time.process_time() - cpu
            window_wall += time.perf_counter() - wall
            window_cpu += spent
            total_cpu += spent
            if terminated or truncated:
                obs, _ = env.reset()
            if step % args.window == 0 or step == args.steps:
                size = step % args.window or args.window
                print(f"{step:>7} {size / max(window_cpu, 1e-9):>11.0f} {size / max(window_wall, 1e-9):>12.0f} "
                      f"{step / max(total_cpu, 1e-9):>11.0f} {peak_rss_mib():>9.0f}", flush=True)
                window_cpu = window_wall = 0.0
    finally:
        env.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
