"""Reference RL agent for KnowU-Proactive: learn when to act, ask or stay silent, on generated personas only.

What the agent decides: three fixed slots (:mod:`personal_envs.knowu.rl`): ``finished`` (stay silent / stop),
``ask_user`` (the neutral consent question, once) and ``act`` (carry out the routine's action with the executor the
always-act and always-ask baselines use; once chosen the episode is committed to it).  What it sees: frozen MiniLM
embeddings of the situation (status lines, time, battery) and of the logged behaviours at that time of day and closest
in meaning to it, repetition counts, and whether the user accepted or rejected.  Nothing from the profile, the habit
list or the oracle plan.  Each ``ask_user`` costs ``--ask-cost`` in training (the interaction-efficiency trade-off).

Trained on personas written by ``personal-envs knowu generate`` (``--train-personas`` of seed ``--train-seed``),
scored on the official proactive variants (64 with the release) next to always-silent, always-act, always-ask and a
uniformly random decision, and on personas neither set contains (``--novel-personas`` of seed ``--novel-seed``).

Run::

    python examples/train_knowu.py --quick                       # under 2 minutes (the tests run it)
    python examples/train_knowu.py --minutes 25 --save runs/knowu/proactive
    personal-envs eval --env KnowU-Proactive-v0 --policy sb3:runs/knowu/proactive --env-kwargs '{"render": "text"}'

Writes ``<log-dir>/curve.png``, ``curve.csv``, ``table.md``, ``results.json`` and TensorBoard logs under
``<log-dir>/tb``.  Needs the ``rl`` and ``plot`` extras.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

ENV_ID = "KnowU-Proactive-v0"


# ---------------------------------------------------------------------------------------------- envs
def train_env_kwargs(personas: Path, data_dir: str | None) -> dict[str, Any]:
    """The training env: generated personas (becomes ``{"split": "train", "render": "text"}`` once KnowUEnv has
    its train split)."""
    return {"personas": str(personas), "render": "text", **({"data_dir": data_dir} if data_dir else {})}


def test_env_kwargs(data_dir: str | None, personas: Path | None = None) -> dict[str, Any]:
    """The official variants (or, with ``personas``, another persona folder on the release's classes)."""
    kwargs: dict[str, Any] = {"render": "text", **({"data_dir": data_dir} if data_dir else {})}
    if personas is not None:
        kwargs["personas"] = str(personas)
    return kwargs


def generate_personas(count: int, seed: int, out: Path) -> Path:
    from personal_envs.knowu.generate import generate_release

    if not (out / "GENERATED.yaml").is_file():
        generate_release(count, seed, out)
    return out


# ---------------------------------------------------------------------------------------------- policies
class RandomDecision:
    """A uniformly random choice among the decision slots offered (seeded)."""

    name = "random"

    def __init__(self, env: gym.Env[Any, Any], seed: int) -> None:
        from personal_envs.knowu.rl import make_candidates
        from personal_envs.wrappers.discrete import DiscreteActions

        self.slots = DiscreteActions(env, provider=make_candidates(env), max_actions=3)
        self.rng = np.random.default_rng(seed)

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        pass

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        self.slots._refresh(observation)
        return self.slots.action(int(self.rng.choice(np.flatnonzero(self.slots.action_masks()))))


def baselines(env: gym.Env[Any, Any], seed: int) -> dict[str, Any]:
    from personal_envs.knowu.baselines import AlwaysActPolicy, AlwaysAskPolicy, AlwaysSilentPolicy

    return {"always_silent": AlwaysSilentPolicy(env, seed), "always_act": AlwaysActPolicy(env, seed),
            "always_ask": AlwaysAskPolicy(env, seed), "random": RandomDecision(env, seed)}


# ---------------------------------------------------------------------------------------------- evaluation
def evaluate(env: gym.Env[Any, Any], policy: Any, tasks: list[int]) -> dict[str, Any]:
    """One episode per task index: SR (score > 0.99), mean score, queries (``ask_user``) and steps per episode, and
    SR on the variants whose habit applies / does not (read from the task after the episode, for the table only)."""
    rows = []
    for index in tasks:
        observation, info = env.reset(seed=index, options={"task_index": index})
        policy.reset(observation, info)
        done, score = False, 0.0
        while not done:
            observation, reward, terminated, truncated, info = env.step(policy.act(observation, info))
            done = terminated or truncated
            score = float(info.get("score", reward))
        base: Any = env.unwrapped
        rows.append({"task": base.task.task_id, "score": score, "success": score > 0.99,
                     "queries": int(base.trace.user_turn_count), "steps": int(base.steps),
                     "applies": bool(getattr(base.task, "routine_applies", False))})
    def rate(chosen: list[dict[str, Any]]) -> float:
        return float(np.mean([r["success"] for r in chosen])) if chosen else float("nan")

    return {"episodes": len(rows), "sr": rate(rows), "score": float(np.mean([r["score"] for r in rows])),
            "queries": float(np.mean([r["queries"] for r in rows])), "steps": float(np.mean([r["steps"] for r in rows])),
            "sr_habit": rate([r for r in rows if r["applies"]]), "sr_no_habit": rate([r for r in rows if not r["applies"]]),
            "rows": rows}


# ---------------------------------------------------------------------------------------------- training
@dataclass
class Setting:
    personas: int
    timesteps: int
    minutes: float
    n_steps: int
    eval_every: int
    curve_tasks: int


def setting(args: argparse.Namespace) -> Setting:
    minutes = args.minutes if args.minutes is not None else (0.6 if args.quick else 25.0)
    if args.quick:
        return Setting(args.train_personas or 4, args.timesteps or 256, minutes, 64, args.eval_every or 128, 16)
    return Setting(args.train_personas or 40, args.timesteps or 200_000, minutes, 512, args.eval_every or 2_048, 64)


def warm_up(env: gym.Env[Any, Any], features: Any) -> float:
    """Compute every variant's features once (embeddings are memoised for the episodes that follow)."""
    from personal_envs.knowu.rl import warm_features

    started = time.perf_counter()
    warm_features(env, features)
    return time.perf_counter() - started


def run(args: argparse.Namespace) -> dict[str, Any]:
    import torch
    from sb3_contrib import MaskablePPO

    import personal_envs  # noqa: F401  (registers the ids)
    from personal_envs.knowu.rl import RL_ENV_OPTIONS, ProactiveFeatures
    from personal_envs.policies.sb3 import SB3Policy, save_policy
    from personal_envs.trainers.sb3_curve import learn_with_curve
    from personal_envs.wrappers.rl import make_rl_env
    from personal_envs.wrappers.shaping import InteractionEfficiencyCost

    torch.set_num_threads(1)
    chosen = setting(args)
    log_dir = Path(args.log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    train_dir = generate_personas(chosen.personas, args.train_seed, log_dir / f"personas_train_{args.train_seed}")
    novel_dir = generate_personas(args.novel_personas, args.novel_seed, log_dir / f"personas_novel_{args.novel_seed}")
    features = ProactiveFeatures()
    raw_train = gym.make(ENV_ID, **train_env_kwargs(train_dir, args.data_dir))
    train_env = make_rl_env(raw_train, provider=RL_ENV_OPTIONS["provider"], max_actions=3, features=features,
                            shaping=[lambda e: InteractionEfficiencyCost(e, args.ask_cost)])
    test_env = gym.make(ENV_ID, **test_env_kwargs(args.data_dir))
    novel_env = gym.make(ENV_ID, **test_env_kwargs(args.data_dir, novel_dir))
    warm_s = warm_up(raw_train, features) + warm_up(test_env, features) + warm_up(novel_env, features)
    print(f"{raw_train.unwrapped.num_tasks} train variants ({chosen.personas} generated personas), "
          f"{test_env.unwrapped.num_tasks} test variants, {novel_env.unwrapped.num_tasks} novel-persona variants; "
          f"features warmed in {warm_s:.0f} s", flush=True)
    test_tasks = list(range(test_env.unwrapped.num_tasks))
    curve_tasks = test_tasks[:: max(1, len(test_tasks) // chosen.curve_tasks)][: chosen.curve_tasks]
    model = MaskablePPO("MlpPolicy", train_env, n_steps=chosen.n_steps, batch_size=64, n_epochs=10,
                        learning_rate=3e-4, ent_coef=0.01, gamma=1.0, seed=args.seed, device="cpu", verbose=0,
                        tensorboard_log=str(log_dir / "tb"))
    curve: list[tuple[int, float, float, float]] = []
    deadline = time.perf_counter() + 60 * chosen.minutes

    def point() -> None:
        result = evaluate(test_env, SB3Policy(test_env, model=model, rl_env=RL_ENV_OPTIONS), curve_tasks)
        curve.append((model.num_timesteps, time.perf_counter() - started, result["sr"], result["queries"]))
        if getattr(model, "_logger", None) is not None:
            model.logger.record("eval/test_sr", result["sr"])
            model.logger.record("eval/test_queries", result["queries"])
        print(f"step {model.num_timesteps:6d}  {curve[-1][1]:6.0f} s  test SR {result['sr']:.3f}  queries/episode "
              f"{result['queries']:.2f} ({len(curve_tasks)} variants)", flush=True)

    learn_with_curve(model, chosen.timesteps, point=point, eval_every=chosen.eval_every,
                     deadline=deadline, tb_log_name="proactive")
    if args.save:
        path = save_policy(model, args.save, ENV_ID, RL_ENV_OPTIONS)
        print(f"policy saved to {path} (personal-envs eval --env {ENV_ID} --policy sb3:{args.save} "
              f"--env-kwargs '{{\"render\": \"text\"}}')", flush=True)
    with (log_dir / "curve.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["timesteps", "seconds", "test_sr", "test_queries"])
        writer.writerows([(s, f"{t:.1f}", f"{v:.4f}", f"{q:.3f}") for s, t, v, q in curve])
    tables: dict[str, dict[str, Any]] = {}
    for name, env in (("official", test_env), ("novel persona", novel_env)):
        tasks = list(range(env.unwrapped.num_tasks))
        policies = {"MaskablePPO (ours)": SB3Policy(env, model=model, rl_env=RL_ENV_OPTIONS), **baselines(env, args.seed)}
        tables[name] = {label: evaluate(env, policy, tasks) for label, policy in policies.items()}
    for env in (raw_train, test_env, novel_env):
        env.close()
    return {"curve": curve, "tables": tables, "timesteps": model.num_timesteps, "personas": chosen.personas,
            "train_variants": raw_train.unwrapped.num_tasks, "wall_s": time.perf_counter() - started,
            "ask_cost": args.ask_cost}


# ---------------------------------------------------------------------------------------------- output
def table_text(result: dict[str, Any]) -> str:
    lines = [f"KnowU-Proactive-v0: MaskablePPO trained {result['timesteps']} steps on {result['train_variants']} "
             f"variants of {result['personas']} generated personas ({result['wall_s'] / 60:.1f} min)"]
    for name, table in result["tables"].items():
        first = next(iter(table.values()))
        lines += ["", f"{name} ({first['episodes']} variants)", "",
                  "| policy | SR | score | queries/episode | SR habit | SR no habit | avg steps |",
                  "|---|---|---|---|---|---|---|"]
        for label, row in table.items():
            lines.append(f"| {label} | {row['sr']:.3f} | {row['score']:.3f} | {row['queries']:.2f} | "
                         f"{row['sr_habit']:.3f} | {row['sr_no_habit']:.3f} | {row['steps']:.2f} |")
    return "\n".join(lines)


def plot(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(7, 4))
    steps = [s for s, _, _, _ in result["curve"]]
    axis.plot(steps, [v for _, _, v, _ in result["curve"]], marker="o", label="MaskablePPO SR (curve variants)")
    axis.plot(steps, [q for _, _, _, q in result["curve"]], marker=".", linestyle=":", label="queries / episode")
    official = result["tables"]["official"]
    for name, style in (("always_silent", "--"), ("always_act", ":"), ("always_ask", "-.")):
        axis.axhline(official[name]["sr"], linestyle=style, color="grey", label=f"{name} SR")
    axis.set_xlabel("training steps (generated personas)")
    axis.set_ylabel("official variants")
    axis.set_ylim(0, 1.05)
    axis.set_title("KnowU-Proactive-v0")
    axis.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    from personal_envs.trainers.sb3_curve import write_outputs

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a run of under 2 minutes (4 personas, 256 steps)")
    parser.add_argument("--minutes", type=float, default=None, help="wall-clock training budget (default 25, quick 0.6)")
    parser.add_argument("--timesteps", type=int, default=0, help="training steps (0: the setting's)")
    parser.add_argument("--eval-every", type=int, default=0, help="curve point every N steps (0: the setting's)")
    parser.add_argument("--train-personas", type=int, default=0, help="generated training personas (0: the setting's)")
    parser.add_argument("--train-seed", type=int, default=101)
    parser.add_argument("--novel-seed", type=int, default=977, help="seed of the held-out personas")
    parser.add_argument("--novel-personas", type=int, default=2,
                        help="held-out personas (2: each habit applies to one of them, like the official 36-44 %%)")
    parser.add_argument("--ask-cost", type=float, default=0.1, help="training cost of each ask_user")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", default=None, help="save the policy as SAVE.zip / SAVE.json")
    parser.add_argument("--log-dir", default="runs/train_knowu")
    parser.add_argument("--data-dir", default=None, help="KnowU release (the test split is then the 64 official)")
    args = parser.parse_args(argv)
    result = run(args)
    log_dir = Path(args.log_dir)
    text = table_text(result)
    write_outputs(log_dir, text, result)
    plot(result, log_dir / "curve.png")
    print(f"\n{text}\n\ncurve: {log_dir / 'curve.png'}; TensorBoard: tensorboard --logdir {log_dir / 'tb'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
