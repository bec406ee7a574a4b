"""One call to get an SB3-ready env: discrete masked actions over candidates plus featurised observations.

Example::

    from stable_baselines3 import PPO
    from personal_envs.wrappers.rl import make_rl_env

    env = make_rl_env("PersonalWAB-SingleTurn-v0", fields=("instruction",), env_kwargs={"split": "train"})
    PPO("MlpPolicy", env).learn(10_000)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym

from personal_envs.core.registration import load_object
from personal_envs.wrappers.candidates import CandidateProvider
from personal_envs.wrappers.discrete import DiscreteActions
from personal_envs.wrappers.features import FeatureObservation, SlotHistory


def make_rl_env(
    env: gym.Env[Any, Any] | str, *, env_kwargs: dict[str, Any] | None = None,
    provider: CandidateProvider | str | None = None, max_actions: int = 64, mode: str = "discrete",
    fields: Sequence[str] | None = None, text_dim: int = 256, encoder: str = "hash",
    image_size: tuple[int, int] = (24, 16), shaping: Sequence[Any] = (), features: Any = None,
    slot_history: bool = False, no_repeat: bool = False,
) -> gym.Env[Any, Any]:
    """``FeatureObservation(DiscreteActions(shaping(env)))`` for an env instance or id (plus :class:`SlotHistory`).

    Args:
        env: Env or env id (built with ``env_kwargs``).
        provider, max_actions, mode: See :class:`~personal_envs.wrappers.discrete.DiscreteActions`; ``provider`` may
            also be ``"module:factory"`` (``factory(env)``), as a saved policy records it.
        fields, text_dim, encoder, image_size: See :class:`~personal_envs.wrappers.features.FeatureObservation`.
        shaping: Callables ``wrapper(env) -> env`` applied first (e.g. ``EfficiencyStepCost``), innermost first.
        features: A benchmark's feature extractor instead of the per-field features: an object with ``dim`` and
            ``__call__(observation)``, or ``"module:factory"`` (``factory(env)``), e.g.
            ``"personal_envs.personalwab.features:make_features"``.
        slot_history: Append the fixed slots chosen so far in the episode and the step fraction (``Discrete`` mode).
        no_repeat: With ``slot_history``, mask the slots whose action was already taken in the episode.
    """
    if no_repeat and not slot_history:
        raise ValueError("no_repeat needs slot_history=True")
    if isinstance(env, str):
        import personal_envs  # noqa: F401  (registers the ids)

        env = gym.make(env, **(env_kwargs or {}))
    base: gym.Env[Any, Any] = env
    for wrap in shaping:
        base = wrap(base)
    candidates = load_object(provider)(base) if isinstance(provider, str) else provider
    discrete = DiscreteActions(base, provider=candidates, max_actions=max_actions, mode=mode)
    extractor = load_object(features)(env) if isinstance(features, str) else features
    wrapped: gym.Env[Any, Any] = FeatureObservation(discrete, fields=fields, text_dim=text_dim, encoder=encoder,
                                                    image_size=image_size, extractor=extractor)
    if slot_history:
        if mode != "discrete":
            raise ValueError("slot_history needs mode='discrete'")
        wrapped = SlotHistory(wrapped, no_repeat=no_repeat)
    return wrapped
