"""Action specifications and the parser that turns raw agent output into validated actions.

An agent may send an action in any of the forms LLM tool use and hand-written scripts produce:

* flat: ``{"action_type": "click", "x": 10, "y": 20}`` (``"name"`` or ``"function"`` also name the action),
* nested: ``{"name": "click", "arguments": {"x": 10, "y": 20}}`` with ``arguments`` a dict or JSON text,
* an OpenAI tool call: ``{"type": "function", "function": {"name": ..., "arguments": "..."}}``,
* any of the above as JSON text.

:func:`parse_action` returns an :class:`Action` or raises :class:`ActionError` whose message says what was wrong and
what is accepted; envs turn that message into ``last_action_error`` instead of raising.
"""

from __future__ import annotations

import itertools
import json
import math
import reprlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

ParamType = Literal["string", "integer", "number", "boolean", "array", "object"]

#: Longest action accepted, as JSON text (characters) or as the total length of the strings in a dict: 1 MiB.
MAX_ACTION_CHARS = 1 << 20

#: Deepest nesting of lists/objects accepted in an action (the deepest real action nests 4 levels).
MAX_ACTION_DEPTH = 32

#: Most values (containers and leaves) an action may hold.
MAX_ACTION_NODES = 100_000

#: Keys that may carry the action's name in the flat form, in order of preference.
NAME_KEYS: tuple[str, ...] = ("action_type", "name", "function", "action")

_SAMPLE_WORDS: tuple[str, ...] = (
    "red", "running", "shoes", "laptop", "cheap", "gift", "coffee", "USB-C", "cable", "größe", "café", "手机",
)


class ActionError(ValueError):
    """An action that cannot be parsed or does not match its spec.  The message is shown to the agent."""


