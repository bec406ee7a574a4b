"""What a KnowU task is, for every split: a core :class:`~personal_envs.core.task.Task` over a :class:`PhoneWorld`.

A task seeds the phone's app state, gives the instruction, scores the end state and the
:class:`~personal_envs.core.task.EpisodeTrace` (:meth:`PhoneTask.verify`), and starts the simulated user with its
hidden context (:meth:`PhoneTask.user_context`).  The three families implement it in
:mod:`personal_envs.knowu.official` (general classes, preference and routine variants); all of them run on
:class:`personal_envs.knowu.env.KnowUEnv` unchanged.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from personal_envs.core.task import Check, EpisodeTrace, Evaluation, Task
from personal_envs.knowu.actions import PASSIVE_ACTIONS
from personal_envs.knowu.official.paper_metrics import SUCCESS_THRESHOLD
from personal_envs.knowu.official.release import PROJECT_LABEL
from personal_envs.knowu.state import remember
from personal_envs.simulators.users.base import UserContext

if TYPE_CHECKING:
    import numpy as np

    from personal_envs.simulators.phone.phone import Phone
    from personal_envs.simulators.users.base import SimulatedUser


def is_success(score: float) -> bool:
    """KnowU success: S > 0.99 (the official metrics script's threshold)."""
    return score > SUCCESS_THRESHOLD


class PhoneBackend(Protocol):
    """What the env needs from a phone: the simulator or a real Android device."""

    name: str

    @property
    def screenshot_shape(self) -> tuple[int, int, int]: ...

    @property
    def screenshot_scale(self) -> float: ...

    def reset(self, phone: Phone) -> None: ...

    def execute(self, name: str, args: dict[str, Any]) -> None: ...

    def observe(self, screenshot: bool = True) -> tuple[np.ndarray | None, str]: ...

    def context(self) -> dict[str, Any]: ...

    def close(self) -> None: ...


@dataclass
class PhoneWorld:
    """What KnowU tasks run on: the phone's app state and the backend that shows it (simulator or device).

    Attributes:
        phone: The app state the tasks seed and verify.
        backend: The phone backend that shows the app state (``None``: no screen, e.g. a verifier test).
    """

    phone: Phone
    backend: PhoneBackend | None = None

    @property
    def verifiable(self) -> bool:
        """False on backends whose app state the rule checks cannot read (a real device)."""
        return bool(getattr(self.backend, "verifiable", True))


def acting_steps(trace: EpisodeTrace) -> list[int]:
    """Step numbers of the actions that act: valid, no error, and not in :data:`PASSIVE_ACTIONS`."""
    return [s.step for s in trace.steps if s.name is not None and s.name not in PASSIVE_ACTIONS and not s.error]


def first_rejection_step(trace: EpisodeTrace) -> int | None:
    """Step number of the first exchange the user rejected, or ``None``."""
    return next((turn.step for turn in trace.dialogue if turn.decision == "reject"), None)


class PhoneTask(Task[PhoneWorld]):
    """Base class of KnowU tasks.

    Attributes:
        task_id: Stable id (also the ``task=`` kwarg of the env).
        split: ``"general"``, ``"personalized"`` or ``"proactive"``.
        difficulty: ``"easy"`` or ``"hard"``.
        apps: Apps the task involves.
        instruction: What the agent is told.
        start: Simulated date and time at the start of the episode.
        routine_applies: Proactive only: whether the user has the habit (privileged; ``None`` elsewhere).
        task_set: Which task set the task belongs to: ``"KnowU-Bench 0dd7989"`` for official variants, else
            :data:`~personal_envs.knowu.official.release.PROJECT_LABEL` (records and tables print it).
        protocol: The env's ``protocol`` (``"paper"`` or ``None``), set by the env; tasks whose official scoring
            has a quirk the default protocol closes read it (the routine consent parser).
        personas: The label of the persona set a preference / routine variant's persona comes from (``"official
            roles"``, ``"default personas"``, a generated or dropped-in folder's name); ``""`` otherwise.
    """

    task_id: str = ""
    split: str = "general"
    difficulty: str = "easy"
    apps: tuple[str, ...] = ()
    instruction: str = ""
    start: datetime = datetime(2026, 2, 9, 9, 0)
    routine_applies: bool | None = None
    task_set: str = PROJECT_LABEL
    protocol: str | None = None
    personas: str = ""

    # ------------------------------------------------------------------------------------ subclass hooks
    @abstractmethod
    def seed(self, phone: Phone) -> None:
        """Put the task's initial state into the apps and the device."""

    @abstractmethod
    def verify(self, phone: Phone, trace: EpisodeTrace) -> Evaluation:
        """Score the end state (and the trace) of an episode: score, checks, reason and split-specific metrics."""

    def user_facts(self) -> dict[str, Any]:
        """What the simulated user knows about the task (hidden from the agent)."""
        return {"instruction": self.instruction}

    def make_user(self) -> SimulatedUser:
        """The simulated user of this task; by default the official general user (it knows the request and the
        device date, nothing more)."""
        from personal_envs.knowu.official.general.user import OfficialGeneralUser

        return OfficialGeneralUser(self.instruction, f"{self.start:%Y-%m-%d}")

    def gps_fix(self) -> tuple[float, float] | None:
        """Where the task's official set-up places the emulator's GPS (latitude, longitude), else ``None``."""
        return None

    def agent_logs(self) -> str:
        """User history shown to the agent in ``logs`` (empty for general tasks)."""
        return ""

    def official_goal(self) -> str:
        """The goal as the official server hands it to the agent (``/task/goal``, ``protocol="paper"``): the
        instruction, unless the family frames it with the logs (the preference classes)."""
        return self.instruction

    def situation(self, phone: Phone) -> dict[str, Any]:
        """The current situation handed to the simulated user (hidden from the agent)."""
        return {"context": phone.device.context_text()}

    def context_extra(self) -> str:
        """Extra device context shown to the agent in ``context`` (notifications, system status)."""
        return ""

    def user_profile(self) -> dict[str, Any]:
        """Hidden profile handed to the simulated user only (empty for general tasks)."""
        return {}

    def reset_info(self) -> dict[str, Any]:
        """Grouping keys for the reset info and the report (never answer keys)."""
        return {"task_id": self.task_id, "split": self.split, "difficulty": self.difficulty, "apps": list(self.apps),
                "task_set": self.task_set}

    # ------------------------------------------------------------------------------------ core contract
    def prepare(self, phone: Phone) -> None:
        """Seed ``phone`` and mark what seeding put there (at the end, what is new is what the episode did)."""
        self.seed(phone)
        remember(phone)

    def setup(self, world: PhoneWorld, rng: np.random.Generator) -> dict[str, Any]:
        """Seed ``world.phone`` (already set to :attr:`start`); return :meth:`reset_info`."""
        self.prepare(world.phone)
        return self.reset_info()

    def user_context(self, world: PhoneWorld) -> UserContext:
        """The simulated user's hidden profile, task facts and situation."""
        return UserContext(profile=self.user_profile(), task=self.user_facts(), situation=self.situation(world.phone))

    def evaluate(self, world: PhoneWorld, trace: EpisodeTrace) -> Evaluation:
        """:meth:`verify` (score clipped to [0, 1]) plus the metrics every split reports; a verifier that raises
        scores 0 with the error as the reason."""
        if not world.verifiable:
            backend = getattr(world.backend, "name", "?")
            verdict = Evaluation(0.0, {"verification_unavailable": True}, [], "rule verification reads the "
                                 f"simulator's app state and is not available on backend={backend!r}")
        else:
            try:
                verdict = self.verify(world.phone, trace)
            except Exception as exc:  # a broken verifier is reported, never scored silently
                verdict = Evaluation(0.0, {"verifier_error": True}, [Check("verifier", False, str(exc))],
                                     f"verifier error: {type(exc).__name__}: {exc}")
        score = float(min(1.0, max(0.0, verdict.score)))
        asks = trace.user_turn_count
        metrics: dict[str, Any] = {
            "score": score,
            "success": is_success(score),
            "rule_score": score,
            "reason": verdict.reason,
            "checks": {c.name: c.passed for c in verdict.checks},
            "ask_user_count": asks,
            "interaction_efficiency": score / max(asks, 1),
            "split": self.split,
            "difficulty": self.difficulty,
            "task_set": self.task_set,
            **({"personas": self.personas} if self.personas else {}),
            "finished": trace.finished,
            "answer": trace.answer or "",
        }
        metrics.update(verdict.metrics)
        return Evaluation(score, metrics, list(verdict.checks), verdict.reason)

    def signals(self, world: PhoneWorld, trace: EpisodeTrace) -> dict[str, float]:
        """Running totals for shaping: acting steps when the routine does not apply (proactive), and acting steps
        after the user rejected a proposal."""
        acting = acting_steps(trace)
        rejected = first_rejection_step(trace)
        return {
            "acts_without_routine": float(len(acting)) if self.routine_applies is False else 0.0,
            "acts_after_rejection": float(sum(1 for step in acting if rejected is not None and step > rejected)),
        }

    def hidden_strings(self, world: PhoneWorld) -> Sequence[str]:
        """Answer-key strings (subclasses list what their checks and judge look for)."""
        return ()
