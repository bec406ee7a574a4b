"""Every request has a total deadline, even against a server that drips bytes (real sockets on loopback); an
overflow is recognised from the messages real servers send; and the LLM policy fits its prompts to the server's own
count: a template that inflates the text 1.6 times overflows once, is trimmed and retried, and never again."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from personal_envs.llm.client import ChatClient, LLMError
from personal_envs.llm.prompt import estimate_tokens, message_text
from personal_envs.llm.testing import ScriptedChatServer
from personal_envs.runner import EvalConfig, evaluate

USER = [{"role": "user", "content": "hello"}]


@pytest.fixture
def drip_server() -> Iterator[tuple[int, dict[str, bool]]]:
    """A raw server that accepts, sends a status line and then one header byte every 0.1 s, forever."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    state = {"stop": False}

    def serve() -> None:
        listener.settimeout(0.2)
        while not state["stop"]:
            try:
                connection, _ = listener.accept()
            except OSError:
                continue
            threading.Thread(target=drip, args=(connection,), daemon=True).start()

    def drip(connection: socket.socket) -> None:
        try:
            connection.recv(65536)
            connection.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
            while not state["stop"]:
                connection.sendall(b"a")
                time.sleep(0.1)
        except OSError:
            pass
        finally:
            connection.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1], state
    state["stop"] = True
    thread.join(timeout=5)
    listener.close()


@pytest.mark.timeout(60)
def test_a_server_that_drips_bytes_is_cut_at_the_total_deadline(drip_server) -> None:
    port, _ = drip_server
    client = ChatClient(base_url=f"http://127.0.0.1:{port}/v1", model="m", timeout=1.5, max_retries=0)
    with pytest.raises(LLMError) as caught:  # without the watchdog, every byte resets the socket timeout: forever
        client.chat(USER)
    assert caught.value.kind == "timeout" and "1.5 s" in str(caught.value)


def test_the_connect_deadline_cannot_exceed_the_total_one() -> None:
    client = ChatClient(base_url="http://127.0.0.1:9/v1", model="m", timeout=3, connect_timeout=30)
    assert client.connect_timeout == 3
    with pytest.raises(ValueError):
        ChatClient(base_url="http://127.0.0.1:9/v1", connect_timeout=0)


@pytest.mark.parametrize(("body", "prompt", "context"), [
    # llama-cpp-python's server
    ({"error": {"message": "This model's maximum context length is 8192 tokens. However, you requested 9100 tokens "
                           "(8588 in the messages, 512 in the completion). Please reduce the length of the messages "
                           "or completion.", "type": "invalid_request_error", "code": "context_length_exceeded"}},
     8588, 8192),
    # llama.cpp's server
    ({"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it",
                "type": "exceed_context_size_error", "n_prompt_tokens": 9001, "n_ctx": 8192}}, 9001, 8192),
    # a server that only says so
    ({"error": {"message": "prompt is too long", "code": "context_length_exceeded"}}, None, None),
])
def test_an_overflow_is_recognised_with_the_servers_counts(body: dict[str, Any], prompt: int | None,
                                                           context: int | None) -> None:
    # the scripted server's error body has only message/type/code: a raw server sends the real body verbatim
    with _RawErrorServer(400, json.dumps(body)) as url, pytest.raises(LLMError) as caught:
        ChatClient(base_url=url, model="m", max_retries=0).chat(USER)
    assert caught.value.kind == "overflow" and caught.value.status == 400
    assert caught.value.prompt_tokens == prompt and caught.value.context_tokens == context
    assert "does not fit the server's context window" in str(caught.value)


