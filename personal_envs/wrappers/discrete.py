"""JSON actions as ``Discrete`` or ``MultiDiscrete`` choices over the current candidates, with action masks.

Each step, a candidate provider (:mod:`personal_envs.wrappers.candidates`) lists the concrete actions available in
the current observation.  :class:`DiscreteActions` numbers them:

* ``mode="discrete"``: ``Discrete(max_actions)``.  The provider's *fixed slots* (``provider.fixed_slots``: the
  control actions such as ``finished``, ``ask_user``, ``wait``, PersonalWAB's ``stop`` and ``respond``) come first,
  slot ``i`` always holding the candidate whose ``Candidate.slot`` is ``fixed_slots[i]`` (masked off on a screen
  where the provider did not offer it).  The other candidates fill slots ``len(fixed_slots)`` to
  ``max_actions - 1`` in the provider's order.
* ``mode="multidiscrete"``: ``MultiDiscrete([len(families), max_per_family])``; ``(f, j)`` is the ``j``-th member of
  family ``f`` (families in the provider's fixed order).  A family's fixed members come first, in a stable order.

``max_actions`` never cuts a fixed slot (a space too small for them is refused when the wrapper is built); when a
screen has more candidates than free slots, the last ordinary candidates are left out and the step says how many in
``info["candidates_dropped"]`` (a warning is also logged the first time).

Masks: :meth:`DiscreteActions.action_masks` (the method sb3-contrib's ``MaskablePPO`` calls) and
``info["action_mask"]`` give the valid slots (for ``MultiDiscrete`` the per-component masks concatenated, as
MaskablePPO expects).  A choice of an empty slot is not an exception: the env receives an action it rejects, the
step counts and ``last_action_error`` says the slot was empty, as for any malformed action.
"""

from __future__ import annotations

import logging
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from personal_envs.wrappers.candidates import Candidate, CandidateProvider, default_candidates, slot_family

logger = logging.getLogger(__name__)

#: Action name sent for an empty slot; no env defines it, so the env rejects it with a clear message.
EMPTY_SLOT_ACTION = "__empty_slot__"


