"""Official routine texts (goal framing, system contexts, the user's context) rendered from the release's source.

The official routine classes build their texts with f-strings in their methods (``_build_goal``,
``_build_relevant_information``, ``__init__``, ``initialize_task_hook``).  :class:`TextSource` parses a release file
with :mod:`ast` (never importing or executing it) and renders those string expressions against values the project
computes itself (the simulated date, the habit fields, ``self.expectation``...).  Only string-building expressions
are interpreted: constants, f-strings, names, ``self`` attributes, subscripts, ``x if c else y``, ``a or b``, and the
string / date / dict methods in :data:`SAFE_METHODS`; anything else raises :class:`TemplateError`.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

#: Methods a template may call on a value, by the value's type.
SAFE_METHODS: dict[type, frozenset[str]] = {
    str: frozenset({"strip", "rstrip", "lstrip", "lower", "upper", "replace"}),
    datetime: frozenset({"strftime"}),
    dict: frozenset({"get"}),
}


class TemplateError(ValueError):
    """An official expression the renderer does not interpret (or a value it needs is missing)."""


class _Self:
    """Attribute access on ``self`` backed by a mapping (missing names raise :class:`TemplateError`)."""

    def __init__(self, values: Mapping[str, Any], source: TextSource, cls: str) -> None:
        self.values, self.source, self.cls = values, source, cls


def _evaluate(node: ast.expr, names: Mapping[str, Any], this: _Self) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Dict | ast.List | ast.Tuple):
        try:
            return ast.literal_eval(node)
        except ValueError:
            raise TemplateError(f"non-literal container {ast.unparse(node)!r}") from None
    if isinstance(node, ast.JoinedStr):
        return "".join(str(_evaluate(v, names, this)) for v in node.values)
    if isinstance(node, ast.FormattedValue):
        value = _evaluate(node.value, names, this)
        spec = _evaluate(node.format_spec, names, this) if node.format_spec is not None else ""
        if node.conversion == ord("r"):
            value = repr(value)
        return format(value, spec)
    if isinstance(node, ast.Name):
        if node.id == "self":
            return this
        if node.id in names:
            return names[node.id]
        raise TemplateError(f"name {node.id!r} has no value")
    if isinstance(node, ast.Attribute):
        owner = _evaluate(node.value, names, this)
        if isinstance(owner, _Self):
            if node.attr in owner.values:
                return owner.values[node.attr]
            literal = owner.source.class_literal(owner.cls, node.attr)
            if literal is not _NOTHING:
                return literal
            raise TemplateError(f"self.{node.attr} has no value")
        return _BoundMethod(owner, node.attr)
    if isinstance(node, ast.Subscript):
        owner = _evaluate(node.value, names, this)
        key = _evaluate(node.slice, names, this)
        try:
            return owner[key]
        except (KeyError, IndexError, TypeError) as exc:
            raise TemplateError(f"subscript {key!r} failed: {exc}") from None
    if isinstance(node, ast.IfExp):
        return _evaluate(node.body if _evaluate(node.test, names, this) else node.orelse, names, this)
    if isinstance(node, ast.BoolOp):
        result: Any = None
        for value in node.values:
            result = _evaluate(value, names, this)
            if isinstance(node.op, ast.Or) and result:
                return result
            if isinstance(node.op, ast.And) and not result:
                return result
        return result
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                and node.func.value.id == "self":
            if node.args or node.keywords:
                raise TemplateError(f"self.{node.func.attr}() with arguments is not rendered")
            return this.source.render_return(this.cls, node.func.attr, this.values)
        func = _evaluate(node.func, names, this)
        args = [_evaluate(a, names, this) for a in node.args]
        if isinstance(func, _BoundMethod) and not node.keywords:
            return func(*args)
        raise TemplateError(f"call {ast.unparse(node)} is not rendered")
    raise TemplateError(f"expression {ast.unparse(node)!r} is not rendered")


class _BoundMethod:
    def __init__(self, owner: Any, name: str) -> None:
        self.owner, self.name = owner, name

    def __call__(self, *args: Any) -> Any:
        if isinstance(self.owner, _Self):
            raise TemplateError(f"self.{self.name} is not a value")
        allowed = next((names for kind, names in SAFE_METHODS.items() if isinstance(self.owner, kind)), frozenset())
        if self.name not in allowed:
            raise TemplateError(f"{type(self.owner).__name__}.{self.name}() is not rendered")
        if not all(isinstance(a, str | int | float | dict | list | type(None)) for a in args):
            raise TemplateError(f"{self.name}() with non-literal arguments is not rendered")
        return getattr(self.owner, self.name)(*args)


_NOTHING = object()


class TextSource:
    """The parsed routine definitions of one release directory (``.../tasks/definitions/routine``)."""

    def __init__(self, routine_dir: str | Path) -> None:
        self.root = Path(routine_dir)
        self._classes: dict[str, tuple[ast.ClassDef, str]] = {}
        for path in sorted(self.root.glob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in tree.body:
                if isinstance(node, ast.ClassDef):
                    self._classes[node.name] = (node, path.name)

    # -------------------------------------------------------------------------------------------- lookups
    def classes(self) -> list[str]:
        """Names of the classes defined in the routine directory."""
        return list(self._classes)

    def file_of(self, cls: str) -> str:
        """The file defining ``cls``."""
        return self._class(cls)[1]

    def _class(self, cls: str) -> tuple[ast.ClassDef, str]:
        try:
            return self._classes[cls]
        except KeyError:
            raise TemplateError(f"the release defines no routine class {cls!r}") from None

    def _bases(self, cls: str) -> list[str]:
        node = self._class(cls)[0]
        return [b.id for b in node.bases if isinstance(b, ast.Name) and b.id in self._classes]

    def _method(self, cls: str, name: str) -> tuple[ast.FunctionDef, str]:
        """The method ``name`` of ``cls`` or of its nearest base defining it, and that class's name."""
        node = self._class(cls)[0]
        for item in node.body:
            if isinstance(item, ast.FunctionDef) and item.name == name:
                return item, cls
        for base in self._bases(cls):
            try:
                return self._method(base, name)
            except TemplateError:
                continue
        raise TemplateError(f"{cls} has no method {name!r}")

    def class_literal(self, cls: str, attr: str) -> Any:
        """A literal class attribute of ``cls`` (or a base); :data:`_NOTHING` when there is none."""
        node = self._class(cls)[0]
        for item in node.body:
            if isinstance(item, ast.Assign) and any(isinstance(t, ast.Name) and t.id == attr for t in item.targets):
                try:
                    return ast.literal_eval(item.value)
                except ValueError:
                    return _class_string(item.value)
        for base in self._bases(cls):
            value = self.class_literal(base, attr)
            if value is not _NOTHING:
                return value
        return _NOTHING

    def literal(self, cls: str, attr: str) -> Any:
        """A literal class attribute; :class:`TemplateError` when missing."""
        value = self.class_literal(cls, attr)
        if value is _NOTHING:
            raise TemplateError(f"{cls}.{attr} is not a literal in the release")
        return value

    # -------------------------------------------------------------------------------------------- rendering
    def _locals(self, method: ast.FunctionDef, names: dict[str, Any], this: _Self) -> dict[str, Any]:
        """Simple ``name = <string expression>`` assignments of the method, in order (others are skipped)."""
        scope = dict(names)
        assigns = sorted((s for s in ast.walk(method) if isinstance(s, ast.Assign)), key=lambda s: (s.lineno, s.col_offset))
        for stmt in assigns:
            if len(stmt.targets) != 1:
                continue
            target = stmt.targets[0]
            pairs: list[tuple[ast.expr, ast.expr]] = []
            if isinstance(target, ast.Name):
                pairs = [(target, stmt.value)]
            elif isinstance(target, ast.Tuple) and isinstance(stmt.value, ast.Tuple) \
                    and len(target.elts) == len(stmt.value.elts):
                pairs = list(zip(target.elts, stmt.value.elts, strict=True))
            for name, value in pairs:
                if not isinstance(name, ast.Name):
                    continue
                try:
                    scope[name.id] = _evaluate(value, scope, this)
                except TemplateError:
                    continue
        return scope

    def render_return(self, cls: str, method: str, values: Mapping[str, Any],
                      args: Mapping[str, Any] | None = None) -> Any:
        """The value the method's ``return`` builds, with ``self`` attributes from ``values`` and parameters from
        ``args`` (parameter defaults apply)."""
        node, owner = self._method(cls, method)
        this = _Self(values, self, cls)
        names: dict[str, Any] = {}
        params = node.args.args[1:]
        defaults = node.args.defaults
        for param, default in zip(params[len(params) - len(defaults):], defaults, strict=True):
            names[param.arg] = _evaluate(default, {}, this)
        names.update(args or {})
        scope = self._locals(node, names, this)
        returns = [s for s in ast.walk(node) if isinstance(s, ast.Return) and s.value is not None]
        if not returns:
            raise TemplateError(f"{owner}.{method} returns nothing")
        return _evaluate(returns[-1].value, scope, this)  # type: ignore[arg-type]

    def call_arguments(self, cls: str, method: str, func: str, values: Mapping[str, Any]) -> dict[str, Any]:
        """The keyword arguments of the call ``self.<func>(...)`` in ``cls.<method>``, rendered (missing ones are
        left out)."""
        node, _ = self._method(cls, method)
        this = _Self(values, self, cls)
        scope = self._locals(node, {}, this)
        for call in ast.walk(node):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == func:
                return {kw.arg: _evaluate(kw.value, scope, this) for kw in call.keywords if kw.arg}
        return {}


def _class_string(node: ast.expr) -> Any:
    """A class attribute built from literal parts (e.g. an f-string of other literals): not resolved."""
    return _NOTHING


@functools.lru_cache(maxsize=8)
def text_source(routine_dir: str) -> TextSource:
    """Cached :class:`TextSource` for a routine directory."""
    return TextSource(routine_dir)
