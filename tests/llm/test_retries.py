"""Which failures the client retries (transient ones only) and how lenient argument parsing reports repairs."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from personal_envs.llm.client import ChatClient, LLMError, parse_arguments_with_repairs
from personal_envs.llm.jsonfix import loads_object
from personal_envs.llm.testing import ScriptedChatServer

USER = [{"role": "user", "content": "hi"}]


def client_for(server: ScriptedChatServer, **kwargs: Any) -> ChatClient:
    settings: dict[str, Any] = {"model": "m", "max_retries": 3, "backoff_s": 0.0, "timeout": 5}
    settings.update(kwargs)
    return ChatClient(base_url=server.base_url, **settings)


@pytest.mark.parametrize("status", [500, 400, 404, 422])
def test_deterministic_statuses_are_not_retried(status: int) -> None:
    with ScriptedChatServer(lambda request: {"status": status, "message": "template cannot render tools"}) as server:
        with pytest.raises(LLMError) as caught:
            client_for(server).chat(USER)
        assert len(server.requests) == 1
    assert caught.value.status == status and not caught.value.retryable


@pytest.mark.parametrize("status", [429, 502, 503, 504])
def test_transient_statuses_are_retried(status: int) -> None:
    with ScriptedChatServer(lambda request: {"status": status}) as server:
        with pytest.raises(LLMError, match="gave up after 3 attempts"):
            client_for(server, max_retries=2).chat(USER)
        assert len(server.requests) == 3


def test_a_timeout_is_not_retried_by_default_and_retried_as_often_as_asked() -> None:
    with ScriptedChatServer(lambda request: {"sleep": 30, "content": "late"}) as server:
        client = client_for(server, timeout=0.4, max_retries=5)
        with pytest.raises(LLMError) as caught:
            client.chat(USER)
        assert len(server.requests) == 1  # a hung server costs one timeout, not several
        client = client_for(server, timeout=0.4, max_retries=5, max_timeout_retries=1)
        with pytest.raises(LLMError):
            client.chat(USER)
        assert len(server.requests) == 3
    assert caught.value.kind == "timeout"


def test_connection_reset_is_retried() -> None:
    def responder(request: dict[str, Any]) -> dict[str, Any]:
        return {"drop": True} if len(server.requests) == 1 else {"content": "back"}

    with ScriptedChatServer(responder) as server:
        client = client_for(server)
        response = client.chat(USER)
    assert response.content == "back" and response.retries == 1 and len(server.requests) == 2


def test_extra_request_fields_are_passed_through() -> None:
    with ScriptedChatServer(lambda request: "ok") as server:
        client_for(server).chat(USER, tool_choice="auto", response_format={"type": "json_object"},
                                grammar='root ::= "x"', seed=7)
        sent = server.requests[0]
    assert sent["tool_choice"] == "auto" and sent["response_format"] == {"type": "json_object"}
    assert sent["grammar"] == 'root ::= "x"' and sent["seed"] == 7


def test_errors_keep_their_kind_through_pickling() -> None:
    error = pickle.loads(pickle.dumps(LLMError("boom", kind="unreachable")))
    assert error.kind == "unreachable" and str(error) == "boom"


def test_server_tokenizer_is_used_when_present_and_none_otherwise() -> None:
    with ScriptedChatServer(lambda request: "ok", tokenize_route="/extras/tokenize") as server:
        client = client_for(server)
        assert client.count_tokens("one two three") == 4  # the scripted tokenizer: 4 characters per token
        assert client.count_tokens("four") == 1
    with ScriptedChatServer(lambda request: "ok", tokenize_route="/tokenize") as server:
        assert client_for(server).count_tokens("a b c d e") == 3
    with ScriptedChatServer(lambda request: "ok") as server:
        client = client_for(server)
        assert client.count_tokens("a b") is None
        assert client.count_tokens("a b") is None


@pytest.mark.parametrize(("text", "expected", "repair"), [
    ('{"text": "line one\nline two"}', {"text": "line one\nline two"}, "control characters"),
    ('{"query": "shoes", "limit": 3,}', {"query": "shoes", "limit": 3}, "trailing commas removed"),
    ('```json\n{"query": "shoes"}\n```', {"query": "shoes"}, "code fence removed"),
    ('Here you go: {"ok": True}', {"ok": True}, "Python literals replaced"),
])
def test_lenient_arguments_record_the_repair(text: str, expected: dict[str, Any], repair: str) -> None:
    arguments, repairs = parse_arguments_with_repairs(text)
    assert arguments == expected
    assert repair in repairs


def test_text_without_an_object_stays_raw() -> None:
    assert parse_arguments_with_repairs("no json here") == ({"_raw": "no json here"}, [])
    assert loads_object("[1, 2]") == (None, [])


def test_tool_call_keeps_the_raw_argument_text() -> None:
    raw = '{"text": "a\nb",}'
    with ScriptedChatServer(lambda request: {"tool_calls": [{"name": "say", "arguments": raw}]}) as server:
        call = client_for(server).chat(USER).tool_calls[0]
    assert call.arguments == {"text": "a\nb"} and call.raw_arguments == raw
    assert "trailing commas removed" in call.repairs
