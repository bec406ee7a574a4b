"""A generic function-calling LLM policy for every env of the suite, made to survive real (and small) servers.

Each turn the policy renders the observation through the suite's one renderer
(:class:`personal_envs.chat.ChatRenderer`, shared with :class:`personal_envs.chat.ChatEnv` and the rollouts, so what
is trained is what is evaluated), passes the env's actions as OpenAI tools (``env.unwrapped.tool_schemas()``) or
describes them for a JSON-in-text protocol, and reads the model's reply as ``{"action_type": name, **arguments}``
(:func:`personal_envs.chat.replies.read_reply`).  :attr:`LLMPolicy.last_request` holds the messages and tools of the
step's request exactly as sent (the trajectory recorder keeps them per step).

Prompt layout (the renderer's; see :mod:`personal_envs.llm.prompt` for budgets and token counts):

* the system message holds the instructions and the fields that stay constant during an episode (``instruction``,
  ``context``, ``logs``, as they were at reset), sent once, so the server's prefix cache reuses them every step;
* every turn appends the observation: in full (each field cut to a token budget) while it is the current one, then
  (``history="compact"``, the default) in a compact form (only the fields that changed, cut short) that never
  changes again, followed by the model's reply; an earlier prompt is therefore a prefix of the next one up to the
  previous observation (``history="full"`` keeps every observation as sent);
* when the prompt would exceed ``context_tokens - max_tokens``, or more than ``max_history_turns`` earlier turns
  are kept, the oldest half of the history is left out at once and a note says how many turns and which actions
  were left out (the newest history is kept); the current observation then shows every field again.

Server capabilities (``tool_mode="auto"``, the default):

* tools are sent (``native``) until the server refuses them (HTTP 400/422/500/501 naming tools, functions or
  Jinja) or ignores them (its first two replies carry no tool call); the policy then switches to ``text``: no
  ``tools`` field, the actions listed in the system prompt, one JSON object per reply.  A JSON action found in the
  text of any reply is used in either mode.
* observations after a tool call go as ``tool`` messages (``observation_role="auto"``/``"tool"``) unless the
  server's reported prompt size shows that its chat template dropped them (llama-cpp-python's function-calling
  template does); the policy then sends observations as ``user`` messages and shows its earlier calls as JSON text.
  When the observations are too short for the prompt size to tell (a one-line result), the policy asks the server
  once with a probe request (the same messages plus a filler, ``max_tokens=1``).

Prompt sizes follow the server's own count: each reply's ``usage.prompt_tokens`` divided by the policy's count of
that request gives a scale (llama-cpp-python's function-calling template HTML-escapes the text, 1.4-1.8 times our
count) that the next prompt's budget uses; a context overflow (HTTP 400) sets the scale from the server's count in
the error, trims the prompt and is retried once, recorded in the step's trace entry.  A reply longer than
``max_tokens`` is recorded as ``completion_over_limit``.

An isolated endpoint failure does not raise from :meth:`LLMPolicy.act`: the policy returns an action the env rejects,
with the error in :attr:`LLMPolicy.errors` and in the step's trace entry.  When the endpoint has not given one valid
reply yet, or fails ``max_failures_in_a_row`` calls in a row, :meth:`LLMPolicy.act` raises :class:`LLMEpisodeFailed`
(a :class:`~personal_envs.policies.base.PolicyGaveUp`): such an episode is an error, never a score.  :meth:`LLMPolicy.episode_report` gives the run
record everything needed to judge the run: model, endpoint, sampling settings, token counts, errors and the trace.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import gymnasium as gym

from personal_envs.chat.render import (
    DEFAULT_SYSTEM_PROMPT,
    ChatRenderer,
    action_signatures,
    render_observation,
    screenshot_data_url,
    truncate,
)
from personal_envs.chat.replies import (
    LLM_ERROR_ACTION,
    NO_TOOL_CALL_ACTION,
    extract_action_with_repairs,
    extract_json_action,
    extract_json_object,
    read_reply,
)
from personal_envs.llm.client import ChatClient, ChatResponse, LLMError
from personal_envs.llm.prompt import (
    DEFAULT_FIELD_TOKENS,
    OBSERVATION_FIELDS,
    TokenCounter,
    message_text,
)
from personal_envs.policies.base import Policy, PolicyGaveUp

__all__ = [
    "DEFAULT_MAX_TOKENS", "DEFAULT_SYSTEM_PROMPT", "LLM_ERROR_ACTION", "NO_TOOL_CALL_ACTION", "OBSERVATION_FIELDS",
    "LLMEpisodeFailed", "LLMPolicy", "MemoryProvider", "action_signatures", "extract_action_with_repairs",
    "extract_json_action", "extract_json_object", "make_llm_policy", "render_observation", "screenshot_data_url",
    "truncate",
]

#: Completion tokens per turn unless ``max_tokens`` says otherwise (an action needs far fewer).
DEFAULT_MAX_TOKENS = 512
#: The context window the prompts are fitted into unless ``context_tokens`` says otherwise.
DEFAULT_CONTEXT_TOKENS = 8192
#: Replies without a tool call (and no tool call ever) after which ``tool_mode="auto"`` switches to text.
NO_TOOL_CALL_SWITCH = 2
#: Tokens kept free for the chat template's own tokens.
TEMPLATE_MARGIN_TOKENS = 96
#: Shortest tool message whose absence the prompt-size comparison can tell from the template's own overhead.
MIN_DETECTABLE_TOOL_TOKENS = 12
#: Failed calls in a row after which an episode is given up as an error (:class:`LLMEpisodeFailed`).
DEFAULT_MAX_FAILURES_IN_A_ROW = 3
#: Safety factor on the server's prompt-token scale (the next turn's text may escape a little worse).
SERVER_SCALE_MARGIN = 1.05
#: Words appended to a tool message to ask the server whether its template keeps tool messages (see
#: :meth:`LLMPolicy._probe_tool_messages`): enough tokens to stand out of any template's overhead.
PROBE_FILLER_WORDS = 64

_TOOL_REFUSAL = re.compile(r"tool|function|jinja", re.IGNORECASE)


class LLMEpisodeFailed(PolicyGaveUp):
    """The model endpoint gave no valid reply for this episode (none yet, or ``max_failures_in_a_row`` failures in a
    row); the message says which and quotes the last error."""


@runtime_checkable
class MemoryProvider(Protocol):
    """Supplies memory for the next turn, e.g. the user's relevant history (PersonalWAB memory variants)."""

    def context(self, observation: dict[str, Any], info: dict[str, Any]) -> str:
        """Text to show the model alongside the observation ('' for none)."""
        ...


