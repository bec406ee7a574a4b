"""What a benchmark tells the shortcut audit about one of its ids (:class:`AuditSpec`).

A benchmark names a factory in its registration entry (``EnvEntry.audit = "module:factory"``); the factory gets the
env id and the env arguments of the audit and returns an :class:`AuditSpec`: how its agent finishes, idles and talks to the user, which registered
policies are the honest baselines, its own degenerate policies, and the shortcuts it documents.  Nothing in the
audit package names a benchmark.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from personal_envs.wrappers.candidates import Candidate, CandidateProvider

#: A question no task needs (the issue's shortcut opened with it).
IRRELEVANT_QUESTION = "What is your phone number?"
#: A proposal that names nothing (the user decides by what it knows, not by these words).
NEUTRAL_PROPOSAL = "Shall I go ahead with that for you?"


@dataclass(frozen=True)
class AuditSpec:
    """The audit's view of one env id.

    Attributes:
        finish: The action that ends an episode at once (``{"action_type": "finished"}``).
        noop: An action that changes nothing (``wait``, ``noop``), or ``None`` when the env has none.
        ask: The user-turn action and its message argument (``("ask_user", "text")``), or ``None`` without a user.
        baselines: Registered policy names that are honest, non-oracle baselines (the paper's no-memory or
            scripted baselines); empty: none is registered, and any positive score of a degenerate program is
            flagged.
        oracle: The registered oracle policy's name, or ``None``.
        act: A registered policy that "always acts" (performs the task's action whatever the user wants), or
            ``None``: the audit's generic one (the first acting candidate at every step).
        programs: The benchmark's own degenerate policies: name -> factory ``(env, seed) -> Policy``.
        candidates: A factory ``(env) -> provider`` of the search's candidates (arguments drawn from the
            observation), or ``None``: the provider the id registers for RL
            (:func:`~personal_envs.wrappers.candidates.default_candidates`).
        extra_candidates: More candidates from an observation (e.g. an answer made of the page's text).
        env_kwargs: Arguments that make the env cheaper without changing scores (``screenshot=False``).
        documented: Flagged programs the benchmark documents instead of fixing: program name -> where and why.
    """

    finish: Mapping[str, Any]
    noop: Mapping[str, Any] | None = None
    ask: tuple[str, str] | None = None
    baselines: tuple[str, ...] = ()
    oracle: str | None = None
    act: str | None = None
    programs: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    candidates: Callable[[Any], CandidateProvider] | None = None
    extra_candidates: Callable[[dict[str, Any]], list[Candidate]] | None = None
    env_kwargs: Mapping[str, Any] = field(default_factory=dict)
    documented: Mapping[str, str] = field(default_factory=dict)

    def ask_action(self, text: str) -> dict[str, Any] | None:
        """The user-turn action saying ``text`` (``None`` without a user)."""
        if self.ask is None:
            return None
        name, argument = self.ask
        return {"action_type": name, argument: text}
