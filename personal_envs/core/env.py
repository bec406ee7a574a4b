"""The base class every env of the suite derives from.

:class:`PersonalEnv` owns the parts that must behave the same everywhere: parsing JSON actions, turning bad input
into ``last_action_error`` instead of exceptions, counting steps, the step limit, the end-of-episode metrics in
``info["metrics"]``, and tool schemas for LLM policies.  A benchmark implements five hooks:

* :meth:`_reset_task` picks and sets up a task,
* :meth:`_execute` applies one validated action,
* :meth:`_observation` builds the observation dict,
* :meth:`_episode_metrics` returns the paper's metrics and the episode score when the episode ends,
* :attr:`num_tasks` says how many tasks ``reset(options={"task_index": i})`` can address.
"""

from __future__ import annotations

import json
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, SupportsFloat

import gymnasium as gym

from personal_envs.core.actions import Action, ActionError, ActionSpec, parse_action
from personal_envs.core.spaces import JsonActionSpace

logger = logging.getLogger(__name__)

#: Longest ``last_action_error`` an observation carries; observation spaces allow at least this much.
MAX_ERROR_CHARS = 2000


@dataclass
class StepResult:
    """What one action did: a shaped reward (usually 0), whether it ended the episode, and extra info."""

    reward: float = 0.0
    terminated: bool = False
    info: dict[str, Any] = field(default_factory=dict)
    error: str = ""


@dataclass(frozen=True)
class EpisodeOutcome:
    """The paper's score for the episode (the reward) and every metric under stable names."""

    score: float
    metrics: dict[str, Any]


