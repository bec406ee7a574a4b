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


CONTROLLER = Path("src/knowu_bench/runtime/controller.py")


@functools.lru_cache(maxsize=4)
def _geo_fix_template(release_root: str) -> tuple[ast.expr, tuple[tuple[str, object], ...]]:
    from personal_envs.knowu.official import template as fstrings

    func = fstrings.method(fstrings.parse(Path(release_root) / CONTROLLER), "AndroidController", "set_geo_location")
    params = [p.arg for p in func.args.args[1:]]
    defaults = tuple(zip(params[len(params) - len(func.args.defaults):],
                         [ast.literal_eval(d) for d in func.args.defaults], strict=True))
    return fstrings.assigned(func, "adb_command")[0], defaults


def geo_fix_command(release_root: str, serial: str, latitude: float, longitude: float) -> list[str]:
    """The host command that places the emulator, as the official ``AndroidController.set_geo_location`` builds it
    (its f-string read from the release, parsed with ast: ``adb -s <serial> emu geo fix <lon> <lat> <altitude>``
    through the emulator console), split into arguments."""
    import shlex

    from personal_envs.knowu.official import template as fstrings

    template, defaults = _geo_fix_template(release_root)
    values = {**dict(defaults), "device": serial, "latitude": latitude, "longitude": longitude}
    return shlex.split(fstrings.render(template, values))
