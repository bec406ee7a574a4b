"""The shortcut audit's view of the BrowserArena ids (:func:`audit_spec`).

The agent ends with ``done``, idles with ``wait`` (0 s) and has no user.  The honest baselines are the scripted
policies each id registers (the paper's agent, ``browser-use``, needs its own virtualenv and a model, so it is not
run).  BrowserArena's own degenerate policy closes every banner or pop-up it meets without reading the page, then
claims success; the search may also finish with ``done`` carrying the whole element list it sees.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from personal_envs.audit.spec import AuditSpec
from personal_envs.browserarena.candidates import BrowserUseCandidates
from personal_envs.browserarena.policies import BANNER_BUTTONS, find_element
from personal_envs.core.registration import entry_for
from personal_envs.policies.base import Policy
from personal_envs.wrappers.candidates import Candidate

FINISH: dict[str, Any] = {"action_type": "done", "text": "I could not finish the task.", "success": False}
#: Longest ``done`` text the search builds from an observation.
ANSWER_CHARS = 4000
#: Registered policies that are not run by the audit (they need a model and their own virtualenv).
NOT_BASELINES = frozenset({"browser-use"})


class CloseBannersBlindly(Policy):
    """Clicks every banner / pop-up button it sees (the labels :mod:`~personal_envs.browserarena.policies` knows),
    never reads the page, and claims success when none is left."""

    name = "close_banners_without_reading"

    def __init__(self) -> None:
        self.played: list[str] = []

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        self.played = []

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        for label in BANNER_BUTTONS:
            index = find_element(observation, label)
            if index is not None and len(self.played) < 6:
                self.played.append(f"click {label!r}")
                return {"action_type": "click_element_by_index", "index": index}
        self.played.append("done")
        return {"action_type": "done", "text": "Done: the page is clear.", "success": True}


def make_close_banners(env: Any, seed: int = 0, **_: Any) -> CloseBannersBlindly:
    """Factory of the audit's ``close_banners_without_reading``."""
    return CloseBannersBlindly()


def page_text_answer(observation: dict[str, Any]) -> list[Candidate]:
    """``done`` with the element list the agent sees as its answer (an answer that says everything at once)."""
    text = str(observation.get("elements", "")).strip()[:ANSWER_CHARS]
    return [Candidate("done:page_text", "done with the page's text",
                      {"action_type": "done", "text": text or "nothing", "success": True})]


def audit_spec(env_id: str, env_kwargs: Mapping[str, Any] | None = None) -> AuditSpec:
    """The spec of the four BrowserArena ids."""
    baselines = tuple(name for name in entry_for(env_id).policies if name not in NOT_BASELINES)
    return AuditSpec(finish=FINISH, noop={"action_type": "wait", "seconds": 0}, baselines=baselines,
                     programs={"close_banners_without_reading": make_close_banners},
                     candidates=lambda env: BrowserUseCandidates(), extra_candidates=page_text_answer)