class _RawErrorServer:
    """A loopback HTTP server answering every POST with ``status`` and ``body`` (an error body as a real server
    writes it)."""

    def __init__(self, status: int, body: str) -> None:
        self.status, self.body = status, body

    def __enter__(self) -> str:
        from http.server import BaseHTTPRequestHandler

        from personal_envs.core.http import LoopbackServer

        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                return

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                data = owner.body.encode()
                self.send_response(owner.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = LoopbackServer(Handler, "raw-error-{port}")
        return f"{self.server.origin}/v1"

    def __exit__(self, *exc_info: object) -> None:
        self.server.close()


#: How many server tokens a template makes of one counted token (llama-cpp-python's function-calling template
#: HTML-escapes every quote: 1.4-1.8 times our count on KnowU's observations).
INFLATION = 1.6
CONTEXT = 6400  # KnowU-Proactive's first prompt (BatterySaverRoutineTask@designer on the embedded cards, text mode) is
#: about 3,960 tokens by our count, 6,330 by this server's: with the 256-token reply over 6,400; its fixed part (system,
#: tools with swipe since protocol="paper", the goal at the smallest field scale) is about 5,900 by the server's count
MAX_TOKENS = 256


def inflating_server() -> ScriptedChatServer:
    """A server whose template counts 1.6 times the estimate and refuses a request whose prompt and reply
    (``max_tokens``) do not fit its context, with the OpenAI-style error message; it answers a phone action that never
    ends the episode."""
    actions = ({"name": "open_app", "arguments": {"app_name": "Contacts"}},
               {"name": "scroll", "arguments": {"direction": "down"}},
               {"name": "navigate_home", "arguments": {}}, {"name": "wait", "arguments": {}})

    def responder(request: dict[str, Any]) -> dict[str, Any]:
        counted = sum(estimate_tokens(message_text(m)) + 4 for m in request["messages"])
        counted += estimate_tokens(json.dumps(request.get("tools") or [], ensure_ascii=False))
        prompt = int(counted * INFLATION)
        if prompt + MAX_TOKENS > CONTEXT:
            return {"status": 400, "message": (
                f"This model's maximum context length is {CONTEXT} tokens. However, you requested "
                f"{prompt + MAX_TOKENS} tokens ({prompt} in the messages, {MAX_TOKENS} in the completion). "
                "Please reduce the length of the messages or completion.")}
        turn = sum(1 for m in request["messages"] if m.get("role") == "assistant")
        return {"tool_calls": [actions[turn % len(actions)]],
                "usage": {"prompt_tokens": prompt, "completion_tokens": 12, "total_tokens": prompt + 12}}

    return ScriptedChatServer(responder)


def test_prompts_fit_a_server_that_counts_more_tokens_than_the_policy(tmp_path) -> None:
    with inflating_server() as server:
        records = evaluate(EvalConfig(
            "KnowU-Proactive-v0", "llm", episodes=1, out=tmp_path / "k.jsonl", progress=False, trajectories=False,
            env_kwargs={"max_steps": 30, "render": "text"},
            policy_kwargs={"base_url": server.base_url, "model": "m", "max_tokens": MAX_TOKENS,
                           "context_tokens": CONTEXT, "tokenizer": "estimate"}))
        answered = len(server.requests)
    llm = records[0]["llm"]
    assert not records[0]["error"] and records[0]["steps"] == 30
    overflows = [entry for entry in llm["trace"] if "overflow" in entry]
    # the first request was sent before the server's count was known: it overflowed, was trimmed and retried
    assert [entry["step"] for entry in overflows] == [1]
    assert overflows[0]["overflow"]["retry"] == "ok" and overflows[0]["overflow"]["server_prompt_tokens"] + MAX_TOKENS > CONTEXT
    assert llm["overflows"] == 1 and llm["overflow_retries_ok"] == 1 and llm["ok_calls"] == 30
    assert llm["server_scale"] == pytest.approx(INFLATION, rel=0.05)
    # from then on every prompt left room for the reply, by the server's own count
    prompts = [entry["prompt_tokens"] for entry in llm["trace"]]
    assert all(prompt + MAX_TOKENS <= CONTEXT for prompt in prompts), max(prompts)
    assert answered == 31  # 30 steps and the one retry
