"""Prompt size and prefix reuse of the LLM policy per env, measured on real episodes without a model.

A scripted policy (the env's registered one, or a phone explorer for KnowU) decides each action and a scripted
chat server hands it back to :class:`personal_envs.policies.llm.LLMPolicy` as a tool call, so the figures are those
of the prompts a real server would receive: tokens per step (4 characters per token, the whole request including
tools) and the share of the previous request that is a prefix of the next one (what a prefix cache reuses).

Run: ``python benchmarks/llm_prompts.py [--steps 15] [--context 8192] [--env ID ...]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import gymnasium as gym

import personal_envs  # noqa: F401  (registers the env ids)
from benchmarks._measure import machine
from personal_envs.llm.promptbench import measure_episode, phone_explorer, policy_source

#: env id -> scripted policy name (None: the phone explorer) and steps override.
ENVS: dict[str, tuple[str | None, int | None]] = {
    "PersonalWAB-SingleTurn-v0": ("heuristic", None),
    "PersonalWAB-MultiTurn-v0": ("heuristic", None),
    "WebMall-v0": ("oracle", None),
    "BrowserArena-DirectNavigation-v0": ("trivia_google_site", None),
    "BrowserArena-PopupBanner-v0": ("banner_closer", None),
    "BrowserArena-Captcha-v0": ("captcha_explorer", None),
    "KnowU-General-v0": (None, None),
    "KnowU-Personalized-v0": (None, None),
    "KnowU-Proactive-v0": (None, 50),
}


def run(env_id: str, scripted_name: str | None, steps: int, context: int) -> dict[str, Any]:
    env = gym.make(env_id)
    try:
        scripted: Any = None
        source: Any = phone_explorer
        if scripted_name is not None:
            scripted, source = policy_source(env_id, scripted_name, env)
        started = time.perf_counter()
        figures = measure_episode(env, source, steps=steps, scripted=scripted, context_tokens=context)
        elapsed = time.perf_counter() - started
    finally:
        env.close()
    tokens = [f.server_tokens for f in figures]
    growth = [b - a for a, b in zip(tokens, tokens[1:], strict=False) if b >= a]
    reuse = [f.prefix_reuse for f in figures[1:]]
    return {
        "env": env_id, "steps": len(figures), "first": tokens[0], "max": max(tokens),
        "growth": statistics.mean(growth) if growth else 0.0,
        "reuse_mean": statistics.mean(reuse) if reuse else 0.0, "reuse_min": min(reuse) if reuse else 0.0,
        "left_out": figures[-1].left_out_turns, "seconds": elapsed, "per_step": tokens,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=15, help="steps per episode (KnowU-Proactive: 50)")
    parser.add_argument("--context", type=int, default=8192)
    parser.add_argument("--env", nargs="*", default=list(ENVS))
    parser.add_argument("--per-step", action="store_true", help="also print the prompt tokens of every step")
    args = parser.parse_args()
    print(machine())
    print(f"context {args.context} tokens, max_tokens 512: prompts must stay <= {args.context - 512}")
    header = (f"{'env':34s}{'steps':>6}{'first':>7}{'max':>7}{'+/step':>8}{'reuse %':>9}{'min %':>7}"
              f"{'left out':>9}")
    print(header)
    print("-" * len(header))
    for env_id in args.env:
        name, steps = ENVS.get(env_id, (None, None))
        row = run(env_id, name, steps or args.steps, args.context)
        print(f"{row['env']:34s}{row['steps']:>6}{row['first']:>7}{row['max']:>7}{row['growth']:>8.0f}"
              f"{100 * row['reuse_mean']:>9.1f}{100 * row['reuse_min']:>7.1f}{row['left_out']:>9}")
        if args.per_step:
            print("    tokens per step: " + " ".join(str(t) for t in row["per_step"]))


if __name__ == "__main__":
    main()
