"""The Task contract every benchmark implements, and the episode trace the base env records for it.

A benchmark contributes a *world* (whatever its tasks run on: the shop servers and a browser session, the phone,
the PersonalWAB tool backend, the arena sites), a list of :class:`Task` objects, and the observation/action
plumbing of its env.  A task is a small class:

* :meth:`Task.setup` seeds the world for an episode and returns the reset ``info`` (never an answer);
* :meth:`Task.evaluate` scores the finished episode from the world and the :class:`EpisodeTrace` with the paper's
  score, its metrics and a check-by-check breakdown (:class:`Evaluation`);
* :meth:`Task.signals` gives dense progress values for reward shaping (privileged: the base env hands them to
  shaping wrappers through :meth:`~personal_envs.core.env.PersonalEnv.privileged_signals`, never through ``info``);
* :meth:`Task.user_context` gives the hidden context of the simulated user, for tasks that have one;
* :meth:`Task.hidden_strings` lists answer-key strings that must never reach the agent during an episode (the leak
  tests look for them in every observation and ``info``);
* :meth:`Task.oracle` optionally returns a scripted solution.

:class:`~personal_envs.core.env.PersonalEnv` records the trace itself (every action, its error, the dialogue turns
with the user's reply and decision) and calls :meth:`Task.evaluate` when the episode ends.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    import numpy as np

    from personal_envs.simulators.users.base import UserContext

WorldT = TypeVar("WorldT")


@dataclass(frozen=True)
class UserTurn:
    """One exchange with the simulated user: what the agent said, the reply and the user's decision.

    Attributes:
        action: The user-turn action (``respond``, ``ask_user``, ``send_msg_to_user``).
        message: The agent's message.
        reply: The user's reply text (what the agent sees).
        decision: ``"accept"`` / ``"reject"`` when the user decided on a proposal, else ``None``.
        step: The step number (1-based) of the exchange.
    """

    action: str
    message: str
    reply: str
    decision: str | None = None
    step: int = 0


@dataclass
class TraceStep:
    """One step as the base env saw it.

    Attributes:
        step: 1-based step number.
        action: The parsed action in flat form (``{"action_type": name, **arguments}``); ``None`` if it did not
            parse.
        error: The error text the agent was shown (empty when the action worked).
        user_turn: The exchange with the simulated user on this step, if any.
        record: Facts the benchmark's env recorded about what the action did (e.g. the ranked result ids of a
            search), read by its tasks' :meth:`Task.evaluate` and :meth:`Task.signals`.
    """

    step: int
    action: dict[str, Any] | None
    error: str = ""
    user_turn: UserTurn | None = None
    record: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str | None:
        """The action's name, ``None`` for an action that did not parse."""
        return None if self.action is None else str(self.action.get("action_type"))


@dataclass
class EpisodeTrace:
    """What the agent did in an episode: every step, the dialogue, and how it ended."""

    steps: list[TraceStep] = field(default_factory=list)
    #: Text of the final ``answer`` (or equivalent) action, if the episode ended with one.
    answer: str | None = None
    #: True when the agent ended the episode itself (a terminal action), False when it was cut or is running.
    finished: bool = False

    # ------------------------------------------------------------------------------------------ reading
    @property
    def actions(self) -> list[dict[str, Any]]:
        """The parsed actions in order, in flat form, each with ``user_reply`` / ``user_decision`` on user turns."""
        actions = []
        for step in self.steps:
            if step.action is None:
                continue
            action = dict(step.action)
            if step.user_turn is not None:
                action.update(user_reply=step.user_turn.reply, user_decision=step.user_turn.decision)
            actions.append(action)
        return actions

    @property
    def dialogue(self) -> list[UserTurn]:
        """Every exchange with the simulated user, in order."""
        return [step.user_turn for step in self.steps if step.user_turn is not None]

    @property
    def user_turn_count(self) -> int:
        """Number of times the agent addressed the user."""
        return sum(1 for step in self.steps if step.user_turn is not None)

    def last_decision(self) -> str | None:
        """The user's latest accept / reject decision, if any."""
        for turn in reversed(self.dialogue):
            if turn.decision is not None:
                return turn.decision
        return None

    def records(self, key: str) -> list[Any]:
        """Every value recorded under ``key`` in :attr:`TraceStep.record`, in step order."""
        return [step.record[key] for step in self.steps if key in step.record]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (for trajectories and judges)."""
        return {
            "steps": [
                {
                    "step": s.step,
                    "action": s.action,
                    "error": s.error,
                    "user_turn": None if s.user_turn is None else {
                        "action": s.user_turn.action, "message": s.user_turn.message, "reply": s.user_turn.reply,
                        "decision": s.user_turn.decision,
                    },
                }
                for s in self.steps
            ],
            "answer": self.answer,
            "finished": self.finished,
        }


@dataclass(frozen=True)
class Check:
    """One rule of an evaluation: its name, whether it held, and the evidence."""

    name: str
    passed: bool
    detail: str = ""


@dataclass
class Evaluation:
    """A task's verdict on a finished episode.

    Attributes:
        score: The paper's per-episode score (the episode's reward).
        metrics: Every metric of the paper for this episode, under stable names.
        checks: The check-by-check breakdown (which rules held, with the evidence).
        reason: One line summarising the verdict.
    """

    score: float
    metrics: dict[str, Any] = field(default_factory=dict)
    checks: list[Check] = field(default_factory=list)
    reason: str = ""

    @classmethod
    def from_checks(cls, checks: Sequence[Check], metrics: Mapping[str, Any] | None = None) -> Evaluation:
        """Score = fraction of checks that held; the reason lists the failures."""
        checks = list(checks)
        if not checks:
            return cls(0.0, dict(metrics or {}), [], "no checks were run")
        passed = sum(1 for c in checks if c.passed)
        failures = [f"{c.name}: {c.detail}" if c.detail else c.name for c in checks if not c.passed]
        reason = "all checks passed" if not failures else "failed " + "; ".join(failures)
        return cls(passed / len(checks), dict(metrics or {}), checks, reason)


class Task(ABC, Generic[WorldT]):
    """One task of a benchmark, over the benchmark's world ``WorldT``.

    Attributes:
        task_id: Stable id (what ``task=`` / ``task_id=`` kwargs and results files name).
    """

    task_id: str = ""

    def setup(self, world: WorldT, rng: np.random.Generator) -> dict[str, Any]:
        """Seed ``world`` for a new episode; return the reset ``info`` (task id, category; never an answer)."""
        return {"task_id": self.task_id}

    @abstractmethod
    def evaluate(self, world: WorldT, trace: EpisodeTrace) -> Evaluation:
        """The paper's score, metrics and check breakdown of the finished episode."""

    def signals(self, world: WorldT, trace: EpisodeTrace) -> dict[str, float]:
        """Dense progress values after the latest step (privileged; for shaping).  Shaping pays the change of
        each value times its weight, so values are running totals (e.g. answer pages visited so far)."""
        return {}

    def user_context(self, world: WorldT) -> UserContext | None:
        """The simulated user's hidden context for this episode (``None``: the task has no user)."""
        return None

    def hidden_strings(self, world: WorldT) -> Sequence[str]:
        """Answer-key strings that must never reach the agent before the episode ends (used by the leak tests)."""
        return ()

    def oracle(self) -> Any:
        """A scripted solution (benchmark-specific form), or ``None``."""
        return None
