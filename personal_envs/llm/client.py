"""A small client for OpenAI-compatible chat-completion endpoints (OpenAI, vLLM, llama.cpp, Ollama, LM Studio...).

Only the standard library is used.  The client sends ``POST {base_url}/chat/completions`` with optional function
tools, retries transient failures only (HTTP 429, 502, 503, 504, a connection reset or closed mid-reply: up to
``max_retries`` times with exponential backoff honouring ``Retry-After``; a timeout: at most ``max_timeout_retries``
times, since the identical request usually times out again), enforces a deadline per attempt, and sums the token
``usage`` the server reports.  Deterministic failures (connection refused, HTTP 4xx, HTTP 500 such as a template
that cannot render tools, a malformed reply) are raised at once.  Every failure surfaces as :class:`LLMError`
whose message says what to do about it.  :meth:`ChatClient.count_tokens` uses the server's tokenizer when it has
one (``/extras/tokenize`` of llama-cpp-python, ``/tokenize`` of llama.cpp's server).

Configuration comes from the arguments or, when they are omitted, from the environment:

* ``OPENAI_BASE_URL``: e.g. ``http://127.0.0.1:8000/v1`` (a vLLM server) or ``https://api.openai.com/v1``;
* ``OPENAI_API_KEY``: sent as a bearer token when set;
* ``PERSONAL_ENVS_LLM_MODEL`` (fallback ``OPENAI_MODEL``): the model name; when unset, the first model listed by
  ``GET {base_url}/models`` is used, which suits single-model servers such as vLLM.
"""

from __future__ import annotations

import dataclasses
import email.utils
import http.client
import json
import os
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from personal_envs.llm.jsonfix import loads_object

#: Environment variables read when the constructor arguments are omitted.
BASE_URL_ENV = "OPENAI_BASE_URL"
API_KEY_ENV = "OPENAI_API_KEY"
MODEL_ENV = "PERSONAL_ENVS_LLM_MODEL"
MODEL_FALLBACK_ENV = "OPENAI_MODEL"

#: Longest wait a ``Retry-After`` header can impose on one retry, in seconds.
MAX_RETRY_AFTER_S = 60.0
#: Longest exponential backoff between two attempts, in seconds.
MAX_BACKOFF_S = 30.0
_READ_CHUNK = 65536
_USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens")
#: HTTP statuses retried as transient (overload, gateway trouble); every other status fails at once.
TRANSIENT_STATUSES = frozenset({429, 502, 503, 504})


class LLMError(RuntimeError):
    """A chat request that failed for good.  The message names the cause and what to do about it.

    Attributes:
        status: The HTTP status of the last attempt, or ``None`` for connection errors, timeouts and bad replies.
        retryable: Whether the failure was of a transient kind (the retries were exhausted).
        kind: ``"unreachable"`` (connection refused, unknown host), ``"timeout"``, ``"http"``, ``"transient"``
            (connection reset), ``"reply"`` (malformed body) or ``"config"`` (no endpoint configured).
    """

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False,
                 kind: str = "reply") -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable
        self.kind = kind if status is None else "http"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_error, (str(self), self.status, self.retryable, self.kind))


def _rebuild_error(message: str, status: int | None, retryable: bool, kind: str) -> LLMError:
    return LLMError(message, status=status, retryable=retryable, kind=kind)


@dataclass(frozen=True)
class ToolCall:
    """One function call requested by the model.

    ``arguments`` is the parsed JSON object (leniently: see :func:`personal_envs.llm.jsonfix.loads_object`); when
    the model sent text from which no JSON object can be recovered it is kept as ``{"_raw": text}`` so callers can
    report it instead of losing it.  ``raw_arguments`` is the text exactly as the server sent it and ``repairs``
    lists what was fixed to parse it.
    """

    id: str
    name: str
    arguments: dict[str, Any]
    raw_arguments: str = ""
    repairs: tuple[str, ...] = ()

    def to_openai(self) -> dict[str, Any]:
        """The call in the wire format of an assistant message's ``tool_calls`` entry."""
        if set(self.arguments) == {"_raw"} and isinstance(self.arguments["_raw"], str):
            arguments_text = self.arguments["_raw"]
        else:
            arguments_text = json.dumps(self.arguments, ensure_ascii=False)
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": arguments_text}}


