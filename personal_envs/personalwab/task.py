"""A PersonalWAB task on the core contract: one instruction of a user, scored by the calls the agent made.

The env records each task-function call in the trace (``record["call"]``: the function and the ranked ids it
returned, or the review text); :meth:`PersonalWABTask.evaluate` scores those calls against the hidden target with
the paper's metrics, and :meth:`PersonalWABTask.signals` exposes the running call accuracy for shaping.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from personal_envs.core.task import Check, EpisodeTrace, Evaluation, Task
from personal_envs.personalwab import functions as fn
from personal_envs.personalwab.scoring import (
    CallScore,
    episode_metrics,
    score_failed_call,
    score_ranked_call,
    score_review_call,
)
from personal_envs.simulators.users.base import UserContext

if TYPE_CHECKING:
    import numpy as np

    from personal_envs.personalwab.env import Backend


@dataclass
class PersonalWABWorld:
    """What PersonalWAB tasks run on: the data, search index and recommender, and the review similarity."""

    backend: Backend
    review_similarity: Callable[[str, str], float]


@dataclass
class PersonalWABTask(Task[PersonalWABWorld]):
    """One instruction record (official schema: ``user_id``, ``type``, ``task``, ``timestamp``, ``target``).

    Attributes:
        record: The instruction record.
        split: The split it comes from.
        index: Its position in the split (the task id is ``"{split}:{index}"``).
        result_formula: ``"official"`` (``1 - i/len(results)``, default) or ``"paper"`` (``1 - (rank-1)/10``).
    """

    record: dict[str, Any]
    split: str
    index: int
    result_formula: str = "official"
    _scores: dict[int, CallScore] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.task_id = f"{self.split}:{self.index}"

    # ---------------------------------------------------------------------------------------------- facts
    @property
    def task_type(self) -> str:
        """``"search"``, ``"recommend"`` or ``"review"``."""
        return str(self.record["type"])

    @property
    def user_id(self) -> str:
        return str(self.record["user_id"])

    @property
    def target(self) -> dict[str, Any]:
        """The hidden target product (privileged)."""
        return dict(self.record["target"]["product_info"])

    @property
    def target_asin(self) -> str:
        return str(self.target["parent_asin"])

    @property
    def target_review(self) -> str:
        return str(self.record["target"].get("review", {}).get("text", ""))

    def instruction(self, card_template: str | None = None) -> str:
        """What the agent is told: ``USER {user_id}: {task}``; review tasks add the product's details (the official
        user module's product template when given, else the project's card)."""
        text = f"USER {self.user_id}: {self.record['task']}"
        if self.task_type == "review":
            card = (fn.fill_product(card_template, self.target) if card_template is not None
                    else fn.product_card(self.target))
            text += "\nHere is the product information: " + card
        return text

    # ------------------------------------------------------------------------------------------- contract
    def setup(self, world: PersonalWABWorld, rng: np.random.Generator) -> dict[str, Any]:
        self._scores = {}
        return {"task_id": self.task_id, "task_type": self.task_type, "user_id": self.user_id}

    def user_context(self, world: PersonalWABWorld) -> UserContext:
        profile = world.backend.data.profiles.get(self.user_id, {})
        return UserContext(
            profile=dict(profile),
            task={
                "type": self.task_type,
                "instruction": self.record["task"],
                "product": self.target,
                "review": self.record["target"].get("review", {}) if self.task_type == "review" else {},
            },
        )

    def evaluate(self, world: PersonalWABWorld, trace: EpisodeTrace) -> Evaluation:
        calls = self.scored_calls(world, trace)
        metrics = episode_metrics(self.task_type, calls, len(trace.steps))
        metrics["user_id"] = self.user_id
        checks = [
            Check(f"call {i + 1}: {call.function}", call.correct_function and call.result_accuracy > 0,
                  ("failed (scored 0 / 0)" if call.failed else
                   f"correct function: {call.correct_function}; result accuracy {call.result_accuracy:.3f}"
                   + (f"; target rank {call.target_rank} of {call.result_count}"
                      if call.target_rank is not None else "")))
            for i, call in enumerate(calls)
        ]
        reason = (f"best result accuracy {metrics['result_accuracy']:.3f} over {len(calls)} task-function call(s)"
                  if calls else "no task-function call")
        return Evaluation(float(metrics["result_accuracy"]), metrics, checks, reason)

    def signals(self, world: PersonalWABWorld, trace: EpisodeTrace) -> dict[str, float]:
        calls = self.scored_calls(world, trace)
        return {
            "correct_call_accuracy": sum(c.result_accuracy for c in calls if c.correct_function),
            "wrong_function_calls": float(sum(1 for c in calls if not c.correct_function)),
        }

    def hidden_strings(self, world: PersonalWABWorld) -> Sequence[str]:
        if self.task_type == "review":
            return [self.target_review] if self.target_review else []
        return [self.target_asin]

    # ---------------------------------------------------------------------------------------------- scoring
    def scored_calls(self, world: PersonalWABWorld, trace: EpisodeTrace) -> list[CallScore]:
        """Every task-function call of the episode, scored (each call is scored once and remembered)."""
        calls = []
        for step in trace.steps:
            call = step.record.get("call")
            if call is None:
                continue
            if step.step not in self._scores:
                self._scores[step.step] = self._score(world, call)
            calls.append(self._scores[step.step])
        return calls

    def _score(self, world: PersonalWABWorld, call: dict[str, Any]) -> CallScore:
        if call.get("error"):
            return score_failed_call(str(call["function"]))
        if call["function"] == fn.REVIEW:
            return score_review_call(self.task_type, str(call["review"]), self.target_review,
                                     world.review_similarity)
        if self.task_type == "review":  # officially only a review (a dict observation) is scored on review tasks
            return CallScore(str(call["function"]), False, 0.0, result_count=len(call["ids"]))
        return score_ranked_call(self.task_type, str(call["function"]), list(call["ids"]), self.target_asin,
                                 self.result_formula)
