"""KnowU phone simulator: step latency (with and without screenshot), reset latency and peak memory for 1, 2 and 4
envs stepping in parallel threads (each env has its own Chromium).

Run: ``python benchmarks/knowu_phone.py [--steps 40] [--resets 8] [--envs 1 2 4] [--train-personas 64]``.
Targets: step with screenshot p50 <= 100 ms, reset p50 <= 500 ms.  Then the train split (``split="train"``,
``--train-personas`` generated personas): generating them (first use only), opening an env per family (variant
names only; tasks are built on reset) and resets over all its variants (each builds its task: first use).  For comparison, the reference Android stack
loads an emulator snapshot and sleeps about 5 s per task and waits 3 s after each step.
"""

from __future__ import annotations

import argparse
import threading
import time
from typing import Any

from benchmarks._measure import machine, percentiles, tree_rss_mb
from personal_envs.knowu.env import KnowUEnv
from personal_envs.simulators.phone.uixml import find_nodes, parse_ui_xml


def next_action(obs: dict[str, Any], step: int) -> dict[str, Any]:
    """A realistic loop: open Contacts, tap a contact, go back, go home, tap the Messages icon, go home."""
    phase = step % 6
    if phase == 0:
        return {"action_type": "open_app", "app_name": "Contacts"}
    if phase in (1, 4):
        target = "Mom" if phase == 1 else "Messages"
        nodes = find_nodes(parse_ui_xml(obs["ui_xml"]), text=target) or find_nodes(parse_ui_xml(obs["ui_xml"]), desc=target)
        if nodes:
            x, y = nodes[0].center
            return {"action_type": "click", "x": x, "y": y}
        return {"action_type": "wait"}
    if phase == 2:
        return {"action_type": "navigate_back"}
    return {"action_type": "navigate_home"}


def run_env(screenshot: bool, steps: int, resets: int, out: dict[str, list[float]], scale: float) -> None:
    env = KnowUEnv(screenshot=screenshot, screenshot_scale=scale)
    try:
        env.reset(options={"task_index": 0})  # launches Chromium; not measured
        reset_times = []
        for i in range(resets):
            start = time.perf_counter()
            obs, _ = env.reset(options={"task_index": (i * 5) % env.num_tasks})
            reset_times.append(time.perf_counter() - start)
        step_times = []
        for step in range(steps):
            action = next_action(obs, step)
            start = time.perf_counter()
            obs, _, terminated, truncated, _ = env.step(action)
            step_times.append(time.perf_counter() - start)
            if terminated or truncated:
                obs, _ = env.reset(options={"task_index": 0})
        out["reset"].extend(reset_times)
        out["step"].extend(step_times)
        out["rss"].append(tree_rss_mb())
    finally:
        env.close()


def measure(n_envs: int, screenshot: bool, steps: int, resets: int, scale: float) -> dict[str, Any]:
    out: dict[str, list[float]] = {"reset": [], "step": [], "rss": []}
    threads = [threading.Thread(target=run_env, args=(screenshot, steps, resets, out, scale)) for _ in range(n_envs)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - start
    step_p50, step_p99 = percentiles(out["step"])
    reset_p50, reset_p99 = percentiles(out["reset"])
    return {"envs": n_envs, "screenshot": screenshot, "step_p50": step_p50, "step_p99": step_p99,
            "reset_p50": reset_p50, "reset_p99": reset_p99, "peak_rss_mb": max(out["rss"] or [0.0]),
            "steps_per_s": len(out["step"]) / wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--resets", type=int, default=8)
    parser.add_argument("--envs", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--scale", type=float, default=1 / 3, help="screenshot scale of 1080x2400 (1/3 = 360x800)")
    parser.add_argument("--train-personas", type=int, default=64, help="personas of the train split (0: skip)")
    parser.add_argument("--train-seed", type=int, default=0)
    args = parser.parse_args()
    print(f"machine: {machine()}; screenshot scale {args.scale:.4g}")
    header = f"{'envs':>4} {'screenshot':>10} {'step p50':>9} {'step p99':>9} {'reset p50':>10} {'reset p99':>10} " \
             f"{'peak MB':>8} {'steps/s':>8}"
    print(header)
    print("-" * len(header))
    for n_envs in args.envs:
        for screenshot in (True, False):
            row = measure(n_envs, screenshot, args.steps, args.resets, args.scale)
            print(f"{row['envs']:>4} {str(row['screenshot']):>10} {row['step_p50']:>8.1f}ms {row['step_p99']:>8.1f}ms "
                  f"{row['reset_p50']:>9.1f}ms {row['reset_p99']:>9.1f}ms {row['peak_rss_mb']:>8.0f} "
                  f"{row['steps_per_s']:>8.1f}")
    if args.train_personas:
        train_split(args.train_personas, args.train_seed, args.resets)


def train_split(count: int, seed: int, resets: int) -> None:
    """Print the train split's generation, env-open and reset times."""
    from personal_envs.knowu.personas import generated_personas

    start = time.perf_counter()
    personas = generated_personas(count, seed)
    print(f"\ntrain split: {count} generated personas (seed {seed}) ready in {time.perf_counter() - start:.1f} s "
          f"({personas.home.parent.parent})")
    for family in ("general", "personalized", "proactive"):
        start = time.perf_counter()
        env = KnowUEnv(family=family, split="train", train_personas=count, train_seed=seed, screenshot=False)
        opened = time.perf_counter() - start
        try:
            env.reset(options={"task_index": 0})  # launches Chromium; not measured
            times = []
            for i in range(resets):
                start = time.perf_counter()
                env.reset(options={"task_index": (1 + i * 37) % env.num_tasks})
                times.append(time.perf_counter() - start)
            p50, p99 = percentiles(times)
            print(f"{family}: {env.num_tasks} variants, env open {opened * 1000:.0f} ms, reset (builds the task) "
                  f"p50 {p50:.0f} ms p99 {p99:.0f} ms, process tree {tree_rss_mb():.0f} MB")
        finally:
            env.close()


if __name__ == "__main__":
    main()
