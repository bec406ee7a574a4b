"""Official texts (goal framing, system contexts, the user simulator's context) rendered from the release's source.

The official task classes build their texts with f-strings in their methods (``_build_goal``,
``_build_relevant_information``, ``__init__``, ``initialize_task_hook``, ``initialize_user_agent_hook``).
:class:`TextSource` parses a release directory with :mod:`ast` (never importing or executing it) and renders those
string expressions against values the project computes itself (the simulated date, the profile, the habit fields,
``self.expectation``...).  Only string-building expressions are interpreted: constants, f-strings, containers, names,
``self`` attributes, subscripts and slices, comparisons, ``not``, ``x if c else y``, ``a or b``, one-loop
comprehensions, the builtins in :data:`SAFE_BUILTINS`, ``json.dumps`` and the string / date / dict methods in
:data:`SAFE_METHODS`; anything else raises :class:`TemplateError`.

:meth:`TextSource.run` walks a method's statements the same way: assignments (to names, ``self`` attributes and
:class:`Record` attributes), ``if`` / ``else`` on a test it can evaluate, ``try`` bodies, ``list.append`` and
``return``.  Statements it cannot evaluate (device calls, backends, loops) are skipped, as a method's side effects
on the phone are the project's business, not the text's.  Helper methods that read files or the device are given
by the project as callables in the ``values`` mapping (``{"_get_profile_id": lambda: "student"}``).
"""

from __future__ import annotations

import ast
import functools
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any


class Clock:
    """``datetime`` as an official method sees it: ``now()`` is the project's pinned run time."""

    def __init__(self, now: datetime) -> None:
        self._now = now

    def now(self) -> datetime:
        return self._now


class Record(SimpleNamespace):
    """An object whose attributes an official method may set (the ``controller`` of a hook)."""


#: Methods a template may call on a value, by the value's type (the first matching type applies).
SAFE_METHODS: dict[type, frozenset[str]] = {
    str: frozenset({"strip", "rstrip", "lstrip", "lower", "upper", "replace", "join"}),
    datetime: frozenset({"strftime", "date"}),
    date: frozenset({"strftime"}),
    dict: frozenset({"get"}),
    Clock: frozenset({"now"}),
}
#: Builtins a template may call.
SAFE_BUILTINS: dict[str, Callable[..., Any]] = {"str": str, "int": int, "bool": bool, "len": len, "any": any,
                                                "all": all}
#: Type names ``isinstance`` may test.
SAFE_TYPES: dict[str, type] = {"str": str, "list": list, "dict": dict, "tuple": tuple, "int": int, "float": float,
                               "bool": bool}
#: Errors that mean "this expression is not rendered" when a statement is walked.
NOT_RENDERED = (ValueError, TypeError, KeyError, IndexError, AttributeError)


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
            pass
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):
                raise TemplateError(f"dict unpacking in {ast.unparse(node)!r} is not rendered")
            return {_evaluate(k, names, this): _evaluate(v, names, this)  # type: ignore[arg-type]
                    for k, v in zip(node.keys, node.values, strict=True)}
        items = [_evaluate(e, names, this) for e in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.Slice):
        parts = (node.lower, node.upper, node.step)
        return slice(*(None if p is None else _evaluate(p, names, this) for p in parts))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _evaluate(node.left, names, this), _evaluate(node.right, names, this)
        if isinstance(left, str) and isinstance(right, str):
            return left + right
        if isinstance(left, list) and isinstance(right, list):
            return left + right
        raise TemplateError(f"'+' on {type(left).__name__} and {type(right).__name__} is not rendered")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not _evaluate(node.operand, names, this)
    if isinstance(node, ast.Compare):
        return _compare(node, names, this)
    if isinstance(node, ast.GeneratorExp | ast.ListComp):
        return _comprehension(node, names, this)
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
        return _call(node, names, this)
    raise TemplateError(f"expression {ast.unparse(node)!r} is not rendered")


def _compare(node: ast.Compare, names: Mapping[str, Any], this: _Self) -> bool:
    left = _evaluate(node.left, names, this)
    for op, right_node in zip(node.ops, node.comparators, strict=True):
        right = _evaluate(right_node, names, this)
        if isinstance(op, ast.Is):
            ok = left is right
        elif isinstance(op, ast.IsNot):
            ok = left is not right
        elif isinstance(op, ast.Eq):
            ok = left == right
        elif isinstance(op, ast.NotEq):
            ok = left != right
        elif isinstance(op, ast.In):
            ok = left in right
        elif isinstance(op, ast.NotIn):
            ok = left not in right
        else:
            raise TemplateError(f"comparison {ast.unparse(node)!r} is not rendered")
        if not ok:
            return False
        left = right
    return True


