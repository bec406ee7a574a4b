"""Run official KnowU-Bench task classes here, with the device and the app backends stubbed (tests only).

The official task files, ``tasks/base.py`` and the plain-data helpers (``runtime/utils/loader.py``,
``runtime/utils/prompt_builder.py``) are loaded from the release as they are; every other ``knowu_bench`` module is
a stub whose attributes are :class:`Anything`: calls succeed, ADB results are successful and empty.  That is enough
to run an official ``initialize_task_hook`` / ``initialize_user_agent_hook`` and read the texts it builds, side by
side with the project's rendering of the same texts.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

#: Modules loaded from the release (module name -> path under ``src/``); the rest of ``knowu_bench`` is stubbed.
REAL = ("knowu_bench.tasks.base", "knowu_bench.runtime.utils.loader", "knowu_bench.runtime.utils.prompt_builder",
        "knowu_bench.tasks.definitions")
#: The official log-context module: pure Python over the release's log files; loaded for real with
#: ``official_runtime(..., real_logs=True)`` (its ``set_user_log_config`` then picks memory mode and log source).
USER_LOG_CONTEXT = "knowu_bench.runtime.utils.user_log_context"
#: Stubbed functions whose results the official code uses as text.
STUB_VALUES: dict[str, dict[str, Any]] = {
    "knowu_bench.runtime.utils.user_log_context": {"build_user_log_context": lambda *args, **kwargs: ""},
}


class Anything:
    """A stand-in for every device helper: callable, any attribute, truthy, empty when iterated."""

    success = True
    output = ""
    error = ""

    def __call__(self, *args: Any, **kwargs: Any) -> Anything:
        return Anything()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return Anything()

    def __iter__(self) -> Iterator[Any]:
        return iter(())

    def __getitem__(self, key: Any) -> Anything:
        return Anything()

    def __bool__(self) -> bool:
        return True

    def __len__(self) -> int:
        return 0

    def __str__(self) -> str:
        return ""


class _Stub(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return Anything()


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, src: Path, real: tuple[str, ...] = REAL) -> None:
        self.src = src
        self.real = real

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
                  ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "knowu_bench" and not fullname.startswith("knowu_bench."):
            return None
        relative = Path(*fullname.split("."))
        if any(fullname == r or fullname.startswith(r + ".") for r in self.real):
            file = self.src / relative.with_suffix(".py")
            if file.exists():
                return importlib.util.spec_from_file_location(fullname, file)
            if (self.src / relative).is_dir():
                spec = importlib.machinery.ModuleSpec(fullname, self, is_package=True)
                spec.submodule_search_locations = [str(self.src / relative)]
                return spec
        spec = importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        spec.submodule_search_locations = []
        return spec

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        if any(spec.name == r or spec.name.startswith(r + ".") for r in self.real):
            module = types.ModuleType(spec.name)
        else:
            module = _Stub(spec.name)
            module.__dict__.update(STUB_VALUES.get(spec.name, {}))
        module.__path__ = list(spec.submodule_search_locations or [])  # type: ignore[attr-defined]
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        return None


class _FrozenClock(datetime):
    frozen: datetime = datetime(2026, 5, 22, 9, 0)

    @classmethod
    def now(cls, tz: Any = None) -> datetime:  # type: ignore[override]
        return cls.frozen


@contextmanager
def official_runtime(release: Path, now: datetime | None = None, real_logs: bool = False,
                     real: tuple[str, ...] = ()) -> Iterator[types.ModuleType]:
    """Within the block, ``import knowu_bench...`` loads the release's task classes (device stubbed); yields a
    loader: ``load(module_name)``.  ``now`` freezes ``datetime.now()`` of ``tasks/base.py``; ``real_logs`` loads the
    official log-context module instead of its stub (the goals then carry the official logs); ``real`` names more
    modules to load from the release (their own imports of other modules stay stubbed)."""
    finder = _Finder(release / "src", REAL + ((USER_LOG_CONTEXT,) if real_logs else ()) + real)
    saved = {name: module for name, module in sys.modules.items()
             if name == "knowu_bench" or name.startswith("knowu_bench.")}
    for name in saved:
        del sys.modules[name]
    sys.meta_path.insert(0, finder)
    try:
        base = importlib.import_module("knowu_bench.tasks.base")
        if now is not None:
            _FrozenClock.frozen = now
            base.datetime = _FrozenClock  # type: ignore[attr-defined]
        yield types.SimpleNamespace(load=importlib.import_module)  # type: ignore[misc]
    finally:
        sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if n == "knowu_bench" or n.startswith("knowu_bench.")]:
            del sys.modules[name]
        sys.modules.update(saved)


def no_sleep(module: types.ModuleType) -> None:
    """Make an official module's ``time.sleep`` instant (its hooks wait for the device)."""
    if hasattr(module, "time"):
        module.time = types.SimpleNamespace(sleep=lambda *_: None, time=lambda: 0.0)  # type: ignore[attr-defined]
