"""The official task definitions, parsed with :mod:`ast` (never imported, never executed), and the official roles.

:func:`parse_release` reads every ``tasks/definitions/{general,preference,routine}/*.py`` of a release and returns
an :class:`OfficialSource`: per class its name, bases, family, docstring, the literal class attributes (``goal``,
``task_tags``, ``app_names``, ``supported_profiles``, ``GOAL_REQUEST``...), the literal values assigned in each method
(``self.x = <literal>`` and ``x = <literal>``), the literal arguments of the calls made in each method (e.g.
``_build_goal(system_context=...)``), and the module's literal constants.  Values that are not literals (names,
f-strings, calls) are left out: the project reimplements the logic, the release supplies the texts.

The personas (profiles and logs) are read by :mod:`personal_envs.knowu.personas`.
"""

from __future__ import annotations

import ast
import difflib
import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from personal_envs.core.errors import InputError
from personal_envs.core.schema import read_text
from personal_envs.knowu.official.release import OfficialRelease

FAMILIES: tuple[str, ...] = ("general", "preference", "routine")

_MISSING = object()


def literal(node: ast.AST | None, names: dict[str, Any] | None = None) -> Any:
    """The value of a literal expression (strings, numbers, tuples, lists, sets, dicts, ``a + b`` of literals, and
    f-strings whose fields are names or ``self.X`` / ``Class.X`` attributes found in ``names``); :data:`_MISSING`
    otherwise.  Nothing is evaluated beyond substituting those literal constants."""
    if node is None:
        return _MISSING
    if isinstance(node, ast.Name) and names is not None and node.id in names:
        return names[node.id]
    if isinstance(node, ast.Attribute) and names is not None and isinstance(node.value, ast.Name) \
            and node.attr in names:
        return names[node.attr]
    if isinstance(node, ast.JoinedStr):
        parts: list[str] = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value, ast.FormattedValue) and value.format_spec is None and value.conversion == -1:
                inner = literal(value.value, names)
                if inner is _MISSING or isinstance(inner, (dict, list, set, tuple)):
                    return _MISSING
                parts.append(str(inner))
            else:
                return _MISSING
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = literal(node.left, names), literal(node.right, names)
        if left is _MISSING or right is _MISSING:
            return _MISSING
        try:
            return left + right
        except TypeError:
            return _MISSING
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("set", "frozenset") \
            and not node.args:
        return set()
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "date" \
            and len(node.args) == 3 and all(isinstance(a, ast.Constant) for a in node.args):
        year, month, day = (int(a.value) for a in node.args)  # type: ignore[attr-defined]
        return f"{year:04d}-{month:02d}-{day:02d}"  # datetime.date(y, m, d) as its ISO text
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _MISSING


def template(node: ast.AST | None, names: dict[str, Any] | None = None) -> str | None:
    """A string expression as a template: literal parts as they are, f-string fields resolved from ``names`` when
    literal, else kept as ``{field}`` (``{agent_plan}``); ``None`` if it is not a string expression."""
    value = literal(node, names)
    if isinstance(value, str):
        return value
    if isinstance(node, ast.JoinedStr):
        parts: list[str] = []
        for item in node.values:
            if isinstance(item, ast.Constant):
                parts.append(str(item.value))
            elif isinstance(item, ast.FormattedValue):
                inner = literal(item.value, names)
                parts.append(str(inner) if isinstance(inner, (str, int, float)) else "{" + ast.unparse(item.value) + "}")
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = template(node.left, names), template(node.right, names)
        return left + right if left is not None and right is not None else None
    return None


def _target_name(target: ast.expr) -> str | None:
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
        return target.attr
    return None


def _call_name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


@dataclass(frozen=True)
class OfficialCall:
    """A call made in an official method, with its literal arguments (non-literal ones are ``None``)."""

    func: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    line: int


@dataclass
class OfficialMethod:
    """Literal values of one official method.

    Attributes:
        assigned: ``name -> [values in source order]`` for ``self.name = <literal>`` and ``name = <literal>``.
        returns: Literal values of its ``return`` statements, in order.
        templates: ``name -> template`` for string expressions assigned in it whose f-string fields are not literal
            (fields kept as ``{field}``, see :func:`template`).
        messages: Chat messages written in it as dict literals (``{"role": ..., "content": ...}``), content as a
            template.
        calls: Calls made in it (:class:`OfficialCall`).
        source: Its source text (for reading; never executed).
    """

    name: str
    assigned: dict[str, list[Any]] = field(default_factory=dict)
    returns: list[Any] = field(default_factory=list)
    templates: dict[str, str] = field(default_factory=dict)
    messages: list[dict[str, str]] = field(default_factory=list)
    calls: list[OfficialCall] = field(default_factory=list)
    source: str = ""

    def value(self, name: str, default: Any = None) -> Any:
        """The first literal assigned to ``name`` in the method."""
        values = self.assigned.get(name)
        return values[0] if values else default