def _comprehension(node: ast.GeneratorExp | ast.ListComp, names: Mapping[str, Any], this: _Self) -> list[Any]:
    if len(node.generators) != 1 or not isinstance(node.generators[0].target, ast.Name):
        raise TemplateError(f"comprehension {ast.unparse(node)!r} is not rendered")
    loop = node.generators[0]
    assert isinstance(loop.target, ast.Name)
    variable = loop.target.id
    out: list[Any] = []
    for item in _evaluate(loop.iter, names, this):
        scope = {**names, variable: item}
        if all(_evaluate(test, scope, this) for test in loop.ifs):
            out.append(_evaluate(node.elt, scope, this))
    return out


def _call(node: ast.Call, names: Mapping[str, Any], this: _Self) -> Any:
    func_node = node.func
    if isinstance(func_node, ast.Name) and func_node.id in ("isinstance", "getattr", "hasattr") \
            and func_node.id not in names:
        return _builtin(func_node.id, node, names, this)
    args = [_evaluate(a, names, this) for a in node.args if not isinstance(a, ast.Starred)]
    if len(args) != len(node.args) or any(k.arg is None for k in node.keywords):
        raise TemplateError(f"call {ast.unparse(node)} with unpacking is not rendered")
    if isinstance(func_node, ast.Attribute) and isinstance(func_node.value, ast.Name):
        owner = func_node.value.id
        if owner == "self":
            kwargs = {k.arg: _evaluate(k.value, names, this) for k in node.keywords if k.arg}
            given = this.values.get(func_node.attr)
            if callable(given):  # a helper the project computes (files, device, loops)
                return given(*args, **kwargs)
            if not args and not kwargs:
                return this.source.render_return(this.cls, func_node.attr, this.values)
            return this.source.run(this.cls, func_node.attr, this.values, args, kwargs).returned
        if owner == "json" and owner not in names and func_node.attr == "dumps" and len(args) == 1:
            options = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
            return json.dumps(args[0], **options)
    if isinstance(func_node, ast.Name) and func_node.id not in names and func_node.id in SAFE_BUILTINS \
            and not node.keywords:
        return SAFE_BUILTINS[func_node.id](*args)
    func = _evaluate(func_node, names, this)
    if isinstance(func, _BoundMethod) and not node.keywords:
        return func(*args)
    raise TemplateError(f"call {ast.unparse(node)} is not rendered")


def _builtin(name: str, node: ast.Call, names: Mapping[str, Any], this: _Self) -> Any:
    """``getattr`` / ``hasattr`` on ``self`` and ``isinstance`` against :data:`SAFE_TYPES`."""
    if name in ("getattr", "hasattr") and node.args and isinstance(node.args[0], ast.Name) \
            and node.args[0].id == "self" and len(node.args) >= 2 and not node.keywords:
        args = [_evaluate(a, names, this) for a in node.args[1:]]
        attr = args[0]
        if not isinstance(attr, str):
            raise TemplateError(f"call {ast.unparse(node)} is not rendered")
        value = this.values[attr] if attr in this.values else this.source.class_literal(this.cls, attr)
        if name == "hasattr":
            return value is not _NOTHING
        if value is _NOTHING:
            if len(args) < 2:
                raise TemplateError(f"self.{attr} has no value")
            return args[1]
        return value
    if name == "isinstance" and len(node.args) == 2 and not node.keywords:
        kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
        type_names = [k.id for k in kinds if isinstance(k, ast.Name) and k.id in SAFE_TYPES]
        if len(type_names) != len(kinds):
            raise TemplateError(f"isinstance test {ast.unparse(node)!r} is not rendered")
        return isinstance(_evaluate(node.args[0], names, this), tuple(SAFE_TYPES[n] for n in type_names))
    raise TemplateError(f"call {ast.unparse(node)} is not rendered")


