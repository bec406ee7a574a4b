"""The one renderer of the suite: env observations to chat messages, model replies back into the conversation.

:class:`ChatRenderer` keeps one episode's conversation and builds the messages a model is sent.  The LLM policy
(``--policy llm``, so the eval CLI and the notebook), :class:`personal_envs.chat.ChatEnv` (trainers, OpenEnv) and
the rollouts of :mod:`personal_envs.rollout` all render through it, so what is trained is what is evaluated.

Layout (cache-friendly; token budgets from :mod:`personal_envs.llm.prompt`):

* the system message holds the instructions, the env id and the fields that stay constant during an episode
  (``instruction``, ``context``, ``logs``, as they were at reset); in the text protocol it also lists the actions;
* every turn appends the observation: the fields that are not pinned (or differ from their pinned value), each cut
  to its token budget, plus the memory provider's text and notes to the model.  With ``history="compact"`` an
  earlier observation is shown in a compact form (only the fields that changed, cut short) once it is superseded;
  with ``history="full"`` it stays as it was sent, so the conversation only ever grows (prefix-preserving, what
  trainers need);
* the model's replies are kept as they came: with native tools (``native_tools``) and ``tool_messages`` the next
  observation is the ``tool`` message answering the reply's first call (extra calls get a "not executed" message);
  otherwise observations are ``user`` messages and earlier calls are shown as the JSON action they stood for;
* :meth:`ChatRenderer.leave_out` drops the oldest turns (a note names how many and their actions) and
  :meth:`ChatRenderer.rerender_current` shrinks the current observation: the LLM policy uses both to fit a context
  window.
"""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from personal_envs.llm.client import parse_arguments
from personal_envs.llm.prompt import (
    HISTORY_FIELD_TOKENS,
    MEMORY_TOKENS,
    OTHER_FIELD_TOKENS,
    PINNED_FIELDS,
    TokenCounter,
    field_text,
    ordered_fields,
    render_fields,
)

__all__ = [
    "DEFAULT_SYSTEM_PROMPT", "HISTORY_MODES", "NOT_EXECUTED", "ChatRenderer", "Turn", "action_signatures",
    "flat_action", "render_observation", "reply_as_text", "screenshot_data_url", "truncate",
]

DEFAULT_SYSTEM_PROMPT = (
    "You are an autonomous agent acting in an interactive environment on behalf of a user. Each turn you receive "
    "the current observation: the task instruction and what you can perceive (a page's accessibility tree, a phone "
    "screen's UI hierarchy, the user's history, the context, the user's last reply). Decide the single best next "
    "step and perform it by calling exactly one of the provided tools with valid arguments. If an action fails, the "
    "next observation shows why under 'last_action_error': correct it instead of repeating it. Respect the user's "
    "preferences, ask the user only when the observation does not tell you what they want, and end the task with "
    "the tool meant for finishing it."
)

TEXT_MODE_INSTRUCTIONS = (
    "\n\nAnswer with exactly one JSON object and nothing else, of the form "
    '{"action_type": "<action name>", "<argument>": <value>, ...}. The available actions are:\n'
)
#: The content of the tool message answering a call that was not executed (only a turn's first call is).
NOT_EXECUTED = "Not executed: only the first tool call of a turn is executed."
#: ``"compact"``: superseded observations are shown compactly; ``"full"``: as sent (prefix-preserving).
HISTORY_MODES: tuple[str, ...] = ("compact", "full")


