"""Fixtures: the official release subset (anchors) and facts parsed from its files with ast."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
import yaml

ANCHORS = Path(__file__).resolve().parents[4] / "shared" / "anchors" / "knowu" / "official"
if not ANCHORS.exists():
    ANCHORS = Path("/work/shared/anchors/knowu/official")
PACKAGE = ANCHORS / "src" / "knowu_bench"
ROUTINE_DIR = PACKAGE / "tasks" / "definitions" / "routine"
METRICS_SCRIPT = ANCHORS / "scripts" / "calc_paper_metrics.py"
ROLES = ("developer", "student", "user", "grandma")


def module_constant(path: Path, name: str) -> Any:
    """A module-level literal constant of an official file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            if isinstance(node.value, ast.BinOp):  # STOP_ALLOWED_ACTIONS = NON_ENGAGEMENT_ACTIONS | {...}
                return None
            return ast.literal_eval(node.value)  # type: ignore[arg-type]
    raise KeyError(name)


def task_habit_keys() -> dict[str, tuple[str, ...]]:
    """Per official routine class, the habit keys its own code reads: constant arguments of ``_get_habit``, the
    ``HABIT_KEY`` / ``HABIT_KEYS`` class constants when ``_get_habit`` gets one of them."""
    out: dict[str, tuple[str, ...]] = {}
    for path in sorted(ROUTINE_DIR.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
            consts = {t.id: ast.literal_eval(item.value) for item in cls.body if isinstance(item, ast.Assign)
                      for t in item.targets if isinstance(t, ast.Name) and isinstance(item.value, ast.Constant | ast.Tuple)}
            keys: list[str] = []
            for node in ast.walk(cls):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and node.func.attr == "_get_habit" and node.args:
                    arg = node.args[0]
                    if isinstance(arg, ast.Constant):
                        keys.append(arg.value)
                    elif isinstance(arg, ast.Attribute) and arg.attr in consts:
                        keys.append(consts[arg.attr])
            if "HABIT_KEYS" in consts and not keys:
                keys = list(consts["HABIT_KEYS"])
            if keys:
                out[cls.name] = tuple(keys)
    return out


def official_profile(role: str) -> dict[str, Any]:
    data = yaml.safe_load((PACKAGE / "user_profile" / f"{role}.yaml").read_text(encoding="utf-8"))
    return dict(data.get("user_profile") or {})


@pytest.fixture(scope="session")
def anchors() -> Path:
    if not ANCHORS.exists():
        pytest.skip("the official KnowU release subset is not on this machine")
    return ANCHORS
