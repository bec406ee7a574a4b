"""BrowserArena benchmark: scripted policies on the three failure-mode envs, their tables, step latency, and a
small arena (battles between two policies) with the Bradley-Terry leaderboard.

    python benchmarks/browserarena.py --tasks 5 --battles 4 --out /tmp/browserarena-bench
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

import gymnasium as gym

import personal_envs  # noqa: F401
from personal_envs.browserarena import policies as P
from personal_envs.browserarena.arena import ArenaStore, ScoreVoter, compute_leaderboard, run_battle
from personal_envs.browserarena.arena.plot import plot_ratings
from personal_envs.browserarena.reports import banner_report, captcha_report, navigation_report
from personal_envs.core.registration import entry_for, load_object


def run(env_id: str, policy_names: list[str], task_indices: list[int]) -> tuple[list[dict[str, Any]], list[float]]:
    env = gym.make(env_id, max_wait_s=0.0, screenshot=False)
    records, step_times = [], []
    try:
        for name in policy_names:
            for task_index in task_indices:
                policy = load_object(entry_for(env_id).policies[name])(env)
                obs, info = env.reset(seed=0, options={"task_index": task_index})
                policy.reset(obs, info)
                done = False
                while not done:
                    start = time.perf_counter()
                    obs, reward, terminated, truncated, info = env.step(policy.act(obs, info))
                    step_times.append(time.perf_counter() - start)
                    done = terminated or truncated
                records.append({"policy": name, "metrics": info["metrics"], "steps": info["steps"],
                                "reward": reward})
    finally:
        env.close()
    return records, step_times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=5, help="tasks per policy and env")
    parser.add_argument("--battles", type=int, default=4, help="arena battles (PopupBanner)")
    parser.add_argument("--out", default=tempfile.mkdtemp(prefix="browserarena-bench-"))
    args = parser.parse_args()
    out = Path(args.out)
    plan = [
        ("BrowserArena-Captcha-v0", ["captcha_explorer", "captcha_mobile", "captcha_stuck"], 220, captcha_report),
        ("BrowserArena-PopupBanner-v0", ["banner_closer", "banner_ignorer"], 80, banner_report),
        ("BrowserArena-DirectNavigation-v0", ["trivia_google_api", "trivia_google_site", "trivia_wiki",
                                              "trivia_direct_answer"], 100, navigation_report),
    ]
    all_times: list[float] = []
    for env_id, names, size, report in plan:
        indices = [round(k * size / args.tasks) % size for k in range(args.tasks)]
        started = time.perf_counter()
        records, times = run(env_id, names, indices)
        all_times.extend(times)
        print(f"\n{env_id}: {len(records)} episodes in {time.perf_counter() - started:.1f} s")
        print(report(records))
    all_times.sort()
    print(f"\nstep latency (no screenshot): median {all_times[len(all_times) // 2] * 1000:.0f} ms, "
          f"p90 {all_times[int(len(all_times) * 0.9)] * 1000:.0f} ms over {len(all_times)} steps")
    store = ArenaStore(out / "arena.sqlite")
    started = time.perf_counter()
    for k in range(args.battles):
        run_battle(lambda: gym.make("BrowserArena-PopupBanner-v0", max_wait_s=0.0), {
            "banner_closer": P.make_banner_closer, "banner_ignorer": P.make_banner_ignorer}, 7 * k % 80,
            store=store, out_dir=out / "battles", env_id="BrowserArena-PopupBanner-v0", voter=ScoreVoter())
    print(f"\n{args.battles} battles (with screenshots and GIFs) in {time.perf_counter() - started:.1f} s")
    board = compute_leaderboard(store.voted_battles(source="judge"))  # the score fallback is a judge
    print(board.table())
    plot_ratings(board, out / "leaderboard.png")
    print(f"artefacts in {out}")


if __name__ == "__main__":
    main()
