"""Reference RL agents for PersonalWAB: MaskablePPO trained on the generated train split, scored on the test split
next to the baselines.

What the agent decides: which function to call, and which argument built from the instruction and the user's
history (memory) to call it with (:mod:`personal_envs.personalwab.candidates`: three search queries, three
recommendation sequences, three reviews, three replies and ``stop``, each in a fixed slot).  What it sees: frozen
MiniLM embeddings of the request, of the user's newest history titles and of the user's reply, plus four flags
(:mod:`personal_envs.personalwab.features`); in multi-turn also the slots it already chose and the step fraction
(:class:`~personal_envs.wrappers.features.SlotHistory`), and a call it already made is masked (``no_repeat``: the
same call returns the same result).  Nothing it sees comes from the answer key.

Multi-turn training (only; the reported figures are the unshaped result accuracy): the env's 10-step limit is
reported as the end of the episode (:class:`~personal_envs.wrappers.limits.StepLimitEnds`: SB3 otherwise adds
``gamma x V`` to an episode cut by the limit, which pays never stopping), and each step costs ``--step-cost``
(``EfficiencyStepCost``, default 0.05): the metric keeps the best call of the episode, so without a cost calling
every function once is what it pays best (the ``degenerate`` rows of the table).

Trained on ``split="train"`` only (a generated world sharing no user, persona or answer with the test data), then
scored on ``split="test"`` (the official test set when the release is installed, else the embedded default) with
the baselines: the heuristic, a uniformly random choice among the same candidates, and rule-based memory baselines
(the heuristic with its arguments taken from the paper's memory kinds: none, random, last, relevant, task).

Run::

    python examples/train_personalwab.py                    # full: both ids, at most 55 minutes on 2 cores
    python examples/train_personalwab.py --quick            # under 2 minutes (the tests run it)
    python examples/train_personalwab.py --minutes 20 --mode single --save runs/pwab/single
    personal-envs eval --env PersonalWAB-SingleTurn-v0 --policy sb3:runs/pwab/single --episodes 60

Writes ``<log-dir>/curves.png``, ``<log-dir>/curve_<mode>.csv``, ``<log-dir>/table.md``, TensorBoard logs under
``<log-dir>/tb`` (``tensorboard --logdir <log-dir>/tb``) and, with ``--save PATH``, ``PATH_<mode>.zip/.json``.
Needs the ``rl`` and ``plot`` extras.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

ENV_IDS = {"single": "PersonalWAB-SingleTurn-v0", "multi": "PersonalWAB-MultiTurn-v0"}
FEATURES = "personal_envs.personalwab.features:make_features"
MEMORY_KINDS = ("none", "random", "last", "relevant", "task")
TYPES = ("search", "recommend", "review")
#: Training-only cost of every multi-turn step (``EfficiencyStepCost``): without it, continuing is free and the
#: metric (the best correct call of the episode) never pays ``stop``.  The reported figures are unshaped.
MULTI_STEP_COST = 0.05


def lexical_similarity(a: str, b: str) -> float:
    """Word-set Jaccard similarity: a fast stand-in for MiniLM review scoring (``--review-similarity lexical``)."""
    left, right = set(a.lower().split()), set(b.lower().split())
    return len(left & right) / max(1, len(left | right))


# ---------------------------------------------------------------------------------------------- baselines
def memory_policy(kind: str, env: gym.Env[Any, Any], seed: int) -> Any:
    """The heuristic with its arguments taken from a memory baseline's records (no LLM): search adds the store of
    the first remembered record, recommendation sends the remembered ASINs in time order, a review repeats the first
    remembered review.  ``relevant`` / ``task`` rank records by MiniLM over their first 300 characters."""
    from personal_envs.core.embedding import embed
    from personal_envs.personalwab import functions as fn
    from personal_envs.personalwab.memory import HistoryMemory
    from personal_envs.personalwab.policies import HeuristicPolicy

    class MemoryHeuristic(HeuristicPolicy):
        name = f"memory-{kind}"

        def __init__(self) -> None:
            super().__init__(env, seed=seed)
            self.memory = HistoryMemory(kind, seed=seed, embed=lambda texts: embed([t[:300] for t in texts]))
            self.records: list[dict[str, Any]] = []

        def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
            super().reset(observation, info)
            self.records = self.memory.select(observation) if kind != "none" else []

        def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
            action = super().act(observation, info)
            records = self.records
            if action["action_type"] == fn.SEARCH and records and records[0].get("store"):
                action["query"] = f"{action['query']} {records[0]['store']}"
            elif action["action_type"] == fn.RECOMMEND:
                timed = sorted((r for r in records if r.get("parent_asin")), key=lambda r: r.get("timestamp") or 0)
                action["product_sequence"] = [str(r["parent_asin"]) for r in timed][-fn.MAX_SEQUENCE:] or ["none"]
            elif action["action_type"] == fn.REVIEW:
                title = action["review"].split(". ", 1)[0]
                reviews = [str(r["review"]) for r in records if r.get("review")]
                action["review"] = f"{title}. {reviews[0]}" if reviews else f"{title}."
            return action

    return MemoryHeuristic()


class SlotProgram:
    """A fixed sequence of candidate slots, one per step (then ``stop``); a slot not offered on this step is
    replaced by ``stop``.  The degenerate programs of the multi-turn table (``DEGENERATE``)."""

    def __init__(self, env: gym.Env[Any, Any], slots: tuple[str, ...], repeat: bool = False) -> None:
        from personal_envs.wrappers.discrete import DiscreteActions

        self.slots = DiscreteActions(env, max_actions=13)
        names = list(self.slots.get_wrapper_attr("fixed_slots"))
        self.program = [names.index(name) for name in slots]
        self.stop = names.index("stop")
        self.repeat = repeat
        self.step = 0

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        self.step = 0

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        self.slots._refresh(observation)
        index = self.step if not self.repeat else 0
        slot = self.program[index] if index < len(self.program) else self.stop
        self.step += 1
        return self.slots.action(slot if self.slots.action_masks()[slot] else self.stop)


_TASK_SLOTS = tuple(f"{family}/{variant}" for family, variants in (
    ("search_product_by_query", ("instruction", "top_store", "relevant")),
    ("get_recommendations_by_history", ("last30", "last5", "relevant")),
    ("add_product_review", ("last", "relevant", "relevant_only"))) for variant in variants)
#: Degenerate multi-turn programs (name -> slots, repeated at every step?): what the metric pays without reading.
DEGENERATE: dict[str, tuple[tuple[str, ...], bool]] = {
    "stop at once": ((), False),
    "always ask (respond/0)": (("respond/0",), True),
    "always review (relevant)": (("add_product_review/relevant",), True),
    "always search (top_store)": (("search_product_by_query/top_store",), True),
    "search (top_store), review (relevant), stop": (("search_product_by_query/top_store",
                                                     "add_product_review/relevant"), False),
    "search, recommend, review once, stop": (("search_product_by_query/instruction",
                                              "get_recommendations_by_history/last30", "add_product_review/last"),
                                             False),
    "every task slot once (9 calls), stop": (_TASK_SLOTS, False),
}


class RandomCandidates:
    """Uniform choice among the candidates the RL agent has (seeded)."""

    def __init__(self, env: gym.Env[Any, Any], seed: int) -> None:
        from personal_envs.wrappers.discrete import DiscreteActions

        self.slots = DiscreteActions(env, max_actions=13)
        self.rng = np.random.default_rng(seed)

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        pass

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        self.slots._refresh(observation)
        return self.slots.action(int(self.rng.choice(np.flatnonzero(self.slots.action_masks()))))


# ---------------------------------------------------------------------------------------------- evaluation
def evaluate(env: gym.Env[Any, Any], policy: Any, tasks: list[int], seed: int = 10_000) -> dict[str, Any]:
    """Run ``policy`` once on each task index; result and function accuracy overall and per task type."""
    rows = []
    actions: dict[str, int] = {}
    for index in tasks:
        observation, info = env.reset(seed=seed + index, options={"task_index": index})
        policy.reset(observation, info)
        done, reward, steps = False, 0.0, 0
        while not done:
            action = policy.act(observation, info)
            actions[str(action.get("action_type"))] = actions.get(str(action.get("action_type")), 0) + 1
            observation, reward_step, terminated, truncated, info = env.step(action)
            reward, steps, done = float(reward_step), steps + 1, terminated or truncated
        metrics = info.get("metrics", {})
        rows.append({"type": env.unwrapped.tasks[index].record["type"], "result": float(metrics.get(
            "result_accuracy", reward)), "function": float(metrics.get("function_accuracy", 0.0)), "steps": steps,
            "calls": float(metrics.get("task_function_calls", 0))})
    summary: dict[str, Any] = {"episodes": len(rows), "actions": actions}
    for name, chosen in [("overall", rows)] + [(t, [r for r in rows if r["type"] == t]) for t in TYPES]:
        summary[name] = {
            "result": float(np.mean([r["result"] for r in chosen])) if chosen else float("nan"),
            "function": float(np.mean([r["function"] for r in chosen])) if chosen else float("nan"),
            "steps": float(np.mean([r["steps"] for r in chosen])) if chosen else float("nan"),
            "calls": float(np.mean([r["calls"] for r in chosen])) if chosen else float("nan"),
            "n": len(chosen),
        }
    return summary


# ---------------------------------------------------------------------------------------------- training
@dataclass
class Setting:
    mode: str
    timesteps: int
    minutes: float
    n_steps: int
    curve_tasks: int
    eval_every: int
    step_cost: float = 0.0
    train_generate: dict[str, Any] = field(default_factory=dict)


def settings(args: argparse.Namespace, mode: str, minutes: float) -> Setting:
    step_cost = args.step_cost if args.step_cost is not None else (MULTI_STEP_COST if mode == "multi" else 0.0)
    if args.quick:
        return Setting(mode, args.timesteps or (384 if mode == "single" else 512), minutes, 128, 12,
                       args.eval_every or 128, step_cost, {"n_users": 24, "n_products": 600})
    return Setting(mode, args.timesteps or (30_000 if mode == "single" else 40_000), minutes, 512, 30,
                   args.eval_every or 2_048, step_cost)


def env_kwargs(args: argparse.Namespace, split: str, setting: Setting) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"split": split}
    if split == "train" and setting.train_generate:
        kwargs["train_generate"] = setting.train_generate
    if args.review_similarity == "lexical":
        kwargs["review_similarity"] = lexical_similarity
    if args.data_dir:
        kwargs["data_dir"] = args.data_dir
    return kwargs


def rl_env_options(mode: str) -> dict[str, Any]:
    return {"max_actions": 13, "features": FEATURES, "slot_history": mode == "multi", "no_repeat": mode == "multi"}


def warm_up(env: gym.Env[Any, Any]) -> float:
    """Embed every task's request and history once, in batches (later steps read them from the cache)."""
    from personal_envs.personalwab.features import warm_embeddings

    started = time.perf_counter()
    warm_embeddings(env)
    return time.perf_counter() - started