@dataclass(frozen=True)
class ChatResponse:
    """The first choice of a chat completion: text, tool calls, token usage, the raw JSON and the finish reason."""

    content: str
    tool_calls: list[ToolCall]
    usage: dict[str, Any]
    raw: dict[str, Any]
    finish_reason: str
    #: Seconds the successful request took (all attempts and waits included).
    latency_s: float = 0.0
    #: Extra attempts made before this reply.
    retries: int = 0

    def assistant_message(self) -> dict[str, Any]:
        """The reply as an assistant message to append to a conversation (OpenAI format)."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [call.to_openai() for call in self.tool_calls]
        return message


@dataclass
class _Attempt:
    """Outcome of one HTTP attempt: a parsed body, or an error with whether and when to retry."""

    body: dict[str, Any] | None = None
    error: LLMError | None = None
    retry: bool = False
    retry_after: float | None = None


@dataclass
class _Totals:
    values: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(("prompt_tokens", "completion_tokens", "total_tokens", "calls",
                                               "retries", "errors"), 0)
    )
    lock: threading.Lock = field(default_factory=threading.Lock)


class ChatClient:
    """Client of an OpenAI-compatible ``/chat/completions`` endpoint.

    Args:
        base_url: API root such as ``http://127.0.0.1:8000/v1``; default ``$OPENAI_BASE_URL``.
        model: Model name; default ``$PERSONAL_ENVS_LLM_MODEL``, then ``$OPENAI_MODEL``, then the first model the
            server lists.
        api_key: Bearer token; default ``$OPENAI_API_KEY`` (may be unset for local servers).
        timeout: Seconds one HTTP attempt may take in total (connect, wait and read).
        max_retries: Extra attempts after a transient failure (HTTP 429, 502-504, a connection reset).
        backoff_s: First backoff; it doubles after every failed attempt (capped at 30 s).
        max_timeout_retries: Extra attempts after a timeout (default 1, so one request takes at most about
            ``2 * timeout``); never more than ``max_retries``.

    ``usage_totals`` sums the server-reported token usage of every successful call, and counts ``calls``
    (successful), ``retries`` (extra attempts) and ``errors`` (calls that raised).  The client is thread-safe.
    Construction never fails for a missing configuration; :meth:`chat` raises an :class:`LLMError` explaining it,
    and :attr:`configured` tells beforehand.
    """

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 3,
        backoff_s: float = 0.5,
        max_timeout_retries: int = 1,
    ) -> None:
        if timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout}")
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        resolved_url = base_url if base_url is not None else os.environ.get(BASE_URL_ENV, "")
        self.base_url: str = resolved_url.strip().rstrip("/")
        self.model: str | None = model or os.environ.get(MODEL_ENV) or os.environ.get(MODEL_FALLBACK_ENV) or None
        self.api_key: str | None = api_key if api_key is not None else (os.environ.get(API_KEY_ENV) or None)
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.backoff_s = float(backoff_s)
        self.max_timeout_retries = max(0, int(max_timeout_retries))
        #: Which tokenizer route the server has (``None``: not probed yet, ``""``: none).
        self._tokenize_route: str | None = None
        #: The function used to wait between attempts (replaceable, e.g. to record the waits in tests).
        self.sleep: Callable[[float], None] = time.sleep
        self._totals = _Totals()
        self._model_lock = threading.Lock()

    # ------------------------------------------------------------------------------------------- public API
    @property
    def configured(self) -> bool:
        """True when a base URL is known (from the arguments or ``$OPENAI_BASE_URL``)."""
        return bool(self.base_url)

    @property
    def usage_totals(self) -> dict[str, int]:
        """A snapshot of the token and call counters: prompt/completion/total tokens, calls, retries, errors."""
        with self._totals.lock:
            return dict(self._totals.values)

    def reset_usage(self) -> None:
        """Set every counter of :attr:`usage_totals` back to zero."""
        with self._totals.lock:
            for key in self._totals.values:
                self._totals.values[key] = 0

    def chat(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        **extra: Any,
    ) -> ChatResponse:
        """Send one chat completion request and return the first choice.

        Args:
            messages: OpenAI-format messages (``role``, ``content``, optionally ``tool_calls`` / ``tool_call_id``).
            tools: OpenAI ``tools`` entries; omitted from the request when empty.
            temperature: Sampling temperature.
            max_tokens: Completion token limit; omitted when ``None``.
            **extra: Further request fields passed through unchanged (``seed``, ``tool_choice``, ``stop``...).

        Raises:
            LLMError: no endpoint configured, connection refused, timeout, HTTP error, or a malformed reply.
        """
        try:
            payload: dict[str, Any] = {
                "model": self.resolve_model(),
                "messages": messages,
                "temperature": temperature,
            }
            if max_tokens is not None:
                payload["max_tokens"] = max_tokens
            if tools:
                payload["tools"] = tools
            payload.update(extra)
            started = time.monotonic()
            retries_before = self.usage_totals["retries"]
            body = self._request_with_retries("POST", "/chat/completions", payload)
            response = _parse_completion(body, self._url("/chat/completions"))
            response = dataclasses.replace(response, latency_s=round(time.monotonic() - started, 4),
                                           retries=self.usage_totals["retries"] - retries_before)
        except LLMError:
            self._count("errors", 1)
            raise
        with self._totals.lock:
            totals = self._totals.values
            totals["calls"] += 1
            for key in _USAGE_KEYS:
                value = response.usage.get(key)
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    totals[key] += int(value)
        return response

    def list_models(self) -> list[str]:
        """Model ids listed by ``GET {base_url}/models``."""
        body = self._request_with_retries("GET", "/models", None)
        data = body.get("data")
        if not isinstance(data, list):
            raise LLMError(f"{self._url('/models')} returned no 'data' list; is this an OpenAI-compatible server?")
        return [str(entry["id"]) for entry in data if isinstance(entry, Mapping) and "id" in entry]

    def resolve_model(self) -> str:
        """The configured model name, or the first model the server lists (looked up once)."""
        self.require_configured()
        with self._model_lock:
            if self.model:
                return self.model
            models = self.list_models()
            if not models:
                raise LLMError(
                    f"no model configured and {self._url('/models')} lists none; "
                    f"set {MODEL_ENV} (or {MODEL_FALLBACK_ENV}) to the model name"
                )
            self.model = models[0]
            return self.model

    def count_tokens(self, text: str) -> int | None:
        """Tokens of ``text`` by the server's tokenizer, or ``None`` when the server has no tokenize endpoint.

        Tries llama-cpp-python's ``POST /extras/tokenize`` and llama.cpp's ``POST /tokenize`` (both at the server
        root, i.e. ``base_url`` without ``/v1``) once, then keeps using the one that answered.
        """
        if not self.base_url or self._tokenize_route == "":
            return None
        root = self.base_url[:-3] if self.base_url.endswith("/v1") else self.base_url
        routes = [self._tokenize_route] if self._tokenize_route else ["/extras/tokenize", "/tokenize"]
        for route in routes:
            payload = {"input": text} if route == "/extras/tokenize" else {"content": text}
            data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            attempt = self._attempt("POST", root + route, data)
            tokens = (attempt.body or {}).get("tokens")
            if isinstance(tokens, list):
                self._tokenize_route = route
                return len(tokens)
        self._tokenize_route = ""
        return None

    def __repr__(self) -> str:
        return f"ChatClient(base_url={self.base_url!r}, model={self.model!r})"

    def __getstate__(self) -> dict[str, Any]:
        """Picklable state (for process pools and Ray): the settings and counters, without locks."""
        state = self.__dict__.copy()
        state["_totals"] = dict(self._totals.values)
        del state["_model_lock"]
        if state.get("sleep") is time.sleep:
            del state["sleep"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        totals = state.pop("_totals")
        self.__dict__.update(state)
        self.__dict__.setdefault("sleep", time.sleep)
        self._totals = _Totals()
        self._totals.values.update(totals)
        self._model_lock = threading.Lock()

    # ------------------------------------------------------------------------------------------- internals
    def _url(self, path: str) -> str:
        return f"{self.base_url}{path}"

    def require_configured(self) -> None:
        """Raise an :class:`LLMError` naming the environment variables when no base URL is configured."""
        if not self.base_url:
            raise LLMError(
                f"no LLM endpoint configured: set {BASE_URL_ENV} (e.g. http://127.0.0.1:8000/v1 for a local vLLM "
                f"server), {MODEL_ENV} (or {MODEL_FALLBACK_ENV}) and, if the server needs one, {API_KEY_ENV}; "
                "or pass base_url=... to ChatClient", kind="config"
            )

    def _count(self, key: str, amount: int) -> None:
        with self._totals.lock:
            self._totals.values[key] += amount

    def _request_with_retries(self, method: str, path: str, payload: dict[str, Any] | None) -> dict[str, Any]:
        self.require_configured()
        data = None if payload is None else json.dumps(payload, ensure_ascii=False).encode("utf-8")
        attempt_index = 0
        timeouts = 0
        while True:
            attempt = self._attempt(method, self._url(path), data)
            if attempt.body is not None:
                return attempt.body
            assert attempt.error is not None
            if attempt.error.kind == "timeout":
                timeouts += 1
                if timeouts > self.max_timeout_retries:
                    if attempt_index > 0:
                        attempt.error.args = (f"{attempt.error} (gave up after {attempt_index + 1} attempts)",)
                    raise attempt.error
            if not attempt.retry or attempt_index >= self.max_retries:
                if attempt.retry and self.max_retries > 0:
                    attempt.error.args = (f"{attempt.error} (gave up after {attempt_index + 1} attempts)",)
                raise attempt.error
            wait = min(self.backoff_s * (2**attempt_index), MAX_BACKOFF_S)
            if attempt.retry_after is not None:
                wait = max(wait, min(attempt.retry_after, MAX_RETRY_AFTER_S))
            attempt_index += 1
            self._count("retries", 1)
            if wait > 0:
                self.sleep(wait)

    def _attempt(self, method: str, url: str, data: bytes | None) -> _Attempt:
        headers = {"Accept": "application/json", "User-Agent": "personal-envs-llm/0.1"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        deadline = time.monotonic() + self.timeout
        try:
            with _opener_for(url).open(request, timeout=self.timeout) as reply:
                raw = _read_until(reply, deadline, self.timeout, url)
        except urllib.error.HTTPError as exc:
            return _http_error_attempt(exc, url)
        except urllib.error.URLError as exc:
            return _connection_error_attempt(exc.reason, url, self.timeout)
        except TimeoutError as exc:
            return _connection_error_attempt(exc, url, self.timeout)
        except (ConnectionError, http.client.HTTPException, OSError) as exc:
            return _connection_error_attempt(exc, url, self.timeout)
        try:
            body = json.loads(raw.decode("utf-8", errors="replace"))
        except json.JSONDecodeError:
            preview = raw[:200].decode("utf-8", errors="replace")
            return _Attempt(error=LLMError(f"{url} answered with text that is not JSON: {preview!r}; "
                                           "is the base URL an OpenAI-compatible API root ending in /v1?"))
        if not isinstance(body, dict):
            return _Attempt(error=LLMError(f"{url} answered with JSON that is not an object: {str(body)[:200]}"))
        return _Attempt(body=body)


# ------------------------------------------------------------------------------------------------ helpers
_LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1", "[::1]")


def _opener_for(url: str) -> urllib.request.OpenerDirector:
    """An opener that honours proxy settings, except for loopback servers (a proxy cannot reach those)."""
    host = urllib.parse.urlsplit(url).hostname or ""
    if host in _LOOPBACK_HOSTS or host.startswith("127."):
        return urllib.request.build_opener(urllib.request.ProxyHandler({}))
    return urllib.request.build_opener()


def _read_until(reply: Any, deadline: float, timeout: float, url: str) -> bytes:
    """Read the whole body, failing with ``TimeoutError`` once ``deadline`` (monotonic) has passed."""
    chunks: list[bytes] = []
    while True:
        if time.monotonic() > deadline:
            raise TimeoutError(f"reading the reply from {url} took longer than {timeout:g} s")
        chunk = reply.read(_READ_CHUNK)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _connection_error_attempt(reason: Any, url: str, timeout: float) -> _Attempt:
    if isinstance(reason, TimeoutError) or (isinstance(reason, OSError) and "timed out" in str(reason)):
        message = (f"request to {url} timed out after {timeout:g} s; the server is overloaded or the reply is "
                   "long: raise ChatClient(timeout=...) or lower max_tokens")
        return _Attempt(error=LLMError(message, kind="timeout", retryable=True), retry=True)
    if isinstance(reason, ConnectionRefusedError):
        message = (f"the server is not running at {url} (connection refused); start the model server or set "
                   f"{BASE_URL_ENV} to the right address")
        return _Attempt(error=LLMError(message, kind="unreachable"))
    if isinstance(reason, socket.gaierror):
        message = f"cannot resolve the host of {url} ({reason}); check {BASE_URL_ENV}"
        return _Attempt(error=LLMError(message, kind="unreachable"))
    if isinstance(reason, (ConnectionResetError, ConnectionAbortedError, BrokenPipeError,
                           http.client.IncompleteRead, http.client.RemoteDisconnected)):
        message = f"the connection to {url} was reset: {type(reason).__name__}: {reason}"
        return _Attempt(error=LLMError(message, kind="transient", retryable=True), retry=True)
    message = f"cannot reach {url}: {type(reason).__name__}: {reason}; check that the server is running"
    return _Attempt(error=LLMError(message, kind="unreachable"))


def _http_error_attempt(exc: urllib.error.HTTPError, url: str) -> _Attempt:
    status = exc.code
    try:
        detail = _error_detail(exc.read())
    except (OSError, http.client.HTTPException):
        detail = ""
    suffix = f": {detail}" if detail else ""
    retry_after = _parse_retry_after(exc.headers.get("Retry-After") if exc.headers else None)
    if status == 401:
        message = f"HTTP 401 from {url}: the API key was rejected; set {API_KEY_ENV} to a valid key{suffix}"
    elif status == 403:
        message = f"HTTP 403 from {url}: the API key may not use this model or endpoint{suffix}"
    elif status == 404:
        message = (f"HTTP 404 from {url}: unknown model or wrong path; {BASE_URL_ENV} should be the API root "
                   f"(often ending in /v1) and {MODEL_ENV} a model the server serves{suffix}")
    elif status == 429:
        message = f"HTTP 429 from {url}: rate limited; lower the number of parallel workers{suffix}"
    elif status >= 500:
        message = f"HTTP {status} from {url}: the server failed{suffix}"
    else:
        message = f"HTTP {status} from {url}: the server rejected the request{suffix}"
    retry = status in TRANSIENT_STATUSES
    return _Attempt(error=LLMError(message, status=status, retryable=retry), retry=retry, retry_after=retry_after)


def _error_detail(raw: bytes) -> str:
    text = raw.decode("utf-8", errors="replace").strip()
    try:
        body = json.loads(text)
    except json.JSONDecodeError:
        return text[:500]
    if isinstance(body, dict):
        error = body.get("error", body.get("detail", body.get("message")))
        if isinstance(error, dict):
            error = error.get("message", error)
        if error is not None:
            return str(error)[:500]
    return text[:500]


def _parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date), or ``None``."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _parse_completion(body: dict[str, Any], url: str) -> ChatResponse:
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        detail = _error_detail(json.dumps(body).encode()) if "error" in body else str(body)[:300]
        raise LLMError(f"{url} returned no choices: {detail}")
    choice = choices[0]
    message = choice.get("message") or {}
    if not isinstance(message, Mapping):
        raise LLMError(f"{url} returned a choice without a message object: {str(choice)[:300]}")
    tool_calls = [_parse_tool_call(entry, index) for index, entry in enumerate(message.get("tool_calls") or [])
                  if isinstance(entry, Mapping)]
    legacy_call = message.get("function_call")
    if not tool_calls and isinstance(legacy_call, Mapping):
        tool_calls = [_parse_tool_call({"function": legacy_call}, 0)]
    usage = body.get("usage")
    return ChatResponse(
        content=_content_text(message.get("content")),
        tool_calls=tool_calls,
        usage=dict(usage) if isinstance(usage, Mapping) else {},
        raw=body,
        finish_reason=str(choice.get("finish_reason") or ""),
    )


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping))
    return str(content)


def _parse_tool_call(entry: Mapping[str, Any], index: int) -> ToolCall:
    function = entry.get("function") if isinstance(entry.get("function"), Mapping) else entry
    assert isinstance(function, Mapping)
    name = str(function.get("name") or "")
    raw = function.get("arguments")
    arguments, repairs = parse_arguments_with_repairs(raw)
    return ToolCall(
        id=str(entry.get("id") or f"call_{index}"),
        name=name,
        arguments=arguments,
        raw_arguments=raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False, default=str),
        repairs=tuple(repairs),
    )


def parse_arguments(arguments: Any) -> dict[str, Any]:
    """Tool-call arguments as a dict: JSON text is parsed leniently; text holding no JSON object is kept as
    ``{"_raw": text}``."""
    return parse_arguments_with_repairs(arguments)[0]


def parse_arguments_with_repairs(arguments: Any) -> tuple[dict[str, Any], list[str]]:
    """:func:`parse_arguments` plus the repairs the text needed (code fence, control characters, trailing
    commas...; see :func:`personal_envs.llm.jsonfix.loads_object`)."""
    if arguments is None:
        return {}, []
    if isinstance(arguments, Mapping):
        return dict(arguments), []
    if not isinstance(arguments, str):
        return {"_raw": str(arguments)}, []
    if not arguments.strip():
        return {}, []
    try:
        parsed = json.loads(arguments)
    except json.JSONDecodeError:
        parsed = None
    if isinstance(parsed, dict):
        return dict(parsed), []
    if parsed is not None:  # valid JSON but not an object, such as a list
        return {"_raw": arguments}, []
    recovered, repairs = loads_object(arguments)
    if recovered is None:
        return {"_raw": arguments}, []
    return recovered, repairs
