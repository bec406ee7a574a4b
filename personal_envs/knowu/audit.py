"""The shortcut audit's view of the KnowU ids (:func:`audit_spec`).

The agent finishes with ``finished``, idles with ``wait`` and talks to the user with ``ask_user``.  The honest
non-oracle baseline of the personalized and proactive ids is ``always_silent`` (the release's leaderboard reference:
64.1 % SR on the 64 proactive variants); the general id registers none.  ``always_act`` and ``always_ask`` are
privileged (they read the task's plan), so they are not baselines; on the proactive id the registered
``always_act`` is the audit's "always act" (the routine's action whatever the habit).  The search adds two
candidates the phone provider does not offer: an irrelevant question, and an ``answer`` made of the observation's
own text.

Under ``protocol="paper"`` the proactive id keeps the official consent parser, whose first answered exchange decides
and reads an untagged reply as a rejection: asking something that is no proposal and finishing is then a "respected
rejection".  The audit flags it; the spec documents it as that official quirk (docs/knowu.md states its effect).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from personal_envs.audit.spec import IRRELEVANT_QUESTION, AuditSpec
from personal_envs.wrappers.candidates import Candidate

#: Longest ``answer`` text the search builds from an observation.
ANSWER_CHARS = 2000
#: Why the paper protocol's irrelevant-question programs beat silence (see docs/knowu.md, the official routines).
PAPER_PARSER_QUIRK = ("official quirk kept under protocol='paper': the first answered exchange decides and an "
                      "untagged reply is a rejection (docs/knowu.md, KnowU-Proactive-v0)")


def observed_candidates(observation: dict[str, Any]) -> list[Candidate]:
    """An irrelevant question, and an answer that repeats what the agent sees (context, then instruction)."""
    seen = " ".join(str(observation.get(key, "")) for key in ("context", "instruction")).strip()[:ANSWER_CHARS]
    return [Candidate("ask_user:irrelevant", f"ask {IRRELEVANT_QUESTION!r}",
                      {"action_type": "ask_user", "text": IRRELEVANT_QUESTION}),
            Candidate("answer:observation", "answer with the observation's text",
                      {"action_type": "answer", "text": seen or "done"})]


def audit_spec(env_id: str, env_kwargs: Mapping[str, Any] | None = None) -> AuditSpec:
    """The spec of ``KnowU-General-v0``, ``KnowU-Personalized-v0`` or ``KnowU-Proactive-v0`` (``env_kwargs``: the
    audit's env arguments; ``protocol="paper"`` documents the official parser's quirk)."""
    personal = env_id != "KnowU-General-v0"
    paper = env_id == "KnowU-Proactive-v0" and (env_kwargs or {}).get("protocol") == "paper"
    documented = {name: PAPER_PARSER_QUIRK for name in ("ask_irrelevant_then_finish", "ask_user:irrelevant")}
    return AuditSpec(
        finish={"action_type": "finished"}, noop={"action_type": "wait"}, ask=("ask_user", "text"),
        baselines=("always_silent",) if personal else (), oracle="oracle",
        act="always_act" if env_id == "KnowU-Proactive-v0" else None,
        extra_candidates=observed_candidates, env_kwargs={"screenshot": False, "ui_hierarchy": True},
        documented=documented if paper else {},
    )
