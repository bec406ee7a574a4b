"""The env's own step limit as the end of the task, for learners that bootstrap truncated episodes.

A benchmark's step limit (PersonalWAB multi-turn: 10 steps) ends a scored episode: the env reports it as
``truncated`` (Gymnasium's convention for a time limit), and Stable-Baselines3 then adds ``gamma x V(last
observation)`` to the last reward, as if the episode went on.  When the observation carries the step count, nothing
follows that last step, and that bootstrap pays a policy for running into the limit instead of stopping.
:class:`StepLimitEnds` reports the limit as termination (training only; the scores are unchanged).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym


class StepLimitEnds(gym.Wrapper[Any, Any, Any, Any], gym.utils.RecordConstructorArgs):
    """Reports an episode the env ended at its own step limit as ``terminated`` instead of ``truncated``.

    Only the env's limit (``env.unwrapped.max_steps``, the episode over) is converted; ``info["step_limit_ended"]``
    says when it was.  Wrap the env itself, inside any Gymnasium ``TimeLimit`` you add, which keeps truncating.
    """

    def __init__(self, env: gym.Env[Any, Any]) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        base = self.env.unwrapped
        if truncated and not terminated and getattr(base, "episode_over", False):
            info = {**info, "step_limit_ended": True}
            terminated, truncated = True, False
        return observation, reward, terminated, truncated, info
