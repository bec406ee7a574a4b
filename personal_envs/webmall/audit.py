"""The shortcut audit's view of the WebMall ids (:func:`audit_spec`).

The agent ends with ``report_infeasible`` (``Submit Final Result`` and a "Done" message end it too), idles with
``noop``, and has no user.  The registered baselines are the oracle and ``random``, which is degenerate, so no
honest non-oracle baseline is registered: any degenerate program with a positive score is flagged.  WebMall's own
degenerate policy submits every offer URL it saw: it opens the four shops named on the solution page, searches each
for the task's content words, and submits every ``/product/`` link of those pages.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from personal_envs.audit.spec import AuditSpec
from personal_envs.browser.axtree import parse_axtree
from personal_envs.core.text import content_words
from personal_envs.policies.base import Policy

FINISH: dict[str, Any] = {"action_type": "report_infeasible", "reason": "nothing found"}
_ORIGIN = re.compile(r"https?://[A-Za-z0-9.-]+(?::\d+)?")
_PRODUCT_URL = re.compile(r"url='([^']*/product/[^']*)'")
_TASK = re.compile(r"<task>(.*?)</task>", re.DOTALL)


class SubmitEverySeen(Policy):
    """Opens each shop's home page and its search for the task's words, then submits every offer URL seen."""

    name = "submit_every_url_seen"

    def __init__(self) -> None:
        self.plan: list[dict[str, Any]] = []
        self.seen: list[str] = []
        self.played: list[str] = []
        self._solution = ""
        self._filled = False
        self._went = False
        self._clicked = False

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        instruction = str(observation.get("instruction", ""))
        origins = list(dict.fromkeys(_ORIGIN.findall(instruction.split("<task>")[0])))
        shops, self._solution = origins[:4], origins[4] if len(origins) > 4 else ""
        task = _TASK.search(instruction)
        words = content_words(task.group(1) if task else instruction).replace(" ", "+")
        self.plan = [{"action_type": "goto", "url": f"{shop}{path}"} for shop in shops
                     for path in ("/", f"/?s={words}&post_type=product")]
        self.seen, self.played = [], []
        self._filled = self._went = self._clicked = False

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        self._collect(str(observation.get("axtree", "")))
        if self.plan:
            action = self.plan.pop(0)
            if len(self.played) < 3:
                self.played.append(f"goto {action['url']}")
            return action
        url = str(observation.get("url", ""))
        if self._solution and not url.startswith(self._solution) and not self._filled:
            if self._went:
                return dict(FINISH)
            self._went = True
            return {"action_type": "goto", "url": self._solution + "/"}
        elements = [(line.bid, line.role, line.name) for line in parse_axtree(str(observation.get("axtree", "")))]
        box = next((bid for bid, role, name in elements if role == "textbox" and name.startswith("Final result")), None)
        button = next((bid for bid, role, name in elements if role == "button" and "Submit Final Result" in name), None)
        if box is None or button is None:
            return dict(FINISH)
        if not self._filled:
            self._filled = True
            self.played.append(f"submit {len(self.seen)} URLs")
            return {"action_type": "fill", "bid": box, "value": "###".join(self.seen) or "Done"}
        if self._clicked:
            return dict(FINISH)
        self._clicked = True
        return {"action_type": "click", "bid": button}

    def _collect(self, axtree: str) -> None:
        for url in _PRODUCT_URL.findall(axtree):
            if url not in self.seen:
                self.seen.append(url)


def make_submit_every_seen(env: Any, seed: int = 0, **_: Any) -> SubmitEverySeen:
    """Factory of the audit's ``submit_every_url_seen``."""
    return SubmitEverySeen()


def audit_spec(env_id: str, env_kwargs: Mapping[str, Any] | None = None) -> AuditSpec:
    """The spec of ``WebMall-v0``, ``WebMall-Basic-v0`` and ``WebMall-Advanced-v0``."""
    return AuditSpec(finish=FINISH, noop={"action_type": "noop"}, oracle="oracle",
                     programs={"submit_every_url_seen": make_submit_every_seen})
