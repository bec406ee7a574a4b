"""Where votes come from: a person in the terminal, in a notebook or on the vote page, or a judge.

Every voter has ``vote(record, trace_a, trace_b) -> Vote``; ``winner`` is ``"model_a"`` (left), ``"model_b"``
(right), ``"tie"`` or ``"tie (bothbad)"``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from personal_envs.browserarena.arena.store import ArenaStore, BattleRecord
from personal_envs.browserarena.judges.llm import parse_json_reply, trace_to_text

_CHOICES = {"l": "model_a", "left": "model_a", "a": "model_a", "r": "model_b", "right": "model_b",
            "b": "model_b", "t": "tie", "tie": "tie", "x": "tie (bothbad)", "bothbad": "tie (bothbad)",
            "both bad": "tie (bothbad)"}


@dataclass(frozen=True)
class Vote:
    """A vote, who (or what) cast it, and whether a person (``"human"``) or a judge (``"judge"``) did."""

    winner: str
    voter: str
    reason: str = ""
    source: str = "human"


def parse_choice(text: str) -> str | None:
    """``"l"``/``"left"`` -> ``model_a``, ``"r"`` -> ``model_b``, ``"t"`` -> tie, ``"x"`` -> both bad."""
    return _CHOICES.get(text.strip().lower())


class TerminalVoter:
    """Shows both traces as text and asks for left / right / tie / both bad on the terminal."""

    def __init__(self, ask: Callable[[str], str] = input, show: Callable[[str], None] = print,
                 name: str = "terminal") -> None:
        self.ask, self.show, self.name = ask, show, name

    def vote(self, record: BattleRecord, trace_a: dict[str, Any], trace_b: dict[str, Any]) -> Vote:
        self.show(f"Task: {record.task_text}\n\n=== LEFT ({record.gif_a}) ===\n{trace_to_text(trace_a, 6000)}\n\n"
                  f"=== RIGHT ({record.gif_b}) ===\n{trace_to_text(trace_b, 6000)}\n")
        for _ in range(20):
            choice = parse_choice(self.ask("Which agent did better? [l]eft / [r]ight / [t]ie / [x] both bad: "))
            if choice:
                return Vote(choice, self.name)
            self.show("Please answer l, r, t or x.")
        raise RuntimeError("no valid vote after 20 tries")


def notebook_html(record: BattleRecord) -> str:
    """The battle as HTML for a notebook cell: the task (escaped: a submitted task is anyone's text, and a notebook
    runs scripts with the kernel's rights) and both GIFs inlined side by side."""
    import base64
    import html

    def img(path: str) -> str:
        with open(path, "rb") as handle:
            data = base64.b64encode(handle.read()).decode("ascii")
        return f"<img src='data:image/gif;base64,{data}' style='width:100%'>"

    return (f"<p><b>Task:</b> {html.escape(record.task_text)}</p><table><tr><th>Left</th><th>Right</th></tr>"
            f"<tr><td>{img(record.gif_a)}</td><td>{img(record.gif_b)}</td></tr></table>")


class NotebookVoter:
    """In Jupyter: shows both GIFs side by side, then asks with ``input()`` (works in every notebook front-end)."""

    def __init__(self, ask: Callable[[str], str] = input, name: str = "notebook") -> None:
        self.ask, self.name = ask, name

    def vote(self, record: BattleRecord, trace_a: dict[str, Any], trace_b: dict[str, Any]) -> Vote:
        try:
            from IPython.display import HTML, display

            display(HTML(notebook_html(record)))
        except Exception:  # not in IPython, or the GIFs are gone: fall back to text
            print(trace_to_text(trace_a, 4000), "\n---\n", trace_to_text(trace_b, 4000))
        return TerminalVoter(self.ask, lambda text: None, self.name).vote(record, trace_a, trace_b)


class WebVoter:
    """Waits for a vote cast on the vote page (:class:`~personal_envs.browserarena.arena.vote_page.VotePage`)."""

    def __init__(self, store: ArenaStore, page_url: str, *, timeout_s: float = 3600.0, poll_s: float = 0.5,
                 announce: Callable[[str], None] = print) -> None:
        self.store, self.page_url, self.timeout_s, self.poll_s, self.announce = (store, page_url, timeout_s,
                                                                                 poll_s, announce)

    def vote(self, record: BattleRecord, trace_a: dict[str, Any], trace_b: dict[str, Any]) -> Vote:
        self.announce(f"Vote at {self.page_url.rstrip('/')}/battle/{record.battle_id}")
        deadline = time.monotonic() + self.timeout_s
        while time.monotonic() < deadline:
            stored = self.store.battle(record.battle_id)
            if stored.winner:
                return Vote(stored.winner, stored.voter or "web", stored.vote_reason)
            time.sleep(self.poll_s)
        raise TimeoutError(f"no vote for battle {record.battle_id} within {self.timeout_s:.0f} s")


class ScoreVoter:
    """Deterministic fallback judge: the side with the higher env score wins, equal scores tie.

    It says so in its name (``"score-fallback"``), so its votes are never mistaken for a person's or a model's.
    """

    name = "score-fallback"

    def vote(self, record: BattleRecord, trace_a: dict[str, Any], trace_b: dict[str, Any]) -> Vote:
        score_a, score_b = float(trace_a.get("score", 0.0)), float(trace_b.get("score", 0.0))
        if score_a > score_b:
            return Vote("model_a", self.name, f"score {score_a} > {score_b}", "judge")
        if score_b > score_a:
            return Vote("model_b", self.name, f"score {score_b} > {score_a}", "judge")
        return Vote("tie" if score_a > 0 else "tie (bothbad)", self.name, f"equal scores {score_a}", "judge")


JUDGE_SYSTEM_PROMPT = (
    "You compare two web agents that worked on the same user task. Read both logs and decide which agent served "
    "the user better: completed the task, reported truthfully, and did not claim success it did not achieve. "
    "Answer with one JSON object: {\"winner\": \"left\" | \"right\" | \"tie\" | \"both_bad\", \"reason\": \"...\"}."
)


class JudgeVoter:
    """A judge model votes (``client.chat(messages) -> reply with .content``).  Failures raise, never guess."""

    def __init__(self, client: Any, name: str = "llm-judge") -> None:
        self.client, self.name = client, name

    def vote(self, record: BattleRecord, trace_a: dict[str, Any], trace_b: dict[str, Any]) -> Vote:
        user = (f"Task: {record.task_text}\n\n=== LEFT AGENT ===\n{trace_to_text(trace_a, 10_000)}\n\n"
                f"=== RIGHT AGENT ===\n{trace_to_text(trace_b, 10_000)}")
        reply = self.client.chat([{"role": "system", "content": JUDGE_SYSTEM_PROMPT},
                                  {"role": "user", "content": user}])
        content = str(getattr(reply, "content", "") or "")
        parsed = parse_json_reply(content)
        winner = {"left": "model_a", "right": "model_b", "tie": "tie", "both_bad": "tie (bothbad)",
                  "both bad": "tie (bothbad)"}.get(str(parsed.get("winner", "")).strip().lower())
        if winner is None:
            raise ValueError(f"judge answered an unknown winner: {json.dumps(parsed)[:200]}")
        return Vote(winner, self.name, str(parsed.get("reason", ""))[:2000], "judge")
