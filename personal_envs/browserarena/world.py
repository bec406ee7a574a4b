"""What a BrowserArena task runs on: the sites, the browser driver, and the browser-use log of an episode.

:class:`ArenaWorld` holds the local web (``None`` on the open web) and the browser session with its
:class:`~personal_envs.browserarena.driver.BrowserUseDriver`.  :meth:`ArenaWorld.log` turns the episode's
:class:`~personal_envs.core.task.EpisodeTrace` (whose step records the env fills with the agent's state, its actions
with the URL before and after, and what the page showed next: URL, tabs, captcha / banner flags) into the
browser-use style JSON trace that the rule judges (:mod:`personal_envs.browserarena.judges.rules`), the LLM judge
and the arena read.  (The synthetic content of the local sites is :mod:`personal_envs.browserarena.web.world`, a
different thing.)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from personal_envs.browser.session import BrowserSession
from personal_envs.browserarena.driver import UseDriverBase
from personal_envs.browserarena.web import LocalWeb, hosts
from personal_envs.core.actions import ActionError
from personal_envs.core.http import Request
from personal_envs.core.task import EpisodeTrace
from personal_envs.textmode.session import TextSession


@dataclass
class ArenaWorld:
    """The sites, the browser and what the episode's first page showed.

    Attributes:
        web: The local failure-mode sites, served through a proxy (``None`` on the open web).
        session: The browser session (one isolated context).
        driver: The browser-use driver over :attr:`session`.
        episode: The current task's ``task_id``, ``task`` (text), ``category`` and ``kind``.
        initial: What the start page showed (``url``, ``title``, ``captcha``, ``banner``, ``tabs``, ``active_tab``).
    """

    web: LocalWeb | None = None
    session: BrowserSession | TextSession | None = None
    driver: UseDriverBase | None = None
    episode: dict[str, str] = field(default_factory=dict)
    initial: dict[str, Any] = field(default_factory=dict)
    #: The LLM trace judge (``None``: rule judges only); see :func:`~personal_envs.browserarena.judges.llm.make_trace_judge`.
    trace_judge: Any = None

    def start(self, task_id: str, text: str, category: str, kind: str) -> None:
        """Begin a new episode of a task."""
        self.episode = {"task_id": task_id, "task": text, "category": category, "kind": kind}
        self.initial = {}

    def log(self, trace: EpisodeTrace) -> dict[str, Any]:
        """The browser-use log of the episode: the task, ``initial``, ``steps`` (each step's record: the agent's
        state, its actions with the URL before and after, what the page showed next) and ``final``."""
        steps = [step.record for step in trace.steps if "actions" in step.record]
        return {**self.episode, "initial": dict(self.initial), "steps": steps, "final": final_record(trace)}

    def search_api(self, query: str) -> str:
        """Results of the local search API for ``query``, as text for the agent."""
        if self.web is None:
            raise ActionError("search_api is only available with the local web")
        reply = self.web.handle(Request("GET", "/api/search", {"q": [query]}, hosts.SEARCH_HOST,
                                        {"Host": hosts.SEARCH_HOST}))
        data = json.loads(reply.text)
        lines = [f"{i + 1}. {r['title']}\n   {r['url']}\n   {r['snippet']}" for i, r in enumerate(data["results"])]
        return f"Search API results for {query!r}:\n" + ("\n".join(lines) or "(no results)")


def final_record(trace: EpisodeTrace) -> dict[str, Any]:
    """``answer``, ``success_claimed``, ``finished`` and ``steps`` of an episode (the ``done`` action's answer and
    success flag are in the trace: :attr:`EpisodeTrace.answer` and the step record ``success_claimed``)."""
    claims = trace.records("success_claimed")
    return {"answer": trace.answer or "", "success_claimed": bool(claims[-1]) if claims else None,
            "finished": trace.answer is not None, "steps": len(trace.steps)}


def trace_summary(log: dict[str, Any]) -> list[str]:
    """Compact ``"action url"`` lines of a browser-use log (kept in the episode metrics for the eval log)."""
    lines = []
    for step in log.get("steps", []):
        for action in step.get("actions", []):
            args = json.dumps(action.get("arguments", {}), ensure_ascii=False)[:200]
            lines.append(f"{step.get('step')}: {action.get('name')} {args} -> {action.get('url_after', '')[:200]}")
    return lines[:200]