class DiscreteActions(gym.ActionWrapper[Any, Any, Any], gym.utils.RecordConstructorArgs):
    """Discrete choices over the current candidate actions, with masks and fixed slots for control actions.

    Args:
        env: Any env of the suite.
        provider: Candidate provider (default: :func:`~personal_envs.wrappers.candidates.default_candidates`).
        max_actions: Slots of the ``Discrete`` space: the provider's fixed slots plus room for the others.
        mode: ``"discrete"`` or ``"multidiscrete"``.
        max_per_family: Second component of the ``MultiDiscrete`` space.

    Raises:
        ValueError: ``max_actions`` (or ``max_per_family``) is too small to hold the fixed slots.
    """

    def __init__(
        self, env: gym.Env[Any, Any], provider: CandidateProvider | None = None, max_actions: int = 64,
        mode: str = "discrete", max_per_family: int = 48,
    ) -> None:
        # not deep-copied: a provider follows the env it was built for (a copy would copy the whole env)
        gym.utils.RecordConstructorArgs.__init__(self, provider=provider, max_actions=max_actions, mode=mode,
                                                 max_per_family=max_per_family, _disable_deepcopy=True)
        gym.ActionWrapper.__init__(self, env)
        if mode not in ("discrete", "multidiscrete"):
            raise ValueError(f"mode must be 'discrete' or 'multidiscrete', got {mode!r}")
        self.provider: CandidateProvider = provider if provider is not None else default_candidates(env)
        self.mode = mode
        self.families = tuple(self.provider.families)
        #: Keys of the fixed slots, in slot order (slot ``i`` of the ``Discrete`` space is ``fixed_slots[i]``).
        self.fixed_slots: tuple[str, ...] = tuple(dict.fromkeys(getattr(self.provider, "fixed_slots", ())))
        self.max_actions = max_actions
        self.max_per_family = max_per_family
        if mode == "discrete":
            if max_actions < max(1, len(self.fixed_slots)):
                raise ValueError(
                    f"max_actions={max_actions} cannot hold the {len(self.fixed_slots)} fixed slots "
                    f"({', '.join(self.fixed_slots)}); use max_actions >= {max(1, len(self.fixed_slots))}")
            self.action_space = spaces.Discrete(max_actions)
        else:
            fixed_per_family = [sum(slot_family(key) == family for key in self.fixed_slots) for family in self.families]
            if max(fixed_per_family, default=0) > max_per_family:
                raise ValueError(f"max_per_family={max_per_family} cannot hold the fixed members of a family "
                                 f"({max(fixed_per_family)})")
            self.action_space = spaces.MultiDiscrete([len(self.families), max_per_family])
        self.candidates: list[Candidate] = []
        #: Candidate of each ``Discrete`` slot (``None``: empty).
        self.slots: list[Candidate | None] = []
        #: Family -> its members in member order (``None``: a fixed member absent on this screen).
        self.members: dict[str, list[Candidate | None]] = {}
        #: Candidates of the current screen that found no slot.
        self.dropped = 0
        self._warned = False

    # ------------------------------------------------------------------------------------------ gym API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        if seed is not None:
            self.action_space.seed(seed)
        observation, info = self.env.reset(seed=seed, options=options)
        self._refresh(observation)
        return observation, self._with_mask(info)

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        chosen = self.action(action)
        observation, reward, terminated, truncated, info = self.env.step(chosen)
        self._refresh(observation)
        info = self._with_mask(info)
        info["chosen_action"] = chosen
        return observation, reward, terminated, truncated, info

    def action(self, action: Any) -> dict[str, Any]:
        """The JSON action of a slot (an action the env rejects for an empty slot)."""
        candidate = self.candidate(action)
        if candidate is None:
            return {"action_type": EMPTY_SLOT_ACTION, "slot": np.asarray(action).tolist()}
        return dict(candidate.action)

    # ------------------------------------------------------------------------------------------ masks
    def action_masks(self) -> np.ndarray:
        """Valid slots as a boolean vector (MaskablePPO's protocol)."""
        if self.mode == "discrete":
            return np.array([slot is not None for slot in self.slots], dtype=bool)
        family_mask = np.zeros(len(self.families), dtype=bool)
        slot_mask = np.zeros(self.max_per_family, dtype=bool)
        for index, family in enumerate(self.families):
            members = self.members.get(family, [])
            present = [j for j, member in enumerate(members) if member is not None]
            if present:
                family_mask[index] = True
                slot_mask[present] = True
        return np.concatenate([family_mask, slot_mask])

    def candidate(self, action: Any) -> Candidate | None:
        """The candidate a slot (or family/slot pair) selects, ``None`` if empty or out of range."""
        try:
            if self.mode == "discrete":
                index = int(np.asarray(action).reshape(-1)[0])
                return self.slots[index] if 0 <= index < len(self.slots) else None
            family_index, slot = (int(v) for v in np.asarray(action).reshape(-1)[:2])
        except (TypeError, ValueError, IndexError):
            return None
        if not 0 <= family_index < len(self.families):
            return None
        members = self.members.get(self.families[family_index], [])
        return members[slot] if 0 <= slot < len(members) else None

    def candidate_labels(self) -> list[str]:
        """Labels of the slots in slot order (``""`` for an empty slot; ``Discrete`` mode), or of the current
        candidates in family order (``MultiDiscrete`` mode)."""
        if self.mode == "discrete":
            return [slot.label if slot is not None else "" for slot in self.slots]
        return [member.label for family in self.families for member in self.members.get(family, []) if member]

    # ------------------------------------------------------------------------------------------ helpers
    def _refresh(self, observation: Any) -> None:
        self.candidates = list(self.provider(observation if isinstance(observation, dict) else {}))
        fixed: dict[str, Candidate] = {}
        ordinary: list[Candidate] = []
        for candidate in self.candidates:
            if candidate.slot in self.fixed_slots and candidate.slot not in fixed:
                fixed[candidate.slot] = candidate
            else:
                ordinary.append(candidate)
        if self.mode == "discrete":
            room = self.max_actions - len(self.fixed_slots)
            self.slots = [fixed.get(key) for key in self.fixed_slots] + list(ordinary[:room])
            self.slots += [None] * (self.max_actions - len(self.slots))
            self.dropped = max(0, len(ordinary) - room)
        else:
            self.members, self.dropped = {}, 0
            for family in self.families:
                keys = [key for key in self.fixed_slots if slot_family(key) == family]
                members: list[Candidate | None] = [fixed.get(key) for key in keys]
                others = [c for c in ordinary if c.family == family]
                room = self.max_per_family - len(members)
                members.extend(others[:room])
                self.members[family] = members
                self.dropped += max(0, len(others) - room)
            self.dropped += sum(1 for c in ordinary if c.family not in self.families)
        if self.dropped and not self._warned:
            self._warned = True
            logger.warning("%d candidate actions did not fit in the action space (max_actions=%d, mode=%s) and were "
                           "left out; info['candidates_dropped'] counts them each step", self.dropped,
                           self.max_actions, self.mode)

    def _with_mask(self, info: dict[str, Any]) -> dict[str, Any]:
        info = dict(info)
        info["action_mask"] = self.action_masks()
        info["candidates_dropped"] = self.dropped
        return info
