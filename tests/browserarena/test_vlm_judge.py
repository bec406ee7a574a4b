"""The §4.4 VLM judge against a real OpenAI-compatible server on loopback: GIF frames and traces in the request,
majority@k over sampled answers, the input ablations, and its agreement with people's votes; tables 3-5."""

from __future__ import annotations

import json
from itertools import cycle
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from personal_envs.browserarena.arena.gif import write_gif
from personal_envs.browserarena.arena.store import ArenaStore, BattleRecord
from personal_envs.browserarena.arena.vlm_judge import VLMJudge, ablation_table, judge_battles, majority
from personal_envs.browserarena.reports import paper_tables
from personal_envs.cli import main
from personal_envs.llm.client import ChatClient
from personal_envs.llm.testing import ScriptedChatServer


def _battle(store: ArenaStore, root: Path, name: str) -> str:
    paths = {}
    for tag, colour in (("a", 40), ("b", 200)):
        frames = [np.full((60, 80, 3), colour + i, dtype=np.uint8) for i in range(9)]
        gif = root / f"{name}-{tag}.gif"
        write_gif(frames, gif)
        trace = {"task": "t", "steps": [{"step": 1, "brain": {"next_goal": f"goal of {tag}"},
                                         "actions": [{"name": "done", "arguments": {"text": "x"}}]}]}
        (root / f"{name}-{tag}.json").write_text(json.dumps(trace))
        paths[f"gif_{tag}"], paths[f"trace_{tag}"] = str(gif), str(root / f"{name}-{tag}.json")
    return store.add_battle(BattleRecord("", "env", name, "Find the cheapest flight", "m1", "m2", **paths))


def test_majority() -> None:
    assert majority(["model_a", "model_b", "model_a"]) == "model_a"
    assert majority(["model_a", "model_b"]) == "tie"


def test_vlm_judge_sees_frames_and_traces_and_votes_by_majority(tmp_path: Path) -> None:
    store = ArenaStore(tmp_path / "a.sqlite")
    first, second = _battle(store, tmp_path, "one"), _battle(store, tmp_path, "two")
    store.record_vote(first, "model_a", "ann")
    store.record_vote(second, "model_b", "ann")
    answers = cycle(["left", "left", "right", "not json", "left"])
    seen: list[dict[str, Any]] = []

    def responder(body: dict[str, Any]) -> str:
        seen.append(body)
        answer = next(answers)
        return "no verdict" if answer == "not json" else json.dumps({"winner": answer, "reason": "r"})

    with ScriptedChatServer(responder) as server:
        client = ChatClient(server.base_url, "scripted-vlm", None)
        both = VLMJudge(client, k=5, inputs=("gif", "trace"), max_frames=4)
        result = both.verdict(store.battle(first), {"steps": []}, {"steps": []})
        assert result.winner == "model_a" and result.samples.count("model_a") == 3 and len(result.errors) == 1
        parts = seen[0]["messages"][1]["content"]
        images = [p for p in parts if p["type"] == "image_url"]
        assert len(images) == 8 and images[0]["image_url"]["url"].startswith("data:image/png;base64,")
        assert seen[0]["temperature"] == pytest.approx(0.7)
        text_only = VLMJudge(client, k=1, inputs=("trace",))
        seen.clear()
        text_only.vote(store.battle(first), {"task": "t", "steps": [{"step": 1, "brain": {"memory": "m"}}]}, {})
        assert not [p for p in seen[0]["messages"][1]["content"] if p["type"] == "image_url"]
        assert any("Memory: m" in p.get("text", "") for p in seen[0]["messages"][1]["content"])
        frames_only = VLMJudge(client, k=3, inputs=("gif",))
        judged = dict(judge_battles(store, frames_only))
    assert set(judged) == {first, second} and judged[first].voter == "vlm-judge[gif]@3"
    table = ablation_table(store, [frames_only])
    print(table)
    row = next(line for line in table.splitlines() if line.startswith("vlm-judge[gif]@3")).split()
    assert row[3] == "2"  # both battles have a person's vote to compare with
    with pytest.raises(ValueError):
        VLMJudge(client, inputs=("audio",))


def test_paper_tables_from_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = [
        {"policy": "p", "metrics": {"kind": "captcha", "strategies": {"mobile": True}, "correct": True}},
        {"policy": "p", "metrics": {"kind": "banner", "banner_present": True, "banner_detected": False,
                                    "success_claimed": True}},
        {"policy": "p", "metrics": {"kind": "trivia", "navigation_category": "direct_answer", "correct": True,
                                    "question_set": "real"}},
    ]
    text = paper_tables(records)
    assert text.index("Table 3") < text.index("Table 4") < text.index("Table 5")
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["arena", "tables", str(run)]) == 0
    assert "Direct answer %" in capsys.readouterr().out
