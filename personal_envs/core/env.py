"""The base class every env of the suite derives from.

:class:`PersonalEnv` owns the parts that must behave the same everywhere: parsing JSON actions, turning bad input
into ``last_action_error`` instead of exceptions, counting steps, the step limit, recording the
:class:`~personal_envs.core.task.EpisodeTrace`, routing user-turn actions to the simulated user, scoring the finished
episode with its :class:`~personal_envs.core.task.Task`, the end-of-episode metrics in ``info["metrics"]``, and tool
schemas for LLM policies.  A benchmark sets :attr:`PersonalEnv.task` and :attr:`PersonalEnv.world` in its reset hook
and implements four hooks:

* :meth:`_reset_task` picks a task, builds or resets the world and calls ``task.setup``,
* :meth:`_execute` applies one validated action (user-turn actions never reach it when a user is present),
* :meth:`_observation` builds the observation dict,
* :attr:`num_tasks` says how many tasks ``reset(options={"task_index": i})`` can address.

Optional hooks: :meth:`_without_user` (a user-turn action when the env has no user), :meth:`_after_user_turn`
(what a reply does besides being shown), :meth:`_evaluation_metrics` (extra metrics from the env),
:meth:`_final_reward` (the final reward, when an env option such as a dense reward changes it).
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
from personal_envs.core.arguments import check_keywords, check_types
from personal_envs.core.spaces import JsonActionSpace
from personal_envs.core.task import Check, EpisodeTrace, Evaluation, Task, TraceStep, UserTurn

logger = logging.getLogger(__name__)

#: Longest ``last_action_error`` an observation carries; observation spaces allow at least this much.
MAX_ERROR_CHARS = 2000
#: Longest simulated-user reply kept in the trace and shown to the agent.
MAX_USER_REPLY_CHARS = 200_000
#: Argument names that carry the agent's message in a user-turn action, in order of preference.
MESSAGE_ARGUMENTS: tuple[str, ...] = ("content", "text", "message")


class EnvClosedError(RuntimeError):
    """``reset`` or ``step`` on an env after :meth:`PersonalEnv.close`: refused before anything restarts."""


@dataclass
class StepResult:
    """What one action did: a shaped reward (usually 0), whether it ended the episode, and extra info."""

    reward: float = 0.0
    terminated: bool = False
    info: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    #: Facts about what the action did, kept in the trace for the task's evaluation (never shown to the agent).
    record: dict[str, Any] = field(default_factory=dict)


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
    #: Envs with a simulated user set it; the base env routes these actions to the user, and the user-as-agent
    #: wrappers read it.
    user_turn_actions: frozenset[str] = frozenset()
    #: The current task (a :class:`~personal_envs.core.task.Task` once the benchmark is on the contract).
    task: Any = None
    #: What the current task runs on (the benchmark's world object).
    world: Any = None

    def __new__(cls, *args: Any, **kwargs: Any) -> PersonalEnv:
        """Refuse unknown constructor keywords, and JSON values of the wrong type, with
        :class:`~personal_envs.core.errors.InputError` (one line naming the argument; see
        :mod:`personal_envs.core.arguments`), before any part of the env is built."""
        check_keywords(cls.__init__, kwargs, f"{cls.__name__}()", skip=("render_mode",))
        check_types(cls.__init__, kwargs, f"{cls.__name__}()")
        return super().__new__(cls)

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
        self.trace = EpisodeTrace()
        self.user_reply = ""
        self.evaluation: Evaluation | None = None
        self._last_obs: dict[str, Any] | None = None
        self._step_action: Action | None = None
        self._step_turn: UserTurn | None = None
        self._env_closed = False

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

    def _episode_metrics(self) -> EpisodeOutcome:
        """The score and metrics of the finished episode: the task's :meth:`~personal_envs.core.task.Task.evaluate`
        plus :meth:`_evaluation_metrics`.  A task that raises scores 0 with the error in the metrics."""
        task = self.task
        if not isinstance(task, Task):
            raise NotImplementedError(f"{type(self).__name__} sets no core Task; override _episode_metrics")
        try:
            evaluation = task.evaluate(self.world, self.trace)
        except Exception as exc:  # a broken evaluator is reported, never scored silently
            logger.exception("evaluating %s failed", getattr(task, "task_id", task))
            evaluation = Evaluation(0.0, {"evaluation_error": f"{type(exc).__name__}: {exc}"},
                                    [Check("evaluation", False, f"{type(exc).__name__}: {exc}")],
                                    f"evaluation error: {type(exc).__name__}: {exc}")
        self.evaluation = evaluation
        metrics = {**evaluation.metrics, **self._user_metrics(), **self._evaluation_metrics(evaluation)}
        return EpisodeOutcome(score=float(self._final_reward(evaluation)), metrics=metrics)

    def _user_metrics(self) -> dict[str, Any]:
        """Which simulated user answered and how often it fell back to its deterministic stand-in (an LLM user whose
        model failed or replied out of protocol), so a run's metrics show what produced its dialogue."""
        user = self.simulated_user
        if user is None or not hasattr(user, "kind"):
            return {}
        metrics: dict[str, Any] = {"user_kind": str(user.kind)}
        errors = getattr(user, "errors", None)
        if isinstance(errors, list):
            metrics["user_fallbacks"] = len(errors)
        return metrics

    def _evaluation_metrics(self, evaluation: Evaluation) -> dict[str, Any]:
        """Extra metrics the env adds to the task's (default: none)."""
        return {}

    def _final_reward(self, evaluation: Evaluation) -> float:
        """The last step's reward and ``info["score"]`` (default: the paper's score, ``evaluation.score``)."""
        return float(evaluation.score)

    def _without_user(self, action: Action) -> StepResult:
        """A user-turn action in an env that has no simulated user (default: an error for the agent)."""
        raise ActionError("there is no user to talk to in this environment")

    def _after_user_turn(self, action: Action, turn: UserTurn) -> StepResult:
        """What a user reply does besides being recorded and shown (default: nothing; the reply goes in ``info``)."""
        return StepResult(info={"user_reply": turn.reply})

    # --------------------------------------------------------------------------------------------- gym API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode.  ``options["task_index"]`` selects a task; otherwise the seeded RNG picks one.

        Raises:
            EnvClosedError: the env was closed (nothing is restarted).
        """
        self._refuse_if_closed("reset")
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
        self.trace = EpisodeTrace()
        self.user_reply = ""
        self.evaluation = None
        info = self._reset_task(task_index, options)
        info.setdefault("task_index", task_index)
        self._start_user()
        return self._observe(), info

    def step(self, action: Any) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        """Apply an action given as a dict or JSON text.  Bad actions never raise; they set ``last_action_error``.

        Raises:
            EnvClosedError: the env was closed (nothing is restarted).
        """
        self._refuse_if_closed("step")
        if self.episode_over:
            self.last_action_error = "the episode is over; call reset() to start a new one"
            return self._observe(), 0.0, True, False, {"action_error": self.last_action_error}
        self.steps += 1
        self._step_action, self._step_turn = None, None
        result = self._run_action(action)
        self.last_action_error = result.error[:MAX_ERROR_CHARS]
        terminated = result.terminated
        self.trace.steps.append(TraceStep(
            step=self.steps, action=None if self._step_action is None else self._step_action.to_dict(),
            error=self.last_action_error, user_turn=self._step_turn, record=dict(result.record),
        ))
        if terminated:
            self.trace.finished = True
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
            if self.evaluation is not None:
                info["evaluation"] = {
                    "reason": self.evaluation.reason,
                    "checks": [{"name": c.name, "passed": c.passed, "detail": c.detail}
                               for c in self.evaluation.checks],
                }
        return self._observe(), reward, terminated, truncated, info

    def close(self) -> None:
        """Release the env; a later :meth:`reset` or :meth:`step` raises :class:`EnvClosedError`."""
        self._env_closed = True
        super().close()

    def _refuse_if_closed(self, call: str) -> None:
        if getattr(self, "_env_closed", False):
            raise EnvClosedError(f"{call}() on a closed {type(self).__name__}: the env was closed; make a new one "
                                 "(gym.make) to run more episodes")

    def privileged_signals(self) -> dict[str, float]:
        """Dense progress values after the latest step, for reward shaping (privileged: never part of ``obs`` or
        ``info``, which a policy sees).  Always ``steps``, ``user_turns`` and ``action_errors``, plus the task's
        :meth:`~personal_envs.core.task.Task.signals`."""
        signals = {
            "steps": float(self.steps),
            "user_turns": float(self.trace.user_turn_count),
            "action_errors": float(sum(1 for s in self.trace.steps if s.error)),
        }
        if isinstance(self.task, Task) and self.task_index >= 0:
            signals.update({k: float(v) for k, v in self.task.signals(self.world, self.trace).items()})
        return signals

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

    def _start_user(self) -> None:
        """Give the simulated user the task's hidden context (tasks on the contract that have a user)."""
        user = self.simulated_user
        if user is None or not isinstance(self.task, Task):
            return
        context = self.task.user_context(self.world)
        if context is not None:
            user.start(context)

    def _user_turn(self, action: Action) -> StepResult:
        """Route a user-turn action to the simulated user and record the exchange in the trace."""
        message = next((str(action.arguments[key]) for key in MESSAGE_ARGUMENTS
                        if isinstance(action.arguments.get(key), str)), "")
        user = self.simulated_user
        if user is None:
            return self._without_user(action)
        if not message.strip():
            raise ActionError(f"{action.name} needs a non-empty message")
        reply = user.reply(message)
        decision = reply.decision if reply.decision in ("accept", "reject") else None
        turn = UserTurn(action.name, message, str(reply.text)[:MAX_USER_REPLY_CHARS], decision, self.steps)
        self._step_turn = turn
        self.user_reply = turn.reply
        return self._after_user_turn(action, turn)

    def _run_action(self, raw: Any) -> StepResult:
        try:
            action = self.parse(raw)
        except ActionError as exc:
            return StepResult(error=str(exc))
        self._step_action = action
        return self._guarded(lambda: self._user_turn(action) if action.name in self.user_turn_actions
                             else self._execute(action), action.name)

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