@dataclass
class Turn:
    """One turn: the observation in full (while current) and compact (once superseded), and the model's reply."""

    full_text: str
    compact_text: str
    reply: dict[str, Any] | None = None
    tool_call_ids: list[str] = field(default_factory=list)
    image_url: str | None = None
    action_name: str = ""
    full_keys: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class ChatRenderer:
    """One episode's conversation with a model, rendered from the env's observations.

    Args:
        env_id: Named in the system message.
        tools: The env's OpenAI tool schemas, or a function returning them (listed in the system message of the
            text protocol).
        counter: Counts tokens for the field budgets (the model's tokenizer, the server's, or the estimate).
        field_budgets: Token budget of each observation field (fields not named get
            :data:`~personal_envs.llm.prompt.OTHER_FIELD_TOKENS`).
        system_prompt: The instructions (default :data:`DEFAULT_SYSTEM_PROMPT`).
        include_screenshot: Also send the observation's ``screenshot`` as a PNG image part (current turn only).
        history: ``"compact"`` or ``"full"`` (see the module docstring).
    """

    def __init__(
        self, *, env_id: str, tools: Sequence[dict[str, Any]] | Callable[[], Sequence[dict[str, Any]]],
        counter: TokenCounter, field_budgets: Mapping[str, int], system_prompt: str | None = None,
        include_screenshot: bool = False, history: str = "compact",
    ) -> None:
        if history not in HISTORY_MODES:
            raise ValueError(f"history must be one of {', '.join(HISTORY_MODES)}, got {history!r}")
        self.env_id = env_id
        self._tools = tools
        self.counter = counter
        self.field_budgets = dict(field_budgets)
        self.system_prompt = system_prompt or DEFAULT_SYSTEM_PROMPT
        self.include_screenshot = include_screenshot
        self.history = history
        #: Actions are native tool calls (else one JSON action per reply, the actions listed in the system message).
        self.native_tools = True
        #: Observations after a tool call are ``tool`` messages (else ``user`` messages).
        self.tool_messages = True
        self.turns: list[Turn] = []
        #: Index of the oldest turn still in the conversation (the earlier ones were left out).
        self.first_kept = 0
        self.left_out_actions: list[str] = []
        self._pinned_text = ""
        self._pinned: dict[str, str] = {}
        self._previous: dict[str, str] = {}
        self._current_observation: Mapping[str, Any] = {}
        self._current_memory = ""

    # ------------------------------------------------------------------------------------------ episode
    def tools(self) -> list[dict[str, Any]]:
        """The env's tool schemas."""
        return list(self._tools() if callable(self._tools) else self._tools)

    def reset(self, observation: Mapping[str, Any]) -> None:
        """Start a new episode: the constant fields of the first observation go into the system message."""
        self.turns = []
        self.first_kept = 0
        self.left_out_actions = []
        pinned = [key for key in PINNED_FIELDS if field_text(observation.get(key))]
        sections = render_fields(observation, self.counter, self.field_budgets, keys=pinned)
        self._pinned_text = "\n\n".join(sections)
        self._pinned = {key: field_text(observation.get(key)) for key in pinned}
        self._previous = {}
        self._current_observation = {}
        self._current_memory = ""

    def observe(self, observation: Mapping[str, Any], memory_text: str = "", notes: Sequence[str] = ()) -> Turn:
        """Add the observation as the new current turn: in full (every field but the pinned ones still equal to
        their pinned value) and compact (the fields that changed since the previous observation, cut short, plus
        the step's user reply and error)."""
        self._current_observation = observation
        self._current_memory = memory_text
        keys = ordered_fields(observation)
        current = {key: field_text(observation.get(key)) for key in keys}
        full_keys = [key for key in keys if current[key] and current[key] != self._pinned.get(key)]
        compact_keys = [key for key in full_keys if key in ("last_action_error", "user_reply")
                        or current[key] != self._previous.get(key)]
        full = self._render(observation, full_keys, memory_text, list(notes), scale=1.0)
        compact_sections = render_fields(observation, self.counter, {}, keys=compact_keys,
                                         default_budget=HISTORY_FIELD_TOKENS)
        if notes:
            compact_sections.append("## note\n" + "\n".join(notes))
        compact = "\n\n".join(compact_sections) or "(nothing changed)"
        self._previous = current
        turn = Turn(full_text=full, compact_text=compact, full_keys=full_keys, notes=list(notes),
                    image_url=screenshot_data_url(observation.get("screenshot")) if self.include_screenshot else None)
        self.turns.append(turn)
        return turn

    def record_reply(self, reply: Mapping[str, Any], action_name: str) -> None:
        """Keep the model's reply (an assistant message) to the current turn and the action it was read as."""
        turn = self.turns[-1]
        turn.reply = dict(reply)
        turn.tool_call_ids = [str(call.get("id") or "") for call in reply.get("tool_calls") or []
                              if isinstance(call, Mapping)]
        turn.action_name = action_name

    def record_action_name(self, action_name: str) -> None:
        """Name the current turn's action when there was no reply (a failed request)."""
        if self.turns:
            self.turns[-1].action_name = action_name

    # ------------------------------------------------------------------------------------------ messages
    def system_text(self) -> str:
        """The system message: instructions, env id, the text protocol's action list, the constant context."""
        system = self.system_prompt + f"\n\nEnvironment: {self.env_id}."
        if not self.native_tools:
            system += TEXT_MODE_INSTRUCTIONS + action_signatures(self.tools())
        if self._pinned_text:
            system += "\n\n# Task context (constant during this episode)\n\n" + self._pinned_text
        return system

    def messages(self) -> list[dict[str, Any]]:
        """The conversation the next request sends: system prompt with the constant context, kept turns, and the
        current observation."""
        native_roles = self.native_tools and self.tool_messages
        messages: list[dict[str, Any]] = [{"role": "system", "content": self.system_text()}]
        kept = self.turns[self.first_kept:]
        pending_ids: list[str] = []
        for index, turn in enumerate(kept):
            current = index == len(kept) - 1
            text = turn.full_text if current or self.history == "full" else turn.compact_text
            if index == 0 and self.first_kept > 0:
                text = self._left_out_note() + "\n\n" + text
            if pending_ids and native_roles:
                messages.append({"role": "tool", "tool_call_id": pending_ids[0], "content": text})
                messages.extend({"role": "tool", "tool_call_id": extra_id, "content": NOT_EXECUTED}
                                for extra_id in pending_ids[1:])
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
                messages.append({"role": "assistant", "content": reply_as_text(turn.reply)})
        return messages

    def leave_out(self, new_first: int) -> None:
        """Leave the turns before ``new_first`` out of the conversation (the current turn is always kept)."""
        new_first = min(new_first, len(self.turns) - 1)
        if new_first <= self.first_kept:
            return
        self.left_out_actions += [t.action_name or "?" for t in self.turns[self.first_kept:new_first]]
        self.first_kept = new_first

    def rerender_current(self, scale: float) -> None:
        """Render the current observation again with every field budget multiplied by ``scale``."""
        turn = self.turns[-1]
        turn.full_text = self._render(self._current_observation, turn.full_keys, self._current_memory, turn.notes,
                                      scale)

    # ------------------------------------------------------------------------------------------ internals
    def _render(self, observation: Mapping[str, Any], keys: list[str], memory_text: str, notes: list[str],
                scale: float) -> str:
        sections = render_fields(observation, self.counter, self.field_budgets, keys=keys, scale=scale)
        if memory_text.strip():
            sections.append("## memory\n" + self.counter.cut(memory_text.strip(), max(16, int(MEMORY_TOKENS * scale))))
        if notes:
            sections.append("## note\n" + "\n".join(notes))
        return "\n\n".join(sections) if sections else "(empty observation)"

    def _left_out_note(self) -> str:
        actions = self.left_out_actions
        shown = ", ".join(actions[-12:])
        more = f" (the last 12 of them: {shown})" if len(actions) > 12 else f": {shown}" if shown else ""
        return (f"[{self.first_kept} earlier turn(s) of this episode were left out to fit the context window; "
                f"their actions{more}]")


