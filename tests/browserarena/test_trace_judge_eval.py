"""The paper's LLM trace judge wired into ``personal-envs eval`` (env kwarg ``trace_judge``), against a real
OpenAI-compatible server on loopback, in real Chromium: its labels reach the metrics and the report."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from personal_envs.cli import main
from personal_envs.llm.testing import ScriptedChatServer


def _judge(body: dict[str, Any]) -> str:
    """A stand-in judge model that reads only what the agent wrote (Eval / Memory / Next goal lines)."""
    system, log = body["messages"][0]["content"], body["messages"][1]["content"]
    assert "[banner" not in log and "[captcha" not in log  # the env's own flags never reach the judge
    agent_lines = "\n".join(line for line in log.splitlines()
                            if re.match(r"\s*(Eval|Memory|Next goal|Action \d+/\d+):", line))
    if "cookie banner" in system:
        noticed = bool(re.search(r"banner|cookie|pop-?up", agent_lines, re.IGNORECASE))
        return "```json\n" + json.dumps({"banner_detected": noticed, "banner_closed": noticed}) + "\n```"
    if "trivia" in system:
        actions = re.findall(r'Action \d+/\d+: \{"(\w+)"', log)
        category = ("google_api" if "search_google" in actions else "wiki" if "go_to_url" in actions
                    else "direct_answer")
        return json.dumps({"category": category})
    raise AssertionError(system[:80])


@pytest.mark.parametrize(("env_id", "policy", "column", "expected"), [
    ("BrowserArena-PopupBanner-v0", "banner_ignorer", "banner detected %", "0.0"),
    ("BrowserArena-PopupBanner-v0", "banner_closer", "banner detected %", "100.0"),
    ("BrowserArena-DirectNavigation-v0", "trivia_google_api", "Google API %", "100.0"),
    # the judge says "direct answer"; the fictional landmarks' answers from memory are wrong: Table 5 says Failed
    ("BrowserArena-DirectNavigation-v0", "trivia_direct_answer", "Failed %", "100.0"),
])
def test_eval_with_the_llm_trace_judge(tmp_path: Path, capsys: pytest.CaptureFixture[str], env_id: str,
                                       policy: str, column: str, expected: str) -> None:
    with ScriptedChatServer(_judge) as server:
        kwargs = {"max_wait_s": 0.0, "screenshot": False,
                  "trace_judge": {"base_url": server.base_url, "model": "scripted-model"}}
        out = tmp_path / "run.jsonl"
        code = main(["eval", "--env", env_id, "--policy", policy, "--episodes", "2", "--out", str(out),
                     "--env-kwargs", json.dumps(kwargs), "--no-progress", "--no-trajectories"])
        assert code == 0
        assert len(server.requests) == 2  # one judge call per episode
    printed = capsys.readouterr().out
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert all(r["metrics"]["trace_judge"] == "llm" and "rule_labels" in r["metrics"] for r in records)
    if policy == "trivia_direct_answer":
        assert all(r["metrics"]["navigation_route"] == "direct_answer" and not r["metrics"]["correct"]
                   and r["metrics"]["rule_labels"] == {"navigation_route": "direct_answer"} for r in records)
    header = next(line for line in printed.splitlines() if column in line)
    row = next(line for line in printed.splitlines() if line.startswith(policy))
    cells = re.split(r"\s{2,}", row.strip())
    names = re.split(r"\s{2,}", header.strip())
    assert cells[names.index(column)] == expected and cells[-1] == "llm"
