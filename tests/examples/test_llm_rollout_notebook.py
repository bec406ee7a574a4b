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


def execute(env_id: str, env_kwargs: dict[str, Any], episodes: int, server: ScriptedChatServer, tmp_path: Path):
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    overrides = {
        "OPENAI_BASE_URL": server.base_url, "PERSONAL_ENVS_LLM_MODEL": server.model, "OPENAI_API_KEY": "",
        "PERSONAL_ENVS_NOTEBOOK_ENV": env_id, "PERSONAL_ENVS_NOTEBOOK_ENV_KWARGS": json.dumps(env_kwargs),
        "PERSONAL_ENVS_NOTEBOOK_EPISODES": str(episodes), "PERSONAL_ENVS_NOTEBOOK_MEMORY": "last",
    }
    saved = {key: os.environ.get(key) for key in overrides}
    os.environ.update(overrides)
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
        notebook = execute("PersonalWAB-MultiTurn-v0", {"task_type": "search"}, 2, server, tmp_path)
        requests = list(server.requests)
    text, _ = outputs(notebook)
    assert f"respond {json.dumps({'content': QUESTION})}" in text
    assert "   user: " in text and f"agent: {QUESTION}" in text  # the simulated user's reply and the dialogue
    assert "PersonalWAB results" in text and "<table>" in text and "function_accuracy" in text
    assert "endpoint errors: 0" in text
    assert len(requests) == 2 * 3  # three model calls per episode
    assert any("User history (last memory" in json.dumps(r["messages"]) for r in requests)  # memory reached the model
    assert "<iframe srcdoc=" in text and "search_product_by_query" in text  # the episode view of the last episode
    assert (tmp_path / "notebook_rollouts.trajectories" / "PersonalWAB-MultiTurn-v0__llm" / "episode_00001").is_dir()


def test_notebook_shows_phone_screenshots(tmp_path):
    with ScriptedChatServer(phone_responder) as server:
        notebook = execute("KnowU-General-v0", {"task": "focus_do_not_disturb", "max_steps": 4}, 1, server, tmp_path)
    text, mimes = outputs(notebook)
    assert mimes.count("image/png") >= 2  # the first screen and the one after open_app
    assert "step 1: open_app" in text and "step 2: finished" in text and "KnowU" in text