class PersonalEnv(gym.Env[dict[str, Any], Any], ABC):
    """Base env: JSON actions, robust stepping, a step limit and paper metrics at episode end.

    Args:
        action_specs: The actions this env accepts.
        max_steps: Episode length after which the episode is truncated.
        render_mode: ``None`` or ``"ansi"`` (a text rendering of the observation).
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 1}

    #: Actions that hand the turn to the simulated user (``respond``, ``ask_user``, ``send_msg_to_user``).
    #: Envs with a simulated user set it; the user-as-agent wrappers read it.
    user_turn_actions: frozenset[str] = frozenset()

    def __init__(self, action_specs: tuple[ActionSpec, ...], max_steps: int, render_mode: str | None = None) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.render_mode = render_mode
        self.max_steps = max_steps
        self.action_specs = action_specs
        self._spec_by_name = {spec.name: spec for spec in action_specs}
        self.action_space: JsonActionSpace = JsonActionSpace(action_specs)
        self.steps = 0
        self.last_action_error = ""
        self.episode_over = True
        self.task_index = -1
        self._last_obs: dict[str, Any] | None = None

    # ----------------------------------------------------------------------------------------------- hooks
    @property
    @abstractmethod
    def num_tasks(self) -> int:
        """Number of tasks addressable with ``reset(options={"task_index": i})``."""

    @abstractmethod
    def _reset_task(self, task_index: int, options: dict[str, Any]) -> dict[str, Any]:
        """Set up task ``task_index``; return the reset info (must not contain answer keys)."""

    @abstractmethod
    def _execute(self, action: Action) -> StepResult:
        """Apply a validated action.  Raise :class:`ActionError` for an impossible action."""

    @abstractmethod
    def _observation(self) -> dict[str, Any]:
        """The current observation, without ``last_action_error`` (the base class fills it in)."""

    @abstractmethod
    def _episode_metrics(self) -> EpisodeOutcome:
        """The score and metrics of the finished episode."""

    # --------------------------------------------------------------------------------------------- gym API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode.  ``options["task_index"]`` selects a task; otherwise the seeded RNG picks one."""
        super().reset(seed=seed)
        options = dict(options or {})
        if "task_index" in options:
            task_index = int(options["task_index"]) % self.num_tasks
        else:
            task_index = int(self.np_random.integers(self.num_tasks))
        self.steps = 0
        self.last_action_error = ""
        self.episode_over = False
        self.task_index = task_index
        info = self._reset_task(task_index, options)
        info.setdefault("task_index", task_index)
        return self._observe(), info

    def step(self, action: Any) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        """Apply an action given as a dict or JSON text.  Bad actions never raise; they set ``last_action_error``."""
        if self.episode_over:
            self.last_action_error = "the episode is over; call reset() to start a new one"
            return self._observe(), 0.0, True, False, {"action_error": self.last_action_error}
        self.steps += 1
        result = self._run_action(action)
        self.last_action_error = result.error[:MAX_ERROR_CHARS]
        terminated = result.terminated
        truncated = not terminated and self.steps >= self.max_steps
        reward = float(result.reward)
        info = dict(result.info)
        if result.error:
            info["action_error"] = result.error
        if terminated or truncated:
            self.episode_over = True
            outcome = self._episode_metrics()
            reward = float(outcome.score)
            info["metrics"] = dict(outcome.metrics)
            info["score"] = float(outcome.score)
            info["steps"] = self.steps
        return self._observe(), reward, terminated, truncated, info

    def render(self) -> str | None:
        """With ``render_mode="ansi"``, the text parts of the last observation."""
        if self.render_mode != "ansi" or self._last_obs is None:
            return None
        parts = [f"{key}: {value}" for key, value in self._last_obs.items() if isinstance(value, str) and value]
        return "\n".join(parts)

    # ------------------------------------------------------------------------------------ simulated user
    @property
    def simulated_user(self) -> Any:
        """The env's :class:`~personal_envs.simulators.users.SimulatedUser`, or ``None`` if it has none."""
        return getattr(self, "user", None)

    def set_simulated_user(self, user: Any) -> None:
        """Replace the simulated user (the user-as-agent wrappers install a proxy here)."""
        if not self.user_turn_actions:
            raise ValueError(f"{type(self).__name__} has no simulated user to replace")
        self.user = user

    def user_observation(self) -> dict[str, str]:
        """What the user sees: hidden profile, task context and dialogue, as JSON/text.  Never shown to the agent."""
        user = self.simulated_user
        context = getattr(user, "context", None)
        dialogue = getattr(user, "dialogue", [])
        return {
            "profile": json.dumps(getattr(context, "profile", {}), ensure_ascii=False, default=str),
            "task": json.dumps(getattr(context, "task", {}), ensure_ascii=False, default=str),
            "situation": json.dumps(getattr(context, "situation", {}), ensure_ascii=False, default=str),
            "dialogue": "\n".join(f"{turn.speaker}: {turn.text}" for turn in dialogue),
        }

    # --------------------------------------------------------------------------------------------- helpers
    def tool_schemas(self) -> list[dict[str, Any]]:
        """The env's actions as OpenAI tool schemas."""
        return self.action_space.tool_schemas()

    def parse(self, action: Any) -> Action:
        """Parse an action with this env's specs (raises :class:`ActionError`, and nothing else, for any input)."""
        return parse_action(action, self._spec_by_name)

    def _run_action(self, raw: Any) -> StepResult:
        try:
            action = self.parse(raw)
        except ActionError as exc:
            return StepResult(error=str(exc))
        return self._guarded(lambda: self._execute(action), action.name)

    def _guarded(self, execute: Callable[[], StepResult], name: str) -> StepResult:
        """Run ``execute``; an :class:`ActionError` or any other exception becomes the step's error text."""
        try:
            return execute()
        except ActionError as exc:
            return StepResult(error=f"{name}: {exc}")
        except Exception as exc:  # an env must survive whatever the action triggers; the error goes to the agent
            logger.exception("action %s failed inside %s", name, type(self).__name__)
            return StepResult(error=f"{name} failed inside the environment: {type(exc).__name__}: {exc}")

    def _observe(self) -> dict[str, Any]:
        obs = self._observation()
        obs["last_action_error"] = self.last_action_error
        self._last_obs = obs
        return obs
