"""Helpers for scripted models that drive browser-use's own Agent through :class:`ScriptedChatServer`.

browser-use sends its ``AgentOutput`` either as JSON text in the reply (``tool_calling_method="raw"``, the paper's
setting and the policy's default: the request has no ``tools``) or as a function call (the request's ``tools`` name
the ``AgentOutput`` function); :func:`agent_reply` answers in whichever form the request asks for.
"""

from __future__ import annotations

import json
from typing import Any

EXTRACTION_MARK = "Extraction goal:"  # in browser-use's extraction prompt (extract_content's model call)


def prompt_text(request: dict[str, Any]) -> str:
    """The text of the last message browser-use sent (its state message: URL, tabs, element list)."""
    content = request["messages"][-1]["content"]
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if part.get("type") == "text")
    return str(content)


def is_extraction(request: dict[str, Any]) -> bool:
    """Whether the request is ``extract_content``'s call of the extraction model (not an agent step)."""
    return not request.get("tools") and EXTRACTION_MARK in prompt_text(request)


def agent_reply(request: dict[str, Any], state: dict[str, str], actions: list[dict[str, Any]]) -> dict[str, Any]:
    """browser-use's ``AgentOutput`` for ``request``: a function call when it offers tools, else JSON text."""
    output = {"current_state": state, "action": actions}
    if request.get("tools"):
        return {"tool_calls": [{"name": request["tools"][0]["function"]["name"], "arguments": output}]}
    return {"content": json.dumps(output)}


def brain(goal: str, evaluation: str = "Unknown", memory: str = "") -> dict[str, str]:
    """An agent state with the three fields browser-use requires."""
    return {"evaluation_previous_goal": evaluation, "memory": memory, "next_goal": goal}
