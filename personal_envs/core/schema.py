"""Reading the files a user gives the project and checking them against a schema, with one-line errors.

Every benchmark keeps the schemas of its files in a small module beside its loader (``personalwab/schema.py``,
``webmall/schema.py``, ``knowu/schema.py``, ``trajectories/schema.py``, ...), written as pydantic models or typed
dicts.  This module holds what they share:

* :func:`read_text`, :func:`read_json` and :func:`read_yaml` read a file and turn every way it can be unreadable
  (missing, a folder, not UTF-8, not JSON / YAML, nested too deeply, a YAML alias bomb) into an
  :class:`~personal_envs.core.errors.InputError` naming the file;
* :func:`validate` checks a parsed value against a schema and turns pydantic's report into one line naming the
  file, the field and what was expected: ``<file>: field test[0].timestamp: expected an integer, got 'soon'``.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import TypeAdapter, ValidationError

from personal_envs.core.errors import InputError, MissingDataError, one_line

#: Most YAML nodes a file may hold once its aliases are expanded (the largest KnowU profile, the official
#: ``user.yaml``, has 896; a 1 KB "billion laughs" file expands to 10**9).
MAX_YAML_NODES = 200_000

_YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# ------------------------------------------------------------------------------------------------ reading
def existing_dir(path: Any, what: str = "data_dir") -> Path:
    """``path`` as a :class:`Path` to an existing folder; :class:`InputError` if it is not a path, or
    :class:`MissingDataError` if the folder does not exist (a folder the user names is never silently replaced by
    other data)."""
    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
        raise InputError(f"{what} must be a folder path (text), got {preview(path)}")
    folder = Path(path).expanduser()
    if not folder.is_dir():
        state = "is a file, not a folder" if folder.exists() else "does not exist"
        raise MissingDataError(f"{what} {folder} {state}")
    return folder


def read_bytes(path: str | os.PathLike[str], what: str = "file") -> bytes:
    """The bytes of ``path``; :class:`InputError` if it is missing, a folder or unreadable."""
    file = Path(path)
    try:
        return file.read_bytes()
    except FileNotFoundError:
        raise MissingDataError(f"{file}: no such {what}") from None
    except IsADirectoryError:
        raise InputError(f"{file}: is a folder, expected a {what}") from None
    except OSError as exc:
        raise InputError(f"{file}: cannot read the {what} ({exc.strerror or type(exc).__name__})") from None


def decode_utf8(data: bytes, source: str) -> str:
    """``data`` as UTF-8 text (a byte-order mark is dropped); :class:`InputError` naming ``source`` and the offset of
    the first byte that is not UTF-8."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{source}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None


def read_text(path: str | os.PathLike[str], what: str = "file") -> str:
    """The UTF-8 text of ``path`` (see :func:`read_bytes` and :func:`decode_utf8`)."""
    return decode_utf8(read_bytes(path, what), str(path))


def parse_json(text: str | bytes, source: str) -> Any:
    """Parse JSON text; :class:`InputError` naming ``source``, the line and the column on any failure."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{source}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise InputError(f"{source}: not valid JSON (nested too deeply)") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise InputError(f"{source}: not valid JSON ({exc})") from None


def read_json(path: str | os.PathLike[str], what: str = "JSON file") -> Any:
    """The parsed JSON of ``path``."""
    return parse_json(read_text(path, what), str(path))


def parse_yaml(text: str, source: str, max_nodes: int = MAX_YAML_NODES) -> Any:
    """Parse one YAML document with the safe loader; :class:`InputError` naming ``source`` when it is not valid
    YAML or holds more than ``max_nodes`` nodes once its aliases are expanded (or an alias refers to itself)."""
    loader = _YAML_LOADER(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_expanded_size(node, source, max_nodes)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise InputError(f"{source}: not valid YAML ({_yaml_problem(exc)})") from None
    except RecursionError:
        raise InputError(f"{source}: not valid YAML (nested too deeply)") from None
    finally:
        loader.dispose()


def read_yaml(path: str | os.PathLike[str], what: str = "YAML file") -> Any:
    """The parsed YAML of ``path`` (see :func:`parse_yaml`)."""
    return parse_yaml(read_text(path, what), str(path))


def _yaml_problem(exc: yaml.YAMLError) -> str:
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or str(exc)
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    where = f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""
    return f"{one_line(str(problem))}{where}"


def _check_expanded_size(root: yaml.Node, source: str, limit: int) -> None:
    """Refuse a node graph whose expansion (aliases copied out) exceeds ``limit`` nodes, or that is cyclic.  Linear
    in the number of distinct nodes: each node's expanded size is computed once."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            open_nodes.discard(key)
            total = 1 + sum(sizes[id(child)] for child in _children(node))
            if total > limit:
                raise InputError(f"{source}: YAML expands to more than {limit:,} values through its aliases "
                                 "(an alias bomb?)")
            sizes[key] = total
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise InputError(f"{source}: a YAML alias refers to the value that contains it")
        open_nodes.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in open_nodes:
                raise InputError(f"{source}: a YAML alias refers to the value that contains it")
            if id(child) not in sizes:
                stack.append((child, False))


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


