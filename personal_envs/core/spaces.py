"""Spaces for text observations and JSON actions.

Gymnasium's :class:`~gymnasium.spaces.Text` only accepts characters from a fixed charset (letters and digits by
default), which rejects ordinary prose, JSON and accessibility trees.  :class:`UnicodeText` accepts any Python
string within its length bounds and samples from a broad alphabet that includes punctuation, whitespace and
non-ASCII letters.  It subclasses ``Text`` so the vector-env helpers (``batch_space``, ``iterate``,
``concatenate``) that Gymnasium registers for ``Text`` apply unchanged.

:class:`JsonActionSpace` is the action space of every env in the suite: an element is a dict such as
``{"action_type": "click", "x": 10, "y": 20}`` or the same object as JSON text.  ``contains`` validates against
the action specs, ``sample`` draws valid random actions, and :meth:`JsonActionSpace.tool_schemas` gives the same
actions as OpenAI tool schemas.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium.spaces import Text

from personal_envs.core.actions import (
    MAX_ACTION_CHARS,
    ActionError,
    ActionSpec,
    guarded,
    parse_action,
    tool_schemas,
)

#: Characters :meth:`UnicodeText.sample` draws from: ASCII letters, digits, punctuation, space and newline,
#: accented Latin, Greek, CJK and an emoji, so samples exercise real unicode handling.
SAMPLE_ALPHABET: str = (
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    " \n.,;:!?'\"()[]{}<>-_/#@&%+=*"
    "éèàüößñçÅ"
    "αβγδ"
    "中文字"
    "\U0001f600"
)


class UnicodeText(Text):
    """A space of Python strings of length ``min_length`` to ``max_length``, any unicode characters allowed.

    Args:
        max_length: Maximum number of characters in an element.
        min_length: Minimum number of characters (default 0: the empty string is valid).
        sample_alphabet: Characters used by :meth:`sample`; membership does not depend on it.
        seed: Optional seed for the space's random generator.
    """

    def __init__(
        self,
        max_length: int,
        *,
        min_length: int = 0,
        sample_alphabet: str = SAMPLE_ALPHABET,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        super().__init__(max_length, min_length=min_length, charset=sample_alphabet, seed=seed)

    def contains(self, x: Any) -> bool:
        """True for any ``str`` whose length lies within the bounds."""
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"UnicodeText({self.min_length}, {self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, UnicodeText)
            and self.min_length == other.min_length
            and self.max_length == other.max_length
        )

    def __hash__(self) -> int:
        return hash(("UnicodeText", self.min_length, self.max_length))


class JsonActionSpace(Text):
    """Actions as JSON objects: a dict or its JSON text, validated against a list of :class:`ActionSpec`.

    ``sample()`` returns a dict in canonical form ``{"action_type": name, **arguments}`` whose arguments satisfy
    the spec (types, enums, ranges, required keys), so random policies only ever send well-formed actions.

    :meth:`decode` is the env's one decoding boundary: ``step()`` decodes with it and ``contains(x)`` is true
    exactly when it succeeds, so the two agree on every input.  An env with more input forms (BrowserArena's
    browser-use output) sets :attr:`decoder`.
    """

    def __init__(
        self,
        specs: Sequence[ActionSpec],
        *,
        max_length: int = MAX_ACTION_CHARS,
        seed: int | np.random.Generator | None = None,
        decoder: Callable[[Any], Any] | None = None,
    ) -> None:
        if not specs:
            raise ValueError("JsonActionSpace needs at least one ActionSpec")
        self.specs: tuple[ActionSpec, ...] = tuple(specs)
        self._spec_by_name = {spec.name: spec for spec in self.specs}
        #: ``raw -> decoded action`` raising :class:`ActionError`; defaults to :func:`parse_action` on the specs.
        self.decoder: Callable[[Any], Any] | None = decoder
        super().__init__(max_length, min_length=0, charset=SAMPLE_ALPHABET, seed=seed)

    @property
    def action_names(self) -> tuple[str, ...]:
        """Names of the actions, in declaration order."""
        return tuple(spec.name for spec in self.specs)

    def decode(self, x: Any) -> Any:
        """Decode ``x`` into an action (an :class:`~personal_envs.core.actions.Action`, or what :attr:`decoder`
        returns); raises :class:`ActionError`, and nothing else, for any input."""
        if isinstance(x, str) and len(x) > self.max_length:
            raise ActionError(f"action is {len(x)} characters long; the limit is {self.max_length}")
        decoder = self.decoder
        if decoder is None:
            return parse_action(x, self._spec_by_name)
        return guarded(lambda: decoder(x))

    def contains(self, x: Any) -> bool:
        """True when ``x`` decodes into a valid action (exactly when ``step()`` accepts it); never raises."""
        try:
            self.decode(x)
        except ActionError:
            return False
        return True

    def sample(self, mask: Any = None, probability: Any = None) -> dict[str, Any]:  # type: ignore[override]
        """A valid random action in canonical dict form."""
        spec = self.specs[int(self.np_random.integers(len(self.specs)))]
        return {"action_type": spec.name, **spec.sample_arguments(self.np_random)}

    def tool_schemas(self) -> list[dict[str, Any]]:
        """The actions as OpenAI ``tools`` entries (``{"type": "function", "function": {...}}``)."""
        return tool_schemas(self.specs)

    def to_json(self, action: dict[str, Any]) -> str:
        """Serialise an action dict to JSON text."""
        return json.dumps(action, ensure_ascii=False)

    def __repr__(self) -> str:
        return f"JsonActionSpace({', '.join(self.action_names)})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, JsonActionSpace) and self.specs == other.specs

    def __hash__(self) -> int:
        return hash(("JsonActionSpace", self.specs))
