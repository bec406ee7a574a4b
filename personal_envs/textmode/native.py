"""Whether the text mode's hot modules run compiled, and the guard that keeps a stale build from running.

``scripts/build_native.py`` compiles :data:`COMPILED_MODULES` with mypyc into extension modules beside their
sources (one group: ``personal_envs.textmode._native__mypyc`` holds the code, each module a small shim) and writes
:data:`STAMP_NAME` with the SHA-256 of every source it compiled.  Python imports an extension module before a
source of the same name, so without a guard an edited source would be ignored silently.  :func:`choose_build`
(run by the package's ``__init__`` before any of these modules is imported) lets the compiled modules load only
when the stamp names exactly the sources on disk; otherwise, or when ``PERSONAL_ENVS_PURE_PYTHON=1``, every one of
them is loaded from its source (all or none: compiled modules call each other's compiled code directly, so a mix
would hold two kinds of the same class).  The compiled and the pure build give the same observations
(``tests/textmode/test_native.py``).
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

#: The modules ``scripts/build_native.py`` compiles (parser, cascade, layout, AX walk, page cache, session).
COMPILED_MODULES: tuple[str, ...] = ("dom", "css", "layout", "layout_memo", "ax", "axmemo", "fastparse", "fonts",
                                     "page_cache", "session")
#: The file beside the sources that names what was compiled.
STAMP_NAME = "_native.json"
#: Set to ``1`` to run the sources even when a fresh compiled build is there.
PURE_ENV = "PERSONAL_ENVS_PURE_PYTHON"
PACKAGE = "personal_envs.textmode"


def source_digest(path: Path) -> str:
    """SHA-256 of a source file, hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def compiled_files(package_dir: Path, modules: Sequence[str] = COMPILED_MODULES) -> list[Path]:
    """The extension modules built for this Python beside the sources (none when never built)."""
    found: list[Path] = []
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        found.extend(package_dir / f"{name}{suffix}" for name in modules if (package_dir / f"{name}{suffix}").exists())
    return found


def stale_sources(package_dir: Path, modules: Sequence[str] = COMPILED_MODULES) -> list[str]:
    """The modules whose source differs from what the stamp says was compiled (all of them without a stamp, or
    when the stamp cannot be read or names other modules)."""
    try:
        stamp = json.loads((package_dir / STAMP_NAME).read_text())
        digests = stamp["sources"]
    except (OSError, ValueError, KeyError, TypeError):
        return list(modules)
    if not isinstance(digests, dict) or set(digests) != set(modules):
        return list(modules)
    return [name for name in modules if digests.get(name) != source_digest(package_dir / f"{name}.py")]


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the listed modules at their ``.py`` sources (ahead of the extension modules beside them)."""

    def __init__(self, sources: dict[str, Path]) -> None:
        self.sources = sources

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        source = self.sources.get(fullname)
        if source is None:
            return None
        return importlib.util.spec_from_file_location(fullname, source)


def choose_build(package_dir: Path) -> bool:
    """Decide, before any of :data:`COMPILED_MODULES` is imported, whether they load compiled; returns True when
    they do.  Sources are used (and a stale build named in a warning) unless a build is there and fresh."""
    built = compiled_files(package_dir)
    if not built:
        return False
    stale = stale_sources(package_dir)
    pure = os.environ.get(PURE_ENV, "") not in ("", "0")
    if not stale and not pure:
        return True
    if stale and not pure:
        warnings.warn(f"the compiled text mode is older than its sources ({', '.join(stale)}): running the Python "
                      "sources; rebuild with `python3 scripts/build_native.py`", RuntimeWarning, stacklevel=3)
    sys.meta_path.insert(0, _SourceFinder({f"{PACKAGE}.{name}": package_dir / f"{name}.py"
                                           for name in COMPILED_MODULES}))
    return False
