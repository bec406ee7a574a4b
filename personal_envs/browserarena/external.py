"""Steps that an agent ran in its own browser, recorded by the env as if it had run them.

browser-use's own ``Agent`` (:mod:`personal_envs.browserarena.browser_use_policy`) drives its own Chromium with its
own element indexing and controller, on the same local sites (through the env's proxy).  After each of its steps the
policy hands the env an :class:`ExternalStep`: the agent's state, its actions with their results and the URL before
and after each, and what the page showed afterwards (URL, tabs, captcha / banner flags, screenshot).  The env writes
it into the episode's trace exactly like a step it ran itself, so the rule judges, the LLM judge, the GIFs, the vote
page and the annotations read it unchanged.

Only the driver the env was given (:meth:`BrowserArenaEnv.accept_external_steps`) may hand it such steps: an
:class:`ExternalStep` whose ``driver`` is anything else is refused, so a model's output can never forge a trace.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: Keys of one recorded action (what the env's own steps record).
ACTION_KEYS = ("name", "arguments", "error", "result", "target", "url_before", "url_after")
#: Optional keys kept when present.
OPTIONAL_ACTION_KEYS = ("browser_use_name",)


@dataclass
class ExternalStep:
    """One step an external agent ran.

    Attributes:
        driver: The object the env was told to accept steps from.
        brain: ``evaluation_previous_goal``, ``memory``, ``next_goal``.
        actions: One dict per action run (:data:`ACTION_KEYS`), in order.
        url, title, tabs, active_tab, captcha, banner: What the page showed after the step.
        screenshot: The viewport after the step (``H x W x 3`` uint8) or ``None``.
        error: The step's error ("" if none).
        answer: The ``done`` action's text when the agent finished (``None`` otherwise).
        success: The ``done`` action's success flag.
        stop: The agent stopped without finishing (too many failures, its process ended): the episode ends.
        extra: Anything else worth keeping in the step record (e.g. the actions the model planned).
    """

    driver: object
    brain: dict[str, str] = field(default_factory=dict)
    actions: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""
    title: str = ""
    tabs: list[str] = field(default_factory=list)
    active_tab: int = 0
    captcha: bool = False
    banner: bool = False
    screenshot: np.ndarray | None = None
    error: str = ""
    answer: str | None = None
    success: bool = True
    stop: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:  # short, for trajectory files and logs (no screenshot array)
        names = ", ".join(str(a.get("name")) for a in self.actions)
        return f"ExternalStep(actions=[{names}], url={self.url!r}, answer={self.answer!r}, stop={self.stop})"

    def to_json(self) -> dict[str, Any]:
        """The step without the screenshot (what the agent output was, for logs)."""
        return {"current_state": dict(self.brain),
                "action": [{str(a.get("name")): a.get("arguments", {})} for a in self.actions]}


def action_record(action: dict[str, Any]) -> dict[str, Any]:
    """A recorded action with exactly the keys the env's own steps use (missing ones empty)."""
    record = {key: action.get(key, {} if key == "arguments" else "") for key in ACTION_KEYS}
    record["arguments"] = dict(record["arguments"] or {})
    record["result"] = str(record["result"] or "")[:2000]
    record.update({key: str(action[key]) for key in OPTIONAL_ACTION_KEYS if key in action})
    return record
