"""Official prompt texts read from the release with :mod:`ast`, their f-string slots filled by the project.

The official judge prompt and most rubrics are f-strings over local variables (``f"User occupation: {occupation}"``).
:func:`render` walks such an expression (a string, an f-string or a concatenation of them) and fills every slot from
a namespace the project computes itself; only a few expression shapes are understood (a name, ``self.<name>``,
``a or b``, ``a if b else c``, ``x.get(key, default)``, ``json.dumps(x, ...)``, constants), so nothing of the official code runs.
An expression of another shape raises :class:`UnsupportedSlot` naming it.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any


class UnsupportedSlot(ValueError):
    """An f-string slot whose expression :func:`render` does not evaluate."""


class MissingSlot(KeyError):
    """A slot names a value the namespace does not hold."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def _value(node: ast.expr, ns: Mapping[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in ns:
            raise MissingSlot(f"the official text needs {node.id!r}, which the project did not provide")
        return ns[node.id]
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        if node.attr not in ns:
            raise MissingSlot(f"the official text needs self.{node.attr}, which the project did not provide")
        return ns[node.attr]
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
        value: Any = None
        for part in node.values:
            value = _value(part, ns)
            if value:
                return value
        return value
    if isinstance(node, ast.IfExp):
        return _value(node.body, ns) if _value(node.test, ns) else _value(node.orelse, ns)
    if isinstance(node, ast.Dict) and not node.keys:
        return {}
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        func = node.func
        if func.attr == "get" and len(node.args) in (1, 2) and not node.keywords:
            holder = _value(func.value, ns)
            key = _value(node.args[0], ns)
            default = _value(node.args[1], ns) if len(node.args) == 2 else None
            return holder.get(key, default) if isinstance(holder, Mapping) else default
        if isinstance(func.value, ast.Name) and func.value.id == "json" and func.attr == "dumps" and len(node.args) == 1:
            kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
            return json.dumps(_value(node.args[0], ns), **kwargs)
    if isinstance(node, ast.JoinedStr):
        return render(node, ns)
    raise UnsupportedSlot(f"official f-string slot {ast.unparse(node)!r} is not a shape the project fills")


def render(node: ast.expr, ns: Mapping[str, Any]) -> str:
    """The text of an official string expression with its slots filled from ``ns``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return render(node.left, ns) + render(node.right, ns)
    if isinstance(node, ast.JoinedStr):
        parts: list[str] = []
        for piece in node.values:
            if isinstance(piece, ast.Constant):
                parts.append(str(piece.value))
                continue
            if not isinstance(piece, ast.FormattedValue):
                raise UnsupportedSlot(f"unexpected f-string part {ast.dump(piece)[:80]}")
            value = _value(piece.value, ns)
            if piece.conversion == ord("r"):
                value = repr(value)
            elif piece.conversion == ord("s"):
                value = str(value)
            elif piece.conversion == ord("a"):
                value = ascii(value)
            spec = render(piece.format_spec, ns) if piece.format_spec is not None else ""
            parts.append(format(value, spec))
        return "".join(parts)
    raise UnsupportedSlot(f"not a string expression: {ast.unparse(node)[:80]!r}")


def slot_names(node: ast.expr) -> list[str]:
    """The names (``x`` or ``self.x``) an official string expression reads, in order."""
    names: list[str] = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.FormattedValue):
            for inner in ast.walk(sub.value):
                if isinstance(inner, ast.Name) and inner.id not in ("json", "self"):
                    names.append(inner.id)
                elif isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name) \
                        and inner.value.id == "self":
                    names.append(inner.attr)
    return list(dict.fromkeys(names))


def _functions(tree: ast.AST) -> Iterator[tuple[str | None, ast.FunctionDef]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    yield node.name, item


def parse(path: Path) -> ast.Module:
    """The syntax tree of an official file (parsed, never executed)."""
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def method(tree: ast.AST, class_name: str, name: str) -> ast.FunctionDef:
    """The method ``class_name.name`` of an official file (``KeyError`` naming both)."""
    for owner, func in _functions(tree):
        if owner == class_name and func.name == name:
            return func
    raise KeyError(f"official class {class_name} has no method {name!r}")


def assigned(func: ast.AST, target: str) -> list[ast.expr]:
    """The expressions assigned to ``target`` (a local name or ``self.<target>``) in ``func``, in source order."""
    found: list[tuple[int, ast.expr]] = []
    for node in ast.walk(func):
        if isinstance(node, ast.Assign):
            for tgt in node.targets:
                name = tgt.id if isinstance(tgt, ast.Name) else (
                    tgt.attr if isinstance(tgt, ast.Attribute) else None)
                if name == target:
                    found.append((node.lineno, node.value))
    return [value for _, value in sorted(found, key=lambda item: item[0])]


def keyword_args(func: ast.AST, callee: str, keyword: str) -> list[ast.expr]:
    """The ``keyword=`` argument expressions of every call to ``...callee(...)`` in ``func``, in source order."""
    found: list[tuple[int, ast.expr]] = []
    for node in ast.walk(func):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else (
                node.func.id if isinstance(node.func, ast.Name) else "")
            if name == callee:
                found += [(node.lineno, k.value) for k in node.keywords if k.arg == keyword]
    return [value for _, value in sorted(found, key=lambda item: item[0])]
