"""A seeded generator of malformed actions, for the fuzz tests and ``benchmarks/fuzz.py``.

:func:`malformed_actions` yields ``(category, action)`` pairs built from an env's own action specs so that many of
them get past the name check and reach argument validation and the env itself.  The categories are the hostile
inputs every env must survive without raising: deep nesting (text and objects), huge JSON, numbers that overflow or
exceed Python's integer-string limit, NaN and infinity, lone surrogates, wrong types, unknown names, odd Python
objects, browser-use output forms, and random mutations of valid actions.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from personal_envs.core.actions import MAX_ACTION_CHARS, ActionSpec

#: Category names, in the order :func:`malformed_actions` cycles through them.
CATEGORIES: tuple[str, ...] = (
    "deep_text", "deep_object", "huge_json", "overflow", "int_string_limit", "nan_inf", "surrogate",
    "wrong_type", "unknown_name", "python_object", "browser_use_form", "mutation",
)


class _HostileRepr:
    """An object whose ``repr``/``str``/comparisons raise: nothing may call into it unguarded."""

    def __repr__(self) -> str:
        raise RuntimeError("hostile __repr__")

    def __str__(self) -> str:
        raise RuntimeError("hostile __str__")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("hostile __eq__")

    __hash__ = object.__hash__


def _deep_list(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


def _deep_dict(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"a": value}
    return value


def malformed_actions(specs: Sequence[ActionSpec], count: int, seed: int = 0) -> Iterator[tuple[str, Any]]:
    """``count`` hostile ``(category, action)`` pairs for an env with ``specs``, reproducible from ``seed``."""
    rng = np.random.default_rng(seed)
    for i in range(count):
        category = CATEGORIES[i % len(CATEGORIES)]
        yield category, _make(category, specs, rng)


def _pick(specs: Sequence[ActionSpec], rng: np.random.Generator) -> tuple[ActionSpec, str | None]:
    spec = specs[int(rng.integers(len(specs)))]
    keys = [key for key, _param in spec.params]
    return spec, (keys[int(rng.integers(len(keys)))] if keys else None)


def _with(spec: ActionSpec, key: str | None, value: Any, rng: np.random.Generator) -> dict[str, Any]:
    action: dict[str, Any] = {"action_type": spec.name, **spec.sample_arguments(rng)}
    action[key or "extra"] = value
    return action


def _make(category: str, specs: Sequence[ActionSpec], rng: np.random.Generator) -> Any:  # noqa: C901
    spec, key = _pick(specs, rng)
    depth = int(rng.choice([100, 1000, 5000, 20_000]))
    variant = int(rng.integers(4))
    if category == "deep_text":
        if variant == 0:
            return "[" * depth + "]" * depth
        if variant == 1:
            return '{"a":' * depth + "1" + "}" * depth
        return json.dumps({"action_type": spec.name})[:-1] + ', "x": ' + "[" * depth + "]" * depth + "}"
    if category == "deep_object":
        value = _deep_list(depth) if variant % 2 else _deep_dict(depth)
        if variant == 3:
            return {"name": spec.name, "arguments": value}
        return _with(spec, key, value, rng)
    if category == "huge_json":
        size = MAX_ACTION_CHARS + int(rng.integers(1, 1000))
        if variant == 0:
            return json.dumps({"action_type": spec.name, key or "text": "a" * size})
        if variant == 1:
            return " " * size + json.dumps({"action_type": spec.name})
        if variant == 2:
            return _with(spec, key, "b" * size, rng)
        return _with(spec, key, ["c" * 1000] * (size // 1000 + 1), rng)
    if category == "overflow":
        choices: list[Any] = ["1e400", "-1e400", 1e308 * 10, 10**400, "9" * 300, -(10**80), 2**64]
        return _with(spec, key, choices[int(rng.integers(len(choices)))], rng)
    if category == "int_string_limit":
        digits = "9" * int(rng.choice([4301, 5000, 50_000]))
        if variant == 0:
            return '{"action_type": "' + spec.name + '", "' + (key or "x") + '": ' + digits + "}"
        if variant == 1:
            return _with(spec, key, digits, rng)
        if variant == 2:
            return _with(spec, key, int(digits[:4000]) * 10**1000, rng)
        return '{"action_type": "' + spec.name + '", "' + (key or "x") + '": ' + digits + ".5e10}"
    if category == "nan_inf":
        values: list[Any] = [math.nan, math.inf, -math.inf, "NaN", "inf", "-Infinity", "nan"]
        value = values[int(rng.integers(len(values)))]
        if variant == 0:
            return '{"action_type": "' + spec.name + '", "' + (key or "x") + '": NaN}'
        if variant == 1:
            return '{"action_type": "' + spec.name + '", "' + (key or "x") + '": -Infinity}'
        return _with(spec, key, value, rng)
    if category == "surrogate":
        lone = chr(0xD800 + int(rng.integers(0x800)))
        if variant == 0:
            return _with(spec, key, "abc" + lone, rng)
        if variant == 1:
            return '{"action_type": "' + spec.name + '", "' + (key or "x") + '": "\\ud800"}'
        if variant == 2:
            return {"action_type": spec.name + lone}
        return {"action_type": spec.name, lone: 1}
    if category == "wrong_type":
        values = [None, True, [], {}, [1, 2], {"x": 1}, -1, 0.5, "", " ", b"\xff\xfe", 3 + 4j]
        return _with(spec, key, values[int(rng.integers(len(values)))], rng)
    if category == "unknown_name":
        names: list[Any] = ["", " ", "__class__", "_execute", spec.name.upper(), spec.name + "\x00", None, 7,
                            ["click"], {"name": "x"}, "a" * 5000]
        return {"action_type": names[int(rng.integers(len(names)))]}
    if category == "python_object":
        objects: list[Any] = [None, 0, 1.5, object(), _HostileRepr(), {_HostileRepr(): 1}, {1: "a"}, (1, 2),
                              {"action_type": spec.name, key or "x": _HostileRepr()}, b"{\"action_type\": 1}",
                              bytearray(b"\xff" * 10), np.int64(3), np.array([1.0, np.nan]), set(), frozenset([1]),
                              {"action_type": spec.name, key or "x": {1, 2}}, type, print, range(10**12)]
        return objects[int(rng.integers(len(objects)))]
    if category == "browser_use_form":
        args: Any = {key or "x": "\ud800"} if variant == 0 else {key or "x": math.nan} if variant == 1 else None
        forms: list[Any] = [
            {"action": [{spec.name: args}]},
            {"current_state": _deep_dict(depth), "action": [{spec.name: spec.sample_arguments(rng)}]},
            {"current_state": "x", "action": []},
            {"action": [{spec.name: spec.sample_arguments(rng)}] * 50},
            {"action": [[1], "x", None, {"a": 1, "b": 2}]},
            {"current_state": {"memory": _HostileRepr()}, "action": [{spec.name: {}}]},
            json.dumps({"action": [{spec.name: {key or "x": "\\ud800"}}]}),
        ]
        return forms[int(rng.integers(len(forms)))]
    # mutation: a valid action with one argument replaced, removed or duplicated under another name
    action: dict[str, Any] = {"action_type": spec.name, **spec.sample_arguments(rng)}
    if key is not None and variant == 0:
        action.pop(key, None)
    elif key is not None and variant == 1:
        action[key] = [action.get(key)] * int(rng.integers(1, 5))
    elif variant == 2:
        action["arguments"] = json.dumps(action)[: int(rng.integers(1, 40))]
    else:
        action[key or "x"] = "".join(chr(int(c)) for c in rng.integers(0, 0x10FFFF, size=20) if not 0xD800 <= c < 0xE000)
    return action if variant != 3 or rng.integers(2) else json.dumps(action, ensure_ascii=False)
