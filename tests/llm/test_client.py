"""ChatClient against a real scripted OpenAI-compatible HTTP server on 127.0.0.1."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import pytest

from personal_envs.llm.client import ChatClient, LLMError, _parse_retry_after
from personal_envs.llm.testing import ScriptedChatServer

USER = [{"role": "user", "content": "hello"}]
TOOLS = [{
    "type": "function",
    "function": {
        "name": "search",
        "description": "Search products",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    },
}]


def fast_client(server: ScriptedChatServer, **kwargs: Any) -> ChatClient:
    settings: dict[str, Any] = {"model": "test-model", "backoff_s": 0.01, "timeout": 10.0}
    settings.update(kwargs)
    return ChatClient(base_url=server.base_url, **settings)


def test_plain_content_round_trip() -> None:
    with ScriptedChatServer(lambda request: "Hi, how can I help?") as server:
        client = fast_client(server)
        response = client.chat(USER, temperature=0.3, max_tokens=50)
    assert response.content == "Hi, how can I help?"
    assert response.tool_calls == []
    assert response.finish_reason == "stop"
    assert response.raw["choices"][0]["message"]["content"] == "Hi, how can I help?"
    request = server.requests[0]
    assert request["model"] == "test-model"
    assert request["messages"] == USER
    assert request["temperature"] == 0.3
    assert request["max_tokens"] == 50
    assert "tools" not in request


def test_tool_calls_are_sent_and_parsed() -> None:
    def responder(request: dict[str, Any]) -> dict[str, Any]:
        return {"content": None, "tool_calls": [{"id": "call_a", "name": "search", "arguments": {"query": "red shoes"}}]}

    with ScriptedChatServer(responder) as server:
        response = fast_client(server).chat(USER, tools=TOOLS, tool_choice="auto", seed=7)
    assert server.requests[0]["tools"] == TOOLS
    assert server.requests[0]["tool_choice"] == "auto"
    assert server.requests[0]["seed"] == 7
    wire_arguments = response.raw["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
    assert isinstance(wire_arguments, str)  # the protocol sends JSON text
    assert response.content == ""
    assert response.finish_reason == "tool_calls"
    assert len(response.tool_calls) == 1
    call = response.tool_calls[0]
    assert (call.id, call.name, call.arguments) == ("call_a", "search", {"query": "red shoes"})
    message = response.assistant_message()
    assert message["tool_calls"][0]["function"] == {"name": "search", "arguments": '{"query": "red shoes"}'}


def test_broken_json_arguments_are_kept_raw() -> None:
    broken = '{"query": "red shoes"'
    reply = {"tool_calls": [{"name": "search", "arguments": broken}, {"name": "search", "arguments": "[1, 2]"}]}
    with ScriptedChatServer(lambda request: reply) as server:
        response = fast_client(server).chat(USER, tools=TOOLS)
    assert response.tool_calls[0].arguments == {"_raw": broken}
    assert response.tool_calls[1].arguments == {"_raw": "[1, 2]"}  # JSON, but not an object
    assert response.assistant_message()["tool_calls"][0]["function"]["arguments"] == broken


def test_retries_after_server_errors_then_succeeds() -> None:
    def responder(request: dict[str, Any]) -> dict[str, Any] | str:
        return {"status": 503} if len(server.requests) <= 2 else "recovered"

    with ScriptedChatServer(responder) as server:
        client = fast_client(server, max_retries=3)
        response = client.chat(USER)
    assert response.content == "recovered"
    assert len(server.requests) == 3
    totals = client.usage_totals
    assert totals["retries"] == 2 and totals["calls"] == 1 and totals["errors"] == 0


def test_gives_up_after_max_retries() -> None:
    with ScriptedChatServer(lambda request: {"status": 503, "message": "overloaded"}) as server:
        client = fast_client(server, max_retries=2)
        with pytest.raises(LLMError) as caught:
            client.chat(USER)
    assert len(server.requests) == 3
    assert caught.value.status == 503
    assert "overloaded" in str(caught.value) and "3 attempts" in str(caught.value)
    assert client.usage_totals["errors"] == 1 and client.usage_totals["calls"] == 0


def test_responder_exception_becomes_server_error_message() -> None:
    def responder(request: dict[str, Any]) -> str:
        raise KeyError("missing script step")

    with ScriptedChatServer(responder) as server, pytest.raises(LLMError, match="missing script step"):
        fast_client(server, max_retries=0).chat(USER)


def test_rate_limit_honours_retry_after() -> None:
    waits: list[float] = []

    def responder(request: dict[str, Any]) -> dict[str, Any] | str:
        if len(server.requests) == 1:
            return {"status": 429, "headers": {"Retry-After": "1"}}
        return "after the limit"

    with ScriptedChatServer(responder) as server:
        client = fast_client(server, backoff_s=0.01)

        def recording_sleep(seconds: float) -> None:
            waits.append(seconds)
            time.sleep(seconds)

        client.sleep = recording_sleep
        response = client.chat(USER)
    assert response.content == "after the limit"
    assert len(server.requests) == 2
    assert waits == [1.0]  # the header's delay, not the 0.01 s backoff


def test_backoff_doubles_between_attempts() -> None:
    waits: list[float] = []
    with ScriptedChatServer(lambda request: {"status": 502}) as server:
        client = fast_client(server, max_retries=3, backoff_s=0.01)
        client.sleep = waits.append
        with pytest.raises(LLMError):
            client.chat(USER)
    assert waits == pytest.approx([0.01, 0.02, 0.04])


def test_retry_after_parses_seconds_and_dates() -> None:
    assert _parse_retry_after("3") == 3.0
    assert _parse_retry_after(None) is None
    assert _parse_retry_after("soon") is None
    future = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    parsed = _parse_retry_after(future)
    assert parsed is not None and 20 < parsed <= 31


def test_timeout_is_enforced_and_retried() -> None:
    with ScriptedChatServer(lambda request: {"sleep": 30, "content": "too late"}) as server:
        client = fast_client(server, timeout=0.5, max_retries=1, max_timeout_retries=1)
        with pytest.raises(LLMError, match="timed out"):
            client.chat(USER)
        assert len(server.requests) == 2


def test_bad_api_key_is_not_retried() -> None:
    with ScriptedChatServer(lambda request: "secret reply", api_key="right-key") as server:
        client = fast_client(server, api_key="wrong-key")
        with pytest.raises(LLMError) as caught:
            client.chat(USER)
        assert caught.value.status == 401
        assert "OPENAI_API_KEY" in str(caught.value)
        assert client.usage_totals["retries"] == 0
        assert fast_client(server, api_key="right-key").chat(USER).content == "secret reply"


def test_client_errors_other_than_429_are_not_retried() -> None:
    with ScriptedChatServer(lambda request: {"status": 400, "message": "context length exceeded"}) as server:
        client = fast_client(server)
        with pytest.raises(LLMError, match="context length exceeded"):
            client.chat(USER)
    assert len(server.requests) == 1


def test_token_usage_is_summed_across_calls() -> None:
    usages = iter([
        {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10},
    ])
    with ScriptedChatServer(lambda request: {"content": "ok", "usage": next(usages)}) as server:
        client = fast_client(server)
        first = client.chat(USER)
        client.chat(USER)
    assert first.usage == {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    assert client.usage_totals == {"prompt_tokens": 17, "completion_tokens": 8, "total_tokens": 25,
                                   "calls": 2, "retries": 0, "errors": 0}
    client.reset_usage()
    assert client.usage_totals["total_tokens"] == 0


def test_usage_totals_are_consistent_under_threads() -> None:
    usage = {"prompt_tokens": 2, "completion_tokens": 1, "total_tokens": 3}
    with ScriptedChatServer(lambda request: {"content": "ok", "usage": usage}) as server:
        client = fast_client(server)
        threads = [threading.Thread(target=client.chat, args=(USER,)) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert client.usage_totals["calls"] == 8 and client.usage_totals["total_tokens"] == 24


def test_unicode_both_ways() -> None:
    text = "Größe 42? 手机 café 😀 — ok"
    with ScriptedChatServer(lambda request: request["messages"][-1]["content"][::-1]) as server:
        response = fast_client(server).chat([{"role": "user", "content": text}])
    assert server.requests[0]["messages"][0]["content"] == text
    assert response.content == text[::-1]


def test_stopped_server_gives_connection_refused_error() -> None:
    server = ScriptedChatServer(lambda request: "never").start()
    base_url = server.base_url
    server.close()
    client = ChatClient(base_url=base_url, model="m", max_retries=1, backoff_s=0.01, timeout=5)
    with pytest.raises(LLMError) as caught:
        client.chat(USER)
    assert "not running" in str(caught.value) and base_url in str(caught.value)
    assert caught.value.status is None and caught.value.kind == "unreachable"
    # connection refused is deterministic: nothing listens there, so it is not retried
    assert client.usage_totals["retries"] == 0 and client.usage_totals["errors"] == 1


def test_missing_configuration_names_the_env_vars(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    client = ChatClient()
    assert not client.configured
    with pytest.raises(LLMError) as caught:
        client.chat(USER)
    assert "OPENAI_BASE_URL" in str(caught.value) and "PERSONAL_ENVS_LLM_MODEL" in str(caught.value)


def test_configuration_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    with ScriptedChatServer(lambda request: "env ok", api_key="env-key") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url + "/")
        monkeypatch.setenv("OPENAI_API_KEY", "env-key")
        monkeypatch.delenv("PERSONAL_ENVS_LLM_MODEL", raising=False)
        monkeypatch.setenv("OPENAI_MODEL", "fallback-model")
        assert ChatClient().chat(USER).content == "env ok"
        monkeypatch.setenv("PERSONAL_ENVS_LLM_MODEL", "preferred-model")
        ChatClient().chat(USER)
    assert [request["model"] for request in server.requests] == ["fallback-model", "preferred-model"]


def test_model_is_taken_from_the_server_when_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PERSONAL_ENVS_LLM_MODEL", raising=False)
    monkeypatch.delenv("OPENAI_MODEL", raising=False)
    with ScriptedChatServer(lambda request: "ok", model="served-model") as server:
        client = ChatClient(base_url=server.base_url)
        client.chat(USER)
        assert client.list_models() == ["served-model"]
    assert client.model == "served-model"
    assert server.requests[0]["model"] == "served-model"


@pytest.mark.parametrize("raw_body, expected", [("<html>proxy error</html>", "not JSON"),
                                                ('{"object": "chat.completion"}', "no choices")])
def test_malformed_replies_raise_clear_errors(raw_body: str, expected: str) -> None:
    with ScriptedChatServer(lambda request: {"raw_body": raw_body}) as server, pytest.raises(LLMError, match=expected):
        fast_client(server).chat(USER)


def test_wrong_path_gives_404_hint() -> None:
    with ScriptedChatServer(lambda request: "ok") as server:
        client = ChatClient(base_url=server.base_url.removesuffix("/v1") + "/api", model="m", backoff_s=0.01)
        with pytest.raises(LLMError, match="404") as caught:
            client.chat(USER)
    assert "/v1" in str(caught.value)


def test_client_survives_pickling_with_its_counters() -> None:
    import pickle

    with ScriptedChatServer(lambda request: {"content": "ok", "usage": {"total_tokens": 4}}) as server:
        client = fast_client(server)
        client.chat(USER)
        copy = pickle.loads(pickle.dumps(client))
        copy.chat(USER)
    assert copy.usage_totals["total_tokens"] == 8 and copy.usage_totals["calls"] == 2
    assert client.usage_totals["calls"] == 1
    assert (copy.base_url, copy.model) == (client.base_url, "test-model")


def test_scripted_server_routes_and_rejects_bad_requests() -> None:
    import json
    import urllib.error
    import urllib.request

    with ScriptedChatServer(lambda request: "ok", model="listed") as server:
        with urllib.request.urlopen(server.base_url + "/models", timeout=5) as reply:
            assert json.load(reply)["data"][0]["id"] == "listed"
        bad = urllib.request.Request(server.base_url + "/chat/completions", data=b"{not json", method="POST",
                                     headers={"Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(bad, timeout=5)
        assert caught.value.code == 400
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(server.base_url + "/nowhere", timeout=5)
        assert missing.value.code == 404
    assert server.requests == []  # neither reached the responder
