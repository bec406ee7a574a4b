"""RL action candidates for BrowserArena's BrowserUse actions: click or type by element index, scrolling, going
back, waiting, and finishing with a canned message (the control actions in fixed slots)."""

from __future__ import annotations

import re
from typing import Any

from personal_envs.core.text import content_words
from personal_envs.wrappers.candidates import Candidate

_ELEMENT_LINE = re.compile(r"^\s*\[(?P<index>\d+)\]<(?P<tag>[A-Za-z0-9-]+)(?P<attrs>[^>]*)>(?P<text>[^<]*)")
_TYPABLE_TAGS = frozenset({"input", "textarea"})


class BrowserUseCandidates:
    """BrowserUse-style candidates from the numbered element list (BrowserArena): click or type by index,
    scrolling, going back, and finishing with a canned message.

    Args:
        max_elements: Most element candidates (list order).
        done_text: The text of the ``done`` candidate.
    """

    families: tuple[str, ...] = ("click_element_by_index", "input_text", "go_back", "scroll_down", "scroll_up", "done",
                                 "wait")
    #: The control actions, always in these slots (before the elements).
    fixed_slots: tuple[str, ...] = ("done", "wait", "go_back", "scroll_down", "scroll_up")

    def __init__(self, max_elements: int = 48, done_text: str = "I could not finish the task.") -> None:
        self.max_elements = max_elements
        self.done_text = done_text

    def __call__(self, observation: dict[str, Any]) -> list[Candidate]:
        query = content_words(str(observation.get("task", ""))) or "search"
        candidates: list[Candidate] = []
        for line in str(observation.get("elements", "")).splitlines():
            if len(candidates) >= self.max_elements:
                break
            match = _ELEMENT_LINE.match(line)
            if match is None:
                continue
            index, tag, text = int(match.group("index")), match.group("tag").lower(), match.group("text").strip()
            if tag in _TYPABLE_TAGS:
                candidates.append(Candidate("input_text", f"type '{query[:30]}' into [{index}]",
                                            {"action_type": "input_text", "index": index, "text": query}))
            else:
                candidates.append(Candidate("click_element_by_index", f"click [{index}] {tag} '{text[:40]}'",
                                            {"action_type": "click_element_by_index", "index": index}))
        control = [
            Candidate("done", f"done: '{self.done_text}'", {"action_type": "done", "text": self.done_text}, slot="done"),
            Candidate("wait", "wait 1 s", {"action_type": "wait", "seconds": 1}, slot="wait"),
            Candidate("go_back", "go back", {"action_type": "go_back"}, slot="go_back"),
            Candidate("scroll_down", "scroll down", {"action_type": "scroll_down"}, slot="scroll_down"),
            Candidate("scroll_up", "scroll up", {"action_type": "scroll_up"}, slot="scroll_up"),
        ]
        return control + candidates


def make_candidates(env: Any) -> BrowserUseCandidates:
    """Factory named in the registration entries."""
    return BrowserUseCandidates()