@dataclass
class OfficialClass:
    """One class of an official task definition file.

    Attributes:
        name: Class name (the official task name; variants add ``@<role>``).
        family: ``"general"``, ``"preference"`` or ``"routine"``.
        path: Repository path of its file.
        bases: Base class names as written.
        doc: Class docstring.
        attributes: Literal class attributes (``goal``, ``task_tags``, ``app_names``, ``supported_profiles``...).
        properties: Literal return values of ``@property`` methods (e.g. a ``goal`` property returning a string).
        methods: :class:`OfficialMethod` per method name.
        module_constants: Literal top-level assignments of its module.
        is_task: False for base classes (``Base*``), which the official registry never instantiates.
    """

    name: str
    family: str
    path: str
    bases: tuple[str, ...]
    doc: str = ""
    attributes: dict[str, Any] = field(default_factory=dict)
    properties: dict[str, Any] = field(default_factory=dict)
    methods: dict[str, OfficialMethod] = field(default_factory=dict)
    module_constants: dict[str, Any] = field(default_factory=dict)
    is_task: bool = True
    tree: ast.Module | None = field(default=None, repr=False, compare=False)

    @property
    def tags(self) -> set[str]:
        """``task_tags`` (empty when not literal)."""
        value = self.attributes.get("task_tags", set())
        return set(value) if isinstance(value, (set, frozenset, list, tuple)) else set()

    @property
    def difficulty(self) -> str:
        """``"hard"`` if the tags say so, else ``"easy"``."""
        return "hard" if "hard" in self.tags else "easy"

    @property
    def app_names(self) -> tuple[str, ...]:
        """``app_names`` sorted (empty when not literal)."""
        value = self.attributes.get("app_names", ())
        return tuple(sorted(value)) if isinstance(value, (set, frozenset, list, tuple)) else ()

    @property
    def goal(self) -> str | None:
        """The literal goal text: class attribute ``goal``, a ``goal`` property returning a literal, or a literal
        assigned to ``self._goal`` / ``self.goal`` in ``__init__``; ``None`` when built at run time."""
        for value in (self.attributes.get("goal"), self.properties.get("goal")):
            if isinstance(value, str):
                return value
        init = self.methods.get("__init__")
        if init is not None:
            for key in ("_goal", "goal"):
                value = init.value(key)
                if isinstance(value, str):
                    return value
        return None

    def method(self, name: str) -> OfficialMethod:
        """The method ``name`` (``KeyError`` naming the class if it has none)."""
        try:
            return self.methods[name]
        except KeyError:
            raise KeyError(f"official class {self.name} ({self.path}) has no method {name!r}") from None

    def calls(self, func: str) -> Iterator[OfficialCall]:
        """Every call to ``func`` in any method, in source order."""
        for method in self.methods.values():
            yield from (c for c in method.calls if c.func == func)


def _parse_method(node: ast.FunctionDef | ast.AsyncFunctionDef, text: str,
                  names: dict[str, Any] | None = None) -> OfficialMethod:
    method = OfficialMethod(node.name, source=ast.get_source_segment(text, node) or "")
    for sub in ast.walk(node):
        if isinstance(sub, (ast.Assign, ast.AnnAssign)):
            targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
            value = literal(sub.value, names)
            if value is _MISSING:
                shaped = template(sub.value, names)
                for target in targets:
                    name = _target_name(target)
                    if name and shaped is not None:
                        method.templates.setdefault(name, shaped)
                continue
            for target in targets:
                name = _target_name(target)
                if name:
                    method.assigned.setdefault(name, []).append(value)
        elif isinstance(sub, ast.Dict):
            keys = [literal(k, names) if k is not None else None for k in sub.keys]
            if "role" in keys and "content" in keys:
                role = literal(sub.values[keys.index("role")], names)
                content = sub.values[keys.index("content")]
                said = template(content, names)
                if said is None and isinstance(content, ast.Name):
                    said = "{" + content.id + "}"
                if isinstance(role, str) and said is not None:
                    method.messages.append({"role": role, "content": said})
        elif isinstance(sub, ast.Return):
            value = literal(sub.value, names)
            if value is not _MISSING:
                method.returns.append(value)
        elif isinstance(sub, ast.Call):
            args = tuple(None if (v := literal(a, names)) is _MISSING else v for a in sub.args)
            kwargs = {k.arg: (None if (v := literal(k.value, names)) is _MISSING else v) for k in sub.keywords
                      if k.arg}
            method.calls.append(OfficialCall(_call_name(sub.func), args, kwargs, sub.lineno))
    method.calls.sort(key=lambda c: c.line)
    return method


def _is_property(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list)


