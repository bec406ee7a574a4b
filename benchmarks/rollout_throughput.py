"""Throughput of batched async rollouts (:mod:`personal_envs.rollout`): episodes per minute by concurrency.

Against the scripted chat server (every reply a search, answered instantly or after ``--latency`` seconds, as a
remote model would) and, with ``--base-url``, against a real OpenAI-compatible server (``personal-envs llm serve``
for the packaged SmolLM2-135M).

Run: ``python benchmarks/rollout_throughput.py [--env PersonalWAB-SingleTurn-v0] [--episodes 64]
[--concurrency 1 4 16] [--latency 0.2] [--base-url http://127.0.0.1:8080/v1]``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

import personal_envs  # noqa: F401  (registers the env ids)
from benchmarks._measure import machine
from personal_envs.llm.testing import ScriptedChatServer
from personal_envs.rl_cli import summary
from personal_envs.rollout import RolloutConfig, rollout


def searcher(latency: float) -> Any:
    def reply(request: dict[str, Any]) -> dict[str, Any]:
        return {"sleep": latency, "tool_calls": [{"name": "search_product_by_query",
                                                  "arguments": {"query": "wireless headphones"}}]}
    return reply


def measure(env_id: str, episodes: int, concurrency: int, base_url: str, out: Path) -> dict[str, Any]:
    started = time.perf_counter()
    records = rollout(RolloutConfig(env_id, episodes, base_url=base_url, concurrency=concurrency, out=out,
                                    max_tokens=128))
    return summary(records, time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="PersonalWAB-SingleTurn-v0")
    parser.add_argument("--episodes", type=int, default=64)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--latency", type=float, nargs="+", default=[0.0, 0.2],
                        help="seconds the scripted server waits per reply")
    parser.add_argument("--base-url", default=None, help="also measure this OpenAI-compatible server")
    args = parser.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory() as folder:
        for latency in args.latency:
            with ScriptedChatServer(searcher(latency)) as server:
                for concurrency in args.concurrency:
                    figures = measure(args.env, args.episodes, concurrency, server.base_url,
                                      Path(folder) / f"s{latency}-{concurrency}.jsonl")
                    print(f"scripted server, latency {latency:.2f} s, concurrency {concurrency:2d}: "
                          f"{figures['episodes_per_min']:8.1f} episodes/min ({figures['seconds']} s, "
                          f"{figures['errors']} errors)")
        if args.base_url:
            for concurrency in args.concurrency:
                figures = measure(args.env, args.episodes, concurrency, args.base_url,
                                  Path(folder) / f"real-{concurrency}.jsonl")
                print(f"{args.base_url}, concurrency {concurrency:2d}: {figures['episodes_per_min']:8.1f} "
                      f"episodes/min ({figures['seconds']} s, {figures['errors']} errors, mean score "
                      f"{figures['mean_score']}, {figures['prompt_tokens']} prompt tokens)")


if __name__ == "__main__":
    main()
