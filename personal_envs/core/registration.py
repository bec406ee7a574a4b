"""Registration of every env id of the suite with Gymnasium.

A benchmark exposes ``ENVS``, a list of :class:`EnvEntry`, in a ``registration`` module.  Nothing in the core names
a benchmark: :func:`benchmark_modules` finds every ``personal_envs.<package>.registration`` module by scanning the
package, plus the modules that installed distributions declare under the entry-point group
:data:`ENTRY_POINT_GROUP` (``[project.entry-points."personal_envs.benchmarks"] mybench = "mybench.registration"``),
plus any module passed to :func:`register_module`.  Importing ``personal_envs`` calls :func:`register_all`, which
registers them with Gymnasium (entry points are strings, so nothing heavy is imported until ``gym.make``).
:func:`entry_for` gives the eval command, the RL wrappers and the shaping wrapper what an id declares: its report,
policies, action candidates and signal weights.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import gymnasium as gym

from personal_envs.core.errors import UnknownNameError

logger = logging.getLogger(__name__)

#: Entry-point group under which installed distributions declare their benchmarks' registration modules.
ENTRY_POINT_GROUP = "personal_envs.benchmarks"


@dataclass(frozen=True)
class EnvEntry:
    """One registered id.

    Attributes:
        env_id: Gymnasium id, e.g. ``"PersonalWAB-SingleTurn-v0"``.
        entry_point: ``"module:Class"`` of the env.
        kwargs: Default constructor arguments.
        report: ``"module:function"`` that turns a list of episode records into the paper's table (text).
        policies: Policy names the eval command offers for this id, mapped to ``"module:factory"``.
        nondeterministic: True where a live browser or an LLM makes episodes irreproducible.
        candidates: ``"module:factory"`` of the RL action-candidate provider (``factory(env) -> provider``); empty:
            the argument-free actions of the env.
        signal_weights: Weights of the env's privileged signals for the shaping wrapper
            (:class:`~personal_envs.wrappers.shaping.SignalShaping`): each step pays ``weight x`` the change of
            the signal.
        audit: ``"module:factory"`` of the shortcut audit's spec (``factory(env_id, env_kwargs) ->``
            :class:`~personal_envs.audit.spec.AuditSpec`): how the id finishes, idles and asks, its honest
            baselines, its own degenerate policies and its documented shortcuts.
    """

    env_id: str
    entry_point: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    report: str = ""
    policies: dict[str, str] = field(default_factory=dict)
    nondeterministic: bool = False
    candidates: str = ""
    signal_weights: dict[str, float] = field(default_factory=dict)
    audit: str = ""


_ENTRIES: dict[str, EnvEntry] = {}
_EXTRA_MODULES: list[str] = []


def benchmark_modules() -> list[str]:
    """Every registration module: the package's own (by scan), installed plug-ins (entry points), and extras."""
    import personal_envs

    found = [
        f"personal_envs.{info.name}.registration"
        for root in personal_envs.__path__
        for info in sorted(pkgutil.iter_modules([root]), key=lambda i: i.name)
        if info.ispkg and info.name != "core" and (Path(root) / info.name / "registration.py").is_file()
    ]
    for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        found.append(entry_point.value.partition(":")[0])
    found += _EXTRA_MODULES
    return list(dict.fromkeys(found))


def register_module(module_name: str) -> list[str]:
    """Register the ids of one more registration module (a benchmark outside the package); returns its ids."""
    if module_name not in _EXTRA_MODULES:
        _EXTRA_MODULES.append(module_name)
    return _register(module_name)


def _register(module_name: str) -> list[str]:
    module = importlib.import_module(module_name)
    ids = []
    for entry in module.ENVS:
        _ENTRIES[entry.env_id] = entry
        ids.append(entry.env_id)
        if entry.env_id not in gym.registry:
            gym.register(
                id=entry.env_id,
                entry_point=entry.entry_point,
                kwargs=dict(entry.kwargs),
                nondeterministic=entry.nondeterministic,
                disable_env_checker=False,
            )
    return ids


def register_all() -> None:
    """Register every benchmark's ids (idempotent).  A plug-in whose module fails to import is skipped with a
    warning; the package's own benchmarks always register."""
    for module_name in benchmark_modules():
        try:
            _register(module_name)
        except Exception:
            if module_name.startswith("personal_envs."):
                raise
            logger.warning("could not register benchmark module %s", module_name, exc_info=True)


def entry_for(env_id: str) -> EnvEntry:
    """The :class:`EnvEntry` of a registered id (raises :class:`~personal_envs.core.errors.UnknownNameError`, a
    ``KeyError``, with the known ids)."""
    if not _ENTRIES:
        register_all()
    try:
        return _ENTRIES[env_id]
    except KeyError:
        raise UnknownNameError(f"unknown env id {env_id!r}; known ids: {', '.join(sorted(_ENTRIES))}") from None


def entry_of(env: Any) -> EnvEntry | None:
    """The :class:`EnvEntry` of a made env (from ``env.spec.id``), or ``None`` for an env built directly."""
    spec = getattr(env, "spec", None) or getattr(getattr(env, "unwrapped", None), "spec", None)
    env_id = getattr(spec, "id", None)
    if env_id is None:
        return None
    if not _ENTRIES:
        register_all()
    return _ENTRIES.get(env_id)


def all_env_ids() -> list[str]:
    """Every id the suite registers."""
    if not _ENTRIES:
        register_all()
    return sorted(_ENTRIES)


def load_object(path: str) -> Callable[..., Any]:
    """Import ``"module:attribute"``."""
    module_name, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module_name), attribute)
