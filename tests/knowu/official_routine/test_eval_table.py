"""The eval table of an official proactive run shows Act / Silent / Stop, as ``calc_paper_metrics.py`` computes them
from the records (before issue 33 the official records carried none of the project's fields: every cell was "-")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from personal_envs.knowu.official.paper_metrics import load_results, report_records, summarize
from tests.knowu.official_routine.conftest import ANCHORS

pytestmark = pytest.mark.usefixtures("anchors")


@pytest.mark.parametrize("policy", ["always_silent", "always_act"])
def test_the_eval_table_shows_the_official_act_silent_stop(tmp_path: Path, policy: str) -> None:
    out = tmp_path / "run.jsonl"
    kwargs = json.dumps({"data_dir": str(ANCHORS), "render": "text"})
    done = subprocess.run([sys.executable, "-m", "personal_envs", "eval", "--env", "KnowU-Proactive-v0", "--policy",
                           policy, "--episodes", "12", "--out", str(out), "--no-progress", "--env-kwargs", kwargs],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    official = summarize(load_results([str(out)]))["proactive_policy"]
    section = done.stdout.split(f"== {policy} ==", 1)[1]
    shown = {line.split()[0]: line.split()[1:] for line in section.splitlines()
             if line.split()[:1] in (["Act"], ["Silent"], ["Stop"])}
    expected = {n: [str(official[n]["episodes"]), "n/a" if official[n]["value"] is None
                    else f"{100.0 * official[n]['value']:.2f}"] for n in ("Act", "Silent", "Stop")}
    assert shown == expected and (shown["Act"][1], shown["Silent"][1]) != ("n/a", "n/a")
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert report_records(records) in done.stdout
