"""The policy interface the eval command, the notebooks and the wrappers use.

A policy maps an observation (and the step info) to an action (a dict or JSON text).  Policies that need
privileged access to the env, such as oracles that read the answer key to prove a task solvable, implement
:meth:`Policy.attach`; the runner calls it with the unwrapped env before each episode.  Agent policies never get it.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym


class PolicyGaveUp(RuntimeError):
    """Raised by :meth:`Policy.act` when the policy cannot go on with the episode (for the LLM policy: its model
    endpoint gave no valid reply).  The runner records the episode as an error, not a score; the message is one
    line saying why."""


class Policy:
    """Base policy: override :meth:`act`; :meth:`reset` and :meth:`attach` are optional hooks."""

    name: str = "policy"

    def attach(self, env: gym.Env[Any, Any]) -> None:
        """Privileged hook for oracles: receive the unwrapped env before ``reset``.  Default: ignore it."""

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        """Called after every ``env.reset`` with the initial observation."""

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """Return the next action."""
        raise NotImplementedError


class RandomPolicy(Policy):
    """Samples a valid random action from the env's action space (seeded)."""

    name = "random"

    def __init__(self, env: gym.Env[Any, Any], seed: int = 0) -> None:
        self._space = env.action_space
        self._seed = seed
        self._episode = 0

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        self._space.seed(self._seed + 7919 * self._episode)
        self._episode += 1

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        return self._space.sample()
