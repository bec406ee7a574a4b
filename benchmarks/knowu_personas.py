"""KnowU on a generated persona set: how long generating N personas takes, opening an env on them (variant names
only: each task is built on its first reset), and resets.

Run: ``python benchmarks/knowu_personas.py [--personas 64] [--seed 0] [--resets 8]``.  The train split
(``split="train"``) is measured by ``benchmarks/knowu_phone.py --train-personas``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from benchmarks._measure import machine, percentiles, tree_rss_mb
from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.generate import generate_release


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--personas", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resets", type=int, default=8)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        folder = generate_release(args.personas, args.seed, Path(tmp) / "personas")
        print(f"generate {args.personas} personas: {time.perf_counter() - start:.1f} s")
        for family in ("personalized", "proactive"):
            start = time.perf_counter()
            env = KnowUEnv(family=family, personas=str(folder), task_set="embedded", screenshot=False)
            opened = time.perf_counter() - start
            try:
                env.reset(options={"task_index": 0})  # launches Chromium; not measured
                times = []
                for i in range(args.resets):
                    start = time.perf_counter()
                    env.reset(options={"task_index": (i * 37) % env.num_tasks})
                    times.append(time.perf_counter() - start)
                p50, p99 = percentiles(times)
                print(f"{family}: {env.num_tasks} variants, env open {opened:.1f} s, reset p50 {p50:.0f} ms "
                      f"p99 {p99:.0f} ms, process tree {tree_rss_mb():.0f} MB")
            finally:
                env.close()


if __name__ == "__main__":
    main()
