"""The requests of an episode as trajectory files keep them: each step's exact messages, stored as what changed.

Consecutive requests of one conversation share most of their messages, so a step stores ``{"shared": k, "new":
[...]}``: its messages are the first ``k`` messages of the previous step's request followed by ``new``.
:func:`expand_requests` gives back every step's messages exactly as they were sent; :func:`episode_messages` the
whole conversation of an episode (the last request and the reply to it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["compress_request", "episode_messages", "expand_requests"]


def compress_request(previous: Sequence[Mapping[str, Any]] | None, messages: Sequence[Mapping[str, Any]]
                     ) -> dict[str, Any]:
    """``{"shared": k, "new": messages[k:]}`` where ``k`` messages open both ``previous`` and ``messages``."""
    shared = 0
    if previous:
        for before, now in zip(previous, messages, strict=False):
            if before != now:
                break
            shared += 1
    return {"shared": shared, "new": [dict(message) for message in messages[shared:]]}


def expand_requests(steps: Sequence[Mapping[str, Any]]) -> list[list[dict[str, Any]] | None]:
    """Each step's messages as sent (``None`` for a step without a request, such as a scripted policy's), from
    the ``request`` entries :func:`compress_request` wrote.

    Raises:
        ValueError: a step's ``shared`` count exceeds the previous request's messages (a damaged file).
    """
    previous: list[dict[str, Any]] = []
    expanded: list[list[dict[str, Any]] | None] = []
    for step in steps:
        request = step.get("request")
        if not isinstance(request, Mapping):
            expanded.append(None)
            continue
        shared = int(request.get("shared") or 0)
        if shared > len(previous):
            raise ValueError(f"step {step.get('step')}: request shares {shared} messages but the previous request "
                             f"had {len(previous)}")
        messages = previous[:shared] + [dict(m) for m in request.get("new") or []]
        expanded.append(messages)
        previous = messages
    return expanded


def episode_messages(steps: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The episode's conversation: its last request's messages and the reply to it (empty without requests)."""
    expanded = expand_requests(steps)
    for step, messages in zip(reversed(steps), reversed(expanded), strict=True):
        if messages is None:
            continue
        reply = (step.get("request") or {}).get("reply")
        return messages + ([dict(reply)] if isinstance(reply, Mapping) else [])
    return []
