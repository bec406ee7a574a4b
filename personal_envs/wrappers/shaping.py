"""Reward shaping from the env's privileged signals; no wrapper here knows a benchmark.

Unshaped, every env's episode return is the paper's score (the base env pays it as the final reward).  Shaping adds
dense terms for RL; the paper's score stays in ``info["score"]`` at the end of the episode, every step's unshaped
reward is in ``info["paper_reward"]``, and each wrapper's term is in ``info["shaping"][name]`` (the episode's running
total of every term in ``info["shaping_total"]``).

The terms come from :meth:`~personal_envs.core.env.PersonalEnv.privileged_signals`: running totals the base env
and the current task compute after each step (the base env's ``steps``, ``user_turns`` and ``action_errors``, plus
whatever the task's :meth:`~personal_envs.core.task.Task.signals` gives, e.g. WebMall's answer pages visited).  They
never pass through ``obs`` or ``info``, which a policy sees.  :class:`SignalShaping` pays ``weight x`` the change of
each signal per step; its default weights are the ones the id declares in its registration entry
(``EnvEntry.signal_weights``), so a new benchmark gets shaping by declaring its signals and weights.

=================================  =====================================  ==============================================
wrapper                            paper metric                           signal and default weight
=================================  =====================================  ==============================================
:class:`SignalShaping`             the benchmark's own dense progress     the id's ``signal_weights`` (or given weights)
:class:`EfficiencyStepCost`        efficiency (KnowU 50/avg steps;         ``steps`` x ``-cost``
                                   PersonalWAB avg steps)
:class:`InteractionEfficiencyCost` interaction efficiency (KnowU IE)       ``user_turns`` x ``-cost``
=================================  =====================================  ==============================================
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, SupportsFloat

import gymnasium as gym

from personal_envs.core.actions import ActionError
from personal_envs.core.registration import entry_of


class ShapingWrapper(gym.Wrapper[Any, Any, Any, Any]):
    """Base class: adds :meth:`shaping` to the env's reward and records the terms in ``info``.

    Subclasses set :attr:`metric` (the paper metric shaped) and implement :meth:`shaping`.
    """

    metric: str = "shaping"

    def __init__(self, env: gym.Env[Any, Any]) -> None:
        super().__init__(env)
        self.shaping_return = 0.0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        observation, info = self.env.reset(seed=seed, options=options)
        self.shaping_return = 0.0
        self.on_reset(observation, info)
        return observation, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        name = self.action_name(action)
        observation, reward, terminated, truncated, info = self.env.step(action)
        info = dict(info)
        term = float(self.shaping(name, observation, info, terminated or truncated))
        self.shaping_return += term
        info.setdefault("paper_reward", float(reward))
        info["shaping"] = {**info.get("shaping", {}), self.metric: term}
        info["shaping_total"] = {**info.get("shaping_total", {}), self.metric: self.shaping_return}
        return observation, float(reward) + term, terminated, truncated, info

    # ------------------------------------------------------------------------------------------ hooks
    def on_reset(self, observation: Any, info: dict[str, Any]) -> None:
        """Called after every reset."""

    def shaping(self, action_name: str | None, observation: Any, info: dict[str, Any], done: bool) -> float:
        """The shaping term of this step."""
        raise NotImplementedError

    # ------------------------------------------------------------------------------------------ helpers
    def action_name(self, action: Any) -> str | None:
        """The name of a well-formed action, ``None`` for a malformed one."""
        try:
            return str(self.env.unwrapped.parse(action).name)  # type: ignore[attr-defined]
        except (ActionError, AttributeError, TypeError, ValueError):
            return None


class SignalShaping(ShapingWrapper):
    """Pays ``weight x`` the change of each privileged signal on every step.

    Args:
        weights: Signal name to weight; default: the id's ``EnvEntry.signal_weights``.
        metric: Name of the term in ``info["shaping"]``.
        replace_final: Remove the paper's final score from the reward, so that the return is the sum of the
            shaped terms alone (``info["score"]`` still holds the paper's score).
    """

    metric = "signals"

    def __init__(self, env: gym.Env[Any, Any], weights: Mapping[str, float] | None = None, metric: str | None = None,
                 replace_final: bool = False) -> None:
        super().__init__(env)
        if weights is None:
            entry = entry_of(env)
            weights = entry.signal_weights if entry is not None else {}
        self.weights = {str(k): float(v) for k, v in weights.items()}
        if not self.weights:
            raise ValueError(f"no signal weights for {env}: pass weights= or register the id with signal_weights")
        if metric is not None:
            self.metric = metric
        self.replace_final = replace_final
        signals = getattr(env.unwrapped, "privileged_signals", None)
        if not callable(signals):
            raise TypeError(f"{type(env.unwrapped).__name__} has no privileged_signals(); it is not a PersonalEnv")
        self._signals = signals
        self._last: dict[str, float] = {}

    def on_reset(self, observation: Any, info: dict[str, Any]) -> None:
        self._last = dict(self._signals())

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = super().step(action)
        if self.replace_final and (terminated or truncated):
            reward = float(reward) - float(info.get("paper_reward", 0.0))
        return observation, reward, terminated, truncated, info

    def shaping(self, action_name: str | None, observation: Any, info: dict[str, Any], done: bool) -> float:
        now = self._signals()
        term = sum(weight * (float(now.get(name, 0.0)) - self._last.get(name, 0.0))
                   for name, weight in self.weights.items())
        self._last = dict(now)
        return term


class EfficiencyStepCost(SignalShaping):
    """Efficiency: every step costs ``cost`` (fewer steps for the same score pay more)."""

    def __init__(self, env: gym.Env[Any, Any], cost: float = 0.01) -> None:
        super().__init__(env, {"steps": -cost}, metric="efficiency")
        self.cost = cost


class InteractionEfficiencyCost(SignalShaping):
    """Interaction efficiency: every exchange with the simulated user costs ``cost``."""

    def __init__(self, env: gym.Env[Any, Any], cost: float = 0.05) -> None:
        super().__init__(env, {"user_turns": -cost}, metric="interaction_efficiency")
        self.cost = cost
