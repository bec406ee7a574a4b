"""Train Stable-Baselines3 PPO (CPU) through the RL wrappers and compare it with a random policy.

Two problems, each printed as a learning curve (evaluation return of the deterministic policy against training
timesteps) with the random policy's return on the same evaluation episodes:

* ``personalwab``: PersonalWAB single-turn function selection.  Observation: hashed features of the instruction;
  action: which candidate to run (search, recommend, review, three canned replies, stop), with the arguments built
  by fixed rules (:class:`~personal_envs.wrappers.candidates.PersonalWABCandidates`).  Trained on the ``train``
  split, evaluated on the ``test`` split; the return is the paper's result accuracy.
* ``knowu``: a KnowU-Bench general task on the simulated phone, ``MastodonPrivacyDefaultGeneralTask`` by default, in text mode
  (``render="text"``: the phone's screen computed without Chromium; ``--knowu-render browser`` shows it in Chromium).
  Observation: hashed features of the instruction and the UI hierarchy; action: one of the ``top_k`` taps and
  ``top_k`` apps most related to the instruction (:class:`~personal_envs.wrappers.candidates.PhoneCandidates`); the
  episode is scored by the task's rule checks after ``max_steps`` steps.

Run::

    python examples/train_ppo.py                      # both problems, a few minutes on 2 cores
    python examples/train_ppo.py --problem personalwab --timesteps 3000
    python examples/train_ppo.py --quick              # a short smoke run (used by the tests)
    python examples/train_ppo.py --log-dir runs/ppo   # also write runs/ppo/<problem>/curve.csv, then:
    personal-envs plot --curves runs/ppo/*/curve.csv --out plots/
    python examples/train_ppo.py --tensorboard runs/tb  # SB3's own TensorBoard logs (pip install tensorboard)

Needs the ``rl`` extra (stable-baselines3, torch).
"""

from __future__ import annotations

import argparse
import csv
import functools
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np


@dataclass
class Problem:
    """A training problem: how to build the training and evaluation envs, and PPO's budget."""

    name: str
    make_train: Callable[[], gym.Env[Any, Any]]
    make_eval: Callable[[], gym.Env[Any, Any]]
    eval_episodes: int
    random_episodes: int
    timesteps: int
    eval_every: int
    n_steps: int


def lexical_similarity(a: str, b: str) -> float:
    """Word-set Jaccard similarity: a fast stand-in for MiniLM review scoring (``--review-similarity lexical``)."""
    left, right = set(a.lower().split()), set(b.lower().split())
    return len(left & right) / max(1, len(left | right))