def parse_file(path: Path, relpath: str, family: str) -> list[OfficialClass]:
    """The classes of one official definition file (:class:`~personal_envs.core.errors.InputError` naming the file
    if it is not UTF-8 Python source)."""
    text = read_text(path, "task definition")
    try:
        tree = ast.parse(text, filename=str(path))
    except (SyntaxError, ValueError) as exc:  # ValueError: a NUL byte in the source
        line = f"line {exc.lineno}: " if isinstance(exc, SyntaxError) and exc.lineno else ""
        reason = exc.msg if isinstance(exc, SyntaxError) else str(exc)
        raise InputError(f"{path}: not valid Python ({line}{reason}); fetch the release again with "
                         "'personal-envs data fetch knowu'") from None
    constants: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            value = literal(node.value, constants)
            if value is not _MISSING:
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(target, ast.Name):
                        constants[target.id] = value
    classes: list[OfficialClass] = []
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        bases = tuple(_call_name(b) for b in node.bases)
        cls = OfficialClass(node.name, family, relpath, bases, ast.get_docstring(node) or "",
                            module_constants=constants, is_task=not node.name.startswith("Base"), tree=tree)
        for item in node.body:
            if isinstance(item, (ast.Assign, ast.AnnAssign)):
                targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                value = literal(item.value, {**constants, **cls.attributes})
                if value is _MISSING:
                    continue
                for target in targets:
                    if isinstance(target, ast.Name):
                        cls.attributes[target.id] = value
            elif isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                method = _parse_method(item, text, {**constants, **cls.attributes})
                cls.methods[item.name] = method
                if _is_property(item) and method.returns and len(method.returns) == 1:
                    cls.properties[item.name] = method.returns[0]
        classes.append(cls)
    return classes


def task_classes(classes: Mapping[str, OfficialClass], family: str | None = None) -> list[OfficialClass]:
    """The task classes among ``classes`` (no ``Base*``), of one family or all, sorted by family then name."""
    if family is not None and family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
    chosen = [c for c in classes.values() if c.is_task and (family is None or c.family == family)]
    return sorted(chosen, key=lambda c: (FAMILIES.index(c.family), c.name))


def class_named(classes: Mapping[str, OfficialClass], name: str, what: str) -> OfficialClass:
    """``classes[name]``, else a ``KeyError`` saying there is no ``what`` and naming close names."""
    if name in classes:
        return classes[name]
    close = difflib.get_close_matches(name, list(classes), n=3, cutoff=0.5)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    raise KeyError(f"no {what}{hint}")


@dataclass
class OfficialSource:
    """Every class of the official task definitions of a release.

    Attributes:
        release: The release parsed.
        classes: ``name -> OfficialClass`` (task classes and their bases).
    """

    release: OfficialRelease
    classes: dict[str, OfficialClass]

    @property
    def label(self) -> str:
        """The task-set label of records and tables (``"KnowU-Bench 0dd7989"``)."""
        return self.release.label

    @property
    def root(self) -> Path:
        """The release directory (its media files: photos, PDFs)."""
        return self.release.root

    def text(self, name: str, slot: str, values: Mapping[str, Any]) -> Any:
        """The official text ``slot`` of class ``name`` (see :mod:`personal_envs.knowu.official.texts`)."""
        from personal_envs.knowu.official.texts import OfficialTexts

        return OfficialTexts(self.release.root).text(self.classes.get(name), slot, values)

    def tasks(self, family: str | None = None) -> list[OfficialClass]:
        """The task classes (no ``Base*``), of one family or all, sorted by family then name."""
        return task_classes(self.classes, family)

    def get(self, name: str) -> OfficialClass:
        """The class ``name`` (``KeyError`` with close names)."""
        return class_named(self.classes, name, f"official task class {name!r} in {self.release.label}")

    def attribute(self, name: str, attr: str, default: Any = None) -> Any:
        """A literal class attribute, looked up through the official bases (as Python would)."""
        seen: set[str] = set()
        queue = [name]
        while queue:
            current = queue.pop(0)
            if current in seen or current not in self.classes:
                continue
            seen.add(current)
            cls = self.classes[current]
            if attr in cls.attributes:
                return cls.attributes[attr]
            queue.extend(cls.bases)
        return default


def parse_release(release: OfficialRelease) -> OfficialSource:
    """Parse the official definitions of ``release`` (cached per directory)."""
    return _parse_cached(str(release.root), release.commit)


@functools.lru_cache(maxsize=8)
def _parse_cached(root: str, commit: str) -> OfficialSource:
    release = OfficialRelease(Path(root), commit)
    classes: dict[str, OfficialClass] = {}
    for family in FAMILIES:
        folder = release.definitions_dir / family
        for path in sorted(folder.glob("*.py")):
            if path.name == "__init__.py":
                continue
            relpath = path.relative_to(release.root).as_posix()
            for cls in parse_file(path, relpath, family):
                classes[cls.name] = cls
    return OfficialSource(release, classes)
