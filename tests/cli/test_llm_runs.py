"""Honest LLM runs through the eval command: records carry the model calls, a dead endpoint stops the run with one
line, resume refuses another configuration, and the table names fallback judges and users."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from personal_envs.cli import main
from personal_envs.core.recorder import read_jsonl
from personal_envs.llm.testing import ScriptedChatServer
from personal_envs.run_config import ConfigMismatch, sidecar_path
from personal_envs.runner import EvalConfig, evaluate

ENV = "PersonalWAB-SingleTurn-v0"
ENV_KWARGS = {"task_type": "search"}


def dead_url() -> str:
    server = ScriptedChatServer(lambda request: "unused").start()
    url = server.base_url
    server.close()
    return url


def eval_args(out: Path, policy: str, episodes: int, **policy_kwargs: Any) -> list[str]:
    return ["eval", "--env", ENV, "--policy", policy, "--episodes", str(episodes), "--out", str(out),
            "--no-progress", "--env-kwargs", json.dumps(ENV_KWARGS), "--policy-kwargs", json.dumps(policy_kwargs)]


def test_unreachable_endpoint_stops_the_run_with_one_line_and_records_the_errors(tmp_path, capsys):
    out = tmp_path / "down.jsonl"
    code = main(eval_args(out, "llm", 5, base_url=dead_url(), model="m"))
    captured = capsys.readouterr()
    assert code == 1
    error_lines = [line for line in captured.err.splitlines() if line.strip()]
    assert len(error_lines) == 1 and error_lines[0].startswith("error: episode 0: no valid model reply")
    assert "connection refused" in error_lines[0]
    assert "PersonalWAB results" not in captured.out  # no normal table
    records = list(read_jsonl(out))
    assert len(records) == 1
    llm = records[0]["llm"]
    assert llm["ok_calls"] == 0 and llm["calls"] >= 1 and llm["error_kinds"] == {"unreachable": llm["calls"]}
    assert "connection refused" in llm["errors"][0] and llm["model"] == "m"


def test_records_carry_model_endpoint_sampling_tokens_and_the_table_counts_errors(tmp_path):
    calls = iter(range(100))

    def responder(request: dict[str, Any]) -> dict[str, Any]:
        if next(calls) == 1:
            return {"status": 400, "message": "prompt too long"}
        return {"tool_calls": [{"name": "search_product_by_query", "arguments": {"query": "usb cable"}}]}

    with ScriptedChatServer(responder, model="served-model") as server:
        config = EvalConfig(ENV, "llm", episodes=2, out=tmp_path / "r.jsonl", env_kwargs=ENV_KWARGS, progress=False,
                            policy_kwargs={"base_url": server.base_url, "temperature": 0.2, "max_tokens": 128})
        records = evaluate(config)
    first = records[0]["llm"]
    assert first["model"] == "served-model" and first["endpoint"] == server.base_url
    assert first["sampling"]["temperature"] == 0.2 and first["sampling"]["max_tokens"] == 128
    assert first["prompt_tokens"] > 0 and first["trace"][0]["tool_call"] == "search_product_by_query"
    from personal_envs.runner import report

    text = report(ENV, records)
    assert "llm: model served-model" in text
    assert "llm errors: 1 in 1/2 episodes" in text


def test_resume_refuses_another_configuration_and_accepts_the_same(tmp_path, capsys):
    out = tmp_path / "h.jsonl"
    args = ["eval", "--env", ENV, "--policy", "heuristic", "--episodes", "2", "--out", str(out), "--no-progress",
            "--env-kwargs", json.dumps(ENV_KWARGS)]
    assert main(args) == 0
    assert json.loads(sidecar_path(out).read_text())[f"{ENV} | heuristic"]["env_kwargs"] == ENV_KWARGS
    other = list(args)
    other[other.index(json.dumps(ENV_KWARGS))] = json.dumps({"task_type": "recommendation"})
    capsys.readouterr()
    assert main(other) == 2  # bad input: the configuration differs from the file's
    err = capsys.readouterr().err
    assert "written with another configuration" in err and "env_kwargs" in err and "recommendation" in err
    assert len(list(read_jsonl(out))) == 2  # nothing was added
    args[args.index("2")] = "3"
    assert main(args) == 0  # the same configuration resumes as before
    assert [r["episode"] for r in read_jsonl(out)] == [0, 1, 2]


def test_resume_refuses_another_model(tmp_path):
    submit = {"tool_calls": [{"name": "search_product_by_query", "arguments": {"query": "x"}}]}
    with ScriptedChatServer(lambda request: submit) as server:
        def config(model: str) -> EvalConfig:
            return EvalConfig(ENV, "llm", episodes=1, out=tmp_path / "m.jsonl", env_kwargs=ENV_KWARGS,
                              progress=False, policy_kwargs={"base_url": server.base_url, "model": model})

        evaluate(config("model-a"))
        with pytest.raises(ConfigMismatch, match="model: file has \"model-a\", this run \"model-b\""):
            evaluate(config("model-b"))
        assert len(evaluate(config("model-a"))) == 1


def test_old_results_without_a_configuration_record_resume_with_a_warning(tmp_path):
    out = tmp_path / "old.jsonl"
    config = EvalConfig(ENV, "heuristic", episodes=1, out=out, env_kwargs=ENV_KWARGS, progress=False)
    evaluate(config)
    sidecar_path(out).unlink()
    config.episodes = 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        records = evaluate(config)
    assert len(records) == 2
    assert any("no configuration record" in str(w.message) for w in caught)
    assert sidecar_path(out).exists()


def test_knowu_table_names_the_fallback_judge(tmp_path, monkeypatch):
    """The default preference variants ask the official judge protocol once the rule base passes (the oracle's
    episodes); a failing endpoint gives the labelled deterministic fallback, and the table says so."""
    with ScriptedChatServer(lambda request: {"status": 500, "message": "judge down"}) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("PERSONAL_ENVS_LLM_MODEL", "judge-model")
        records = evaluate(EvalConfig("KnowU-Personalized-v0", "oracle", episodes=3, out=tmp_path / "k.jsonl",
                                      env_kwargs={"judge": "llm", "render": "text"}, progress=False))
        asked = len(server.requests)
    from personal_envs.runner import report

    kinds = [r["judge"]["kind"] for r in records]
    assert asked >= 3 and set(kinds) == {"fallback-after-error"}
    assert all("judge down" in r["judge"]["error"] for r in records)
    assert "judge: fallback on 3/3 episodes" in report("KnowU-Personalized-v0", records)


def test_knowu_llm_user_failures_reach_the_record_and_the_table(tmp_path, monkeypatch):
    """The official LLM user keeps the raw reply and has no fallback of its own: a failing endpoint makes the
    question a counted step error, recorded in the record, the env's metrics and the table."""
    with ScriptedChatServer(lambda request: {"status": 500, "message": "user down"}) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("PERSONAL_ENVS_LLM_MODEL", "user-model")
        records = evaluate(EvalConfig("KnowU-Personalized-v0", "always_ask", episodes=2, out=tmp_path / "u.jsonl",
                                      env_kwargs={"user": "llm", "render": "text"}, progress=False))
    from personal_envs.runner import report

    users = [r["user"] for r in records]
    assert all(u["kind"] == "official-llm" and u["fallbacks"] == 1 for u in users)
    assert all("user down" in u["errors"][0] for u in users)
    # the env's own final metrics say it too, for anyone driving the env without the runner
    assert all(r["metrics"]["user_kind"] == "official-llm" and r["metrics"]["user_fallbacks"] == r["user"]["fallbacks"]
               for r in records)
    assert "user: fallback on 2/2 episodes" in report("KnowU-Personalized-v0", records)
