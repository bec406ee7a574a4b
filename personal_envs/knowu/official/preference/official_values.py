"""The official per-class values of the preference templates, read from the release with :mod:`ast`.

For one official class and role: its literal class attributes and module constants, the request the agent gets
(``GOAL_REQUEST``, or its per-role form: the destination table of the commute templates, the topic table of the
Mastodon privacy template), the role's scenario where the official code has one (the important-SMS sender), and
the rubric expression of its ``is_successful``.  Nothing of the official code is executed.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from personal_envs.knowu.official.preference import fstrings

PREFERENCE_DIR = "src/knowu_bench/tasks/definitions/preference"


@dataclass(frozen=True)
class ClassSource:
    """One official preference class, parsed.

    Attributes:
        name: Class name.
        path: Its file.
        attributes: Literal class attributes (and string class attributes written as f-strings without slots).
        constants: Literal module constants.
        tree: Its file's syntax tree.
    """

    name: str
    path: Path
    attributes: dict[str, Any]
    constants: dict[str, Any]
    tree: ast.Module = field(repr=False)

    def method_literal(self, method: str, target: str) -> Any:
        """The first literal assigned to ``target`` in ``method`` (``None`` when there is none)."""
        try:
            func = fstrings.method(self.tree, self.name, method)
        except KeyError:
            return None
        for value in fstrings.assigned(func, target):
            try:
                return ast.literal_eval(value)
            except ValueError:
                continue
        return None

    def rubric(self) -> ast.expr:
        """The rubric expression of ``is_successful`` (a local ``rubric`` or the ``rubric=`` of the judge call)."""
        func = fstrings.method(self.tree, self.name, "is_successful")
        found = fstrings.assigned(func, "rubric") or fstrings.keyword_args(func, "query_user_agent_judge", "rubric")
        if not found:
            raise ValueError(f"{self.path}: no rubric in {self.name}.is_successful")
        return found[0]

    def goal_expr(self, method: str) -> ast.expr | None:
        """The string expression assigned to ``self.GOAL_REQUEST`` in ``method`` (``None`` if not a string)."""
        try:
            func = fstrings.method(self.tree, self.name, method)
        except KeyError:
            return None
        for value in fstrings.assigned(func, "GOAL_REQUEST"):
            if isinstance(value, ast.JoinedStr | ast.Constant):
                return value
        return None


def _literal(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError):
        pass
    if isinstance(node, ast.JoinedStr | ast.BinOp) and not fstrings.slot_names(node):
        try:
            return fstrings.render(node, {})
        except fstrings.UnsupportedSlot:
            return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "set" and not node.args:
        return set()
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "date" \
            and len(node.args) == 3 and all(isinstance(a, ast.Constant) for a in node.args):
        year, month, day = (int(a.value) for a in node.args)  # type: ignore[attr-defined]
        return f"{year:04d}-{month:02d}-{day:02d}"  # datetime.date(y, m, d) as its ISO text
    return None


@functools.lru_cache(maxsize=64)
def _classes(root: str) -> dict[str, ClassSource]:
    folder = Path(root) / PREFERENCE_DIR
    found: dict[str, ClassSource] = {}
    for path in sorted(folder.glob("*.py")):
        tree = fstrings.parse(path)
        constants: dict[str, Any] = {}
        for node in tree.body:
            if isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                value = _literal(node.value) if node.value is not None else None
                for target in targets:
                    if isinstance(target, ast.Name) and value is not None:
                        constants[target.id] = value
        for node in tree.body:
            if not isinstance(node, ast.ClassDef) or node.name.startswith("Base"):
                continue
            attributes: dict[str, Any] = {}
            for item in node.body:
                if isinstance(item, ast.Assign | ast.AnnAssign) and item.value is not None:
                    targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                    value = _literal(item.value)
                    if value is None and isinstance(item.value, ast.Name):
                        value = constants.get(item.value.id)
                    for target in targets:
                        if isinstance(target, ast.Name) and value is not None:
                            attributes[target.id] = value
            found[node.name] = ClassSource(node.name, path, attributes, constants, tree)
    return found


def preference_classes(root: str | Path) -> dict[str, ClassSource]:
    """Every official preference task class of the release at ``root`` (cached)."""
    return _classes(str(Path(root).resolve()))


def roles_of(root: str | Path, source: ClassSource) -> list[str]:
    """The official roles of a class: the release's profiles (not ``template``), limited to ``supported_profiles``."""
    folder = Path(root) / "src/knowu_bench/user_profile"
    roles = sorted(p.stem for p in folder.glob("*.yaml") if p.stem != "template")
    supported = source.attributes.get("supported_profiles")
    return [r for r in roles if supported is None or r in supported]


def destination(source: ClassSource, role: str) -> dict[str, Any]:
    """The commute templates' per-role destination entry (the official ``"user"`` entry for unknown roles)."""
    table = source.attributes.get("PROFILE_DESTINATIONS", {})
    if not isinstance(table, dict):
        return {}
    entry = table.get(role, table.get("user"))
    return dict(entry) if isinstance(entry, dict) else {}


def goal_request(source: ClassSource, role: str) -> str:
    """The request the agent gets for ``role``, as the official class sets it."""
    base = str(source.attributes.get("GOAL_REQUEST", "")).strip()
    dest = destination(source, role)
    if dest.get("goal"):
        return str(dest["goal"]).strip()
    hints = source.constants.get("PROFILE_POST_HINTS")
    for method in ("initialize_task_hook", "__init__"):
        expr = source.goal_expr(method)
        if expr is None:
            continue
        slots: dict[str, Any] = {}
        if dest:
            slots["dest_name"] = dest.get("dest_name", "")
        if isinstance(hints, dict):
            slots["topic"] = post_hint(source, role)[0]
        try:
            return fstrings.render(expr, slots).strip()
        except fstrings.MissingSlot:
            continue
    return base


def post_hint(source: ClassSource, role: str) -> tuple[str, str]:
    """The Mastodon privacy template's ``(topic, expected visibility)`` for ``role`` (``"user"`` by default)."""
    hints = source.constants.get("PROFILE_POST_HINTS", {})
    value = hints.get(role, hints.get("user")) if isinstance(hints, dict) else None
    if not isinstance(value, tuple | list) or len(value) < 2:
        return "", ""
    return str(value[0]), str(value[1])


def scenario(source: ClassSource, role: str) -> dict[str, Any]:
    """The important-SMS template's per-role scenario (``"user"`` by default)."""
    table = source.method_literal("_get_profile_scenario", "scenarios")
    if not isinstance(table, dict):
        return {}
    entry = table.get(role, table.get("user"))
    return dict(entry) if isinstance(entry, dict) else {}
