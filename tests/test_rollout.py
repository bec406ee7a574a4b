"""Batched async rollouts: concurrency changes nothing but the speed, runs resume, and errors are recorded."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from personal_envs.core.errors import InputError
from personal_envs.core.recorder import read_jsonl
from personal_envs.llm.testing import ScriptedChatServer
from personal_envs.rollout import RolloutConfig, comparable, rollout

ENV = "PersonalWAB-SingleTurn-v0"


def digest(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest(), 16)


def deterministic_agent(request: dict[str, Any]) -> dict[str, Any]:
    """A reply that depends only on the request (and a delay that scrambles the finishing order): some episodes
    first answer without an action, then every episode searches with the words of its request."""
    messages = request["messages"]
    instruction = messages[0]["content"].split("## instruction\n", 1)[1].split("\n\n##", 1)[0]
    key = digest(instruction) + request["seed"]
    turn = sum(m["role"] == "assistant" for m in messages)
    reply: dict[str, Any] = {"sleep": (key % 7) * 0.004}
    if turn == 0 and key % 3 == 0:
        reply["content"] = "Let me think about what the user wants."
        return reply
    words = [w.strip(".,!?\"'") for w in instruction.split() if len(w) > 3][-6:]
    name = "search_product_by_query" if key % 4 else "get_recommendations_by_history"
    arguments = {"query": " ".join(words)} if name == "search_product_by_query" else {"product_sequence": []}
    reply["tool_calls"] = [{"id": f"call_{request['seed']}_{turn}", "name": name, "arguments": arguments}]
    return reply


def test_64_episodes_at_concurrency_16_equal_the_sequential_run_with_the_same_seeds(tmp_path):
    with ScriptedChatServer(deterministic_agent) as server:
        def run(concurrency: int) -> list[dict[str, Any]]:
            return rollout(RolloutConfig(ENV, 64, base_url=server.base_url, concurrency=concurrency, seed=100,
                                         out=tmp_path / f"c{concurrency}.jsonl"))
        parallel = run(16)
        sequential = run(1)
    assert [r["episode"] for r in parallel] == list(range(64))
    assert [comparable(r) for r in parallel] == [comparable(r) for r in sequential]
    assert all(not r["error"] and r["terminated"] for r in parallel)
    assert len({r["task_id"] for r in parallel}) > 16  # the seeds pick different tasks
    assert any(r["steps"] == 2 for r in parallel) and any(r["reward"] > 0 for r in parallel)
    assert all(r["prompt_tokens"] > 0 and r["completion_tokens"] > 0 and r["calls"] == r["steps"] for r in parallel)
    finished_order = [r["episode"] for r in read_jsonl(tmp_path / "c16.jsonl")]
    assert sorted(finished_order) == list(range(64)) and finished_order != list(range(64))  # really concurrent
    first = parallel[0]
    assert first["messages"][0]["role"] == "system" and first["messages"][-1]["role"] in ("tool", "user")
    assert first["tools"] and first["split"] == "test"


def test_a_resumed_run_plays_only_the_missing_and_failed_episodes(tmp_path):
    out = tmp_path / "r.jsonl"
    failing = {"on": True}

    def agent(request: dict[str, Any]) -> dict[str, Any]:
        if failing["on"] and request["seed"] == 3:
            return {"status": 400, "message": "prompt too long"}
        return deterministic_agent(request)

    with ScriptedChatServer(agent) as server:
        first = rollout(RolloutConfig(ENV, 4, base_url=server.base_url, concurrency=2, out=out))
        assert [bool(r["error"]) for r in first] == [False, False, False, True]
        assert "prompt too long" in first[3]["error"] and first[3]["calls"] == 0
        failing["on"] = False
        calls_before = len(server.requests)
        second = rollout(RolloutConfig(ENV, 6, base_url=server.base_url, concurrency=2, out=out))
        replayed_seeds = {request["seed"] for request in server.requests[calls_before:]}
    assert replayed_seeds == {3, 4, 5}
    assert [r["error"] for r in second] == [""] * 6
    assert [comparable(r) for r in second[:3]] == [comparable(r) for r in first[:3]]
    with pytest.raises(InputError, match="another --out"):
        rollout(RolloutConfig(ENV, 6, base_url=server.base_url, seed=7, out=out))
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["episode"] for r in lines) == [0, 1, 2, 3, 3, 4, 5]  # the failure is kept, not overwritten
    failed = next(r for r in lines if r["error"])
    assert [m["role"] for m in failed["messages"]] == ["system", "user"] and failed["steps"] == 0


def test_the_rollout_command_prints_the_summary_and_writes_the_records(tmp_path, capsys):
    from personal_envs.cli import main

    out = tmp_path / "cli.jsonl"
    with ScriptedChatServer(deterministic_agent) as server:
        code = main(["rollout", "--env", ENV, "--episodes", "3", "--concurrency", "2", "--base-url",
                     server.base_url, "--out", str(out)])
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 0 and figures["episodes"] == 3 and figures["errors"] == 0 and figures["prompt_tokens"] > 0
    assert sorted(r["episode"] for r in read_jsonl(out)) == [0, 1, 2]
