"""A small client for OpenAI-compatible chat-completion endpoints (OpenAI, vLLM, llama.cpp, Ollama, LM Studio...).

Only the standard library is used.  The client sends ``POST {base_url}/chat/completions`` with optional function
tools, retries transient failures only (HTTP 429, 502, 503, 504, a connection reset or closed mid-reply: up to
``max_retries`` times with exponential backoff honouring ``Retry-After``; a timeout: at most ``max_timeout_retries``
times, by default never, since the identical request usually times out again), enforces two deadlines per attempt
(``connect_timeout`` to open the connection, ``timeout`` for the whole attempt: a watchdog closes the socket when it
passes, so a server that accepts and never answers, or drips bytes, costs at most ``timeout``), and sums the token
``usage`` the server reports.  A context overflow (HTTP 400 naming the context length) is an :class:`LLMError` of
kind ``"overflow"`` carrying the server's own count of the prompt when the message gives it.  Deterministic failures (connection refused, HTTP 4xx, HTTP 500 such as a template
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

import contextlib
import dataclasses
import email.utils
import http.client
import json
import os
import re
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
#: Default seconds one attempt may take in total: a small local model on one CPU thread evaluates an 8k prompt and
#: writes a bounded reply well within it (SmolLM2-135M: see the README's LLM section).
DEFAULT_TIMEOUT_S = 120.0
#: Default seconds to open the connection (loopback answers at once; a black-holed host is given up quickly).
DEFAULT_CONNECT_TIMEOUT_S = 10.0
_USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens")
#: HTTP statuses retried as transient (overload, gateway trouble); every other status fails at once.
TRANSIENT_STATUSES = frozenset({429, 502, 503, 504})


class LLMError(RuntimeError):
    """A chat request that failed for good.  The message names the cause and what to do about it.

    Attributes:
        status: The HTTP status of the last attempt, or ``None`` for connection errors, timeouts and bad replies.
        retryable: Whether the failure was of a transient kind (the retries were exhausted).
        kind: ``"unreachable"`` (connection refused, unknown host), ``"timeout"``, ``"http"``, ``"overflow"``
            (HTTP 400 because the prompt does not fit the context), ``"transient"`` (connection reset), ``"reply"``
            (malformed body) or ``"config"`` (no endpoint configured).
        prompt_tokens: For an overflow, the server's own count of the prompt when its message gives it.
        context_tokens: For an overflow, the server's context window when its message gives it.
    """

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False,
                 kind: str = "reply", prompt_tokens: int | None = None, context_tokens: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable
        self.kind = "http" if status is not None and kind == "reply" else kind
        self.prompt_tokens = prompt_tokens
        self.context_tokens = context_tokens

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_error, (str(self), self.status, self.retryable, self.kind, self.prompt_tokens,
                                 self.context_tokens))


def _rebuild_error(message: str, status: int | None, retryable: bool, kind: str, prompt_tokens: int | None = None,
                   context_tokens: int | None = None) -> LLMError:
    return LLMError(message, status=status, retryable=retryable, kind=kind, prompt_tokens=prompt_tokens,
                    context_tokens=context_tokens)


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
    #: The ``model`` the reply names ('' when it names none); some servers echo the requested name whatever they
    #: serve, see :meth:`ChatClient.served_model`.
    model: str = ""

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
        timeout: Seconds one HTTP attempt may take in total (connect, wait and read), enforced by a watchdog that
            closes the socket (default :data:`DEFAULT_TIMEOUT_S`).
        max_retries: Extra attempts after a transient failure (HTTP 429, 502-504, a connection reset).
        backoff_s: First backoff; it doubles after every failed attempt (capped at 30 s).
        max_timeout_retries: Extra attempts after a timeout (default 0, so one request takes at most ``timeout``);
            never more than ``max_retries``.
        connect_timeout: Seconds to open the connection (default :data:`DEFAULT_CONNECT_TIMEOUT_S`, never more than
            ``timeout``).

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
        timeout: float = DEFAULT_TIMEOUT_S,
        max_retries: int = 3,
        backoff_s: float = 0.5,
        max_timeout_retries: int = 0,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT_S,
    ) -> None:
        if timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout}")
        if connect_timeout <= 0:
            raise ValueError(f"connect_timeout must be positive, got {connect_timeout}")
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
        self.connect_timeout = min(float(connect_timeout), self.timeout)
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

    def served_model(self, reply_model: str = "") -> str:
        """The id of the model that answers, as the server reports it (for the run record and resume checks).

        A reply naming a model other than the requested one is believed (OpenAI names the dated snapshot, a proxy
        the model behind it).  A reply that echoes the requested name proves nothing (llama-cpp-python echoes any
        name while it serves its one model), so ``GET {base_url}/models`` decides: the requested name when the
        server lists it, else the only model it lists; else the echoed name.  A failed listing keeps the echoed
        name (the reply itself succeeded).
        """
        requested = self.model or ""
        if reply_model and reply_model != requested:
            return reply_model
        try:
            listed = self.list_models()
        except LLMError:
            return reply_model or requested
        if requested and requested in listed:
            return requested
        if len(listed) == 1:
            return listed[0]
        return reply_model or requested

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
        watchdog = _Watchdog(self.timeout)
        try:
            with _opener_for(url, watchdog, self.connect_timeout).open(request, timeout=self.timeout) as reply:
                raw = _read_until(reply, watchdog, url)
        except urllib.error.HTTPError as exc:
            return _http_error_attempt(exc, url)
        except urllib.error.URLError as exc:
            return _connection_error_attempt(exc.reason, url, self.timeout, watchdog, self.connect_timeout)
        except (ConnectionError, http.client.HTTPException, OSError, ValueError) as exc:
            return _connection_error_attempt(exc, url, self.timeout, watchdog, self.connect_timeout)
        finally:
            watchdog.cancel()
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


class _Watchdog:
    """The total deadline of one attempt: when it passes, every socket the attempt opened is shut down, which wakes
    a read blocked on a server that accepted and never answers (or sends a byte now and then)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds
        self.expired = False
        self.connecting = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def remaining(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            expired = self.expired
        if expired:
            _shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)

    def cancel(self) -> None:
        self._timer.cancel()


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def _deadline_connection(base: type[http.client.HTTPConnection], watchdog: _Watchdog,
                         connect_timeout: float) -> Callable[..., http.client.HTTPConnection]:
    """A connection factory for urllib whose sockets open within ``connect_timeout`` and are watched by
    ``watchdog`` (the attempt's total deadline)."""

    def create_connection(address: tuple[str, int], timeout: Any = None, source_address: Any = None
                          ) -> socket.socket:
        watchdog.connecting = True
        sock = socket.create_connection(address, min(connect_timeout, max(0.001, watchdog.remaining())),
                                        source_address)
        watchdog.connecting = False
        sock.settimeout(max(0.001, watchdog.remaining()))
        watchdog.watch(sock)
        return sock

    def make(host: str, **kwargs: Any) -> http.client.HTTPConnection:
        connection = base(host, **kwargs)
        connection._create_connection = create_connection  # type: ignore[attr-defined]
        return connection

    return make


