"""A generic function-calling LLM policy for every env of the suite, made to survive real (and small) servers.

Each turn the policy renders the observation's text fields for the model, passes the env's actions as OpenAI tools
(``env.unwrapped.tool_schemas()``) or describes them for a JSON-in-text protocol, and turns the model's reply into
``{"action_type": name, **arguments}``.

Prompt layout (cache-friendly, see :mod:`personal_envs.llm.prompt` for budgets and token counts):

* the system message holds the instructions and the fields that stay constant during an episode (``instruction``,
  ``context``, ``logs``, as they were at reset), sent once, so the server's prefix cache reuses them every step;
* every turn appends the observation: in full (each field cut to a token budget) while it is the current one, then
  in a compact form (only the fields that changed, cut short) that never changes again, followed by the model's
  reply; an earlier prompt is therefore a prefix of the next one up to the previous observation;
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

import base64
import io
import json
import re
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import gymnasium as gym
import numpy as np

from personal_envs.llm.client import ChatClient, ChatResponse, LLMError, parse_arguments
from personal_envs.llm.jsonfix import inline_objects, loads_object
from personal_envs.llm.prompt import (
    DEFAULT_FIELD_TOKENS,
    HISTORY_FIELD_TOKENS,
    MEMORY_TOKENS,
    OBSERVATION_FIELDS,
    OTHER_FIELD_TOKENS,
    PINNED_FIELDS,
    TokenCounter,
    field_text,
    message_text,
    ordered_fields,
    render_fields,
)
from personal_envs.policies.base import Policy, PolicyGaveUp

__all__ = [
    "DEFAULT_MAX_TOKENS", "DEFAULT_SYSTEM_PROMPT", "LLM_ERROR_ACTION", "NO_TOOL_CALL_ACTION", "OBSERVATION_FIELDS",
    "LLMEpisodeFailed", "LLMPolicy", "MemoryProvider", "extract_json_action", "extract_json_object", "make_llm_policy",
    "render_observation", "screenshot_data_url", "truncate",
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

#: Action names the policy sends when it has no action; no env defines them, so the env rejects them visibly.
NO_TOOL_CALL_ACTION = "__no_tool_call__"
LLM_ERROR_ACTION = "__llm_error__"

DEFAULT_SYSTEM_PROMPT = (
    "You are an autonomous agent acting in an interactive environment on behalf of a user. Each turn you receive "
    "the current observation: the task instruction and what you can perceive (a page's accessibility tree, a phone "
    "screen's UI hierarchy, the user's history, the context, the user's last reply). Decide the single best next "
    "step and perform it by calling exactly one of the provided tools with valid arguments. If an action fails, the "
    "next observation shows why under 'last_action_error': correct it instead of repeating it. Respect the user's "
    "preferences, ask the user only when the observation does not tell you what they want, and end the task with "
    "the tool meant for finishing it."
)

_TEXT_MODE_INSTRUCTIONS = (
    "\n\nAnswer with exactly one JSON object and nothing else, of the form "
    '{"action_type": "<action name>", "<argument>": <value>, ...}. The available actions are:\n'
)
_TOOL_REFUSAL = re.compile(r"tool|function|jinja", re.IGNORECASE)
_NAME_KEYS = ("action_type", "name", "function", "action")
_TRACE_TEXT_CHARS = 500


class LLMEpisodeFailed(PolicyGaveUp):
    """The model endpoint gave no valid reply for this episode (none yet, or ``max_failures_in_a_row`` failures in a
    row); the message says which and quotes the last error."""


@runtime_checkable
class MemoryProvider(Protocol):
    """Supplies memory for the next turn, e.g. the user's relevant history (PersonalWAB memory variants)."""

    def context(self, observation: dict[str, Any], info: dict[str, Any]) -> str:
        """Text to show the model alongside the observation ('' for none)."""
        ...


