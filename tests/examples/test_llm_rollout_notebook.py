"""The LLM rollout notebook runs end to end against a real local OpenAI-compatible server (scripted replies)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

nbformat = pytest.importorskip("nbformat", reason="nbformat is in the dev extra")
nbclient = pytest.importorskip("nbclient", reason="nbclient is in the dev extra")

from personal_envs.llm.testing import ScriptedChatServer  # noqa: E402

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "llm_rollout.ipynb"
QUESTION = "Which brand do you usually prefer?"


def _assistant_turns(request: dict[str, Any]) -> int:
    return sum(1 for m in request["messages"] if m.get("role") == "assistant")


def personalwab_responder(request: dict[str, Any]) -> dict[str, Any]:
    """Ask the user, search with the first words of the task, then stop."""
    assert any(t["function"]["name"] == "respond" for t in request["tools"])
    turn = _assistant_turns(request)
    if turn == 0:
        return {"tool_calls": [{"name": "respond", "arguments": {"content": QUESTION}}]}
    if turn == 1:
        return {"tool_calls": [{"name": "search_product_by_query", "arguments": {"query": "gift for a friend"}}]}
    return {"tool_calls": [{"name": "stop", "arguments": {}}]}


def phone_responder(request: dict[str, Any]) -> dict[str, Any]:
    """Open Settings, then declare the task finished."""
    if _assistant_turns(request) == 0:
        return {"tool_calls": [{"name": "open_app", "arguments": {"app_name": "Settings"}}]}
    return {"tool_calls": [{"name": "finished", "arguments": {}}]}


def execute(env_id: str | None, env_kwargs: dict[str, Any] | None, episodes: int | None, server_url: str,
            tmp_path: Path, model: str = "scripted-model", memory: str | None = "last", notebook: Any = None):
    """Run the notebook in ``tmp_path``; ``None`` leaves a setting at the notebook's default."""
    notebook = notebook if notebook is not None else nbformat.read(NOTEBOOK, as_version=4)
    overrides = {
        "OPENAI_BASE_URL": server_url, "PERSONAL_ENVS_LLM_MODEL": model, "OPENAI_API_KEY": "",
        "PERSONAL_ENVS_NOTEBOOK_ENV": env_id, "PERSONAL_ENVS_NOTEBOOK_ENV_KWARGS":
            None if env_kwargs is None else json.dumps(env_kwargs),
        "PERSONAL_ENVS_NOTEBOOK_EPISODES": None if episodes is None else str(episodes),
        "PERSONAL_ENVS_NOTEBOOK_MEMORY": memory, "PERSONAL_ENVS_NOTEBOOK_RESUME": None,
    }
    saved = {key: os.environ.get(key) for key in overrides}
    for key, value in overrides.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    try:
        client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                         resources={"metadata": {"path": str(tmp_path)}})
        client.execute()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return notebook


def results_files(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "notebook_runs").glob("*.jsonl"))


def outputs(notebook) -> tuple[str, list[str]]:
    texts, mimes = [], []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.get("text"):
                texts.append(output["text"])
            for mime, value in output.get("data", {}).items():
                mimes.append(mime)
                if mime in ("text/plain", "text/html", "text/markdown"):
                    texts.append(value)
    return "\n".join(texts), mimes


def test_notebook_runs_personalwab_episodes_with_dialogue_and_metrics(tmp_path):
    with ScriptedChatServer(personalwab_responder) as server:
        notebook = execute("PersonalWAB-MultiTurn-v0", {"task_type": "search"}, 2, server.base_url, tmp_path)
        requests = list(server.requests)
    text, _ = outputs(notebook)
    assert f"respond {json.dumps({'content': QUESTION})}" in text
    assert "   user: " in text and f"agent: {QUESTION}" in text  # the simulated user's reply and the dialogue
    assert "PersonalWAB results" in text and "<table>" in text and "function_accuracy" in text
    assert "endpoint errors: 0" in text
    assert len(requests) == 2 * 3  # three model calls per episode
    assert any("User history (last memory" in json.dumps(r["messages"]) for r in requests)  # memory reached the model
    assert "<iframe sandbox=\"allow-scripts\" srcdoc=" in text and "search_product_by_query" in text  # the episode view of the last episode
    (results,) = results_files(tmp_path)
    assert (results.with_suffix(".trajectories") / "PersonalWAB-MultiTurn-v0__llm" / "episode_00001").is_dir()
    records = [json.loads(line) for line in results.read_text().splitlines()]
    # what the CLI records: the task id, the llm entry with the model that answered, the memory in the config
    assert [r["episode"] for r in records] == [0, 1] and all(r["task_id"] for r in records)
    assert all(r["llm"]["model"] == "scripted-model" and r["llm"]["ok_calls"] == 3 for r in records)
    sidecar = json.loads(results.with_name(results.name + ".config.json").read_text())
    entry = sidecar["PersonalWAB-MultiTurn-v0 | llm"]
    assert entry["policy_kwargs"]["memory"] == {"kind": "last", "k": 5} and entry["served_model"] == "scripted-model"


def test_notebook_runs_in_its_default_configuration_and_each_run_gets_a_fresh_file(tmp_path):
    # the default env (PersonalWAB-MultiTurn, every task type: review tasks have no target rank) and 3 episodes
    with ScriptedChatServer(personalwab_responder) as server:
        execute(None, None, None, server.base_url, tmp_path, memory=None)
        first = results_files(tmp_path)
        execute(None, None, None, server.base_url, tmp_path, memory=None)
    files = results_files(tmp_path)
    assert len(first) == 1 and len(files) == 2  # the second run did not append to the first one's file
    for path in files:
        records = [json.loads(line) for line in path.read_text().splitlines()]
        assert [r["episode"] for r in records] == [0, 1, 2]  # no duplicates
        assert all(r["task_id"] and isinstance(r["llm"], dict) and not r["error"] for r in records)


def test_notebook_stops_with_one_line_against_a_dead_endpoint(tmp_path):
    server = ScriptedChatServer(personalwab_responder).start()
    url = server.base_url
    server.close()
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    with pytest.raises(nbclient.exceptions.CellExecutionError):
        notebook = execute("PersonalWAB-MultiTurn-v0", {"task_type": "search"}, 3, url, tmp_path, notebook=notebook)
    errors = [(index, output) for index, cell in enumerate(notebook.cells) for output in cell.get("outputs", [])
              if output.get("output_type") == "error"]
    (index, error), = errors
    # IPython shows the error as the one line the CLI prints, and "run all" stops there
    assert error["ename"] == "LLMRunAborted" and len(error["traceback"]) == 1
    assert error["traceback"][0].startswith("error: episode 0: no valid model reply")
    assert "connection refused" in error["traceback"][0]
    assert not any(cell.get("outputs") for cell in notebook.cells[index + 1:])
    (results,) = results_files(tmp_path)
    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(records) == 1 and records[0]["score"] is None and "no valid model reply" in records[0]["error"]


def test_notebook_shows_phone_screenshots(tmp_path):
    with ScriptedChatServer(phone_responder) as server:
        notebook = execute("KnowU-General-v0", {"task": "DeepWorkGeneralTask", "max_steps": 4}, 1, server.base_url,
                           tmp_path)
    text, mimes = outputs(notebook)
    assert mimes.count("image/png") >= 2  # the first screen and the one after open_app
    assert "step 1: open_app" in text and "step 2: finished" in text and "KnowU" in text
