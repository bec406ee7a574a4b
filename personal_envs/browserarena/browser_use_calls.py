"""Counts every HTTP request browser-use's model clients make, with the usage each reply reports (browser-use's venv).

Imported by :mod:`personal_envs.browserarena.browser_use_bridge`, which runs in browser-use's own virtualenv: it
uses only the standard library and ``httpx`` (a dependency of ``openai``), never ``personal_envs``.

langchain's ``ChatOpenAI`` sends its requests through the ``openai`` SDK, which sends them through an ``httpx``
client; the bridge gives both of its clients (the synchronous one that ``invoke`` uses: browser-use's ``raw`` mode and
``extract_content``; the asynchronous one of ``ainvoke``: function calling) a :class:`CallCounter`'s subclass, so
every request to ``/chat/completions`` is seen where it leaves: the agent's step calls, the extraction model's calls
made inside a controller action, and the SDK's own retries (``x-stainless-retry-count``).  Each finished request
becomes one record: what it was for (:data:`purpose`), the HTTP status (``None`` when no reply came), the
``prompt_tokens`` / ``completion_tokens`` the reply's ``usage`` reports, the error kind when it failed, and the reply's
assistant message (to tell which actions the model asked for).
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx

#: What the model call in progress is for: ``"agent"`` (browser-use's step) or ``"action"`` (a model call made by a
#: controller action, i.e. ``extract_content``'s extraction model).  Set by the bridge around controller actions.
purpose: contextvars.ContextVar[str] = contextvars.ContextVar("browser_use_call_purpose", default="agent")

CHAT_PATH = "/chat/completions"


class CallCounter:
    """The records of one bridge run; ``on_call`` receives each record as soon as its request has finished."""

    def __init__(self, on_call: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.records: list[dict[str, Any]] = []
        self.on_call = on_call
        self._lock = threading.Lock()

    def last_reply(self, of: str = "agent") -> dict[str, Any] | None:
        """The assistant message of the latest successful call made for ``of`` (``None`` if there is none)."""
        with self._lock:
            for record in reversed(self.records):
                if record["purpose"] == of and record.get("message") is not None:
                    return dict(record["message"])
        return None

    def clients(self, timeout: float) -> tuple[httpx.Client, httpx.AsyncClient]:
        """A synchronous and an asynchronous ``httpx`` client that count through this counter."""
        counter = self

        class CountingClient(httpx.Client):
            def send(self, request: httpx.Request, **kwargs: Any) -> httpx.Response:
                record = counter._start(request)
                try:
                    response = super().send(request, **kwargs)
                except BaseException as exc:
                    counter._fail(record, exc)
                    raise
                if record is not None:
                    counter._finish(record, response, response.read() if not kwargs.get("stream") else b"")
                return response

        class AsyncCountingClient(httpx.AsyncClient):
            async def send(self, request: httpx.Request, **kwargs: Any) -> httpx.Response:
                record = counter._start(request)
                try:
                    response = await super().send(request, **kwargs)
                except BaseException as exc:
                    counter._fail(record, exc)
                    raise
                if record is not None:
                    body = await response.aread() if not kwargs.get("stream") else b""
                    counter._finish(record, response, body)
                return response

        return CountingClient(timeout=timeout), AsyncCountingClient(timeout=timeout)

    # ------------------------------------------------------------------------------------------ records
    def _start(self, request: httpx.Request) -> dict[str, Any] | None:
        if request.method != "POST" or not request.url.path.endswith(CHAT_PATH):
            return None
        retry = request.headers.get("x-stainless-retry-count", "0")
        return {"purpose": purpose.get(), "retry": retry.isdigit() and int(retry) > 0, "status": None,
                "prompt_tokens": 0, "completion_tokens": 0, "started": time.monotonic()}

    def _fail(self, record: dict[str, Any] | None, exc: BaseException) -> None:
        if record is None:
            return
        kind = "timeout" if isinstance(exc, httpx.TimeoutException) else (
            "unreachable" if isinstance(exc, httpx.TransportError) else "transient")
        record.update({"error_kind": kind, "error": f"{type(exc).__name__}: {exc}"[:500]})
        self._done(record)

    def _finish(self, record: dict[str, Any], response: httpx.Response, body: bytes) -> None:
        record["status"] = response.status_code
        data: Any = None
        with contextlib.suppress(UnicodeDecodeError, json.JSONDecodeError):
            data = json.loads(body.decode("utf-8")) if body else {}
        if response.status_code != 200:
            record.update({"error_kind": "http", "error": f"HTTP {response.status_code}: {body[:300]!r}"})
        elif not isinstance(data, dict):
            record.update({"error_kind": "reply", "error": f"unreadable reply: {body[:300]!r}"})
        else:
            reported = data.get("usage")
            usage: dict[str, Any] = reported if isinstance(reported, dict) else {}
            record["prompt_tokens"] = _count(usage.get("prompt_tokens"))
            record["completion_tokens"] = _count(usage.get("completion_tokens"))
            record["usage_reported"] = bool(usage)
            choices = data.get("choices") or []
            message = choices[0].get("message") if choices and isinstance(choices[0], dict) else None
            record["message"] = message if isinstance(message, dict) else None
        self._done(record)

    def _done(self, record: dict[str, Any]) -> None:
        record["seconds"] = round(time.monotonic() - record.pop("started"), 4)
        with self._lock:
            self.records.append(record)
        if self.on_call is not None:
            self.on_call({key: value for key, value in record.items() if key != "message"})


def _count(value: Any) -> int:
    try:
        return max(0, int(value))
    except (TypeError, ValueError):
        return 0


def requested_actions(message: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The action items the model asked for in an assistant message (browser-use's ``AgentOutput``, either as the
    function call's arguments or as JSON text in the content, possibly fenced or after ``<think>``); ``[]`` when the
    message is not readable."""
    if not message:
        return []
    texts = [str((call.get("function") or {}).get("arguments") or "") for call in message.get("tool_calls") or []
             if isinstance(call, dict)]
    texts.append(str(message.get("content") or ""))
    for text in texts:
        text = text.split("</think>")[-1]
        if "```" in text:
            inner = text.split("```")[1]
            text = inner.split("\n", 1)[1] if "\n" in inner else inner
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end <= start:
            continue
        try:
            parsed = json.loads(text[start:end + 1])
        except json.JSONDecodeError:
            continue
        if isinstance(parsed, dict) and isinstance(parsed.get("action"), list):
            return [item for item in parsed["action"] if isinstance(item, dict)]
    return []
