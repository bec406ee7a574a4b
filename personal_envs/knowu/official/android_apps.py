"""The official image's app packages, read from the release (``runtime/utils/models.py``, parsed with ast).

Reimplements the official controller's ``APP_LOWER_DICT``: ``APP_DICT`` (app name -> package) lower-cased, updated
with ``COMMON_APP_MAPPER`` reversed (package -> app name).  The Android backend launches only these packages when
an official task set runs, so it never opens a package the official image does not have.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

MODELS = Path("src/knowu_bench/runtime/utils/models.py")


@functools.lru_cache(maxsize=4)
def official_packages(release_root: str) -> dict[str, str]:
    """Lower-case app name -> package, as the official ``open_app`` resolves it."""
    tree = ast.parse((Path(release_root) / MODELS).read_text(encoding="utf-8"))
    values: dict[str, dict[str, str]] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in ("APP_DICT", "COMMON_APP_MAPPER"):
            values[node.targets[0].id] = ast.literal_eval(node.value)
    packages = {name.lower(): package for name, package in values.get("APP_DICT", {}).items()}
    packages.update({name.lower(): package for package, name in values.get("COMMON_APP_MAPPER", {}).items()})
    return packages
