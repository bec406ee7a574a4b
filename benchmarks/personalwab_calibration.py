"""How easy a PersonalWAB dataset is for trivial policies (single-turn, official protocol and result formula).

Run on the default (generated) data and, with ``--data-dir``, on the official release, to compare them:

* search: the instruction sentence verbatim as the query (paper, gpt-4o without memory: 0.647);
* search: the instruction's content words as the query;
* review: the instruction sentence posted as the review (MiniLM cosine at 512 tokens; the paper's best review
  figure is 0.538);
* function choice: a three-keyword rule ("review" -> review, "recommend" -> recommendation, else search) on every
  task (gpt-4o without memory picked recommendation for 9.2 % of its calls);
* recommendation: the recommender on the whole visible history (last 30 ASINs; paper baselines <= 0.06).

    python3 benchmarks/personalwab_calibration.py [--data-dir DIR] [--generate JSON] [--splits test,train]
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
from personal_envs.personalwab.memory import task_sentence  # noqa: E402


def keyword_function(task: str) -> str:
    """The three-keyword rule: the function a reader would pick from one word of the instruction."""
    lowered = task.lower()
    return "review" if "review" in lowered else "recommend" if "recommend" in lowered else "search"


def run(env: PersonalWABEnv, action_for: object) -> list[float]:
    scores = []
    for index in range(env.num_tasks):
        obs, _ = env.reset(seed=index, options={"task_index": index})
        _, _, terminated, _, info = env.step(action_for(obs))  # type: ignore[operator]
        assert terminated
        scores.append(float(info["metrics"]["result_accuracy_official"]))
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--generate", default="{}", help="generator keyword arguments as JSON")
    parser.add_argument("--splits", default="test,train", help="instruction splits, pooled")
    args = parser.parse_args()
    generate = json.loads(args.generate)
    splits = args.splits.split(",")
    print(f"machine: {machine()}  splits: {args.splits}")

    def envs(task_type: str | None) -> list[PersonalWABEnv]:
        return [PersonalWABEnv(mode="single", task_type=task_type, data_dir=args.data_dir, split=split,
                               generate=generate) for split in splits]

    figures: dict[str, list[float]] = {}
    start = time.perf_counter()
    for env in envs("search"):
        figures.setdefault("search, instruction verbatim", []).extend(
            run(env, lambda obs: {"action_type": fn.SEARCH, "query": task_sentence(obs["instruction"])}))
        figures.setdefault("search, instruction content words", []).extend(run(env, lambda obs: {
            "action_type": fn.SEARCH, "query": query_from_text(task_sentence(obs["instruction"]))}))
    for env in envs("review"):
        figures.setdefault("review, instruction sentence posted", []).extend(
            run(env, lambda obs: {"action_type": fn.REVIEW, "review": task_sentence(obs["instruction"])}))
    for env in envs("recommend"):
        figures.setdefault("recommend, whole visible history", []).extend(run(env, lambda obs: {
            "action_type": fn.RECOMMEND, "product_sequence": [
                json.loads(line)["parent_asin"] for line in obs["logs"].splitlines()][-fn.MAX_SEQUENCE:]}))
    chosen = []
    for env in envs(None):
        for task in env.tasks:
            chosen.append((keyword_function(str(task.record["task"])), task.task_type))
    source = envs("search")[0].backend.data.source
    print(f"{source} ({time.perf_counter() - start:.0f} s)")
    for name, scores in figures.items():
        print(f"  {name:38s} {len(scores):5d} tasks  result accuracy {mean(scores):.3f}")
    right = sum(1 for guess, truth in chosen if guess == truth)
    print(f"  {'function, three-keyword rule':38s} {len(chosen):5d} tasks  right {right} ({right / len(chosen):.3f}); "
          f"recommendation chosen {sum(g == 'recommend' for g, _ in chosen) / len(chosen):.3f} of the time")


if __name__ == "__main__":
    main()