@dataclass(frozen=True)
class Param:
    """One argument of an action, described the way JSON Schema describes it."""

    type: ParamType
    description: str = ""
    required: bool = True
    enum: tuple[str, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    items: ParamType | None = None
    max_items: int | None = None
    max_length: int | None = None

    def json_schema(self) -> dict[str, Any]:
        """The parameter as a JSON Schema fragment."""
        schema: dict[str, Any] = {"type": self.type}
        if self.description:
            schema["description"] = self.description
        if self.enum is not None:
            schema["enum"] = list(self.enum)
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        if self.maximum is not None:
            schema["maximum"] = self.maximum
        if self.type == "array":
            schema["items"] = {"type": self.items or "string"}
            if self.max_items is not None:
                schema["maxItems"] = self.max_items
        return schema

    def validate(self, key: str, value: Any) -> Any:
        """Return ``value`` coerced to the declared type, or raise :class:`ActionError`."""
        value = _coerce(key, self.type, value)
        if self.enum is not None and value not in self.enum:
            raise ActionError(f"argument '{key}' must be one of {list(self.enum)}, got {_preview(value)}")
        if self.type in ("integer", "number"):
            if self.minimum is not None and value < self.minimum:
                raise ActionError(f"argument '{key}' must be >= {self.minimum}, got {value}")
            if self.maximum is not None and value > self.maximum:
                raise ActionError(f"argument '{key}' must be <= {self.maximum}, got {value}")
        if self.type == "array":
            item_type = self.items or "string"
            value = [_coerce(f"{key}[{i}]", item_type, item) for i, item in enumerate(value)]
            if self.max_items is not None and len(value) > self.max_items:
                raise ActionError(f"argument '{key}' takes at most {self.max_items} items, got {len(value)}")
        if self.type == "string" and self.max_length is not None and len(value) > self.max_length:
            raise ActionError(f"argument '{key}' is {len(value)} characters long; the limit is {self.max_length}")
        return value

    def sample(self, rng: np.random.Generator) -> Any:
        """A random valid value."""
        if self.enum is not None:
            return self.enum[int(rng.integers(len(self.enum)))]
        if self.type == "string":
            count = int(rng.integers(1, 4))
            return " ".join(_SAMPLE_WORDS[int(i)] for i in rng.integers(len(_SAMPLE_WORDS), size=count))
        if self.type in ("integer", "number"):
            low = 0 if self.minimum is None else self.minimum
            high = low + 100 if self.maximum is None else self.maximum
            if self.type == "integer":
                return int(rng.integers(int(low), int(high) + 1))
            return float(rng.uniform(low, high))
        if self.type == "boolean":
            return bool(rng.integers(2))
        if self.type == "array":
            limit = 3 if self.max_items is None else min(3, self.max_items)
            item = Param(self.items or "string")
            return [item.sample(rng) for _ in range(int(rng.integers(1, limit + 1)))]
        return {}


@dataclass(frozen=True)
class ActionSpec:
    """A named action with its parameters; the unit shared by the action space, the parser and tool schemas."""

    name: str
    description: str
    params: tuple[tuple[str, Param], ...] = ()

    @classmethod
    def make(cls, name: str, description: str, **params: Param) -> ActionSpec:
        """Build a spec from keyword parameters, keeping their order."""
        return cls(name, description, tuple(params.items()))

    @property
    def param_map(self) -> dict[str, Param]:
        return dict(self.params)

    def json_schema(self) -> dict[str, Any]:
        """JSON Schema of the arguments object."""
        return {
            "type": "object",
            "properties": {key: param.json_schema() for key, param in self.params},
            "required": [key for key, param in self.params if param.required],
            "additionalProperties": False,
        }

    def sample_arguments(self, rng: np.random.Generator) -> dict[str, Any]:
        """Random valid arguments (optional ones included half of the time)."""
        arguments: dict[str, Any] = {}
        for key, param in self.params:
            if param.required or rng.integers(2):
                arguments[key] = param.sample(rng)
        return arguments

    def validate(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Check names, presence and types of the arguments; return them coerced."""
        params = self.param_map
        unknown = [key for key in arguments if key not in params]
        if unknown:
            expected = ", ".join(params) or "no arguments"
            raise ActionError(f"{self.name}() got unexpected argument(s) {unknown}; it takes: {expected}")
        missing = [key for key, param in self.params if param.required and key not in arguments]
        if missing:
            raise ActionError(f"{self.name}() is missing required argument(s) {missing}")
        return {key: params[key].validate(key, value) for key, value in arguments.items()}


@dataclass(frozen=True)
class Action:
    """A validated action: its name and its arguments."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Canonical flat form ``{"action_type": name, **arguments}``."""
        return {"action_type": self.name, **self.arguments}


def tool_schemas(specs: Sequence[ActionSpec]) -> list[dict[str, Any]]:
    """OpenAI ``tools`` entries for the given specs."""
    return [
        {
            "type": "function",
            "function": {"name": spec.name, "description": spec.description, "parameters": spec.json_schema()},
        }
        for spec in specs
    ]


def parse_action(raw: Any, specs: Mapping[str, ActionSpec]) -> Action:
    """Parse ``raw`` (dict or JSON text, in any accepted form) and validate it against ``specs``.

    Total: any Python object or text, of any depth and size, gives an :class:`Action` or an :class:`ActionError`
    (recursion, overflow, integer-string limits, lone surrogates, NaN and infinity all land as the latter).

    Raises:
        ActionError: with a message meant for the agent.
    """
    return guarded(lambda: _parse_action(raw, specs))


def guarded(decode: Any) -> Any:
    """Run ``decode()`` and turn any failure of decoding (``RecursionError``, ``OverflowError``, ``ValueError``,
    ``UnicodeError``, ``TypeError``, ``MemoryError``, ...) into an :class:`ActionError`; ActionErrors pass."""
    try:
        return decode()
    except ActionError:
        raise
    except RecursionError:
        raise ActionError(f"action is nested too deeply; at most {MAX_ACTION_DEPTH} levels are accepted") from None
    except MemoryError:
        raise ActionError("action is too large to decode") from None
    except UnicodeError:
        raise ActionError("action contains text that is not valid unicode (a lone surrogate?)") from None
    except Exception as exc:  # noqa: BLE001 - the boundary is total: whatever a hostile object raises is an error
        raise ActionError(f"action could not be decoded ({type(exc).__name__}: {_safe_str(exc)})") from None


def load_action_object(raw: Any) -> dict[str, Any]:
    """``raw`` (a mapping, JSON text or UTF-8 bytes) as a plain dict of JSON values, checked for size, depth,
    finite numbers and valid unicode; raises :class:`ActionError` for anything else (total, like
    :func:`parse_action`)."""
    return guarded(lambda: _load(raw))


def _parse_action(raw: Any, specs: Mapping[str, ActionSpec]) -> Action:
    obj = _load(raw)
    if "function" in obj and isinstance(obj["function"], Mapping):  # OpenAI tool call
        obj = dict(obj["function"])
    name, arguments = _split_name(obj)
    spec = specs.get(name)
    if spec is None:
        known = ", ".join(specs)
        raise ActionError(f"unknown action {_preview(name)}; available actions: {known}")
    return Action(spec.name, spec.validate(arguments))


def _load(raw: Any) -> dict[str, Any]:
    if isinstance(raw, (bytes, bytearray, memoryview)):
        if len(raw) > 4 * MAX_ACTION_CHARS:
            raise ActionError(f"action is {len(raw)} bytes long; the limit is {MAX_ACTION_CHARS} characters")
        raw = bytes(raw).decode("utf-8", errors="replace")
    if isinstance(raw, str):
        raw = _decode_json(raw)
    if not isinstance(raw, Mapping):
        raise ActionError(f"action must be a JSON object, got {type(raw).__name__}: {_preview(raw)}")
    checked: dict[str, Any] = check_json_value(raw)
    return checked


def _decode_json(text: str) -> Any:
    if len(text) > MAX_ACTION_CHARS:
        raise ActionError(f"action is {len(text)} characters long; the limit is {MAX_ACTION_CHARS} (1 MiB)")
    text = text.strip()
    if not text:
        raise ActionError("empty action; send a JSON object such as {\"action_type\": \"...\", ...}")
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ActionError(f"action is not valid JSON ({exc.msg} at position {exc.pos}): {_preview(text)}") from None
    except RecursionError:
        raise ActionError(f"action JSON is nested too deeply; at most {MAX_ACTION_DEPTH} levels are accepted") from None
    except ValueError as exc:  # e.g. Python's limit on digits in an integer
        raise ActionError(f"action JSON has a value that cannot be read: {_safe_str(exc)}") from None


def _reject_constant(name: str) -> Any:
    raise ActionError(f"action JSON contains {name}; numbers must be finite")


#: Most keys of an action taken by :func:`_flat_copy` (a flat object of plain values: the usual action).
_FLAT_KEYS = 64


def check_json_value(value: Any) -> Any:
    """Check (without recursion) that ``value`` is a JSON-like tree within the limits; return a plain copy of it
    (dicts and lists) made during the check, so every container is read exactly once.

    Containers are mappings with string keys, lists and tuples; leaves are None, bool, int, finite float and str
    without lone surrogates.  A container is read only as far as the limits allow (an endless mapping or sequence
    costs at most :data:`MAX_ACTION_NODES` items).  Raises :class:`ActionError` naming the first problem.
    """
    flat = _flat_copy(value)
    return flat if flat is not None else _checked_tree(value)


def _flat_copy(value: Any, nested: bool = False) -> dict[str, Any] | None:
    """The copy :func:`_checked_tree` makes of a small ``dict`` whose keys are ASCII ``str`` and whose values are
    None, bool, int, finite float, ASCII ``str`` (exact types: nothing to convert) or, one level down, such a
    ``dict`` (``{"name": ..., "arguments": {...}}``), without its general walk; None for anything else, which that
    walk then checks."""
    if type(value) is not dict or len(value) > _FLAT_KEYS:
        return None
    copy: dict[str, Any] = {}
    chars = 0
    for key, item in value.items():
        if type(key) is not str or not key.isascii():
            return None
        kind = type(item)
        if kind is str:
            if not item.isascii():
                return None
            chars += len(item)
        elif kind is int:
            if item.bit_length() > 256:
                return None
        elif kind is float:
            if not math.isfinite(item):
                return None
        elif kind is dict and not nested:
            item = _flat_copy(item, nested=True)
            if item is None:
                return None
            chars += sum(len(inner_key) + (len(inner) if type(inner) is str else 0)
                         for inner_key, inner in item.items())
        elif item is not None and kind is not bool:
            return None
        chars += len(key)
        copy[key] = item
    return copy if chars <= MAX_ACTION_CHARS else None


def _checked_tree(value: Any) -> Any:
    """:func:`check_json_value`'s general walk."""
    root: list[Any] = [None]
    stack: list[tuple[Any, int, str, Any, Any]] = [(value, 0, "action", root, 0)]
    nodes = 0
    chars = 0
    while stack:
        item, depth, where, parent, slot = stack.pop()
        nodes += 1
        if nodes > MAX_ACTION_NODES:
            raise ActionError(f"action holds more than {MAX_ACTION_NODES} values")
        if depth > MAX_ACTION_DEPTH:
            raise ActionError(f"action is nested too deeply at {where}; at most {MAX_ACTION_DEPTH} levels")
        copy: Any = item
        if item is None or isinstance(item, bool):
            pass
        elif isinstance(item, int):
            if item.bit_length() > 256:
                raise ActionError(f"{where} is an integer with {item.bit_length()} bits; too large")
            copy = int(item)
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise ActionError(f"{where} is {item}; numbers must be finite")
            copy = float(item)
        elif isinstance(item, str):
            chars += len(item)
            if chars > MAX_ACTION_CHARS:
                raise ActionError(f"action text is longer than {MAX_ACTION_CHARS} characters (1 MiB)")
            _check_unicode(item, where)
            copy = str(item)
        elif isinstance(item, Mapping):
            pairs = _bounded(item.items(), MAX_ACTION_NODES - nodes, where)
            copy = {}
            for key, child in pairs:
                if not isinstance(key, str):
                    raise ActionError(f"{where} has a non-string key {_preview(key)}")
                chars += len(key)
                _check_unicode(key, where)
                copy[str(key)] = None
                stack.append((child, depth + 1, f"{where}.{key[:40]}", copy, str(key)))
        elif isinstance(item, (list, tuple)):
            children = _bounded(item, MAX_ACTION_NODES - nodes, where)
            copy = [None] * len(children)
            stack.extend((child, depth + 1, f"{where}[{i}]", copy, i) for i, child in enumerate(children))
        else:
            raise ActionError(f"{where} is a {type(item).__name__}; actions hold only JSON values")
        parent[slot] = copy
    return root[0]


def _bounded(items: Any, budget: int, where: str) -> list[Any]:
    """At most ``budget`` items of an iterable, or :class:`ActionError` if it holds more (an endless mapping or
    sequence is never read to its end)."""
    taken = list(itertools.islice(iter(items), max(budget, 0) + 1))
    if len(taken) > budget:
        raise ActionError(f"{where} holds more than {MAX_ACTION_NODES} values")
    return taken


def _check_unicode(text: str, where: str) -> None:
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ActionError(f"{where} contains a lone surrogate; send valid unicode text") from None


def _split_name(obj: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    for key in NAME_KEYS:
        if key in obj:
            name = obj.pop(key)
            break
    else:
        raise ActionError(f"action has no name; give one of the keys {list(NAME_KEYS)}: {_preview(obj)}")
    if not isinstance(name, str):
        raise ActionError(f"action name must be a string, got {_preview(name)}")
    if "arguments" in obj or "args" in obj or "parameters" in obj:
        nested = obj.pop("arguments", None) or obj.pop("args", None) or obj.pop("parameters", None) or {}
        if isinstance(nested, str):
            nested = _load(nested) if nested.strip() else {}
        if not isinstance(nested, Mapping):
            raise ActionError(f"'arguments' must be an object, got {_preview(nested)}")
        obj = {**obj, **nested}
    obj.pop("type", None)
    return name, obj


def _coerce(key: str, kind: ParamType, value: Any) -> Any:
    if kind == "string":
        if isinstance(value, str):
            return value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
    elif kind == "integer":
        if isinstance(value, bool):
            pass
        elif isinstance(value, int):
            return value
        elif isinstance(value, float) and value.is_integer():
            return int(value)
        elif isinstance(value, str) and len(value) <= 64:
            try:
                number = float(value.strip())
            except ValueError:
                pass
            else:
                if math.isfinite(number):
                    return int(number)
    elif kind == "number":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            number = float(value)
            if math.isfinite(number):
                return number
        elif isinstance(value, str) and len(value) <= 64:
            try:
                number = float(value.strip())
            except ValueError:
                pass
            else:
                if math.isfinite(number):
                    return number
    elif kind == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
    elif kind == "array":
        if isinstance(value, (list, tuple)):
            return list(value)
    elif kind == "object" and isinstance(value, Mapping):
        return dict(value)
    raise ActionError(f"argument '{key}' must be of type {kind}, got {type(value).__name__} {_preview(value)}")


_REPR = reprlib.Repr()
_REPR.maxstring = 100
_REPR.maxother = 100
_REPR.maxlong = 60


def safe_repr(value: Any, limit: int = 500) -> str:
    """``repr(value)`` cut to ``limit`` characters, valid UTF-8; never raises, whatever the value's depth, size or
    ``__repr__``."""
    try:
        text = _REPR.repr(value)
    except Exception:  # noqa: BLE001 - a hostile __repr__
        text = f"<{type(value).__name__}>"
    return text[:limit].encode("utf-8", errors="backslashreplace").decode("utf-8")


def _preview(value: Any, limit: int = 80) -> str:
    """A short, printable preview of any value (never raises, whatever its depth, size or ``__repr__``)."""
    text = value[: limit + 1] if isinstance(value, str) else safe_repr(value, limit + 1)
    text = text.encode("utf-8", errors="backslashreplace").decode("utf-8")
    return repr(text[:limit] + "…") if len(text) > limit else repr(text)


def _safe_str(exc: BaseException, limit: int = 200) -> str:
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001
        text = type(exc).__name__
    return text[:limit].encode("utf-8", errors="backslashreplace").decode("utf-8")
