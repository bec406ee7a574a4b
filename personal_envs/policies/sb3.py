"""A saved Stable-Baselines3 policy as an eval policy: ``personal-envs eval --policy sb3:PATH``.

A trained policy is saved as ``PATH.zip`` (SB3's own file) plus ``PATH.json``, which says how the RL env was built
(:func:`~personal_envs.wrappers.rl.make_rl_env`'s arguments: candidates, slots, features, slot history) and which
algorithm to load.  :class:`SB3Policy` rebuilds the same features and slots around the raw observations of any env
of the id (any ``--env-kwargs``: another split, another data directory), asks the model for a slot with the action
mask, and returns the slot's JSON action.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from personal_envs.core.registration import load_object
from personal_envs.policies.base import Policy
from personal_envs.wrappers.discrete import DiscreteActions
from personal_envs.wrappers.features import ObservationFeaturizer, TakenActions, history_features

#: Algorithms a saved policy may name (sb3-contrib's are optional).
ALGORITHMS: dict[str, str] = {
    "PPO": "stable_baselines3:PPO",
    "A2C": "stable_baselines3:A2C",
    "DQN": "stable_baselines3:DQN",
    "MaskablePPO": "sb3_contrib:MaskablePPO",
}
#: ``make_rl_env`` arguments a saved policy records.
RL_ENV_KEYS = ("provider", "max_actions", "mode", "fields", "text_dim", "encoder", "image_size", "features",
               "slot_history", "no_repeat")


def _paths(path: str | Path) -> tuple[Path, Path]:
    base = Path(path)
    if base.suffix in (".zip", ".json"):
        base = base.with_suffix("")
    return base.with_suffix(".zip"), base.with_suffix(".json")


def save_policy(model: Any, path: str | Path, env_id: str, rl_env: dict[str, Any]) -> Path:
    """Save ``model`` as ``PATH.zip`` and its RL-env recipe as ``PATH.json``; returns the zip's path.

    ``rl_env`` holds :func:`make_rl_env`'s arguments (strings for ``provider`` / ``features``: ``"module:factory"``).
    """
    unknown = sorted(set(rl_env) - set(RL_ENV_KEYS))
    if unknown:
        raise ValueError(f"unknown make_rl_env arguments {unknown}; known: {RL_ENV_KEYS}")
    zip_path, json_path = _paths(path)
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(zip_path))
    recipe = {"algorithm": type(model).__name__, "env_id": env_id, "rl_env": rl_env}
    temporary = json_path.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(recipe, indent=2), encoding="utf-8")
    temporary.replace(json_path)
    return zip_path


class SB3Policy(Policy):
    """Runs a saved SB3 policy on raw observations (see the module docstring).

    Args:
        env: The env the eval runs (any kwargs); its id's candidates are used unless the recipe names a provider.
        path: ``PATH`` (or ``PATH.zip``) of a policy saved by :func:`save_policy`.
        deterministic: Take the most likely slot (default) instead of sampling.
        model, rl_env: A model in memory and its ``make_rl_env`` arguments, instead of ``path``.
    """

    name = "sb3"

    def __init__(self, env: gym.Env[Any, Any], path: str | Path | None = None, seed: int = 0,
                 deterministic: bool = True, model: Any = None, rl_env: dict[str, Any] | None = None) -> None:
        if model is None:
            zip_path, json_path = _paths(path or "")
            if not zip_path.is_file() or not json_path.is_file():
                raise FileNotFoundError(f"a saved policy needs {zip_path} and {json_path} (written by save_policy)")
            recipe = json.loads(json_path.read_text(encoding="utf-8"))
            algorithm = str(recipe.get("algorithm"))
            if algorithm not in ALGORITHMS:
                raise ValueError(f"{json_path}: unknown algorithm {algorithm!r}; known: {', '.join(ALGORITHMS)}")
            algorithm_class: Any = load_object(ALGORITHMS[algorithm])
            model = algorithm_class.load(str(zip_path), device="cpu")
            rl_env = recipe.get("rl_env", {})
        self.model = model
        self.masked = type(model).__name__ == "MaskablePPO"
        self.deterministic = deterministic
        zip_path = Path(str(path)) if path else Path(f"<{type(model).__name__} in memory>")
        options = dict(rl_env or {})
        provider = options.get("provider")
        self.slots = DiscreteActions(env, provider=load_object(provider)(env) if provider else None,
                                     max_actions=int(options.get("max_actions", 64)),
                                     mode=str(options.get("mode", "discrete")))
        features = options.get("features")
        self.featurizer = ObservationFeaturizer(
            env.observation_space, options.get("fields"), int(options.get("text_dim", 256)),
            str(options.get("encoder", "hash")), tuple(options.get("image_size", (24, 16))),
            extractor=load_object(features)(env) if features else None)
        self.slot_history = bool(options.get("slot_history", False))
        self.no_repeat = bool(options.get("no_repeat", False))
        self.taken = TakenActions()
        self.max_steps = max(1, int(getattr(env.unwrapped, "max_steps", 1) or 1))
        self.chosen = np.zeros(len(self.slots.fixed_slots), np.float32)
        self.steps = 0
        expected = self.featurizer.dim + (len(self.chosen) + 1 if self.slot_history else 0)
        shape = getattr(self.model.observation_space, "shape", None)
        if shape != (expected,):
            raise ValueError(f"{zip_path} expects observations of shape {shape}, but this env's features have "
                             f"{expected} values: the policy was trained for another env or feature setting")
        if self.slots.action_space != self.model.action_space:
            raise ValueError(f"{zip_path} acts in {self.model.action_space}, the env's slots are "
                             f"{self.slots.action_space}")

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        self.chosen[:] = 0.0
        self.steps = 0
        self.taken.clear()

    def features(self, observation: dict[str, Any]) -> np.ndarray:
        """The model's input for ``observation`` (features, plus the slot history when the policy uses it)."""
        vector = self.featurizer(observation)
        if self.slot_history:
            vector = history_features(vector, self.chosen, self.steps, self.max_steps)
        return vector

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        self.slots._refresh(observation)
        vector = self.features(observation)
        if self.masked:
            masks = self.slots.action_masks()
            if self.no_repeat:
                masks = self.taken.mask(masks, self.slots.action)
            action, _ = self.model.predict(vector, action_masks=masks, deterministic=self.deterministic)
        else:
            action, _ = self.model.predict(vector, deterministic=self.deterministic)
        slot = int(np.asarray(action).reshape(-1)[0])
        if self.slot_history and 0 <= slot < len(self.chosen):
            self.chosen[slot] = 1.0
        self.steps += 1
        chosen = self.slots.action(action)
        self.taken.add(chosen)
        return chosen


def make_sb3_policy(env: gym.Env[Any, Any], seed: int = 0, path: str = "", **kwargs: Any) -> SB3Policy:
    """Factory behind ``--policy sb3:PATH``."""
    return SB3Policy(env, path, seed=seed, **kwargs)