class _DeadlineHTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, watchdog: _Watchdog, connect_timeout: float) -> None:
        super().__init__()
        self._factory = _deadline_connection(http.client.HTTPConnection, watchdog, connect_timeout)

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(self._factory, req)


class _DeadlineHTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, watchdog: _Watchdog, connect_timeout: float) -> None:
        super().__init__()
        self._factory = _deadline_connection(http.client.HTTPSConnection, watchdog, connect_timeout)

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(self._factory, req, context=getattr(self, "_context", None))


def _opener_for(url: str, watchdog: _Watchdog, connect_timeout: float) -> urllib.request.OpenerDirector:
    """An opener whose connections keep the attempt's deadlines and that honours proxy settings, except for
    loopback servers (a proxy cannot reach those)."""
    handlers: list[Any] = [_DeadlineHTTPHandler(watchdog, connect_timeout),
                           _DeadlineHTTPSHandler(watchdog, connect_timeout)]
    host = urllib.parse.urlsplit(url).hostname or ""
    if host in _LOOPBACK_HOSTS or host.startswith("127."):
        handlers.append(urllib.request.ProxyHandler({}))
    return urllib.request.build_opener(*handlers)


def _read_until(reply: Any, watchdog: _Watchdog, url: str) -> bytes:
    """Read the whole body, failing with ``TimeoutError`` once the attempt's deadline has passed."""
    chunks: list[bytes] = []
    while True:
        if watchdog.expired or watchdog.remaining() <= 0:
            raise TimeoutError(f"reading the reply from {url} took longer than {watchdog.seconds:g} s")
        chunk = reply.read(_READ_CHUNK)
        if not chunk:
            if watchdog.expired:
                raise TimeoutError(f"reading the reply from {url} took longer than {watchdog.seconds:g} s")
            return b"".join(chunks)
        chunks.append(chunk)


