"""Each step of an LLM run records the exact messages it sent: the trajectory gives back every request as the server
received it, and the episode's whole conversation."""

from __future__ import annotations

from typing import Any

import pytest

from personal_envs.chat.records import compress_request, episode_messages, expand_requests
from personal_envs.llm.testing import ScriptedChatServer
from personal_envs.runner import EvalConfig, evaluate
from personal_envs.trajectories.store import load_runs, load_trajectory

ENV = "PersonalWAB-MultiTurn-v0"


def searching_then_stopping(request: dict[str, Any]) -> dict[str, Any]:
    """Two searches, then stop."""
    if sum(message["role"] == "assistant" for message in request["messages"]) < 2:
        return {"content": "Searching.", "tool_calls": [{"name": "search_product_by_query",
                                                        "arguments": {"query": "green tea"}}]}
    return {"tool_calls": [{"name": "stop", "arguments": {}}]}


def test_the_trajectory_holds_every_request_exactly_as_the_server_received_it(tmp_path):
    out = tmp_path / "llm.jsonl"
    with ScriptedChatServer(searching_then_stopping) as server:
        evaluate(EvalConfig(ENV, "llm", episodes=2, out=out, progress=False,
                            policy_kwargs={"base_url": server.base_url, "history": "full",
                                           "context_tokens": 65536}))
        received = [request["messages"] for request in server.requests]
        received_tools = server.requests[0]["tools"]
    run, = load_runs([out])
    sent: list[list[dict[str, Any]]] = []
    for episode in (0, 1):
        trajectory = load_trajectory(run, episode)
        assert trajectory is not None
        steps = trajectory["steps"]
        expanded = expand_requests(steps)
        assert all(messages is not None for messages in expanded) and len(steps) == 3
        sent += [messages for messages in expanded if messages is not None]
        assert steps[1]["request"]["shared"] >= 2  # stored as what changed, not repeated
        assert trajectory["tools"] == received_tools
        conversation = episode_messages(steps)
        assert conversation[:-1] == expanded[-1]
        assert conversation[-1]["role"] == "assistant" and conversation[-1]["tool_calls"][0]["function"]["name"] \
            == "stop"
    assert sent == received


def test_a_damaged_request_chain_is_reported_not_misread():
    first = compress_request(None, [{"role": "system", "content": "s"}])
    assert first == {"shared": 0, "new": [{"role": "system", "content": "s"}]}
    with pytest.raises(ValueError, match="shares 3 messages"):
        expand_requests([{"step": 1, "request": first}, {"step": 2, "request": {"shared": 3, "new": []}}])
    assert expand_requests([{"step": 1}]) == [None] and episode_messages([{"step": 1}]) == []
