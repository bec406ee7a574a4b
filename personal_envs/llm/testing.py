"""A real OpenAI-compatible HTTP server whose replies come from a Python function, for tests and demos.

:class:`ScriptedChatServer` listens on ``127.0.0.1`` on an ephemeral port and speaks the two endpoints the client
uses: ``POST {base}/chat/completions`` and ``GET {base}/models``.  A *responder* receives each parsed request body
and returns what the assistant says:

* a ``str``: the assistant's text;
* a ``dict`` with any of

  - ``"content"``: text (may be ``None``),
  - ``"tool_calls"``: ``[{"name": ..., "arguments": {...} or "raw text", "id": optional}]``; dict arguments are
    sent as JSON text, as the OpenAI protocol does, and text arguments are sent verbatim (to simulate broken JSON),
  - ``"usage"``: token usage to report (default: one token per 4 characters of the message texts, tool calls and
    tools, plus 4 per message, as a template would count them),
  - ``"finish_reason"``: default ``"tool_calls"`` when there are tool calls, else ``"stop"``,
  - ``"status"``: answer with this HTTP status instead (an OpenAI-style error body; ``"message"`` sets its text),
  - ``"headers"``: extra response headers (for example ``{"Retry-After": "1"}``),
  - ``"sleep"``: seconds to wait before answering (to simulate a slow server; :meth:`close` cuts it short),
  - ``"raw_body"``: a ``str`` sent as the body verbatim with status 200 (to simulate a broken server),
  - ``"drop"``: ``True`` closes the connection without answering (a connection reset, as a crashing server does).

With ``tokenize_route="/extras/tokenize"`` (llama-cpp-python's) or ``"/tokenize"`` (llama.cpp's server) the server
also answers that route at its root with one token per 4 characters (rounded up).  With
``drop_tool_messages=True`` the server behaves like a chat template that drops ``tool`` messages (as
llama-cpp-python's function-calling template does): the responder never sees them and the usage does not count them.

Every request body is appended to :attr:`ScriptedChatServer.requests`.  A responder that raises produces an HTTP 500
whose message names the exception.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler
from typing import Any

from personal_envs.core.http import LoopbackServer
from personal_envs.llm.prompt import estimate_tokens, message_text

Responder = Callable[[dict[str, Any]], "dict[str, Any] | str"]


class ScriptedChatServer:
    """An OpenAI-compatible chat server on ``127.0.0.1:<ephemeral port>`` driven by ``responder``.

    Args:
        responder: Called with each parsed ``/chat/completions`` request; returns a ``str`` or a ``dict`` (see the
            module docstring).
        model: The model id listed by ``GET /models`` and echoed in replies.
        api_key: When set, requests without ``Authorization: Bearer <api_key>`` get HTTP 401.
        port: Port to bind (default 0: an ephemeral one), e.g. to bring a server back up where a run expects it.

    Use it as a context manager, or call :meth:`start` and :meth:`close`.
    """

    def __init__(
        self, responder: Callable[[dict[str, Any]], dict[str, Any] | str], *, model: str = "scripted-model",
        api_key: str | None = None, tokenize_route: str | None = None, drop_tool_messages: bool = False,
        tool_schema_scale: float = 1.0, port: int = 0,
    ) -> None:
        self.port = port
        self.drop_tool_messages = drop_tool_messages
        #: How many tokens the "template" spends on the tool schemas, relative to their JSON (llama-cpp-python's
        #: function-calling template prints only names and parameters: far fewer tokens than the JSON).
        self.tool_schema_scale = tool_schema_scale
        self.responder = responder
        self.tokenize_route = tokenize_route
        self.model = model
        self.api_key = api_key
        #: Every parsed ``/chat/completions`` request body, in arrival order.
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._ids = itertools.count(1)
        self._server: LoopbackServer | None = None
        self.base_url = ""

    # ------------------------------------------------------------------------------------------- lifecycle
    def start(self) -> ScriptedChatServer:
        """Bind the port and serve in a background thread; sets :attr:`base_url`.  Returns ``self``."""
        if self._server is not None:
            return self
        self._closing.clear()
        self._server = LoopbackServer(_make_handler(self), "scripted-chat-{port}", port=self.port, poll_interval=0.05)
        self.base_url = f"{self._server.origin}/v1"
        return self

    def close(self) -> None:
        """Stop serving, wake any handler that is sleeping, and release the port.  Safe to call twice."""
        server, self._server = self._server, None
        if server is None:
            return
        self._closing.set()
        server.close()

    def __enter__(self) -> ScriptedChatServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ------------------------------------------------------------------------------------------- replies
    def _record(self, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append(body)

    def _completion(self, request: dict[str, Any], reply: Mapping[str, Any]) -> dict[str, Any]:
        content = reply.get("content")
        tool_calls = []
        for index, call in enumerate(reply.get("tool_calls") or []):
            arguments = call.get("arguments", {})
            tool_calls.append({
                "id": str(call.get("id") or f"call_{next(self._ids)}_{index}"),
                "type": "function",
                "function": {
                    "name": call["name"],
                    "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments,
                                                                                          ensure_ascii=False),
                },
            })
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if tool_calls:
            message["tool_calls"] = tool_calls
        usage = reply.get("usage") or _word_usage(request, message, self.tool_schema_scale)
        finish_reason = reply.get("finish_reason") or ("tool_calls" if tool_calls else "stop")
        return {
            "id": f"chatcmpl-{next(self._ids)}",
            "object": "chat.completion",
            "model": request.get("model") or self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": usage,
        }


def _word_usage(request: Mapping[str, Any], message: Mapping[str, Any], tool_schema_scale: float = 1.0
                ) -> dict[str, int]:
    """Deterministic token counts: 4 characters per token of the prompt (messages, tools) and of the reply."""
    prompt = sum(estimate_tokens(message_text(m)) + 4 for m in request.get("messages") or [] if isinstance(m, Mapping))
    if request.get("tools"):
        prompt += round(tool_schema_scale * estimate_tokens(json.dumps(request["tools"], ensure_ascii=False)))
    completion = estimate_tokens(message_text(message))
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _make_handler(owner: ScriptedChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "ScriptedChat/1.0"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep the test output quiet
            return

        def _path(self) -> str:
            path = self.path.split("?", 1)[0].rstrip("/")
            return path[len("/v1"):] if path.startswith("/v1") else path

        def _send_json(self, status: int, body: Any, headers: Mapping[str, str] | None = None) -> None:
            data = json.dumps(body, ensure_ascii=False).encode("utf-8")
            self._send_bytes(status, data, "application/json", headers)

        def _send_bytes(self, status: int, data: bytes, content_type: str,
                        headers: Mapping[str, str] | None = None) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, str(value))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (e.g. its timeout fired)
                pass

        def _send_error(self, status: int, message: str, headers: Mapping[str, str] | None = None) -> None:
            kind = "invalid_request_error" if status < 500 else "server_error"
            self._send_json(status, {"error": {"message": message, "type": kind, "code": status}}, headers)

        def _authorized(self) -> bool:
            if owner.api_key is None:
                return True
            if self.headers.get("Authorization") == f"Bearer {owner.api_key}":
                return True
            self._send_error(401, "Incorrect API key provided.")
            return False

        def do_GET(self) -> None:  # noqa: N802 - http.server naming
            if not self._authorized():
                return
            if self._path() == "/models":
                self._send_json(200, {"object": "list",
                                      "data": [{"id": owner.model, "object": "model", "owned_by": "scripted"}]})
            else:
                self._send_error(404, f"no route GET {self.path}")

        def do_POST(self) -> None:  # noqa: N802 - http.server naming
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length > 0 else b""
            if owner.tokenize_route and self.path.split("?", 1)[0] == owner.tokenize_route:
                body = json.loads(raw.decode("utf-8") or "{}")
                text = str(body.get("input", body.get("content", "")))
                self._send_json(200, {"tokens": list(range(estimate_tokens(text)))})
                return
            if self._path() != "/chat/completions":
                self._send_error(404, f"no route POST {self.path}")
                return
            if not self._authorized():
                return
            try:
                request = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                self._send_error(400, f"request body is not JSON: {exc}")
                return
            if not isinstance(request, dict):
                self._send_error(400, "request body must be a JSON object")
                return
            owner._record(request)
            if owner.drop_tool_messages:
                request = {**request, "messages": [m for m in request.get("messages") or []
                                                   if not (isinstance(m, Mapping) and m.get("role") == "tool")]}
            try:
                reply = owner.responder(request)
            except Exception as exc:  # the responder's failure becomes the server's failure, visibly
                self._send_error(500, f"responder raised {type(exc).__name__}: {exc}")
                return
            self._answer(request, reply)

        def _answer(self, request: dict[str, Any], reply: dict[str, Any] | str) -> None:
            if isinstance(reply, str):
                reply = {"content": reply}
            sleep = float(reply.get("sleep") or 0)
            if sleep > 0 and owner._closing.wait(sleep):
                return
            if reply.get("drop"):
                self.close_connection = True
                self.connection.shutdown(2)
                return
            headers = reply.get("headers") or {}
            status = int(reply.get("status") or 200)
            if status != 200:
                self._send_error(status, str(reply.get("message") or f"scripted HTTP {status}"), headers)
            elif "raw_body" in reply:
                self._send_bytes(200, str(reply["raw_body"]).encode("utf-8"), "application/json", headers)
            else:
                self._send_json(200, owner._completion(request, reply), headers)

    return Handler