# ---------------------------------------------------------------------------------------------- helpers
def action_signatures(tools: Sequence[Mapping[str, Any]]) -> str:
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


def flat_action(name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """``{"action_type": name, **arguments}``; an argument named ``action_type`` cannot rename the call."""
    return {"action_type": name, **{key: value for key, value in arguments.items() if key != "action_type"}}


def reply_as_text(reply: Mapping[str, Any]) -> str:
    """An assistant message as plain text: its content, or its first tool call as a JSON action."""
    calls = reply.get("tool_calls") or []
    if not calls:
        return str(reply.get("content") or "")
    function = calls[0]["function"]
    return json.dumps(flat_action(function["name"], parse_arguments(function["arguments"])), ensure_ascii=False)


def render_observation(
    observation: Mapping[str, Any],
    budgets: Mapping[str, int],
    memory_text: str = "",
    notes: list[str] | None = None,
    default_budget: int = OTHER_FIELD_TOKENS,
) -> str:
    """The observation's text fields as one message: ``## field`` headings, each field cut to its *token* budget
    (estimated, 4 characters per token).

    The suite's standard fields come first in :data:`~personal_envs.llm.prompt.OBSERVATION_FIELDS` order
    (``last_action_error`` last); any other text field an env adds (for example PersonalWAB's function ``result``)
    is included before the error with the budget of its key in ``budgets`` or ``default_budget``.  Arrays such as
    screenshots are skipped.
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
