"""A model's reply read as an env action, the one way the LLM policy, the chat env and the rollouts read it.

A reply acts through its first tool call (``{"action_type": name, **arguments}``; arguments repaired leniently by
the client's parser, text from which no JSON object can be recovered kept as ``{"_raw": text}``), else through the
first JSON object in its text that names an action (``action_type``, ``name``, ``function`` or ``action``; code
fences, control characters and trailing commas repaired, objects inside prose found).  A reply with neither becomes
:data:`NO_TOOL_CALL_ACTION`, which no env defines, so the env rejects it visibly and the step counts.  Notes tell
the model what went wrong on its next turn (only the first of several calls ran, broken arguments, no action).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from personal_envs.chat.render import flat_action
from personal_envs.llm.client import ChatResponse, ToolCall
from personal_envs.llm.jsonfix import inline_objects, loads_object

__all__ = [
    "LLM_ERROR_ACTION", "NO_TOOL_CALL_ACTION", "ReadReply", "extract_action_with_repairs", "extract_json_action",
    "extract_json_object", "read_reply",
]

#: Action names sent when a reply holds no action; no env defines them, so the env rejects them visibly.
NO_TOOL_CALL_ACTION = "__no_tool_call__"
LLM_ERROR_ACTION = "__llm_error__"
#: Characters of a reply's text and arguments kept in trace entries.
TRACE_TEXT_CHARS = 500
_NAME_KEYS = ("action_type", "name", "function", "action")


@dataclass
class ReadReply:
    """What a reply says to do: the action, the call it came from, notes for the model's next turn, the repairs
    its JSON needed, and the facts a trace entry keeps (``content``, ``tool_call``, ``raw_arguments``,
    ``repairs``)."""

    action: dict[str, Any]
    tool_call: ToolCall | None = None
    notes: list[str] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)
    trace: dict[str, Any] = field(default_factory=dict)

    @property
    def has_action(self) -> bool:
        """False when the reply held neither a tool call nor a JSON action."""
        return self.action.get("action_type") != NO_TOOL_CALL_ACTION


def read_reply(response: ChatResponse, *, native: bool = True) -> ReadReply:
    """The action of ``response`` (see the module docstring); ``native`` says whether the model was given tools
    (it words the note sent when the reply holds no action)."""
    trace: dict[str, Any] = {}
    if response.content:
        trace["content"] = response.content[:TRACE_TEXT_CHARS]
    if response.tool_calls:
        call = response.tool_calls[0]
        trace["tool_call"] = call.name
        trace["raw_arguments"] = call.raw_arguments[:TRACE_TEXT_CHARS]
        notes = []
        if call.repairs:
            trace["repairs"] = list(call.repairs)
        if len(response.tool_calls) > 1:
            notes.append(f"Only your first tool call ({call.name}) was executed; call one tool per turn.")
        if set(call.arguments) == {"_raw"}:
            notes.append(f"The arguments of your call to {call.name} were not valid JSON: "
                         f"{str(call.arguments['_raw'])[:200]!r}. Send a JSON object.")
        return ReadReply(flat_action(call.name, call.arguments), call, notes, list(call.repairs), trace)
    action, repairs = extract_action_with_repairs(response.content)
    if action is not None:
        if repairs:
            trace["repairs"] = repairs
        return ReadReply(action, None, [], repairs, trace)
    note = ("Your previous reply had no tool call and no JSON action, so nothing was done. "
            + ("Act by calling exactly one of the tools." if native
               else "Answer with one JSON object naming the action."))
    return ReadReply({"action_type": NO_TOOL_CALL_ACTION, "reply": response.content[:300]}, None, [note], [], trace)


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