class _BoundMethod:
    def __init__(self, owner: Any, name: str) -> None:
        self.owner, self.name = owner, name

    def __call__(self, *args: Any) -> Any:
        if isinstance(self.owner, _Self):
            raise TemplateError(f"self.{self.name} is not a value")
        allowed = next((names for kind, names in SAFE_METHODS.items() if isinstance(self.owner, kind)), frozenset())
        if self.name not in allowed:
            raise TemplateError(f"{type(self.owner).__name__}.{self.name}() is not rendered")
        if not all(isinstance(a, str | int | float | dict | list | tuple | type(None)) for a in args):
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
            if isinstance(item, ast.Assign):
                targets, value = item.targets, item.value
            elif isinstance(item, ast.AnnAssign) and item.value is not None:
                targets, value = [item.target], item.value
            else:
                continue
            if any(isinstance(t, ast.Name) and t.id == attr for t in targets):
                try:
                    return ast.literal_eval(value)
                except ValueError:
                    return _class_string(value)
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

    def run(self, cls: str, method: str, values: Mapping[str, Any], args: list[Any] | tuple[Any, ...] = (),
            kwargs: Mapping[str, Any] | None = None, globals_: Mapping[str, Any] | None = None) -> MethodRun:
        """Walk ``cls.method`` (see the module docstring) with ``self`` attributes from ``values``.

        Args:
            cls: The class (the method may come from a base in the same directory).
            method: The method's name.
            values: ``self`` attributes, and helper methods as callables.
            args: Positional arguments after ``self``.
            kwargs: Keyword arguments.
            globals_: Module-level names the method reads (``{"datetime": Clock(...)}``).

        Returns:
            The locals, the ``self`` attributes after the walk (``values`` plus what the method assigned), the
            returned value, and the statements skipped.
        """
        node, _ = self._method(cls, method)
        attributes = dict(values)
        this = _Self(attributes, self, cls)
        params = node.args.args[1:]
        scope: dict[str, Any] = dict(globals_ or {})
        defaults = node.args.defaults
        for param, default in zip(params[len(params) - len(defaults):], defaults, strict=True):
            scope[param.arg] = _evaluate(default, {}, this)
        for param, value in zip(params, args, strict=False):
            scope[param.arg] = value
        scope.update(kwargs or {})
        out = MethodRun(scope, attributes)
        self._walk(node.body, out, this)
        return out

    def _walk(self, body: list[ast.stmt], out: MethodRun, this: _Self) -> bool:
        """Walk statements; True once a ``return`` is reached."""
        for stmt in body:
            if isinstance(stmt, ast.Return):
                out.returned = _evaluate(stmt.value, out.scope, this) if stmt.value is not None else None
                return True
            if isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                try:
                    value = _evaluate(stmt.value, out.scope, this)
                except (TemplateError, *NOT_RENDERED) as exc:
                    for target in targets:
                        self._unbind(target, out)
                    out.skipped.append(f"{ast.unparse(stmt)[:80]} ({type(exc).__name__}: {exc})")
                    continue
                for target in targets:
                    self._bind(target, value, out, this)
            elif isinstance(stmt, ast.If):
                try:
                    test = _evaluate(stmt.test, out.scope, this)
                except (TemplateError, *NOT_RENDERED) as exc:
                    out.skipped.append(f"if {ast.unparse(stmt.test)[:80]} ({type(exc).__name__}: {exc})")
                    continue
                if self._walk(stmt.body if test else stmt.orelse, out, this):
                    return True
            elif isinstance(stmt, ast.Try):
                if self._walk(stmt.body, out, this):
                    return True
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
                    and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr == "append" \
                    and isinstance(stmt.value.func.value, ast.Name) \
                    and isinstance(out.scope.get(stmt.value.func.value.id), list) and len(stmt.value.args) == 1:
                try:
                    out.scope[stmt.value.func.value.id].append(_evaluate(stmt.value.args[0], out.scope, this))
                except (TemplateError, *NOT_RENDERED):
                    out.skipped.append(ast.unparse(stmt)[:120])
            else:
                out.skipped.append(ast.unparse(stmt)[:120])
        return False

    @staticmethod
    def _bind(target: ast.expr, value: Any, out: MethodRun, this: _Self) -> None:
        if isinstance(target, ast.Name):
            out.scope[target.id] = value
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            if target.value.id == "self":
                this.values[target.attr] = value  # type: ignore[index]
            elif isinstance(out.scope.get(target.value.id), Record):
                setattr(out.scope[target.value.id], target.attr, value)
        elif isinstance(target, ast.Tuple | ast.List) and isinstance(value, list | tuple) \
                and len(value) == len(target.elts):
            for element, item in zip(target.elts, value, strict=True):
                TextSource._bind(element, item, out, this)

    @staticmethod
    def _unbind(target: ast.expr, out: MethodRun) -> None:
        if isinstance(target, ast.Name):
            out.scope.pop(target.id, None)
        elif isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                TextSource._unbind(element, out)

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


@dataclass
class MethodRun:
    """What walking an official method left: its local names, the ``self`` attributes, the value it returned."""

    scope: dict[str, Any]
    attributes: dict[str, Any]
    returned: Any = None
    skipped: list[str] = field(default_factory=list)


def _class_string(node: ast.expr) -> Any:
    """A class attribute built from literal parts (e.g. an f-string of other literals): not resolved."""
    return _NOTHING


@functools.lru_cache(maxsize=8)
def text_source(directory: str) -> TextSource:
    """Cached :class:`TextSource` for a directory of official definitions (routine, preference, ``tasks/``)."""
    return TextSource(directory)


# ------------------------------------------------------------------------------------------ f-string slots
# The official judge prompt, the rubrics and a few commands are f-strings over local variables
# (``f"User occupation: {occupation}"``).  :func:`render` fills every slot of such an expression (a string, an
# f-string or a concatenation of them) from a namespace the project computes; only a few expression shapes are
# understood (a name, ``self.<name>``, ``a or b``, ``a if b else c``, ``x.get(key, default)``, ``json.dumps(x, ...)``,
# constants).  :func:`parse`, :func:`method`, :func:`assigned` and :func:`keyword_args` find such expressions.


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