def personalwab_problem(args: argparse.Namespace) -> Problem:
    from personal_envs.wrappers.rl import make_rl_env

    kwargs: dict[str, Any] = {"review_similarity": lexical_similarity}
    if args.review_similarity == "minilm":
        from personal_envs.core.embedding import text_similarity

        # the paper's MiniLM cosine, memoised: the rule-built reviews repeat across episodes of the same task
        kwargs["review_similarity"] = functools.lru_cache(maxsize=None)(text_similarity)

    def make(split: str) -> gym.Env[Any, Any]:
        return make_rl_env("PersonalWAB-SingleTurn-v0", fields=("instruction",), max_actions=16,
                           env_kwargs={"split": split, **kwargs})

    timesteps = args.timesteps or (256 if args.quick else 2048)
    return Problem("PersonalWAB-SingleTurn-v0 function selection", lambda: make("train"), lambda: make("test"),
                   eval_episodes=12 if args.quick else 60, random_episodes=12 if args.quick else 60,
                   timesteps=timesteps,
                   eval_every=max(128, timesteps // 8), n_steps=128)


def knowu_problem(args: argparse.Namespace) -> Problem:
    from personal_envs.wrappers.candidates import PhoneCandidates, phone_app_names
    from personal_envs.wrappers.rl import make_rl_env

    provider = PhoneCandidates(apps=phone_app_names(), top_k=2, questions=(), terminal=False, system=False)

    def make() -> gym.Env[Any, Any]:
        return make_rl_env("KnowU-General-v0", provider=provider, max_actions=4, fields=("instruction", "ui_xml"),
                           env_kwargs={"task": args.knowu_task, "screenshot": False, "max_steps": 3,
                                       "render": args.knowu_render})

    timesteps = args.timesteps or (48 if args.quick else 960)
    return Problem(f"KnowU-General-v0 task {args.knowu_task} (simulated phone)", make, make,
                   eval_episodes=1 if args.quick else 2, random_episodes=2 if args.quick else 20, timesteps=timesteps,
                   eval_every=max(24, timesteps // 5), n_steps=24 if args.quick else 48)


def run_episodes(env: gym.Env[Any, Any], choose: Callable[[np.ndarray, np.ndarray], int], episodes: int,
                 seed: int) -> float:
    """Mean return over ``episodes`` episodes (episode ``i``: task ``i``, seed ``seed + i``)."""
    returns = []
    for episode in range(episodes):
        observation, info = env.reset(seed=seed + episode, options={"task_index": episode})
        total, done = 0.0, False
        while not done:
            action = choose(observation, np.asarray(info["action_mask"]))
            observation, reward, terminated, truncated, info = env.step(action)
            total += float(reward)
            done = terminated or truncated
        returns.append(total)
    return float(np.mean(returns))


def random_chooser(seed: int) -> Callable[[np.ndarray, np.ndarray], int]:
    """Uniform choice among the valid (masked) candidates."""
    rng = np.random.default_rng(seed)
    return lambda observation, mask: int(rng.choice(np.flatnonzero(mask)))


def train(problem: Problem, seed: int, tensorboard: str | None = None) -> dict[str, Any]:
    """Train PPO on ``problem``, evaluating every ``eval_every`` steps; returns the curve and the baselines.
    ``tensorboard``: a directory for SB3's TensorBoard logs (needs the ``tensorboard`` package)."""
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback

    torch.set_num_threads(1)
    started = time.perf_counter()
    train_env, eval_env = problem.make_train(), problem.make_eval()
    curve: list[tuple[int, float]] = []
    model = PPO("MlpPolicy", train_env, n_steps=problem.n_steps, batch_size=min(64, problem.n_steps),
                learning_rate=1e-3, n_epochs=8, ent_coef=0.01, gamma=0.95, seed=seed, device="cpu", verbose=0,
                tensorboard_log=tensorboard)

    def evaluate() -> float:
        def choose(observation: np.ndarray, mask: np.ndarray) -> int:
            action, _ = model.predict(observation, deterministic=True)
            return int(action)

        return run_episodes(eval_env, choose, problem.eval_episodes, seed=10_000 + seed)

    class Curve(BaseCallback):
        def _on_step(self) -> bool:
            if self.num_timesteps % problem.eval_every == 0:
                curve.append((self.num_timesteps, evaluate()))
                print(f"  {problem.name}: step {self.num_timesteps:6d}  eval return {curve[-1][1]:.3f}", flush=True)
            return True

    try:
        curve.append((0, evaluate()))
        print(f"  {problem.name}: step      0  eval return {curve[-1][1]:.3f}", flush=True)
        model.learn(problem.timesteps, callback=Curve())
        if curve[-1][0] != model.num_timesteps:
            curve.append((model.num_timesteps, evaluate()))
        random_return = run_episodes(eval_env, random_chooser(seed), problem.random_episodes, seed=10_000 + seed)
    finally:
        train_env.close()
        eval_env.close()
    return {"problem": problem.name, "curve": curve, "random": random_return, "final": curve[-1][1],
            "wall_s": time.perf_counter() - started, "seed": seed}


def print_result(result: dict[str, Any]) -> None:
    """The learning curve as a table, then the final comparison."""
    print(f"\n{result['problem']} (seed {result['seed']}, {result['wall_s']:.0f} s)")
    print(f"  {'timesteps':>9}  {'eval return':>11}")
    for steps, value in result["curve"]:
        print(f"  {steps:>9d}  {value:>11.3f}  {'#' * int(round(40 * max(0.0, min(1.0, value))))}")
    print(f"  PPO final {result['final']:.3f}  vs  random {result['random']:.3f}")


def write_curve(result: dict[str, Any], log_dir: str) -> Path:
    """Write the learning curve as ``<log_dir>/<problem>/curve.csv`` (timesteps, eval return, random return)."""
    path = Path(log_dir) / result["problem"].split()[0] / "curve.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["timesteps", "mean_reward", "random_reward", "seed"])
        for steps, value in result["curve"]:
            writer.writerow([steps, f"{value:.6f}", f"{result['random']:.6f}", result["seed"]])
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", choices=["personalwab", "knowu", "all"], default="all")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timesteps", type=int, default=0, help="training steps per problem (0: default)")
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    parser.add_argument("--review-similarity", choices=["minilm", "lexical"], default="minilm",
                        help="PersonalWAB review scoring: the paper's MiniLM cosine, or a fast lexical stand-in")
    parser.add_argument("--knowu-task", default="MastodonPrivacyDefaultGeneralTask")
    parser.add_argument("--knowu-render", choices=["text", "browser"], default="text",
                        help="the phone without Chromium (text, default) or in Chromium (browser)")
    parser.add_argument("--log-dir", default=None, help="write each learning curve to LOG_DIR/<problem>/curve.csv")
    parser.add_argument("--tensorboard", default=None, help="directory for SB3's TensorBoard logs")
    args = parser.parse_args(argv)

    import personal_envs  # noqa: F401  (registers the ids)

    builders = {"personalwab": personalwab_problem, "knowu": knowu_problem}
    chosen = list(builders) if args.problem == "all" else [args.problem]
    results = []
    for name in chosen:
        print(f"training PPO on {name} ...", flush=True)
        results.append(train(builders[name](args), args.seed, args.tensorboard))
        if args.log_dir:
            print(f"  curve written to {write_curve(results[-1], args.log_dir)}", flush=True)
    for result in results:
        print_result(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
