"""WebMall benchmark: step and reset latency, memory per env, and throughput with parallel envs.

    python benchmarks/webmall.py --steps 80 --resets 10 --episodes 3 [--data-dir ../shared/anchors/webmall]
    python benchmarks/webmall.py --format-cost-only --steps 80 --data-dir ../shared/anchors/webmall

The AX-tree format rows run the same browsing cycle with the compact text and with BrowserGym's text (the
default, what the paper's agents read) in one invocation, and print step p50 and tokens per observation
(4 characters a token, the project's estimate) for each.

Steps follow a browsing cycle: type a category URL, scroll, fill the search box, click a product link; two of the
four load a new page.  The p50 of each action kind is printed as well.

Targets: AX-tree step p50 <= 30 ms, AX-tree+screenshot step p50 <= 80 ms, reset p50 <= 400 ms, <= 400 MB per env.
For comparison, BrowserGym waits 0.5 s after every action plus 1 s of slow-mo by default, so one of its steps takes
well over a second before any observation is made; this env waits only for the page load.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _measure import cpu_reference_s, machine, percentiles, tree_pss_mb, tree_rss_mb  # noqa: E402

from personal_envs.browser.host import default_executable  # noqa: E402
from personal_envs.browser.session import AxTreeBackend, AxTreeFormat  # noqa: E402
from personal_envs.llm.prompt import estimate_tokens  # noqa: E402
from personal_envs.webmall.env import WebMallEnv  # noqa: E402
from personal_envs.webmall.oracle import WebMallOracle  # noqa: E402

PRODUCT_LINK = re.compile(r"\[(\w+)\] link .*url='[^']*/product/")
SEARCHBOX = re.compile(r"\[(\w+)\] searchbox")


def _next_action(env: WebMallEnv, step: int, axtree: str) -> tuple[str, dict[str, Any]]:
    """A browsing cycle of four steps, two that load a page and two that stay on it:
    type a category URL (goto), scroll, fill the search box, click a product link."""
    shop_index = (step // 4) % 4
    shop = env.catalog.shops[shop_index]
    origin = env.cluster.shop_origins[shop_index]
    kind = step % 4
    if kind == 0:
        node = list(shop.root.children.values())[(step // 16) % len(shop.root.children)]
        return "goto", {"action_type": "goto", "url": origin + node.url_path}
    if kind == 1:
        return "scroll", {"action_type": "scroll", "delta_x": 0, "delta_y": 400}
    if kind == 2:
        match = SEARCHBOX.search(axtree)
        if match:
            word = shop.products[step % len(shop.products)].name.split()[0]
            return "fill", {"action_type": "fill", "bid": match.group(1), "value": word}
        return "scroll", {"action_type": "scroll", "delta_x": 0, "delta_y": -400}
    links = PRODUCT_LINK.findall(axtree)
    if links:
        return "click", {"action_type": "click", "bid": links[(step // 4) % len(links)]}
    return "goto", {"action_type": "goto", "url": origin + shop.products[0].path}


def step_latency(mode: str, steps: int, data_dir: str | None, backend: AxTreeBackend | None,
                 axtree_format: AxTreeFormat = "browsergym") -> dict[str, list[float]]:
    """Step wall times (seconds) by action kind, plus ``"all"``, over the browsing cycle of :func:`_next_action`;
    ``"tokens"`` holds the estimated tokens of each observation's AX tree."""
    env = WebMallEnv(data_dir=data_dir or "shipped", observation_mode=mode, axtree_backend=backend,
                     axtree_format=axtree_format)
    samples: dict[str, list[float]] = {"all": [], "tokens": []}
    try:
        obs, _ = env.reset(seed=0, options={"task_index": 0})
        for step in range(steps):
            kind, action = _next_action(env, step, str(obs.get("axtree", "")))
            start = time.perf_counter()
            obs, *_ = env.step(action)
            elapsed = time.perf_counter() - start
            samples["all"].append(elapsed)
            samples["tokens"].append(float(estimate_tokens(str(obs.get("axtree", "")))))
            samples.setdefault(kind, []).append(elapsed)
            if env.episode_over:
                obs, _ = env.reset(options={"task_index": 0})
        return samples
    finally:
        env.close()


def _print_steps(label: str, samples: dict[str, list[float]], target_ms: float) -> None:
    p50, p99 = percentiles(samples["all"])
    kinds = "  ".join(f"{kind} {percentiles(values)[0]:.0f}" for kind, values in samples.items()
                      if kind not in ("all", "tokens"))
    print(f"step latency, {label:<22} p50 {p50:7.1f} ms   p99 {p99:7.1f} ms   (target p50 <= {target_ms:.0f} ms)")
    print(f"    p50 by action (ms): {kinds}")


def format_cost(steps: int, data_dir: str | None, backend: AxTreeBackend | None) -> None:
    """Step p50 and tokens per observation of the compact and the BrowserGym AX-tree text, same browsing cycle."""
    for axtree_format in ("compact", "browsergym"):
        samples = step_latency("axtree", steps, data_dir, backend, axtree_format)  # type: ignore[arg-type]
        p50, p99 = percentiles(samples["all"])
        tokens = sorted(samples["tokens"])
        mean = sum(tokens) / max(len(tokens), 1)
        print(f"AX tree format {axtree_format:<10}: step p50 {p50:7.1f} ms  p99 {p99:7.1f} ms   tokens per observation "
              f"mean {mean:7.0f}  median {tokens[len(tokens) // 2]:7.0f}  max {tokens[-1]:7.0f}")