# --------------------------------------------------------------------------------------------- validation
@functools.lru_cache(maxsize=256)
def adapter_for(schema: Any) -> TypeAdapter[Any]:
    """The (cached) pydantic adapter of a schema type."""
    return TypeAdapter(schema)


def validate(schema: Any, value: Any, source: str) -> Any:
    """``value`` checked against ``schema`` (a pydantic model or any type pydantic accepts); the validated value
    (models are built, typed dicts copied, numbers coerced as the schema says).

    Raises:
        InputError: ``<source>: field <path>: <what was expected>, got <value>`` for the first problem, with the
            count of the others.
    """
    try:
        return adapter_for(schema).validate_python(value)
    except ValidationError as exc:
        raise InputError(describe_validation(exc, source)) from None


def describe_validation(exc: ValidationError, source: str) -> str:
    """pydantic's report as one line: the first problem's field, what was expected and what was found.

    The members of a union each report a problem; they count as one: ``expected A or B`` when they all fault the
    same value, else the most specific of them (the deepest field).
    """
    errors = exc.errors(include_url=False)
    first = errors[0]
    union = _union_prefix(first["loc"])
    group = [e for e in errors if union is not None and _union_prefix(e["loc"]) == union] or [first]
    locs = {_without_tags(e["loc"]) for e in group}
    if len(group) > 1 and len(locs) == 1:
        expected = "expected " + " or ".join(dict.fromkeys(_expected(e).removeprefix("expected ") for e in group))
        chosen = first
    else:
        chosen = max(group, key=lambda e: len(_without_tags(e["loc"])))
        expected = _expected(chosen)
    others = len(errors) - len(group)
    got = "" if chosen["type"] == "missing" else f", got {preview(chosen.get('input'))}"
    more = f" (and {others} more problem{'s' if others > 1 else ''})" if others else ""
    where = field_path(_without_tags(chosen["loc"]))
    place = f"field {where}: " if where else ""
    return f"{source}: {place}{expected}{got}{more}"


#: How pydantic names a union member in an error's location (``str``, ``list[str]``, ``function-after[...]``).
_TAG = re.compile(r"^(str|int|float|bool|bytes|none|[a-z][a-z-]*\[.*\])$")


def _is_tag(part: int | str) -> bool:
    return isinstance(part, str) and bool(_TAG.match(part))


def _union_prefix(loc: Sequence[int | str]) -> tuple[int | str, ...] | None:
    """The location up to the first union-member tag (``None`` if the error is not inside a union)."""
    for index, part in enumerate(loc):
        if _is_tag(part):
            return tuple(loc[:index])
    return None


def _without_tags(loc: Sequence[int | str]) -> tuple[int | str, ...]:
    return tuple(part for part in loc if not _is_tag(part))


#: pydantic's names of JSON / YAML types, as a user of those files calls them.
_TYPE_WORDS: dict[str, str] = {
    "a valid dictionary": "an object (mapping)", "a valid list": "a list", "a valid string": "a string (text)",
    "a valid integer": "an integer", "a valid number": "a number", "a valid boolean": "true or false",
    "a valid array": "a list", "a valid tuple": "a list",
}


def _expected(error: Any) -> str:
    message = str(error["msg"])
    if error["type"] == "missing":
        return "required, but missing"
    if message.startswith("Input should be "):
        wanted = message[len("Input should be "):]
        return f"expected {_TYPE_WORDS.get(wanted, wanted)}"
    if message.startswith("Value error, "):
        return message[len("Value error, "):]
    return message[:1].lower() + message[1:]


def field_path(loc: Sequence[int | str]) -> str:
    """``("test", 0, "timestamp")`` as ``test[0].timestamp``."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


def preview(value: Any, limit: int = 60) -> str:
    """A short ``repr`` of a value found in a file."""
    if isinstance(value, dict):
        return f"an object with {len(value)} key{'s' if len(value) != 1 else ''}"
    if isinstance(value, list) and len(repr(value)) > limit:
        return f"a list of {len(value)} items"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
