"""``personal-envs export``: an LLM run (eval with trajectories, or rollout) as a dataset that ``datasets`` loads, one
row per episode with the conversation that was sent."""

from __future__ import annotations

import json
from typing import Any

import datasets
import pytest

from personal_envs.cli import main
from personal_envs.core.errors import InputError
from personal_envs.export import export
from personal_envs.llm.testing import ScriptedChatServer
from personal_envs.rollout import RolloutConfig, rollout
from personal_envs.runner import EvalConfig, evaluate

ENV = "PersonalWAB-MultiTurn-v0"


def searching_then_stopping(request: dict[str, Any]) -> dict[str, Any]:
    if sum(message["role"] == "assistant" for message in request["messages"]) < 1:
        return {"tool_calls": [{"name": "search_product_by_query", "arguments": {"query": "green tea"}}]}
    return {"content": "Done.", "tool_calls": [{"name": "stop", "arguments": {}}]}


@pytest.mark.parametrize("fmt", ["parquet", "hf"])
def test_an_llm_eval_run_exports_one_row_per_episode_that_datasets_loads(tmp_path, fmt, capsys):
    results = tmp_path / "llm.jsonl"
    with ScriptedChatServer(searching_then_stopping) as server:
        evaluate(EvalConfig(ENV, "llm", episodes=3, out=results, progress=False,
                            policy_kwargs={"base_url": server.base_url, "context_tokens": 65536}))
        last_request = server.requests[-1]
    out = tmp_path / ("llm.parquet" if fmt == "parquet" else "llm_dataset")
    assert main(["export", str(results), "--format", fmt, "--out", str(out)]) == 0
    assert "3 episode(s) written" in capsys.readouterr().out
    loaded = (datasets.load_dataset("parquet", data_files=str(out), split="train") if fmt == "parquet"
              else datasets.load_from_disk(str(out)))
    assert loaded.num_rows == 3 and sorted(loaded["episode"]) == [0, 1, 2]
    row = loaded[2]
    assert row["env_id"] == ENV and row["policy"] == "llm" and row["task_id"] and row["split"]
    roles = [message["role"] for message in row["messages"]]
    assert roles[0] == "system" and roles[-1] == "assistant" and "tool" in roles
    # the conversation is the last request exactly as the server received it, then the reply
    sent = [{"role": m["role"], "content": m.get("content")} for m in last_request["messages"]]
    assert [{"role": m["role"], "content": m["content"]} for m in row["messages"][:-1]] == sent
    assert row["messages"][-1]["tool_calls"][0]["function"]["name"] == "stop"
    assert json.loads(row["tools"]) == last_request["tools"]
    assert isinstance(json.loads(row["metrics"]), dict) and row["steps"] == 2 and row["error"] == ""


def test_a_rollouts_file_exports_its_conversations_and_rewards(tmp_path):
    results = tmp_path / "rollouts.jsonl"
    with ScriptedChatServer(searching_then_stopping) as server:
        records = rollout(RolloutConfig(ENV, 4, base_url=server.base_url, concurrency=2, out=results))
    assert export([results], tmp_path / "r.parquet") == 4
    loaded = datasets.load_dataset("parquet", data_files=str(tmp_path / "r.parquet"), split="train")
    assert loaded["reward"] == [r["reward"] for r in records] and loaded["policy"] == ["rollout"] * 4
    assert [len(messages) for messages in loaded["messages"]] == [len(r["messages"]) for r in records]
    assert loaded[0]["messages"][2]["tool_calls"][0]["function"]["arguments"] == '{"query": "green tea"}'


def test_bad_exports_are_one_line_errors(tmp_path, capsys):
    with pytest.raises(InputError, match="--format"):
        export([tmp_path / "x.jsonl"], tmp_path / "o", "csv")
    assert main(["export", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "o.parquet")]) == 2
    assert capsys.readouterr().err.startswith("error: no results file")
    (tmp_path / "empty.jsonl").write_text("")
    with pytest.raises(InputError, match="no episodes"):
        export([tmp_path / "empty.jsonl"], tmp_path / "o.parquet")
    assert not (tmp_path / "o.parquet").exists()
