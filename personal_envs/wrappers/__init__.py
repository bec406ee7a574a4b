"""Wrappers that make every env usable the ways its users work.

* User as a second agent (PettingZoo): :class:`UserAgentAEC`, :class:`UserAgentParallel` and the default user
  policy :class:`SimulatedUserPolicy` (:mod:`personal_envs.wrappers.user_agent`); user rewards in
  :mod:`personal_envs.wrappers.user_rewards`.
* Reward shaping named after the paper metric it shapes (:mod:`personal_envs.wrappers.shaping`):
  :class:`SignalShaping` (the env's privileged signals with the weights its id declares),
  :class:`EfficiencyStepCost`, :class:`InteractionEfficiencyCost`.
* RL: :class:`FeatureObservation` (text and screenshots to a fixed ``Box``), :class:`DiscreteActions` (masked
  ``Discrete`` / ``MultiDiscrete`` choices over candidate actions) and :func:`make_rl_env` combining them;
  :class:`StepLimitEnds` (the env's step limit as termination, for learners that bootstrap truncation).
"""

from personal_envs.wrappers.discrete import DiscreteActions
from personal_envs.wrappers.features import FeatureObservation, TextHasher
from personal_envs.wrappers.limits import StepLimitEnds
from personal_envs.wrappers.rl import make_rl_env
from personal_envs.wrappers.shaping import (
    EfficiencyStepCost,
    InteractionEfficiencyCost,
    SignalShaping,
)
from personal_envs.wrappers.user_agent import SimulatedUserPolicy, UserAgentAEC, UserAgentParallel
from personal_envs.wrappers.user_proxy import ProxyUser
from personal_envs.wrappers.user_rewards import ProfileMatchReward, SharedTaskReward, UserEvent

__all__ = [
    "DiscreteActions",
    "EfficiencyStepCost",
    "FeatureObservation",
    "InteractionEfficiencyCost",
    "ProfileMatchReward",
    "ProxyUser",
    "SharedTaskReward",
    "SimulatedUserPolicy",
    "StepLimitEnds",
    "TextHasher",
    "UserAgentAEC",
    "UserAgentParallel",
    "UserEvent",
    "SignalShaping",
    "make_rl_env",
]