@dataclass
class _Turn:
    """One turn: the observation in full (while current) and compact (once superseded), and the model's reply."""

    full_text: str
    compact_text: str
    reply: dict[str, Any] | None = None
    tool_call_ids: list[str] = field(default_factory=list)
    image_url: str | None = None
    action_name: str = ""
    full_keys: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


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
        #: The protocol in use: ``"native"`` (tools) or ``"text"`` (JSON in the reply); may change under "auto".
        self.effective_tool_mode = "text" if tool_mode == "text" else "native"
        #: How observations after a call are sent: ``"tool"`` or ``"user"``; may change under "auto".
        self.effective_observation_role = "user" if observation_role == "user" else "tool"
        #: Every endpoint failure seen, as ``"episode E step S: message"``; the eval keeps running.
        self.errors: list[str] = []
        #: Capability switches made, as ``"episode E step S: what and why"``.
        self.switches: list[str] = []
        #: The last reply of the model (``None`` before the first or after a failed request).
        self.last_response: ChatResponse | None = None
        #: One entry per model call of the current episode (see :meth:`episode_report`).
        self.trace: list[dict[str, Any]] = []
        self._turns: list[_Turn] = []
        self._first_kept = 0
        self._left_out_actions: list[str] = []
        self._pinned_text = ""
        self._pinned: dict[str, str] = {}
        self._previous: dict[str, str] = {}
        self._current_observation: Mapping[str, Any] = {}
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
        env_spec = getattr(env, "spec", None)
        self._env_id = getattr(env_spec, "id", None) or type(env.unwrapped).__name__

    # ------------------------------------------------------------------------------------------ Policy API
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
        self._turns = []
        self._first_kept = 0
        self._left_out_actions = []
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
        pinned = [key for key in PINNED_FIELDS if field_text(observation.get(key))]
        sections = render_fields(observation, self.counter, self.field_budgets, keys=pinned)
        self._pinned_text = "\n\n".join(sections)
        self._pinned = {key: field_text(observation.get(key)) for key in pinned}
        self._previous = {}

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        """Ask the model for the next action; never raises for endpoint or reply problems."""
        if self._episode < 0:  # act() without reset(): behave as a fresh episode
            self.reset(observation, info)
        self._step += 1
        self._current_observation = observation
        memory_text = self._memory_text(observation, info)
        notes, self._notes = self._notes, []
        turn = self._new_turn(observation, memory_text, notes)
        self._turns.append(turn)
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
            turn.action_name = LLM_ERROR_ACTION
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
        action = self._action_from(response, turn, entry)
        turn.action_name = str(action.get("action_type", ""))
        entry["action"] = turn.action_name
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
    def _new_turn(self, observation: dict[str, Any], memory_text: str, notes: list[str]) -> _Turn:
        """The current observation in full (every field but the pinned ones still equal to their pinned value) and
        compact (the fields that changed since the previous observation, cut short, plus the step's user reply and
        error)."""
        keys = ordered_fields(observation)
        current = {key: field_text(observation.get(key)) for key in keys}
        full_keys = [key for key in keys if current[key] and current[key] != self._pinned.get(key)]
        compact_keys = [key for key in full_keys if key in ("last_action_error", "user_reply")
                        or current[key] != self._previous.get(key)]
        full = self._render(observation, full_keys, memory_text, notes, scale=1.0)
        compact_sections = render_fields(observation, self.counter, {}, keys=compact_keys,
                                         default_budget=HISTORY_FIELD_TOKENS)
        if notes:
            compact_sections.append("## note\n" + "\n".join(notes))
        compact = "\n\n".join(compact_sections) or "(nothing changed)"
        self._previous = current
        return _Turn(full_text=full, compact_text=compact, full_keys=full_keys, notes=list(notes),
                     image_url=screenshot_data_url(observation.get("screenshot")) if self.include_screenshot else None)

    def _render(self, observation: Mapping[str, Any], keys: list[str], memory_text: str, notes: list[str],
                scale: float) -> str:
        sections = render_fields(observation, self.counter, self.field_budgets, keys=keys, scale=scale)
        if memory_text.strip():
            sections.append("## memory\n" + self.counter.cut(memory_text.strip(), max(16, int(MEMORY_TOKENS * scale))))
        if notes:
            sections.append("## note\n" + "\n".join(notes))
        return "\n\n".join(sections) if sections else "(empty observation)"

    def _system_text(self) -> str:
        system = self.system_prompt + f"\n\nEnvironment: {self._env_id}."
        if self.effective_tool_mode == "text":
            system += _TEXT_MODE_INSTRUCTIONS + action_signatures(self._tools())
        if self._pinned_text:
            system += "\n\n# Task context (constant during this episode)\n\n" + self._pinned_text
        return system

    def messages(self) -> list[dict[str, Any]]:
        """The conversation the next request sends: system prompt with the constant context, kept turns, and the
        current observation."""
        native_roles = self.effective_tool_mode == "native" and self.effective_observation_role == "tool"
        messages: list[dict[str, Any]] = [{"role": "system", "content": self._system_text()}]
        kept = self._turns[self._first_kept:]
        pending_ids: list[str] = []
        for index, turn in enumerate(kept):
            current = index == len(kept) - 1
            text = turn.full_text if current else turn.compact_text
            if index == 0 and self._first_kept > 0:
                text = self._left_out_note() + "\n\n" + text
            if pending_ids and native_roles:
                messages.append({"role": "tool", "tool_call_id": pending_ids[0], "content": text})
                messages.extend(
                    {"role": "tool", "tool_call_id": extra_id,
                     "content": "Not executed: only the first tool call of a turn is executed."}
                    for extra_id in pending_ids[1:]
                )
            else:
                messages.append({"role": "user", "content": text})
            if turn.image_url is not None and current:
                messages.append({"role": "user", "content": [
                    {"type": "text", "text": "Current screenshot:"},
                    {"type": "image_url", "image_url": {"url": turn.image_url}},
                ]})
            pending_ids = []
            if turn.reply is not None and native_roles:
                messages.append(turn.reply)
                pending_ids = list(turn.tool_call_ids)
            elif turn.reply is not None:  # no tool roles: the call is shown as the JSON it stood for
                messages.append({"role": "assistant", "content": _reply_as_text(turn.reply)})
        return messages

    def _left_out_note(self) -> str:
        actions = self._left_out_actions
        shown = ", ".join(actions[-12:])
        more = f" (the last 12 of them: {shown})" if len(actions) > 12 else f": {shown}" if shown else ""
        return (f"[{self._first_kept} earlier turn(s) of this episode were left out to fit the context window; "
                f"their actions{more}]")

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
        history = len(self._turns) - 1 - self._first_kept
        if history > self.max_history_turns:
            self._leave_out(len(self._turns) - 1 - max(self.max_history_turns // 2, 0))
        messages = self.messages()
        tokens = self._server_count(self._prompt_tokens(messages, tools))
        while tokens > budget and self._first_kept < len(self._turns) - 1:
            history = len(self._turns) - 1 - self._first_kept
            self._leave_out(self._first_kept + max(1, (history + 1) // 2))
            messages = self.messages()
            tokens = self._server_count(self._prompt_tokens(messages, tools))
        scale = 1.0
        while tokens > budget and scale > 0.1:
            scale /= 2
            self._rerender_current(scale)
            messages = self.messages()
            tokens = self._server_count(self._prompt_tokens(messages, tools))
        entry["estimated_prompt_tokens"] = tokens
        if self._first_kept:
            entry["left_out_turns"] = self._first_kept
        if scale < 1.0:
            entry["fields_scaled"] = scale
        if tokens > budget:
            entry["over_budget"] = True
        return messages, tools

    def _leave_out(self, new_first: int) -> None:
        new_first = min(new_first, len(self._turns) - 1)
        if new_first <= self._first_kept:
            return
        self._left_out_actions += [t.action_name or "?" for t in self._turns[self._first_kept:new_first]]
        self._first_kept = new_first

    def _rerender_current(self, scale: float) -> None:
        """Render the current observation again with every field budget multiplied by ``scale``."""
        turn = self._turns[-1]
        turn.full_text = self._render(self._current_observation, turn.full_keys, self._current_memory, turn.notes,
                                      scale)

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
        return self.client.chat(messages, tools=tools, **self._request_kwargs()), messages

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
            self._last_sent = (prompt, self._prompt_tokens(messages, self._native_tools()), self._first_kept)
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
        if previous is not None and previous[2] == self._first_kept and previous[1] < total:
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
    def _action_from(self, response: ChatResponse, turn: _Turn, entry: dict[str, Any]) -> dict[str, Any]:
        turn.reply = response.assistant_message()
        turn.tool_call_ids = [call.id for call in response.tool_calls]
        if response.content:
            entry["content"] = response.content[:_TRACE_TEXT_CHARS]
        if response.tool_calls:
            self._tool_calls_seen += 1
            self._replies_without_call = 0
            call = response.tool_calls[0]
            entry["tool_call"] = call.name
            entry["raw_arguments"] = call.raw_arguments[:_TRACE_TEXT_CHARS]
            if call.repairs:
                entry["repairs"] = list(call.repairs)
            if len(response.tool_calls) > 1:
                self._notes.append(f"Only your first tool call ({call.name}) was executed; call one tool per turn.")
            if set(call.arguments) == {"_raw"}:
                self._notes.append(f"The arguments of your call to {call.name} were not valid JSON: "
                                   f"{str(call.arguments['_raw'])[:200]!r}. Send a JSON object.")
            return _flat_action(call.name, call.arguments)
        if self.effective_tool_mode == "native":
            self._replies_without_call += 1
            if (self.tool_mode == "auto" and self._tool_calls_seen == 0
                    and self._replies_without_call >= NO_TOOL_CALL_SWITCH):
                self._switch(entry, "tool_mode", "text", f"{self._replies_without_call} replies without a tool "
                             "call: the server ignores tools")
                self.effective_tool_mode = "text"
        action, repairs = extract_action_with_repairs(response.content)
        if action is not None:
            if repairs:
                entry["repairs"] = repairs
            return action
        self._notes.append("Your previous reply had no tool call and no JSON action, so nothing was done. "
                           + ("Act by calling exactly one of the tools." if self.use_tools
                              else "Answer with one JSON object naming the action."))
        return {"action_type": NO_TOOL_CALL_ACTION, "reply": response.content[:300]}


def action_signatures(tools: list[dict[str, Any]]) -> str:
    """The actions as one line each, ``name(arg: type, optional?: type): description``, for the text protocol
    (much shorter than the JSON schemas)."""
    lines = []
    for tool in tools:
        function = tool.get("function", tool)
        parameters = function.get("parameters") or {}
        required = set(parameters.get("required") or [])
        args = []
        for name, schema in (parameters.get("properties") or {}).items():
            kind = schema.get("type", "any")
            if "enum" in schema:
                kind = "|".join(json.dumps(v) for v in schema["enum"])
            args.append(f"{name}{'' if name in required else '?'}: {kind}")
        lines.append(f"- {function.get('name')}({', '.join(args)}): {function.get('description', '')}")
    return "\n".join(lines)


def _flat_action(name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """``{"action_type": name, **arguments}``; an argument named ``action_type`` cannot rename the call."""
    return {"action_type": name, **{key: value for key, value in arguments.items() if key != "action_type"}}


def _reply_as_text(reply: Mapping[str, Any]) -> str:
    """An assistant message as plain text: its content, or its first tool call as a JSON action."""
    calls = reply.get("tool_calls") or []
    if not calls:
        return str(reply.get("content") or "")
    function = calls[0]["function"]
    return json.dumps(_flat_action(function["name"], parse_arguments(function["arguments"])), ensure_ascii=False)


# ---------------------------------------------------------------------------------------------- rendering
def render_observation(
    observation: Mapping[str, Any],
    budgets: Mapping[str, int],
    memory_text: str = "",
    notes: list[str] | None = None,
    default_budget: int = OTHER_FIELD_TOKENS,
) -> str:
    """The observation's text fields as one message: ``## field`` headings, each field cut to its *token* budget
    (estimated, 4 characters per token).

    The suite's standard fields come first in :data:`OBSERVATION_FIELDS` order (``last_action_error`` last); any
    other text field an env adds (for example PersonalWAB's function ``result``) is included before the error with
    the budget of its key in ``budgets`` or ``default_budget``.  Arrays such as screenshots are skipped.
    """
    counter = TokenCounter(None, "estimate")
    sections = render_fields(observation, counter, budgets, default_budget=default_budget)
    if memory_text.strip():
        sections.append("## memory\n" + counter.cut(memory_text.strip(), MEMORY_TOKENS))
    if notes:
        sections.append("## note\n" + "\n".join(notes))
    return "\n\n".join(sections) if sections else "(empty observation)"


def truncate(text: str, limit_tokens: int) -> str:
    """``text`` cut to about ``limit_tokens`` estimated tokens, with a marker saying how much was left out."""
    return TokenCounter(None, "estimate").cut(text, limit_tokens)


def screenshot_data_url(screenshot: Any) -> str | None:
    """An H x W x 3 (or x 4) uint8 array as a ``data:image/png;base64,...`` URL; None for anything else."""
    if not isinstance(screenshot, np.ndarray) or screenshot.ndim != 3 or screenshot.shape[2] not in (3, 4):
        return None
    if screenshot.size == 0:
        return None
    from PIL import Image  # Pillow is only needed when screenshots are sent

    buffer = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(screenshot, dtype=np.uint8)).save(buffer, format="PNG", optimize=False)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


# ---------------------------------------------------------------------------------------------- parsing
def extract_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object found in ``text`` (leniently: fences, control characters, trailing commas), or None."""
    for candidate, _repairs in _json_objects(text):
        return candidate
    return None


def extract_json_action(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text`` that names an action (``action_type``, ``name``, ...), or None."""
    return extract_action_with_repairs(text)[0]


def extract_action_with_repairs(text: str) -> tuple[dict[str, Any] | None, list[str]]:
    """:func:`extract_json_action` plus the repairs the text needed."""
    for candidate, repairs in _json_objects(text):
        if any(isinstance(candidate.get(key), (str, Mapping)) for key in _NAME_KEYS):
            return candidate, repairs
    return None, []


def _json_objects(text: str) -> Iterator[tuple[dict[str, Any], list[str]]]:
    recovered, repairs = loads_object(text)
    if recovered is not None:
        yield recovered, repairs
    for parsed in inline_objects(text):
        yield parsed, ["inline object extracted"]


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