class LLMPolicy(Policy):
    """Function-calling policy backed by an OpenAI-compatible chat endpoint; works with any env of the suite.

    Args:
        env: The env (wrapped or not); its ``unwrapped.tool_schemas()`` become the model's tools.
        client: The chat client; default ``ChatClient()`` configured from the environment variables.
        system_prompt: Replaces :data:`DEFAULT_SYSTEM_PROMPT`.
        memory: Optional :class:`MemoryProvider` whose text is added to every turn.
        max_history_turns: Earlier turns kept in the conversation at most (the oldest half is left out, with a
            note, when there are more).
        seed: Sent as the request's ``seed`` (offset by the episode number) for reproducible sampling.
        temperature: Sampling temperature.
        max_tokens: Completion token limit per turn (default :data:`DEFAULT_MAX_TOKENS`; ``None`` sends none).
        tool_mode: ``"auto"`` (native tools, switching to text when the server refuses or ignores them),
            ``"native"`` or ``"text"`` (JSON action in the reply text, no ``tools`` field).
        observation_role: ``"auto"``, ``"tool"`` (observations after a call are ``tool`` messages) or ``"user"``.
        use_tools: Former switch, kept for compatibility: ``False`` means ``tool_mode="text"``.
        context_tokens: The server's context window; prompts are fitted into ``context_tokens - max_tokens``.
        field_budgets: Per-field *token* budgets overriding :data:`personal_envs.llm.prompt.DEFAULT_FIELD_TOKENS`
            and the env's own (``env.unwrapped.llm_field_tokens``: PersonalWAB shows its function results whole).
        tokenizer: ``"auto"`` (the server's tokenizer when it has one, else the estimate), ``"server"`` or
            ``"estimate"`` (4 characters per token, no extra requests).
        request_extra: Further request fields sent with every call (``tool_choice``, ``response_format``,
            ``grammar``, ``stop``...); a ``seed`` here replaces the per-episode seed.  With tools,
            ``tool_choice`` is ``"auto"`` unless given here (``None`` leaves it out).
        include_screenshot: Also send the observation's ``screenshot`` (H x W x 3 uint8) as a PNG image part, for
            vision models; only the current turn carries the image.
        max_failures_in_a_row: Failed calls in a row after which :meth:`act` raises :class:`LLMEpisodeFailed`
            (before the endpoint's first valid reply, one failed call is enough).
        history: How earlier observations are shown: ``"compact"`` (only what changed, cut short) or ``"full"``
            (as they were sent; what :class:`personal_envs.chat.ChatEnv` gives trainers).

    Raises:
        LLMError: when no endpoint is configured (so an eval fails at once instead of after every episode).
    """

    name = "llm"

    def __init__(
        self,
        env: gym.Env[Any, Any],
        client: ChatClient | None = None,
        system_prompt: str | None = None,
        memory: MemoryProvider | None = None,
        max_history_turns: int = 20,
        seed: int = 0,
        *,
        temperature: float = 0.0,
        max_tokens: int | None = DEFAULT_MAX_TOKENS,
        tool_mode: str = "auto",
        observation_role: str = "auto",
        use_tools: bool | None = None,
        context_tokens: int = DEFAULT_CONTEXT_TOKENS,
        field_budgets: Mapping[str, int] | None = None,
        tokenizer: str = "auto",
        request_extra: Mapping[str, Any] | None = None,
        include_screenshot: bool = False,
        max_failures_in_a_row: int = DEFAULT_MAX_FAILURES_IN_A_ROW,
        history: str = "compact",
    ) -> None:
        if max_failures_in_a_row < 1:
            raise ValueError(f"max_failures_in_a_row must be at least 1, got {max_failures_in_a_row}")
        if max_history_turns < 0:
            raise ValueError(f"max_history_turns must be >= 0, got {max_history_turns}")
        if use_tools is False:
            tool_mode = "text"
        if tool_mode not in ("auto", "native", "text"):
            raise ValueError(f"tool_mode must be 'auto', 'native' or 'text', got {tool_mode!r}")
        if observation_role not in ("auto", "tool", "user"):
            raise ValueError(f"observation_role must be 'auto', 'tool' or 'user', got {observation_role!r}")
        if context_tokens < 512:
            raise ValueError(f"context_tokens must be at least 512, got {context_tokens}")
        self.env = env
        self.client = client if client is not None else ChatClient()
        self.client.require_configured()
        self.system_prompt = system_prompt or DEFAULT_SYSTEM_PROMPT
        self.memory = memory
        self.max_history_turns = max_history_turns
        self.seed = seed
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.tool_mode = tool_mode
        self.observation_role = observation_role
        self.context_tokens = int(context_tokens)
        env_budgets = getattr(env.unwrapped, "llm_field_tokens", None) or {}
        self.field_budgets = {**DEFAULT_FIELD_TOKENS, **env_budgets, **(field_budgets or {})}
        self.request_extra = dict(request_extra or {})
        self.include_screenshot = include_screenshot
        self.max_failures_in_a_row = int(max_failures_in_a_row)
        self.counter = TokenCounter(self.client, tokenizer)
        env_spec = getattr(env, "spec", None)
        self._env_id = getattr(env_spec, "id", None) or type(env.unwrapped).__name__
        #: The conversation, rendered by the suite's one renderer (:class:`personal_envs.chat.ChatRenderer`).
        self.chat = ChatRenderer(env_id=self._env_id, tools=self._tools, counter=self.counter,
                                 field_budgets=self.field_budgets, system_prompt=self.system_prompt,
                                 include_screenshot=include_screenshot, history=history)
        #: The model name as configured (``None``: the server's first listed model is asked for).
        self.requested_model: str | None = self.client.model
        #: Server prompt tokens per counted token, learnt from the last reply (``None`` before the first).
        self.server_scale: float | None = None
        #: Valid replies over the policy's life (0: the endpoint never answered, so one failure ends an episode).
        self.answered = 0
        self._failures_in_a_row = 0
        self._gave_up = ""
        self._served_model: str | None = None
        self._reply_models: list[str] = []
        #: When set (the runner sets it when resuming a results file), the first reply of an episode from another
        #: model ends the episode with :class:`LLMEpisodeFailed` instead of mixing models in one file.
        self.expected_model: str | None = None
        self.effective_tool_mode = "text" if tool_mode == "text" else "native"
        self.effective_observation_role = "user" if observation_role == "user" else "tool"
        #: Every endpoint failure seen, as ``"episode E step S: message"``; the eval keeps running.
        self.errors: list[str] = []
        #: Capability switches made, as ``"episode E step S: what and why"``.
        self.switches: list[str] = []
        #: The last reply of the model (``None`` before the first or after a failed request).
        self.last_response: ChatResponse | None = None
        #: One entry per model call of the current episode (see :meth:`episode_report`).
        self.trace: list[dict[str, Any]] = []
        #: The step's request as sent (``messages``, ``tools``, ``sampling``) and, once answered, the ``reply`` (an
        #: assistant message); ``None`` before the step's first request.
        self.last_request: dict[str, Any] | None = None
        self._current_memory = ""
        self._notes: list[str] = []
        self._episode = -1
        self._step = 0
        self._tool_calls_seen = 0
        self._replies_without_call = 0
        self._ratio: float | None = None
        #: The last request of this episode: (prompt tokens the server reported, our count, first kept turn).
        self._last_sent: tuple[int, int, int] | None = None
        #: Whether the server was asked once whether its chat template keeps tool messages (per policy: the
        #: template does not change between episodes).
        self._role_probed = False
        self._episode_errors: list[str] = []

    # ------------------------------------------------------------------------------------------ Policy API
    @property
    def effective_tool_mode(self) -> str:
        """The protocol in use: ``"native"`` (tools) or ``"text"`` (JSON in the reply); may change under "auto"."""
        return "native" if self.chat.native_tools else "text"

    @effective_tool_mode.setter
    def effective_tool_mode(self, value: str) -> None:
        self.chat.native_tools = value == "native"

    @property
    def effective_observation_role(self) -> str:
        """How observations after a call are sent: ``"tool"`` or ``"user"``; may change under "auto"."""
        return "tool" if self.chat.tool_messages else "user"

    @effective_observation_role.setter
    def effective_observation_role(self, value: str) -> None:
        self.chat.tool_messages = value == "tool"

    @property
    def use_tools(self) -> bool:
        """True while the actions are sent as native tools."""
        return self.effective_tool_mode == "native"

    @property
    def usage(self) -> dict[str, int]:
        """Token and call counters of the client (shared with anything else using the same client)."""
        return self.client.usage_totals

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        """Start a new conversation for a new episode; the constant fields go into the system message."""
        self.chat.reset(observation)
        self._notes = []
        self._episode += 1
        self._step = 0
        self._episode_errors = []
        self._failures_in_a_row = 0
        self._gave_up = ""
        self._served_model = None
        self._reply_models = []
        self.trace = []
        self.last_response = None
        self._tool_calls_seen = 0
        self._replies_without_call = 0
        self._last_sent = None
        self.last_request = None

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        """Ask the model for the next action; never raises for endpoint or reply problems."""
        if self._episode < 0:  # act() without reset(): behave as a fresh episode
            self.reset(observation, info)
        self._step += 1
        self.last_request = None
        memory_text = self._memory_text(observation, info)
        notes, self._notes = self._notes, []
        self.chat.observe(observation, memory_text, notes)
        entry: dict[str, Any] = {"step": self._step}
        self.trace.append(entry)
        started = time.monotonic()
        try:
            response = self._request(entry)
        except LLMError as exc:
            entry["step_s"] = round(time.monotonic() - started, 4)
            self.last_response = None
            message = f"episode {self._episode} step {self._step}: {exc}"
            self.errors.append(message)
            self._episode_errors.append(str(exc))
            entry["error"] = str(exc)
            entry["error_kind"] = exc.kind
            self.chat.record_action_name(LLM_ERROR_ACTION)
            self._failures_in_a_row += 1
            if not self.answered or self._failures_in_a_row >= self.max_failures_in_a_row:
                why = ("the endpoint has not given a valid reply yet" if not self.answered else
                       f"{self._failures_in_a_row} calls in a row failed")
                self._gave_up = f"no valid model reply ({why}): {str(exc).splitlines()[0][:300]}"
                raise LLMEpisodeFailed(self._gave_up) from None
            return {"action_type": LLM_ERROR_ACTION, "error": str(exc)[:500]}
        entry["step_s"] = round(time.monotonic() - started, 4)
        self.answered += 1
        self._failures_in_a_row = 0
        self._note_model(response, entry)
        self.last_response = response
        action = self._action_from(response, entry)
        entry["action"] = str(action.get("action_type", ""))
        return action

    def episode_report(self) -> dict[str, Any]:
        """What the run record keeps about this episode's model calls.

        Keys: ``model``, ``endpoint``, ``sampling`` (temperature, max_tokens, seed, extra request fields),
        ``tool_mode`` / ``observation_role`` (configured and in effect), ``tokenizer`` (``server`` or
        ``estimate``), ``calls``, ``ok_calls``, ``prompt_tokens``, ``completion_tokens``, ``retries``,
        ``errors`` (messages), ``error_kinds``, ``gave_up`` (why :class:`LLMEpisodeFailed` was raised, else ''),
        ``server_scale``, ``overflows`` and ``overflow_retries_ok``, ``completion_over_limit`` (replies longer
        than ``max_tokens``), ``switches`` and ``trace`` (one entry per call).  ``model`` is the model the server
        reports having answered with (:meth:`ChatClient.served_model`), ``requested_model`` the configured name
        and ``reply_models`` the names the replies carried.
        """
        ok = [entry for entry in self.trace if "error" not in entry]
        kinds: dict[str, int] = {}
        for entry in self.trace:
            if "error_kind" in entry:
                kinds[entry["error_kind"]] = kinds.get(entry["error_kind"], 0) + 1
        overflows = [entry["overflow"] for entry in self.trace if "overflow" in entry]
        return {
            "model": self._served_model or self.client.model,
            "requested_model": self.requested_model,
            "reply_models": sorted(set(self._reply_models)),
            "endpoint": self.client.base_url,
            "sampling": {"temperature": self.temperature, "max_tokens": self.max_tokens,
                         "seed": self.request_extra.get("seed", self.seed + max(self._episode, 0)),
                         "extra": {k: v for k, v in self.request_extra.items() if k != "seed"}},
            "tool_mode": {"configured": self.tool_mode, "effective": self.effective_tool_mode},
            "observation_role": {"configured": self.observation_role,
                                 "effective": self.effective_observation_role if self.use_tools else "user"},
            "context_tokens": self.context_tokens,
            "tokenizer": self.counter.source,
            "calls": len(self.trace),
            "ok_calls": len(ok),
            "prompt_tokens": sum(int(e.get("prompt_tokens") or 0) for e in ok),
            "completion_tokens": sum(int(e.get("completion_tokens") or 0) for e in ok),
            "retries": sum(int(e.get("retries") or 0) for e in ok),
            "errors": list(self._episode_errors),
            "error_kinds": kinds,
            "gave_up": self._gave_up,
            "server_scale": round(self.server_scale, 4) if self.server_scale else None,
            "overflows": len(overflows),
            "overflow_retries_ok": sum(1 for o in overflows if o.get("retry") == "ok"),
            "completion_over_limit": sum(1 for e in self.trace if "completion_over_limit" in e),
            "switches": [s for s in self.switches if s.startswith(f"episode {self._episode} ")],
            "trace": list(self.trace),
        }

    # ------------------------------------------------------------------------------------------ prompt
    def messages(self) -> list[dict[str, Any]]:
        """The conversation the next request sends: system prompt with the constant context, kept turns, and the
        current observation (:meth:`personal_envs.chat.ChatRenderer.messages`)."""
        return self.chat.messages()

    def _prompt_tokens(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> int:
        total = sum(self.counter.count(message_text(m)) + 4 for m in messages)
        if tools:
            total += self.counter.count(json.dumps(tools, ensure_ascii=False))
        return total

    def _server_count(self, counted: int) -> int:
        """Our count of a request converted to the server's, with the scale learnt from its last reply."""
        if self.server_scale is None:
            return counted
        return int(counted * self.server_scale * SERVER_SCALE_MARGIN + 0.999)

    def _fit(self, entry: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
        """Messages within the budget, counted as the server counts them (see :attr:`server_scale`): leave out the
        oldest half of the history when needed, then shrink the current observation's fields."""
        tools = self._native_tools()
        budget = self.context_tokens - (self.max_tokens or DEFAULT_MAX_TOKENS) - TEMPLATE_MARGIN_TOKENS
        chat = self.chat
        history = len(chat.turns) - 1 - chat.first_kept
        if history > self.max_history_turns:
            chat.leave_out(len(chat.turns) - 1 - max(self.max_history_turns // 2, 0))
        messages = self.messages()
        tokens = self._server_count(self._prompt_tokens(messages, tools))
        while tokens > budget and chat.first_kept < len(chat.turns) - 1:
            history = len(chat.turns) - 1 - chat.first_kept
            chat.leave_out(chat.first_kept + max(1, (history + 1) // 2))
            messages = self.messages()
            tokens = self._server_count(self._prompt_tokens(messages, tools))
        scale = 1.0
        while tokens > budget and scale > 0.1:
            scale /= 2
            chat.rerender_current(scale)
            messages = self.messages()
            tokens = self._server_count(self._prompt_tokens(messages, tools))
        entry["estimated_prompt_tokens"] = tokens
        if chat.first_kept:
            entry["left_out_turns"] = chat.first_kept
        if scale < 1.0:
            entry["fields_scaled"] = scale
        if tokens > budget:
            entry["over_budget"] = True
        return messages, tools

    # ------------------------------------------------------------------------------------------ requests
    def _tools(self) -> list[dict[str, Any]]:
        return list(self.env.unwrapped.tool_schemas())  # type: ignore[attr-defined]

    def _request_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"temperature": self.temperature, "max_tokens": self.max_tokens,
                                  "seed": self.seed + self._episode}
        if self.effective_tool_mode == "native":
            kwargs["tool_choice"] = "auto"  # OpenAI's default; llama-cpp-python returns tool calls only when sent
        kwargs.update(self.request_extra)
        if self.effective_tool_mode == "text":
            kwargs.pop("tool_choice", None)
            kwargs.pop("parallel_tool_calls", None)
        return {key: value for key, value in kwargs.items() if value is not None}

    def _send(self, entry: dict[str, Any]) -> tuple[ChatResponse, list[dict[str, Any]]]:
        messages, tools = self._fit(entry)
        entry["mode"] = self.effective_tool_mode
        entry["observation_role"] = self.effective_observation_role
        kwargs = self._request_kwargs()
        self.last_request = {"messages": messages, "tools": tools, "sampling": kwargs}
        return self.client.chat(messages, tools=tools, **kwargs), messages

    def _send_fitting(self, entry: dict[str, Any]) -> tuple[ChatResponse, list[dict[str, Any]]]:
        """:meth:`_send`; a context overflow sets the scale from the server's count, trims and is retried once."""
        try:
            return self._send(entry)
        except LLMError as exc:
            if exc.kind != "overflow" or "overflow" in entry:
                raise
            sent = self.messages()
            counted = self._prompt_tokens(sent, self._native_tools())
            before = self.server_scale
            if exc.prompt_tokens:
                self.server_scale = max(exc.prompt_tokens / max(1, counted), self.server_scale or 0.0)
            else:
                self.server_scale = 1.5 * (self.server_scale or 1.0)
            if exc.context_tokens and exc.context_tokens < self.context_tokens:
                self.context_tokens = max(512, exc.context_tokens)
            overflow: dict[str, Any] = {"server_prompt_tokens": exc.prompt_tokens, "counted": counted,
                                        "scale_before": before, "scale_after": round(self.server_scale, 4),
                                        "context_tokens": self.context_tokens, "error": str(exc)[:300]}
            entry["overflow"] = overflow
            try:
                result = self._send(entry)
            except LLMError:
                overflow["retry"] = "failed"
                raise
            overflow["retry"] = "ok"
            return result

    def _request(self, entry: dict[str, Any]) -> ChatResponse:
        try:
            response, messages = self._send_fitting(entry)
        except LLMError as exc:
            refused = exc.status in (400, 422, 500, 501) and _TOOL_REFUSAL.search(str(exc))
            if not (self.tool_mode == "auto" and self.effective_tool_mode == "native" and refused):
                raise
            self._switch(entry, "tool_mode", "text", f"the endpoint refused tools: {str(exc)[:200]}")
            self.effective_tool_mode = "text"
            response, messages = self._send_fitting(entry)
        dropped = self._observation_dropped(response, messages)
        if dropped is None and not self._role_probed:
            dropped = self._probe_tool_messages(response, messages, entry)
        if dropped:
            self._switch(entry, "observation_role", "user", "the server's prompt size shows its chat template "
                         "dropped the tool message carrying the observation")
            self.effective_observation_role = "user"
            response, messages = self._send_fitting(entry)
        usage = response.usage
        entry.update({"prompt_tokens": usage.get("prompt_tokens"), "completion_tokens": usage.get("completion_tokens"),
                      "latency_s": response.latency_s, "retries": response.retries,
                      "finish_reason": response.finish_reason})
        completion = usage.get("completion_tokens")
        if self.max_tokens is not None and isinstance(completion, int) and completion > self.max_tokens:
            entry["completion_over_limit"] = completion  # the server ignored max_tokens (bound it server-side)
        self._calibrate(response, messages)
        self._learn_scale(response, messages)
        prompt = usage.get("prompt_tokens")
        if isinstance(prompt, int):
            self._last_sent = (prompt, self._prompt_tokens(messages, self._native_tools()), self.chat.first_kept)
        return response

    def _native_tools(self) -> list[dict[str, Any]] | None:
        return self._tools() if self.effective_tool_mode == "native" else None

    def _switch(self, entry: dict[str, Any], what: str, value: str, why: str) -> None:
        note = f"episode {self._episode} step {self._step}: {what} -> {value}: {why}"
        self.switches.append(note)
        entry.setdefault("switches", []).append(f"{what} -> {value}: {why}")

    def _learn_scale(self, response: ChatResponse, messages: list[dict[str, Any]]) -> None:
        """Set :attr:`server_scale` from the server's own count of this request (its ``usage.prompt_tokens``).

        A reply with several tool calls is skipped: llama-cpp-python's function-calling format sums the prompt
        once per call."""
        prompt = response.usage.get("prompt_tokens")
        if not isinstance(prompt, int) or isinstance(prompt, bool) or prompt <= 0 or len(response.tool_calls) > 1:
            return
        counted = self._prompt_tokens(messages, self._native_tools())
        if counted > 0:
            self.server_scale = prompt / counted

    def _note_model(self, response: ChatResponse, entry: dict[str, Any]) -> None:
        """Record which model answered: the reply's name, and once per episode the server's own report."""
        if response.model:
            self._reply_models.append(response.model)
        if self._served_model is None or (response.model and response.model not in (
                self._served_model, self.client.model)):
            self._served_model = self.client.served_model(response.model)
            entry["served_model"] = self._served_model
        if self.expected_model and self._served_model != self.expected_model:
            self._gave_up = (f"the endpoint answers with model {self._served_model!r}, not {self.expected_model!r} "
                             "whose episodes are in the results file")
            raise LLMEpisodeFailed(self._gave_up)

    def _calibrate(self, response: ChatResponse, messages: list[dict[str, Any]]) -> None:
        """Learn the server's prompt tokens per counted token from a request without tool messages."""
        prompt = response.usage.get("prompt_tokens")
        if self._ratio is None and isinstance(prompt, int) and prompt > 0 and not any(
                m.get("role") == "tool" for m in messages):
            counted = self._prompt_tokens(messages, self._tools() if self.effective_tool_mode == "native" else None)
            self._ratio = prompt / max(1, counted)

    def _observation_dropped(self, response: ChatResponse, messages: list[dict[str, Any]]) -> bool | None:
        """Whether the server's reported prompt size shows that its chat template left out the tool message that
        carries the observation (llama-cpp-python's function-calling template prints only its header); ``None``
        when the tool messages are too short for the comparison to tell (then :meth:`_probe_tool_messages` asks).

        Compared with the previous request of the episode when there is one: the prompt must have grown by the
        new messages, tool message included; the template's own rendering of the system prompt and the tool
        schemas (which can differ a lot from the JSON we count) cancels out.  Without a previous request, the
        ratio of the server's count to ours learnt on a request without tool messages is used.
        """
        if self.observation_role != "auto" or self.effective_observation_role != "tool":
            return False
        prompt = response.usage.get("prompt_tokens")
        if not isinstance(prompt, int) or not messages or messages[-1].get("role") != "tool":
            return False
        trailing: list[dict[str, Any]] = []  # the observation's tool message and those of unexecuted extra calls
        for message in reversed(messages):
            if message.get("role") != "tool":
                break
            trailing.append(message)
        tool_tokens = sum(self.counter.count(str(message.get("content") or "")) for message in trailing)
        total = self._prompt_tokens(messages, self._tools())
        previous = self._last_sent
        if previous is not None and previous[2] == self.chat.first_kept and previous[1] < total:
            if tool_tokens < MIN_DETECTABLE_TOOL_TOKENS:
                return None
            server_growth, our_growth = prompt - previous[0], total - previous[1]
            return server_growth < our_growth - 0.5 * tool_tokens
        if self._ratio is None or tool_tokens < 40:
            return None
        return prompt < self._ratio * (total - 0.6 * tool_tokens)

    def _probe_tool_messages(self, response: ChatResponse, messages: list[dict[str, Any]],
                             entry: dict[str, Any]) -> bool:
        """Ask the server once whether its chat template keeps tool messages, when the observations so far were
        too short to tell from the prompt size (a one-line search result, an empty reply).

        The same request is sent again with ``PROBE_FILLER_WORDS`` words appended to the last tool message and
        ``max_tokens=1``; a template that keeps tool messages makes the prompt grow by about that many tokens,
        one that drops them does not grow it at all.  The probe's own reply is never used as an action.
        """
        self._role_probed = True
        prompt = response.usage.get("prompt_tokens")
        if not isinstance(prompt, int):
            return False
        filler = " ".join(["observation"] * PROBE_FILLER_WORDS)
        probe = [dict(message) for message in messages]
        probe[-1]["content"] = f"{probe[-1].get('content') or ''}\n{filler}"
        kwargs = {**self._request_kwargs(), "max_tokens": 1}
        try:
            probed = self.client.chat(probe, tools=self._native_tools(), **kwargs)
        except LLMError as exc:
            entry["tool_message_probe"] = {"error": str(exc)[:200]}
            return False
        grown = probed.usage.get("prompt_tokens")
        if not isinstance(grown, int):
            entry["tool_message_probe"] = {"error": "the server reported no prompt_tokens"}
            return False
        expected = self.counter.count(filler)
        entry["tool_message_probe"] = {"prompt_tokens": prompt, "with_filler": grown, "filler_tokens": expected}
        return grown - prompt < 0.3 * expected

    def _memory_text(self, observation: dict[str, Any], info: dict[str, Any]) -> str:
        self._current_memory = ""
        if self.memory is None:
            return ""
        try:
            self._current_memory = str(self.memory.context(observation, info) or "")
        except Exception as exc:  # a broken memory provider must not stop the episode; it is recorded
            self.errors.append(f"episode {self._episode} step {self._step}: memory provider failed: {exc}")
            self._episode_errors.append(f"memory provider failed: {exc}")
        return self._current_memory

    # ------------------------------------------------------------------------------------------ replies
    def _action_from(self, response: ChatResponse, entry: dict[str, Any]) -> dict[str, Any]:
        """The reply's action (:func:`personal_envs.chat.replies.read_reply`), kept in the conversation; replies
        without a tool call count towards the switch to the text protocol under ``tool_mode="auto"``."""
        if response.tool_calls:
            self._tool_calls_seen += 1
            self._replies_without_call = 0
        elif self.effective_tool_mode == "native":
            self._replies_without_call += 1
            if (self.tool_mode == "auto" and self._tool_calls_seen == 0
                    and self._replies_without_call >= NO_TOOL_CALL_SWITCH):
                self._switch(entry, "tool_mode", "text", f"{self._replies_without_call} replies without a tool "
                             "call: the server ignores tools")
                self.effective_tool_mode = "text"
        read = read_reply(response, native=self.use_tools)
        entry.update(read.trace)
        self._notes.extend(read.notes)
        reply = response.assistant_message()
        if self.last_request is not None:
            self.last_request["reply"] = reply
        self.chat.record_reply(reply, str(read.action.get("action_type", "")))
        return read.action


def make_llm_policy(env: gym.Env[Any, Any], seed: int = 0, **kwargs: Any) -> LLMPolicy:
    """Factory for ``--policy llm``: client settings (``base_url``, ``model``, ``api_key``, ``timeout``,
    ``connect_timeout``, ``max_retries``, ``backoff_s``, ``max_timeout_retries``) build the client, the rest goes
    to :class:`LLMPolicy`.  ``memory`` may be the arguments of a history memory baseline as a JSON object
    (``{"kind": "last", "k": 5}``: :class:`personal_envs.personalwab.memory.HistoryMemory`, over the ``logs``
    field), so it can be given on the command line and recorded in the run's configuration."""
    client_keys = ("base_url", "model", "api_key", "timeout", "connect_timeout", "max_retries", "backoff_s",
                   "max_timeout_retries")
    client_kwargs = {key: kwargs.pop(key) for key in client_keys if key in kwargs}
    if isinstance(kwargs.get("memory"), Mapping):
        from personal_envs.personalwab.memory import HistoryMemory

        kwargs["memory"] = HistoryMemory(**kwargs["memory"])
    client = kwargs.pop("client", None) or ChatClient(**client_kwargs)
    return LLMPolicy(env, client=client, seed=seed, **kwargs)

