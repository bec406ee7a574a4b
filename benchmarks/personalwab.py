"""PersonalWAB speed and memory at the paper's catalog size (35,772 products).

Prints: non-search env steps per second, search and recommendation latency (p50 / p99), reset latency, and peak
RSS.  Targets: search p50 <= 2 ms, reset p50 <= 100 us, >= 20,000 non-search steps/s, peak RSS <= 600 MB.

    python3 benchmarks/personalwab.py [--products 35772] [--users 1000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._measure import machine, peak_rss_mb, percentiles, time_calls  # noqa: E402
from personal_envs.personalwab.data import generate  # noqa: E402
from personal_envs.personalwab.env import PersonalWABEnv  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--products", type=int, default=35_772)
    parser.add_argument("--users", type=int, default=1_000)
    parser.add_argument("--steps", type=int, default=50_000)
    args = parser.parse_args()
    print(f"machine: {machine()}")

    start = time.perf_counter()
    data = generate(seed=0, n_users=args.users, n_products=args.products)
    print(f"generated {len(data.products):,} products, {len(data.profiles):,} users, "
          f"{sum(len(v) for v in data.instructions.values()):,} instructions in {time.perf_counter() - start:.1f} s")

    start = time.perf_counter()
    env = PersonalWABEnv(mode="multi", data=data, max_steps=10**9, review_similarity=lambda a, b: 0.0,
                         details_function=True)
    print(f"env built (BM25 index) in {time.perf_counter() - start:.1f} s")

    resets = [0.0] * 20_000
    for i in range(len(resets)):
        t = time.perf_counter()
        env.reset(options={"task_index": i})
        resets[i] = time.perf_counter() - t
    p50, p99 = percentiles(resets)
    print(f"reset latency: p50 {p50 * 1000:.1f} us, p99 {p99 * 1000:.1f} us")

    env.reset(options={"task_index": 0})
    asins = list(data.products)
    rng = np.random.default_rng(0)
    actions = [{"action_type": "get_product_details_by_asin", "product_asin": asins[int(i)]}
               for i in rng.integers(len(asins), size=1000)]
    actions += [{"action_type": "respond", "content": "Which brand do you like?"}] * 200
    actions += ['{"action_type": "buy"}'] * 100
    start = time.perf_counter()
    for i in range(args.steps):
        env.step(actions[i % len(actions)])
    rate = args.steps / (time.perf_counter() - start)
    print(f"non-search steps: {rate:,.0f} steps/s (details, respond, invalid actions)")

    titles = [data.products[asins[int(i)]]["title"] for i in rng.integers(len(asins), size=2000)]
    queries = iter([" ".join(t.split()[: int(rng.integers(2, 6))]) for t in titles])
    p50, p99 = percentiles(time_calls(lambda: env.backend.search.search(next(queries)), 2000))
    print(f"search latency ({len(asins):,} products): p50 {p50:.2f} ms, p99 {p99:.2f} ms")

    start = time.perf_counter()
    recommender = env.backend.recommender()
    print(f"recommender ready in {time.perf_counter() - start:.1f} s (trained or loaded from cache)")
    histories = [[e["product_info"]["parent_asin"] for e in entries][-30:] for entries in data.histories.values()]
    seqs = iter(histories * 3)
    p50, p99 = percentiles(time_calls(lambda: recommender.recommend(next(seqs), k=10), min(600, len(histories) * 3)))
    print(f"recommendation latency ({len(asins):,} products): p50 {p50:.2f} ms, p99 {p99:.2f} ms")
    print(f"peak RSS: {peak_rss_mb():.0f} MB")
    env.close()


if __name__ == "__main__":
    main()
