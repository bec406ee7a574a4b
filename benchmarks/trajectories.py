"""The cost of trajectories per benchmark: disk per episode and time per step with and without recording.

Runs the same episodes of each benchmark with a scripted policy twice on one env (interleaved: without, then with
the recorder), through the eval runner's ``run_episode``.  Prints per benchmark: steps, ms per step without and with
trajectories, the recorder's own ms per step (time spent inside the recorder, the least noisy figure), kB per
episode on disk and screenshots stored per episode.

    python3 benchmarks/trajectories.py [--episodes 4] [--only KnowU]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import gymnasium as gym

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import personal_envs  # noqa: E402,F401
from benchmarks._measure import machine  # noqa: E402
from personal_envs.runner import make_policy, run_episode  # noqa: E402
from personal_envs.trajectories.recorder import TRAJECTORY_FILE, TrajectoryRecorder  # noqa: E402

#: (env id, policy, env kwargs) measured for each benchmark.
CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("PersonalWAB-MultiTurn-v0", "heuristic", {"task_type": "search"}),
    ("WebMall-v0", "oracle", {"observation_mode": "axtree+screenshot", "max_steps": 15}),
    ("KnowU-Proactive-v0", "oracle", {"max_steps": 15}),
    ("BrowserArena-PopupBanner-v0", "banner_closer", {"max_steps": 8}),
]


def measure(env_id: str, policy_name: str, kwargs: dict[str, Any], episodes: int, folder: Path) -> dict[str, Any]:
    """Run ``episodes`` episodes without and with a recorder; return the figures."""
    env = gym.make(env_id, **kwargs)
    recorder = TrajectoryRecorder(folder / env_id)
    totals = {"off": [0.0, 0], "on": [0.0, 0]}
    try:
        policy = make_policy(env_id, policy_name, env)
        run_episode(env, policy, env_id=env_id, policy_name=policy_name, episode=0, seed=0)  # warm-up
        for episode in range(episodes):
            for mode in ("off", "on"):
                record = run_episode(env, policy, env_id=env_id, policy_name=policy_name, episode=episode,
                                     seed=episode, recorder=recorder if mode == "on" else None)
                if record["error"]:
                    raise RuntimeError(f"{env_id} episode {episode}: {record['error'].splitlines()[0]}")
                totals[mode][0] += record["runtime_s"]
                totals[mode][1] += record["steps"]
    finally:
        env.close()
    report = recorder.size_report()
    record_s = steps = 0.0
    for child in recorder.directory.glob("episode_*"):
        data = json.loads((child / TRAJECTORY_FILE).read_text(encoding="utf-8"))
        record_s += data["record_s"]
        steps += len(data["steps"])
    return {
        "env_id": env_id, "steps": int(totals["on"][1]),
        "ms_per_step_off": 1000 * totals["off"][0] / max(1, totals["off"][1]),
        "ms_per_step_on": 1000 * totals["on"][0] / max(1, totals["on"][1]),
        "recorder_ms_per_step": 1000 * record_s / max(1, steps),
        "kb_per_episode": report["bytes_per_episode"] / 1000, "images_per_episode": report["images"] / episodes,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=4)
    parser.add_argument("--only", default="", help="only env ids containing this text")
    args = parser.parse_args()
    print(machine())
    print(f"{'env id':30s} {'steps':>5s} {'ms/step off':>11s} {'ms/step on':>10s} {'recorder ms/step':>16s} "
          f"{'kB/episode':>10s} {'images/ep':>9s}")
    with tempfile.TemporaryDirectory() as folder:
        for env_id, policy, kwargs in CASES:
            if args.only and args.only not in env_id:
                continue
            try:
                row = measure(env_id, policy, kwargs, args.episodes, Path(folder))
            except Exception as exc:  # a benchmark that cannot run here is reported, the others still run
                print(f"{env_id:30s} failed: {type(exc).__name__}: {str(exc)[:120]}")
                continue
            print(f"{row['env_id']:30s} {row['steps']:5d} {row['ms_per_step_off']:11.1f} {row['ms_per_step_on']:10.1f} "
                  f"{row['recorder_ms_per_step']:16.2f} {row['kb_per_episode']:10.1f} {row['images_per_episode']:9.1f}")


if __name__ == "__main__":
    main()