def reset_latency(resets: int, data_dir: str | None) -> tuple[tuple[float, float], float, float]:
    env = WebMallEnv(data_dir=data_dir or "shipped")
    try:
        env.reset(seed=0)
        samples = []
        peak = peak_pss = 0.0
        for i in range(resets):
            start = time.perf_counter()
            env.reset(options={"task_index": i % env.num_tasks})
            samples.append(time.perf_counter() - start)
            env.step({"action_type": "goto", "url": env.cluster.shop_origins[i % 4] + "/shop/"})
            peak = max(peak, tree_rss_mb(os.getpid()))
            peak_pss = max(peak_pss, tree_pss_mb(os.getpid()))
        return percentiles(samples), peak, peak_pss
    finally:
        env.close()


def shared_process_pss(envs: int, data_dir: str | None) -> float:
    """PSS (MB) per env when ``envs`` envs live in one process and share its Chromium and Playwright driver (the
    browser host is per process), after each has browsed a few pages of every shop."""
    opened = [WebMallEnv(data_dir=data_dir or "shipped") for _ in range(envs)]
    try:
        peak = 0.0
        for round_index in range(3):
            for index, env in enumerate(opened):
                env.reset(options={"task_index": (index + round_index) % env.num_tasks})
                for shop in range(4):
                    env.step({"action_type": "goto", "url": env.cluster.shop_origins[shop] + "/shop/"})
            peak = max(peak, tree_pss_mb(os.getpid()))
        return peak / envs
    finally:
        for env in opened:
            env.close()


def _worker(args: tuple[int, int, str | None]) -> tuple[int, float]:
    seed, episodes, data_dir = args
    env = WebMallEnv(data_dir=data_dir or "shipped")
    steps = 0
    start = time.perf_counter()
    try:
        oracle = WebMallOracle(env)
        for episode in range(episodes):
            obs, info = env.reset(options={"task_index": (seed * 13 + episode * 5) % env.num_tasks})
            oracle.reset(obs, info)
            done = False
            while not done:
                obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
                steps += 1
                done = terminated or truncated
    finally:
        env.close()
    return steps, time.perf_counter() - start


def throughput(workers: int, episodes: int, data_dir: str | None) -> tuple[float, float]:
    """(steps per second over all workers, episodes per minute), one env per process."""
    context = mp.get_context("spawn")
    start = time.perf_counter()
    with context.Pool(workers) as pool:
        results = pool.map(_worker, [(seed, episodes, data_dir) for seed in range(workers)])
    elapsed = time.perf_counter() - start
    steps = sum(r[0] for r in results)
    return steps / elapsed, workers * episodes / elapsed * 60.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=80, help="steps per latency measurement")
    parser.add_argument("--resets", type=int, default=10)
    parser.add_argument("--episodes", type=int, default=3, help="oracle episodes per worker for throughput")
    parser.add_argument("--workers", type=int, nargs="*", default=[1, 2, 4])
    parser.add_argument("--shared-envs", type=int, nargs="*", default=[4],
                        help="also measure memory per env with this many envs in one process")
    parser.add_argument("--data-dir", default=None, help="official WebMall data (default: shipped catalog)")
    parser.add_argument("--format-cost-only", action="store_true",
                        help="only the compact vs BrowserGym AX-tree format rows")
    parser.add_argument("--axtree-backend", default=None, choices=["auto", "cdp", "dom"],
                        help="AX tree backend for the step-latency rows (default: the env's; other rows use it too)")
    args = parser.parse_args()
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f}")
    print(f"catalog: {'official ' + args.data_dir if args.data_dir else 'shipped'}")
    print(f"chromium: {default_executable()}; CPU reference (Python loop of 1e7 additions): {cpu_reference_s():.2f} s")
    print(f"AX tree backend: {args.axtree_backend or 'the env default (dom on the embedded shops)'}")
    format_cost(args.steps, args.data_dir, args.axtree_backend)
    if args.format_cost_only:
        return
    _print_steps("AX tree:", step_latency("axtree", args.steps, args.data_dir, args.axtree_backend), 30)
    _print_steps("AX tree + screenshot:",
                 step_latency("axtree+screenshot", args.steps, args.data_dir, args.axtree_backend), 80)
    (r50, r99), peak, peak_pss = reset_latency(args.resets, args.data_dir)
    print(f"reset latency:                      p50 {r50:7.1f} ms   p99 {r99:7.1f} ms   (target p50 <= 400 ms)")
    print(f"peak memory, one env (python + Playwright driver + Chromium processes, /proc): RSS sum {peak:.0f} MB "
          f"(shared pages counted once per process), PSS {peak_pss:.0f} MB   (target <= 400 MB)")
    for envs in args.shared_envs:
        per_env = shared_process_pss(envs, args.data_dir)
        print(f"peak memory, {envs} envs in one process sharing its Chromium: PSS {per_env:.0f} MB per env")
    for workers in args.workers:
        steps_per_s, episodes_per_min = throughput(workers, args.episodes, args.data_dir)
        print(f"throughput, {workers} env process(es): {steps_per_s:6.1f} steps/s, {episodes_per_min:6.1f} oracle "
              "episodes/min")
    print("note: BrowserGym waits 0.5 s after every action plus 1 s slow-mo by default; these figures include no "
          "fixed waits.")


if __name__ == "__main__":
    main()
