"""Throughput of the browserless text mode next to the browser mode, in one run (issue 32).

For each id and each mode the script drives one env with the parity walk's seeded random actions
(:func:`personal_envs.textmode.parity.random_web_action`: clicks on links and buttons, fills, Enter, drop-downs,
``goto`` into the shops, scrolls, ``go_back``) and prints steps/s and resets/s; then the text mode with 1 and 4
async envs (``gym.make_vec(..., vectorization_mode="async")``, env-steps/s).

    python benchmarks/text_mode.py                      # WebMall-v0, 300 steps and 20 resets per mode
    python benchmarks/text_mode.py --steps 1000 --resets 50 --vector 1 4

Ids without a text mode yet are listed as such.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402

import personal_envs  # noqa: E402,F401
from benchmarks._measure import machine  # noqa: E402
from personal_envs.textmode.parity import random_web_action  # noqa: E402

#: Ids with a text mode and the keyword arguments of both modes.
TEXT_IDS: dict[str, dict[str, Any]] = {"WebMall-v0": {"data_dir": "shipped"}}
#: Ids of the issue without a text mode yet.
NOT_YET: tuple[str, ...] = ("BrowserArena-Captcha-v0", "BrowserArena-PopupBanner-v0",
                            "BrowserArena-DirectNavigation-v0", "KnowU-General-v0", "KnowU-Personalized-v0",
                            "KnowU-Proactive-v0")


def run_steps(env: Any, steps: int, seed: int) -> float:
    """Steps per second of one env over ``steps`` random actions (episode ends reset, not counted apart)."""
    rng = np.random.default_rng(seed)
    origins = list(env.unwrapped.origins.values())[:4]
    obs, _ = env.reset(seed=seed)
    start = time.perf_counter()
    for _ in range(steps):
        obs, _, terminated, truncated, _ = env.step(random_web_action(obs["axtree"], origins, rng))
        if terminated or truncated:
            obs, _ = env.reset()
    return steps / (time.perf_counter() - start)


def run_resets(env: Any, resets: int, seed: int) -> float:
    """Resets per second (each on a task drawn by the env's seeded generator)."""
    env.reset(seed=seed)
    start = time.perf_counter()
    for _ in range(resets):
        env.reset()
    return resets / (time.perf_counter() - start)


def run_vector(env_id: str, kwargs: dict[str, Any], num_envs: int, steps: int, seed: int) -> float:
    """Env-steps per second of ``num_envs`` async text-mode envs."""
    vec = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="async", render="text",
                       vector_kwargs={"shared_memory": False}, **kwargs)
    try:
        rng = np.random.default_rng(seed)
        probe = gym.make(env_id, render="text", **kwargs)
        origins = list(probe.unwrapped.origins.values())[:4]
        probe.close()
        obs, _ = vec.reset(seed=seed)
        start = time.perf_counter()
        for _ in range(steps):
            actions = tuple(random_web_action(obs["axtree"][i], origins, rng) for i in range(num_envs))
            obs, *_ = vec.step(actions)
        return steps * num_envs / (time.perf_counter() - start)
    finally:
        vec.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--resets", type=int, default=20)
    parser.add_argument("--vector", type=int, nargs="*", default=[1, 4])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(machine())
    print(f"{'id':<22} {'mode':<8} {'steps/s':>9} {'resets/s':>9}")
    for env_id, kwargs in TEXT_IDS.items():
        for mode in ("browser", "text"):
            env = gym.make(env_id, render=mode, **kwargs)
            try:
                steps = run_steps(env, args.steps, args.seed)
                resets = run_resets(env, args.resets, args.seed)
            finally:
                env.close()
            print(f"{env_id:<22} {mode:<8} {steps:>9.1f} {resets:>9.1f}", flush=True)
        for num_envs in args.vector:
            rate = run_vector(env_id, kwargs, num_envs, max(20, args.steps // num_envs), args.seed)
            print(f"{env_id:<22} text x{num_envs:<5} {rate:>9.1f} env-steps/s (async vector)", flush=True)
    for env_id in NOT_YET:
        print(f"{env_id:<22} (no text mode yet)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
