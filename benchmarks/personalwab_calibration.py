"""How hard the default PersonalWAB data is, against the paper's no-memory figures (gpt-4o, Table 3).

Single-turn, test and train splits (pooled) of the default (generated) data, official protocol and result formula:

* search: a query made of the instruction's content words (what an agent without memory can do at best from the
  text alone); paper 0.647;
* recommendation: the recommender on the user's whole visible history (last 30 ASINs); paper baselines <= 0.06;
* review: the heuristic baseline's review, MiniLM at 512 tokens; paper 0.444.

    python3 benchmarks/personalwab_calibration.py [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from statistics import mean

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._measure import machine  # noqa: E402
from personal_envs.core.text import query_from_text  # noqa: E402
from personal_envs.personalwab import functions as fn  # noqa: E402
from personal_envs.personalwab.env import PersonalWABEnv  # noqa: E402
from personal_envs.personalwab.policies import HeuristicPolicy, task_text  # noqa: E402

PAPER = {"search": 0.647, "recommend": 0.06, "review": 0.444}


def run(task_type: str, data_dir: str | None, split: str) -> tuple[list[float], list[float]]:
    env = PersonalWABEnv(mode="single", task_type=task_type, data_dir=data_dir, split=split)
    official, paper = [], []
    for index in range(env.num_tasks):
        obs, info = env.reset(seed=index, options={"task_index": index})
        if task_type == "search":
            action = {"action_type": fn.SEARCH, "query": query_from_text(task_text(obs["instruction"]))}
        elif task_type == "recommend":
            history = [json.loads(line)["parent_asin"] for line in obs["logs"].splitlines()]
            action = {"action_type": fn.RECOMMEND, "product_sequence": history[-fn.MAX_SEQUENCE:]}
        else:
            policy = HeuristicPolicy(env)
            policy.reset(obs, info)
            action = policy.act(obs, info)
        _, _, terminated, _, info = env.step(action)
        assert terminated
        official.append(float(info["metrics"]["result_accuracy_official"]))
        paper.append(float(info["metrics"]["result_accuracy_paper"]))
    return official, paper


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--splits", default="test,train",
                        help="instruction splits to measure on, pooled (default: both, for a larger sample)")
    args = parser.parse_args()
    print(f"machine: {machine()}  splits: {args.splits}")
    for task_type in ("search", "recommend", "review"):
        start = time.perf_counter()
        official, paper = [], []
        for split in args.splits.split(","):
            split_official, split_paper = run(task_type, args.data_dir, split)
            official += split_official
            paper += split_paper
        print(f"{task_type:9s} tasks {len(official):4d}  result acc official {mean(official):.3f}  "
              f"paper formula {mean(paper):.3f}  paper no-memory figure {PAPER[task_type]:.3f}  "
              f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