def train(args: argparse.Namespace, setting: Setting, log_dir: Path) -> dict[str, Any]:
    import torch
    from sb3_contrib import MaskablePPO

    from personal_envs.policies.sb3 import SB3Policy, save_policy
    from personal_envs.trainers.sb3_curve import learn_with_curve
    from personal_envs.wrappers.limits import StepLimitEnds
    from personal_envs.wrappers.rl import make_rl_env
    from personal_envs.wrappers.shaping import EfficiencyStepCost

    torch.set_num_threads(1)
    env_id = ENV_IDS[setting.mode]
    started = time.perf_counter()
    # training only: the step limit ends the episode (no bootstrap past it), and each step may cost
    shaping: list[Any] = [lambda env: EfficiencyStepCost(env, cost=setting.step_cost)] if setting.step_cost else []
    shaping.append(StepLimitEnds)
    train_env = make_rl_env(env_id, env_kwargs=env_kwargs(args, "train", setting), shaping=shaping,
                            **rl_env_options(setting.mode))
    test_env = gym.make(env_id, **env_kwargs(args, "test", setting))
    warm_s = warm_up(train_env) + warm_up(test_env)
    print(f"[{setting.mode}] {train_env.unwrapped.num_tasks} train tasks, {test_env.unwrapped.num_tasks} test tasks; "
          f"embeddings warmed in {warm_s:.0f} s", flush=True)
    curve_tasks = list(range(min(setting.curve_tasks, test_env.unwrapped.num_tasks)))
    model = MaskablePPO("MlpPolicy", train_env, n_steps=setting.n_steps, batch_size=64, n_epochs=5,
                        learning_rate=3e-4, ent_coef=0.01, gamma=0.99, seed=args.seed, device="cpu", verbose=0,
                        tensorboard_log=str(log_dir / "tb"))
    options = rl_env_options(setting.mode)
    curve: list[tuple[int, float, float]] = []
    deadline = time.perf_counter() + 60 * setting.minutes  # the budget is for training (after the warm-up)

    def point() -> None:
        policy = SB3Policy(test_env, model=model, rl_env=options)
        value = evaluate(test_env, policy, curve_tasks)["overall"]["result"]
        curve.append((model.num_timesteps, time.perf_counter() - started, value))
        if getattr(model, "_logger", None) is not None:  # set once learning starts
            model.logger.record("eval/test_result_accuracy", value)
        print(f"[{setting.mode}] step {model.num_timesteps:6d}  {curve[-1][1]:6.0f} s  test result accuracy "
              f"{value:.3f} ({len(curve_tasks)} tasks)", flush=True)

    learn_with_curve(model, setting.timesteps, point=point, eval_every=setting.eval_every,
                     deadline=deadline, tb_log_name=setting.mode)
    if args.save:
        path = save_policy(model, f"{args.save}_{setting.mode}", env_id, options)
        print(f"[{setting.mode}] policy saved to {path} (personal-envs eval --env {env_id} --policy "
              f"sb3:{args.save}_{setting.mode})", flush=True)
    with (log_dir / f"curve_{setting.mode}.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["timesteps", "seconds", "test_result_accuracy"])
        writer.writerows([(s, f"{t:.1f}", f"{v:.4f}") for s, t, v in curve])
    # final table on every test task
    tasks = list(range(test_env.unwrapped.num_tasks if not args.quick else min(12, test_env.unwrapped.num_tasks)))
    from personal_envs.personalwab.policies import HeuristicPolicy

    table = {"MaskablePPO (ours)": evaluate(test_env, SB3Policy(test_env, model=model, rl_env=options), tasks),
             "heuristic": evaluate(test_env, HeuristicPolicy(test_env, seed=args.seed), tasks),
             "random candidate": evaluate(test_env, RandomCandidates(test_env, args.seed), tasks)}
    for kind in (MEMORY_KINDS if not args.quick else ("last",)):
        table[f"memory: {kind}"] = evaluate(test_env, memory_policy(kind, test_env, args.seed), tasks)
    if setting.mode == "multi":
        for name, (slots, repeat) in DEGENERATE.items():
            table[f"degenerate: {name}"] = evaluate(test_env, SlotProgram(test_env, slots, repeat), tasks)
    train_env.close()
    test_env.close()
    return {"mode": setting.mode, "env_id": env_id, "curve": curve, "table": table, "timesteps": model.num_timesteps,
            "wall_s": time.perf_counter() - started, "test_tasks": len(tasks), "step_cost": setting.step_cost}


# ---------------------------------------------------------------------------------------------- output
def table_text(result: dict[str, Any]) -> str:
    lines = [f"{result['env_id']}: test split, {result['test_tasks']} tasks; MaskablePPO trained "
             f"{result['timesteps']} steps on the train split ({result['wall_s'] / 60:.1f} min, training step cost "
             f"{result.get('step_cost', 0.0)})", "",
             "| policy | result acc | function acc | search | recommend | review | avg steps | calls |",
             "|---|---|---|---|---|---|---|---|"]
    for name, row in result["table"].items():
        lines.append(f"| {name} | {row['overall']['result']:.3f} | {row['overall']['function']:.3f} | "
                     f"{row['search']['result']:.3f} | {row['recommend']['result']:.3f} | {row['review']['result']:.3f}"
                     f" | {row['overall']['steps']:.2f} | {row['overall']['calls']:.2f} |")
    ours = result["table"].get("MaskablePPO (ours)")
    if ours is not None:
        counts = ", ".join(f"{name} {count}" for name, count in sorted(ours["actions"].items(), key=lambda x: -x[1]))
        lines += ["", f"MaskablePPO actions on the test tasks: {counts}"]
    return "\n".join(lines)


def plot(results: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(results), figsize=(6 * len(results), 4), squeeze=False)
    for axis, result in zip(axes[0], results, strict=True):
        steps = [s for s, _, _ in result["curve"]]
        axis.plot(steps, [v for _, _, v in result["curve"]], marker="o", label="MaskablePPO (test tasks of the curve)")
        for name, style in (("heuristic", "--"), ("random candidate", ":"), ("memory: last", "-.")):
            if name in result["table"]:
                axis.axhline(result["table"][name]["overall"]["result"], linestyle=style, color="grey", label=name)
        axis.set_title(result["env_id"])
        axis.set_xlabel("training steps (train split)")
        axis.set_ylabel("result accuracy (test split)")
        axis.set_ylim(0, 1)
        axis.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    from personal_envs.trainers.sb3_curve import write_outputs

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=["single", "multi", "both"], default="both")
    parser.add_argument("--quick", action="store_true", help="a run of under 2 minutes (small train world)")
    parser.add_argument("--minutes", type=float, default=None,
                        help="wall-clock training budget for all modes together (default 50, quick 1)")
    parser.add_argument("--timesteps", type=int, default=0, help="training steps per mode (0: the setting's)")
    parser.add_argument("--eval-every", type=int, default=0, help="curve point every N steps (0: the setting's)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--step-cost", type=float, default=None,
                        help=f"training-only cost per step (default {MULTI_STEP_COST} in multi-turn, 0 in single-turn)")
    parser.add_argument("--save", default=None, help="save each policy as SAVE_<mode>.zip / .json")
    parser.add_argument("--log-dir", default="runs/train_personalwab")
    parser.add_argument("--data-dir", default=None, help="PersonalWAB release (the test split is then official)")
    parser.add_argument("--review-similarity", choices=["minilm", "lexical"], default="minilm",
                        help="review scoring: the paper's MiniLM cosine, or a fast lexical stand-in")
    args = parser.parse_args(argv)

    import personal_envs  # noqa: F401  (registers the ids)

    modes = ["single", "multi"] if args.mode == "both" else [args.mode]
    budget = args.minutes if args.minutes is not None else (1.0 if args.quick else 50.0)
    log_dir = Path(args.log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    results = []
    for mode in modes:
        share = budget * (0.4 if mode == "single" and len(modes) == 2 else 0.6 if len(modes) == 2 else 1.0)
        results.append(train(args, settings(args, mode, share), log_dir))
        print(table_text(results[-1]), flush=True)
    text = "\n\n".join(table_text(r) for r in results)
    write_outputs(log_dir, text, results)
    plot(results, log_dir / "curves.png")
    print(f"\n{text}\n\ncurves: {log_dir / 'curves.png'}; TensorBoard: tensorboard --logdir {log_dir / 'tb'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
