"""Tasks of the toy benchmark: guess the hidden word of a shelf, asking the user for hints."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from personal_envs.core.task import Check, EpisodeTrace, Evaluation, Task
from personal_envs.simulators.users.base import UserContext


@dataclass
class Shelf:
    """The toy world: words on a shelf, and the word the user wants (set by the task, never shown)."""

    words: list[str] = field(default_factory=list)
    wanted: str = ""


@dataclass
class GuessTask(Task[Shelf]):
    """The user wants ``wanted``; the agent sees the shelf and may ask for hints, then answers."""

    words: tuple[str, ...]
    wanted: str
    task_id: str = ""  # Task declares it; as a dataclass field it must come after the fields without a default

    def setup(self, world: Shelf, rng: np.random.Generator) -> dict[str, Any]:
        world.words = [str(w) for w in rng.permutation(list(self.words))]
        world.wanted = self.wanted
        return {"task_id": self.task_id, "shelf_size": len(world.words)}

    def evaluate(self, world: Shelf, trace: EpisodeTrace) -> Evaluation:
        right = trace.answer == self.wanted
        checks = [Check("answer", right, f"answered {trace.answer!r}")]
        metrics = {"success": right, "hints": trace.user_turn_count}
        return Evaluation(1.0 if right else 0.0, metrics, checks, "right word" if right else "wrong word")

    def signals(self, world: Shelf, trace: EpisodeTrace) -> dict[str, float]:
        # running total: hints that named the wanted word's first letter
        return {"useful_hints": float(sum(1 for t in trace.dialogue if self.wanted[0] in t.reply))}

    def user_context(self, world: Shelf) -> UserContext:
        return UserContext(profile={"name": "toy user"}, task={"wanted": self.wanted})

    def hidden_strings(self, world: Shelf) -> Sequence[str]:
        return [self.wanted]


TASKS: tuple[GuessTask, ...] = (
    GuessTask(("apple", "banana", "cherry"), "banana", task_id="shelf-0"),
    GuessTask(("violin", "cello", "flute", "harp"), "harp", task_id="shelf-1"),
    GuessTask(("mercury", "venus", "jupiter"), "mercury", task_id="shelf-2"),
)
