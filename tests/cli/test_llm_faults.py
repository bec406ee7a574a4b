"""Runs against real loopback servers that misbehave: a 200 that is not JSON, a reply without ``choices``, HTTP 500,
a server that accepts and never answers, a dead port (with two workers), and a model swapped mid-run or between a
run and its resume.  What must hold: no episode without a valid model reply gets a score, the run exits non-zero
with one line, it stops after a bounded number of requests, and a file never mixes the episodes of two models."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path
from typing import Any

import pytest

from personal_envs.cli import main
from personal_envs.core.recorder import read_jsonl
from personal_envs.llm.testing import ScriptedChatServer
from personal_envs.run_config import sidecar_path
from personal_envs.run_extras import failed_fraction_error
from personal_envs.runner import EvalConfig, LLMRunAborted, evaluate, report

PWAB = "PersonalWAB-SingleTurn-v0"
PWAB_KWARGS = {"task_type": "search"}
SEARCH = {"tool_calls": [{"name": "search_product_by_query", "arguments": {"query": "usb cable"}}]}


def eval_args(env_id: str, out: Path, episodes: int, env_kwargs: dict[str, Any] | None = None,
              workers: int = 1, **policy_kwargs: Any) -> list[str]:
    return ["eval", "--env", env_id, "--policy", "llm", "--episodes", str(episodes), "--out", str(out),
            "--no-progress", "--no-trajectories", "--workers", str(workers), "--env-kwargs",
            json.dumps(env_kwargs or {}), "--policy-kwargs", json.dumps(policy_kwargs)]


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and "Traceback" not in err
    return lines[0]


def assert_unscored(record: dict[str, Any]) -> None:
    assert record["error"].startswith("no valid model reply"), record["error"]
    assert record["score"] is None and record["metrics"] == {}
    assert record["llm"]["ok_calls"] == 0


def test_knowu_proactive_against_a_200_that_is_not_json_gets_no_score_and_exits_1(tmp_path, capsys):
    # the case: 8 episodes, exit 0 and SR 50 % from a model that never answered (a silent policy is right
    # on half of the proactive tasks)
    with ScriptedChatServer(lambda request: {"raw_body": "<html>proxy login</html>"}) as server:
        out = tmp_path / "k.jsonl"
        code = main(eval_args("KnowU-Proactive-v0", out, 8, base_url=server.base_url, model="m"))
        requests = len(server.requests)
    captured = capsys.readouterr()
    assert code == 1
    line = one_error_line(captured.err)
    assert "episode 0: no valid model reply" in line and "not JSON" in line
    assert "SR" not in captured.out and "Proactive" not in captured.out  # no table at all
    records = list(read_jsonl(out))
    assert len(records) == 1 and requests == 1  # stopped at the first failed call, not after 8 episodes
    assert_unscored(records[0])


def test_a_reply_without_choices_and_an_http_500_each_end_the_run_with_one_line(tmp_path, capsys):
    for name, reply in (("no-choices", {"raw_body": json.dumps({"id": "x", "object": "chat.completion"})}),
                        ("500", {"status": 500, "message": "CUDA out of memory"})):
        with ScriptedChatServer(lambda request, reply=reply: reply) as server:
            out = tmp_path / f"{name}.jsonl"
            code = main(eval_args(PWAB, out, 4, PWAB_KWARGS, base_url=server.base_url, model="m"))
        line = one_error_line(capsys.readouterr().err)
        assert code == 1 and "no valid model reply" in line
        assert ("returned no choices" if name == "no-choices" else "HTTP 500") in line
        records = list(read_jsonl(out))
        assert len(records) == 1
        assert_unscored(records[0])


def test_a_hung_server_costs_one_request_deadline_then_the_run_stops(tmp_path, capsys):
    with ScriptedChatServer(lambda request: {"sleep": 3600, "content": "never"}) as server:
        out = tmp_path / "hung.jsonl"
        code = main(eval_args(PWAB, out, 5, PWAB_KWARGS, base_url=server.base_url, model="m", timeout=2))
        requests = len(server.requests)
    line = one_error_line(capsys.readouterr().err)
    assert code == 1 and "timed out after 2 s" in line
    assert requests == 1  # one request deadline, no timeout retry, no further episode
    record = list(read_jsonl(out))[0]
    assert_unscored(record)
    assert record["llm"]["error_kinds"] == {"timeout": 1}


def test_a_server_that_hangs_after_answering_ends_the_episode_after_three_failures_in_a_row(tmp_path, capsys):
    calls = []

    def responder(request: dict[str, Any]) -> dict[str, Any]:
        calls.append(1)
        if len(calls) <= 2:
            return {"tool_calls": [{"name": "respond", "arguments": {"content": "Which brand?"}}]}
        return {"sleep": 3600, "content": "never"}

    with ScriptedChatServer(responder) as server:
        out = tmp_path / "later.jsonl"
        code = main(eval_args("PersonalWAB-MultiTurn-v0", out, 3, PWAB_KWARGS, base_url=server.base_url,
                              model="m", timeout=1))
    line = one_error_line(capsys.readouterr().err)
    assert code == 1 and "3 calls in a row failed" in line
    record = list(read_jsonl(out))[0]
    assert record["error"].startswith("no valid model reply (3 calls in a row failed)")
    assert record["score"] is None and record["llm"]["ok_calls"] == 2 and len(calls) == 5


def test_a_dead_port_with_two_workers_stops_the_run_and_leaves_no_worker(tmp_path, capsys):
    server = ScriptedChatServer(lambda request: "unused").start()
    url = server.base_url
    server.close()
    out = tmp_path / "dead.jsonl"
    code = main(eval_args(PWAB, out, 12, PWAB_KWARGS, workers=2, base_url=url, model="m"))
    line = one_error_line(capsys.readouterr().err)
    assert code == 1 and "connection refused" in line
    records = list(read_jsonl(out))
    assert 1 <= len(records) <= 2 and all(r["score"] is None for r in records)
    assert multiprocessing.active_children() == []


def test_partial_failures_are_counted_next_to_the_score_and_failed_episodes_are_excluded(tmp_path):
    calls = []

    def responder(request: dict[str, Any]) -> dict[str, Any]:
        # episode 0: ask, a failed call, stop; episode 1: ask, stop; episode 2: nothing but broken replies
        calls.append(1)
        if len(calls) == 2:
            return {"status": 500, "message": "transient trouble"}
        if len(calls) >= 6:
            return {"raw_body": "not json"}
        if len(calls) in (3, 5):
            return {"tool_calls": [{"name": "stop", "arguments": {}}]}
        return {"tool_calls": [{"name": "respond", "arguments": {"content": "Which brand?"}}]}

    with ScriptedChatServer(responder) as server:
        config = EvalConfig("PersonalWAB-MultiTurn-v0", "llm", episodes=4, out=tmp_path / "p.jsonl",
                            env_kwargs=PWAB_KWARGS, progress=False, trajectories=False,
                            policy_kwargs={"base_url": server.base_url, "model": "m",
                                           "max_failures_in_a_row": 2})
        with pytest.raises(LLMRunAborted):
            evaluate(config)
    records = list(read_jsonl(tmp_path / "p.jsonl"))
    scored = [r for r in records if not r["error"]]
    failed = [r for r in records if r["error"]]
    assert scored and failed and all(r["score"] is None for r in failed)
    text = report("PersonalWAB-MultiTurn-v0", records)
    assert f"excluded from the table: {len(failed)} of {len(records)} episodes failed (no model reply {len(failed)})" \
        in text
    assert "partial failures: 1 of" in text and "(1 of their" in text
    assert failed_fraction_error(records, 0.1) is not None
    assert failed_fraction_error(records, 1.0) is None


def test_resume_after_the_server_came_up_redoes_the_failed_episode(tmp_path, capsys):
    server = ScriptedChatServer(lambda request: SEARCH).start()
    url = server.base_url
    server.close()
    out = tmp_path / "r.jsonl"
    assert main(eval_args(PWAB, out, 2, PWAB_KWARGS, base_url=url, model="m")) == 1
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    try:
        revived = ScriptedChatServer(lambda request: SEARCH, port=port).start()
    except OSError:
        pytest.skip("the port was taken meanwhile")
    try:
        capsys.readouterr()
        assert main(eval_args(PWAB, out, 2, PWAB_KWARGS, base_url=url, model="m")) == 0
    finally:
        revived.close()
    captured = capsys.readouterr()
    assert "excluded" not in captured.out
    latest = {r["episode"]: r for r in read_jsonl(out)}
    assert sorted(latest) == [0, 1] and all(not r["error"] and r["llm"]["ok_calls"] for r in latest.values())


def test_a_model_swapped_mid_run_is_refused_and_the_file_keeps_one_model(tmp_path, capsys):
    # llama-cpp-python's behaviour: the reply echoes the requested name whatever it serves; /models tells the truth
    def responder(request: dict[str, Any]) -> dict[str, Any]:
        if len(server.requests) == 3:
            server.model = "model-B"
        return SEARCH

    with ScriptedChatServer(responder, model="model-A") as server:
        out = tmp_path / "swap.jsonl"
        code = main(eval_args(PWAB, out, 6, PWAB_KWARGS, base_url=server.base_url))  # model not named
    line = one_error_line(capsys.readouterr().err)
    assert code == 1 and "'model-B'" in line and "'model-A'" in line and "was not added" in line
    records = list(read_jsonl(out))
    assert records and {r["llm"]["model"] for r in records} == {"model-A"}
    assert json.loads(sidecar_path(out).read_text())[f"{PWAB} | llm"]["served_model"] == "model-A"


def test_resume_refuses_another_served_model_whatever_the_environment_says(tmp_path, capsys, monkeypatch):
    # the environment names model-A in both runs, and the server echoes the requested name in its replies (as
    # llama-cpp-python does); only its model list tells that it now serves model-B
    monkeypatch.setenv("PERSONAL_ENVS_LLM_MODEL", "model-A")
    with ScriptedChatServer(lambda request: SEARCH, model="model-A") as server:
        out = tmp_path / "resume.jsonl"
        assert main(eval_args(PWAB, out, 2, PWAB_KWARGS, base_url=server.base_url)) == 0
        server.model = "model-B"  # the same URL now serves another model
        capsys.readouterr()
        before = len(server.requests)
        code = main(eval_args(PWAB, out, 4, PWAB_KWARGS, base_url=server.base_url))
        after = len(server.requests)
    line = one_error_line(capsys.readouterr().err)
    assert code == 1 and "'model-B'" in line
    assert after - before == 1  # the policy stopped at the first reply from the other model
    assert [r["episode"] for r in read_jsonl(out)] == [0, 1]  # nothing was added
