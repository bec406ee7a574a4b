"""The toy benchmark's env: observation and action plumbing only; tasks set up and score themselves."""

from __future__ import annotations

from typing import Any

from gymnasium import spaces

from personal_envs.core.actions import Action, ActionError, ActionSpec, Param
from personal_envs.core.env import MAX_USER_REPLY_CHARS, PersonalEnv, StepResult
from personal_envs.core.spaces import UnicodeText
from personal_envs.simulators.users.base import SimulatedUser, UserReply
from tests.toybench.tasks import TASKS, Shelf

ACTIONS = (
    ActionSpec.make("ask", "Ask the user for a hint.", text=Param("string", max_length=500)),
    ActionSpec.make("answer", "Answer with the word the user wants; ends the episode.",
                    word=Param("string", max_length=100)),
)


class HintUser(SimulatedUser):
    """Tells the first letter of the word it wants."""

    def _answer(self, message: str) -> UserReply:
        assert self.context is not None
        return UserReply(f"It starts with {self.context.task['wanted'][0]}.")


class ShelfEnv(PersonalEnv):
    """Guess the word the user wants from a shelf of words."""

    user_turn_actions = frozenset({"ask"})

    def __init__(self, max_steps: int = 6, render_mode: str | None = None) -> None:
        super().__init__(ACTIONS, max_steps=max_steps, render_mode=render_mode)
        self.tasks = list(TASKS)
        self.world = Shelf()
        self.user = HintUser()
        self.observation_space = spaces.Dict({
            "shelf": UnicodeText(1000), "user_reply": UnicodeText(MAX_USER_REPLY_CHARS), "last_action_error": UnicodeText(4000),
        })

    @property
    def num_tasks(self) -> int:
        return len(self.tasks)

    def _reset_task(self, task_index: int, options: dict[str, Any]) -> dict[str, Any]:
        self.task = self.tasks[task_index]
        return self.task.setup(self.world, self.np_random)

    def _execute(self, action: Action) -> StepResult:
        if action.name == "answer":
            word = str(action.arguments["word"]).strip()
            if word not in self.world.words:
                raise ActionError(f"{word!r} is not on the shelf")
            self.trace.answer = word
            return StepResult(terminated=True)
        raise ActionError(f"unknown action {action.name}")

    def _observation(self) -> dict[str, Any]:
        return {"shelf": " ".join(self.world.words), "user_reply": self.user_reply}
