"""The degenerate policies of the shortcut audit, and short action programs over observed candidates.

A :class:`Script` plays a few steps and then a tail: ``"finish"`` (the env's finishing action) or ``"repeat"`` (the
last step again until the episode ends, at the step limit for actions that never end it).  A step is either a fixed
action or a :class:`Choice`: the ``rank``-th candidate of a family among the candidates the current observation
offers (:class:`CandidateSource`: the id's RL candidate provider plus the spec's extra candidates), so a program's
arguments are always drawn from what the agent sees.  :func:`degenerate_policies` builds the fixed family every id
is audited with.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from personal_envs.audit.spec import IRRELEVANT_QUESTION, NEUTRAL_PROPOSAL, AuditSpec
from personal_envs.policies.base import Policy, RandomPolicy
from personal_envs.wrappers.candidates import Candidate, CandidateProvider

#: The fixed degenerate family, in table order (benchmark-specific ones follow).
DEGENERATE: tuple[str, ...] = ("finish_at_once", "noop_until_limit", "always_ask", "ask_irrelevant_then_finish",
                               "always_act", "repeat_first_action", "random")


class CandidateSource:
    """The candidates an observation offers: the provider's, then the spec's extra ones."""

    def __init__(self, provider: CandidateProvider,
                 extra: Callable[[dict[str, Any]], list[Candidate]] | None = None) -> None:
        self.provider = provider
        self.extra = extra

    def __call__(self, observation: dict[str, Any]) -> list[Candidate]:
        try:
            found = list(self.provider(observation))
        except Exception:  # noqa: BLE001 - an observation the provider cannot read offers no candidates
            found = []
        return found + (list(self.extra(observation)) if self.extra is not None else [])

    def families(self, observation: dict[str, Any]) -> dict[str, int]:
        """Family -> how many candidates of it the observation offers (in first-seen order)."""
        counts: dict[str, int] = {}
        for candidate in self(observation):
            counts[candidate.family] = counts.get(candidate.family, 0) + 1
        return counts


@dataclass(frozen=True)
class Choice:
    """A program step: the ``rank``-th candidate of ``family`` in the current observation."""

    family: str
    rank: int = 0

    def pick(self, candidates: Sequence[Candidate]) -> Candidate | None:
        """The chosen candidate, or ``None`` when the observation offers fewer of that family."""
        of_family = [c for c in candidates if c.family == self.family]
        return of_family[self.rank] if self.rank < len(of_family) else None

    def __str__(self) -> str:
        return self.family if self.rank == 0 else f"{self.family}#{self.rank}"


Step = Mapping[str, Any] | Choice


class Script(Policy):
    """Plays ``steps``, then ``tail``: ``"finish"`` ends with ``finish``; ``"repeat"`` plays the last step again
    until the episode ends.  A :class:`Choice` the observation cannot satisfy ends the episode with ``finish``.

    Args:
        name: Row name in the table.
        steps: Fixed actions and :class:`Choice` steps.
        finish: The env's finishing action.
        source: Candidates of an observation (needed by :class:`Choice` steps).
        tail: ``"finish"`` or ``"repeat"``.
    """

    def __init__(self, name: str, steps: Sequence[Step], finish: Mapping[str, Any],
                 source: CandidateSource | None = None, tail: str = "finish") -> None:
        if tail not in ("finish", "repeat"):
            raise ValueError(f"tail must be 'finish' or 'repeat', got {tail!r}")
        self.name = name
        self.steps = tuple(steps)
        self.finish = dict(finish)
        self.source = source
        self.tail = tail
        self._played = 0
        #: The concrete actions of the latest episode (what the table shows as an example).
        self.played: list[str] = []

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        self._played = 0
        self.played = []

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        index = self._played
        self._played += 1
        if index >= len(self.steps):
            if self.tail == "finish" or not self.steps:
                return self._log(self.finish, "finish")
            index = len(self.steps) - 1
        step = self.steps[index]
        if isinstance(step, Choice):
            chosen = step.pick(self.source(observation)) if self.source is not None else None
            if chosen is None:
                return self._log(self.finish, f"finish ({step} not offered)")
            return self._log(chosen.action, chosen.label)
        return self._log(step, _label(step))

    def _log(self, action: Mapping[str, Any], label: str) -> dict[str, Any]:
        if len(self.played) < 4:
            self.played.append(label)
        return dict(action)


class RepeatFirst(Policy):
    """Takes the first candidate of the first observation and plays it at every step until the episode ends."""

    name = "repeat_first_action"

    def __init__(self, source: CandidateSource, finish: Mapping[str, Any]) -> None:
        self.source = source
        self.finish = dict(finish)
        self._action: dict[str, Any] | None = None
        self.played: list[str] = []

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        candidates = self.source(observation)
        first = next((c for c in candidates if c.action.get("action_type") != self.finish.get("action_type")), None)
        self._action = dict(first.action) if first is not None else dict(self.finish)
        self.played = [first.label if first is not None else "finish"]

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        return dict(self._action or self.finish)


class FirstActing(Policy):
    """"Always act" without a registered one: at every step the first candidate that acts (not finishing,
    idling or talking to the user)."""

    name = "always_act"

    def __init__(self, source: CandidateSource, finish: Mapping[str, Any], passive: Sequence[str]) -> None:
        self.source = source
        self.finish = dict(finish)
        self.passive = frozenset(passive)
        self.played: list[str] = []

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        self.played = []

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        for candidate in self.source(observation):
            if candidate.action.get("action_type") not in self.passive:
                if len(self.played) < 4:
                    self.played.append(candidate.label)
                return dict(candidate.action)
        return dict(self.finish)


def _label(action: Mapping[str, Any]) -> str:
    arguments = {k: v for k, v in action.items() if k != "action_type"}
    text = ", ".join(f"{k}={str(v)[:60]!r}" for k, v in arguments.items())
    return f"{action.get('action_type')}({text})"


def degenerate_policies(spec: AuditSpec, source: CandidateSource, env: Any, seed: int,
                        registered: Callable[[str], Policy]) -> dict[str, Policy]:
    """The fixed degenerate family for an id, then the benchmark's own degenerate policies.

    Args:
        spec: The id's audit spec.
        source: Candidates of an observation.
        env: The made env (for the random policy and the benchmark's factories).
        seed: Seed of the random policy.
        registered: Makes a registered policy by name (the registry's ``always_act``, ``random``).
    """
    finish = spec.finish
    policies: dict[str, Policy] = {"finish_at_once": Script("finish_at_once", (), finish)}
    if spec.noop is not None:
        policies["noop_until_limit"] = Script("noop_until_limit", (spec.noop,), finish, tail="repeat")
    proposal, irrelevant = spec.ask_action(NEUTRAL_PROPOSAL), spec.ask_action(IRRELEVANT_QUESTION)
    if proposal is not None and irrelevant is not None:
        policies["always_ask"] = Script("always_ask", (proposal,), finish, tail="repeat")
        policies["ask_irrelevant_then_finish"] = Script("ask_irrelevant_then_finish", (irrelevant,), finish)
    passive = [str(finish.get("action_type"))] + [str(a.get("action_type")) for a in (spec.noop, proposal) if a]
    policies["always_act"] = registered(spec.act) if spec.act else FirstActing(source, finish, passive)
    policies["repeat_first_action"] = RepeatFirst(source, finish)
    policies["random"] = RandomPolicy(env, seed=seed)
    for name, factory in spec.programs.items():
        policies[name] = factory(env, seed=seed)
    return policies