def _connection_error_attempt(reason: Any, url: str, timeout: float, watchdog: _Watchdog | None = None,
                              connect_timeout: float | None = None) -> _Attempt:
    timed_out = isinstance(reason, TimeoutError) or (isinstance(reason, OSError) and "timed out" in str(reason))
    if watchdog is not None and watchdog.connecting and timed_out:
        message = (f"could not connect to {url} within {connect_timeout or timeout:g} s; check that the server is "
                   f"running and that {BASE_URL_ENV} names the right host")
        return _Attempt(error=LLMError(message, kind="unreachable"))
    if timed_out or (watchdog is not None and watchdog.expired):
        message = (f"request to {url} timed out after {timeout:g} s (no complete reply); the server is hung, "
                   "overloaded or writing a long reply: check it, raise timeout=... or lower max_tokens")
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
    if status in (400, 413) and _OVERFLOW.search(detail):
        prompt_tokens, context_tokens = _overflow_counts(detail)
        message = (f"HTTP {status} from {url}: the prompt does not fit the server's context window{suffix}")
        return _Attempt(error=LLMError(message, status=status, kind="overflow", prompt_tokens=prompt_tokens,
                                       context_tokens=context_tokens))
    return _Attempt(error=LLMError(message, status=status, retryable=retry), retry=retry, retry_after=retry_after)


#: Error messages of a prompt that does not fit: OpenAI, vLLM and llama-cpp-python ("maximum context length",
#: ``context_length_exceeded``), llama.cpp's server ("exceeds the available context size"), and others.
_OVERFLOW = re.compile(r"context[ _-]?(length|window|size)|maximum context|too many tokens|prompt is too long",
                       re.IGNORECASE)
_PROMPT_COUNT = re.compile(r"\((\d+) in the messages|(\d+) in your prompt|n_prompt_tokens\D{0,4}(\d+)|"
                           r"Requested tokens \((\d+)\)|prompt \(?(\d+) tokens")
_CONTEXT_COUNT = re.compile(r"maximum context length is (\d+)|context window of (\d+)|n_ctx\D{0,4}(\d+)|"
                            r"context size \((\d+)")


def _overflow_counts(detail: str) -> tuple[int | None, int | None]:
    """The server's prompt tokens and context window named in an overflow message (``None`` when absent)."""
    counts: list[int | None] = []
    for pattern in (_PROMPT_COUNT, _CONTEXT_COUNT):
        match = pattern.search(detail)
        value = next((group for group in match.groups() if group), None) if match else None
        counts.append(int(value) if value else None)
    return counts[0], counts[1]


def _error_detail(raw: bytes) -> str:
    text = raw.decode("utf-8", errors="replace").strip()
    try:
        body = json.loads(text)
    except json.JSONDecodeError:
        return text[:500]
    if isinstance(body, dict):
        error = body.get("error", body.get("detail", body.get("message")))
        facts = ""
        if isinstance(error, dict):
            # the code and the counts some servers add (context_length_exceeded; llama.cpp's n_prompt_tokens, n_ctx)
            named = [f"{key}={error[key]}" for key in ("code", "n_prompt_tokens", "n_ctx")
                     if isinstance(error.get(key), (str, int)) and not isinstance(error.get(key), bool)]
            facts = f" [{', '.join(named)}]" if named else ""
            error = error.get("message", error)
        if error is not None:
            return (str(error)[:500] + facts)[:600]
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
        model=str(body.get("model") or ""),
    )


def parse_assistant_message(message: Mapping[str, Any]) -> ChatResponse:
    """An assistant message in the OpenAI format (``content``, ``tool_calls`` whose arguments are JSON text or an
    object, or a legacy ``function_call``) read as the client reads a server's reply, arguments repaired the same way.

    Raises:
        LLMError: ``message`` is not a mapping.
    """
    if not isinstance(message, Mapping):
        raise LLMError(f"an assistant message must be an object, got {type(message).__name__}")
    return _parse_completion({"choices": [{"message": dict(message), "finish_reason": ""}]}, "the assistant message")


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
