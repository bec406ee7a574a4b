"""``personal-envs openenv serve``: OpenEnv's own client (openenv-core) plays whole episodes of a PersonalWAB, a
WebMall and a KnowU id over real HTTP/WebSocket."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

openenv_client = pytest.importorskip("openenv.core.generic_client", reason="openenv-core is in the llmrl extra")

#: id -> (env kwargs, replies of one episode: tool calls until the episode ends)
EPISODES: dict[str, tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]] = {
    "PersonalWAB-MultiTurn-v0": ({}, [("search_product_by_query", {"query": "green tea"}), ("stop", {})]),
    # the answer does not end a WebMall episode: the step limit (6) does
    "WebMall-v0": ({"max_steps": 6}, [("noop", {})] * 5 + [("send_msg_to_user", {"text": "I could not find it."})]),
    "KnowU-General-v0": ({"max_steps": 6, "screenshot": False}, [("navigate_home", {}), ("finished", {})]),
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def served(env_id: str, env_kwargs: dict[str, Any], command: list[str] | None = None,
           port: int | None = None) -> Iterator[str]:
    """``personal-envs openenv serve`` (or ``command``) listening on ``port``; yields its base URL."""
    port = port or free_port()
    command = command or [sys.executable, "-m", "personal_envs", "openenv", "serve", "--env", env_id, "--port",
                          str(port), "--env-kwargs", json.dumps(env_kwargs)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=os.environ.copy())
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 240
        while True:
            try:
                with urllib.request.urlopen(f"{base_url}/health", timeout=5) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                output = process.stdout.read().decode(errors="replace") if process.stdout else ""
                raise AssertionError(f"the server did not come up: {output[-2000:]}")
            time.sleep(0.5)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def play(base_url: str, env_id: str, replies: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """One whole episode with OpenEnv's GenericEnvClient; the results of reset and every step."""
    with openenv_client.GenericEnvClient(base_url=base_url).sync() as client:
        opening = client.reset(seed=3)
        results = [opening]
        observation = opening.observation
        assert [m["role"] for m in observation["messages"]] == ["system", "user"]
        names = {tool["function"]["name"] for tool in observation["tools"]}
        assert {name for name, _ in replies} <= names
        assert observation["info"]["env_id"] == env_id and observation["info"]["task_id"]
        for number, (name, arguments) in enumerate(replies):
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"c{number}", "type": "function", "function": {"name": name,
                                                                      "arguments": json.dumps(arguments)}}]}
            result = client.step({"message": message})
            results.append(result)
            if result.done:
                break
        return results


@pytest.mark.parametrize("env_id", list(EPISODES))
def test_openenv_client_plays_a_whole_episode(env_id):
    env_kwargs, replies = EPISODES[env_id]
    with served(env_id, env_kwargs) as base_url:
        results = play(base_url, env_id, replies)
        again = play(base_url, env_id, replies[:1])  # a second session starts from a fresh reset
    assert results[-1].done, f"the episode did not end after {len(results) - 1} steps"
    steps = results[1:]
    assert len(steps) == len(replies)
    first = steps[0].observation
    assert first["messages"] and first["messages"][0]["role"] == "tool" and first["messages"][0]["tool_call_id"] == "c0"
    assert all(isinstance(step.reward, (int, float)) for step in steps)
    assert steps[-1].observation["info"]["action"]["action_type"] == replies[-1][0]
    assert "metrics" in steps[-1].observation["info"]
    assert again[0].observation["info"]["task_id"] == results[0].observation["info"]["task_id"]  # same seed, task


def test_a_step_after_the_end_is_answered_not_a_server_error():
    env_kwargs, replies = EPISODES["PersonalWAB-MultiTurn-v0"]
    with served("PersonalWAB-MultiTurn-v0", env_kwargs) as base_url, \
            openenv_client.GenericEnvClient(base_url=base_url).sync() as client:
        client.reset(seed=0)
        assert client.step({"message": '{"action_type": "stop"}'}).done
        after = client.step({"message": '{"action_type": "stop"}'})
        assert after.done and "ended" in after.observation["info"]["error"]
