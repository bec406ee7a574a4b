"""Which task set a KnowU env runs: the official variants (a release is present) or the embedded cards.

:func:`resolve_official` is what :class:`~personal_envs.knowu.env.KnowUEnv` asks for its tasks:

* ``task_set="official"``: the official ones (a release is required).  ``task_set="embedded"``: the official
  classes on the package's embedded cards and default personas.
* ``task_set=None`` (default): official when a release is found (``data_dir``, ``$PERSONAL_ENVS_DATA``, the fetch
  cache), else the embedded cards on the default personas (the official classes, scored by the official rules).

The project's own task set (snake_case ids such as ``"weekend_sleeper@student"``, ``task_set="project"``) was
removed in issue 29; asking for it raises :class:`~personal_envs.core.errors.InputError` naming the official ids.

``personas=`` (a folder in the official layout, ``"default"`` or a :class:`PersonaSet`) replaces the persona set:
the release's classes when a release is found (unless ``task_set="embedded"``), else the embedded cards.

Official ids: ``"X"`` (general; for preference / routine classes: every role of ``X``, or the one given by
``profile=``), ``"X@role"``; ``profile=`` a role id or a profile in the official format (``logs=`` its log JSON).
"""

from __future__ import annotations

import os
import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from personal_envs.core.errors import InputError
from personal_envs.knowu.official.registry import (
    FAMILY_SPLIT,
    SPLIT_FAMILY,
    build_variant,
    persona_ids,
    split_variant,
    variant_names,
)
from personal_envs.knowu.official.release import find_release, require_release
from personal_envs.knowu.official.source import parse_release
from personal_envs.knowu.personas import PersonaSet, as_persona_set, official_personas

if TYPE_CHECKING:
    from personal_envs.knowu.official.texts import TaskSource
    from personal_envs.knowu.task import PhoneTask

TASK_SETS: tuple[str, ...] = ("official", "embedded")
#: What a request for the removed project task set is told.
REMOVED_PROJECT_SET = ("the project's own KnowU task set (snake_case ids such as 'weekend_sleeper@student', "
                       "task_set='project') was removed (issue 29); the ids are the official class names, e.g. "
                       "'WeekendSleeperTask@engineer' (`personal-envs tasks --env KnowU-Proactive-v0` lists them)")
#: Built variants an env keeps (:class:`LazyVariants`).
VARIANT_CACHE = 256
_OFFICIAL_NAME = re.compile(r"^[A-Z][A-Za-z0-9_]*Task$")


def looks_official(name: str) -> bool:
    """True for names shaped like official class names (``CamelCase...Task``, optional ``@role``)."""
    return bool(_OFFICIAL_NAME.match(split_variant(name)[0]))


def _names(task: str | Sequence[str] | None) -> list[str]:
    if task is None:
        return []
    return [task] if isinstance(task, str) else list(task)


def official_ids(split: str, source: TaskSource, personas: PersonaSet, task: str | Sequence[str] | None = None,
                 profile: str | os.PathLike[str] | None = None) -> list[str]:
    """The variant names the arguments select (:class:`InputError` on unknown names, with close names)."""
    family = SPLIT_FAMILY[split]
    all_names = variant_names(source, personas, family)
    custom = profile is not None and not _is_role(profile, personas.ids())
    role_filter = str(profile) if profile is not None and not custom else None
    wanted = _names(task)
    if not wanted:
        if custom:
            return [c.name for c in source.tasks(family)]
        return [n for n in all_names if role_filter is None or split_variant(n)[1] == role_filter]
    out: list[str] = []
    for name in wanted:
        class_name, role = split_variant(name)
        try:
            cls: Any = source.get(class_name)
        except KeyError:
            cls = None
        if cls is None or not cls.is_task or cls.family != family:
            import difflib

            close = difflib.get_close_matches(name, all_names, n=3, cutoff=0.5)
            where = (f" (it is a {cls.family} task: pass family={FAMILY_SPLIT[cls.family]!r})"
                     if cls is not None and cls.family != family else "")
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise InputError(f"task={name!r} is no official task of family={split!r}{where}{hint}")
        if family == "general" or role is not None or custom:
            if role is not None and custom:
                raise InputError(f"{name!r} names a role and profile= gives a profile: use one")
            if role is not None and f"{class_name}@{role}" not in all_names:
                raise InputError(f"{class_name} has no variant for persona {role!r}; its personas: "
                                 f"{', '.join(persona_ids(source, personas, class_name))}")
            out.append(name)
        else:
            out += [n for n in all_names if split_variant(n)[0] == class_name
                    and (role_filter is None or split_variant(n)[1] == role_filter)]
    return out


def _is_role(profile: str | os.PathLike[str], roles: list[str]) -> bool:
    return isinstance(profile, str) and profile in roles and not Path(profile).suffix


def resolve_official(
    split: str,
    task: str | Sequence[str] | None = None,
    *,
    profile: str | os.PathLike[str] | None = None,
    logs: str | os.PathLike[str] | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    task_set: str | None = None,
    log_source: str = "clean",
    personas: str | os.PathLike[str] | PersonaSet | None = None,
    **options: Any,
) -> Sequence[PhoneTask]:
    """The official tasks the env arguments select (built on first use: :class:`LazyVariants`)."""
    if task_set == "project":
        raise InputError(REMOVED_PROJECT_SET)
    if task_set is not None and task_set not in TASK_SETS:
        raise InputError(f"task_set must be one of {TASK_SETS} or None, got {task_set!r}")
    if split not in SPLIT_FAMILY:
        raise InputError(f"family must be one of {sorted(SPLIT_FAMILY)}, got {split!r}")
    names = _names(task)
    if names and not any(looks_official(n) for n in names):
        raise InputError(f"unknown KnowU task id(s) {names}: {REMOVED_PROJECT_SET}")
    chosen = None if personas is None else as_persona_set(personas)
    if task_set == "embedded":
        return _embedded(split, chosen, task, profile, logs, log_source, options)
    if task_set == "official":
        release = require_release(data_dir)
    else:
        found = find_release(data_dir)
        if found is None and chosen is not None:
            return _embedded(split, chosen, task, profile, logs, log_source, options)
        if found is None:
            return _embedded(split, chosen, task, profile, logs, log_source, options)
        release = found
    return _build(split, parse_release(release), chosen or official_personas(release.root), task, profile, logs,
                  log_source, options)


def _embedded(split: str, personas: PersonaSet | None, task: str | Sequence[str] | None,
              profile: str | os.PathLike[str] | None, logs: str | os.PathLike[str] | None, log_source: str,
              options: dict[str, Any]) -> LazyVariants:
    """The embedded cards on ``personas`` (default: the default personas)."""
    from personal_envs.knowu.official.embedded import embedded_source
    from personal_envs.knowu.personas import default_personas

    return _build(split, embedded_source(), personas or default_personas(), task, profile, logs, log_source, options)


class LazyVariants(Sequence["PhoneTask"]):
    """Variant names whose tasks are built on first use; the ``cache`` most recently used stay built.

    An env over many personas (a 64-persona train split has over 1,000 routine variants) opens without building
    them; indexing or iterating builds what it reaches (iterating builds every variant, once each while it stays in
    the cache).
    """

    def __init__(self, names: Sequence[str], build: Callable[[str], PhoneTask], cache: int = VARIANT_CACHE) -> None:
        self.names: tuple[str, ...] = tuple(names)
        self._build = build
        self._cache = cache
        self._built: OrderedDict[str, PhoneTask] = OrderedDict()

    def __len__(self) -> int:
        return len(self.names)

    @overload
    def __getitem__(self, index: int) -> PhoneTask: ...

    @overload
    def __getitem__(self, index: slice) -> list[PhoneTask]: ...

    def __getitem__(self, index: int | slice) -> PhoneTask | list[PhoneTask]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        name = self.names[index]
        built = self._built.get(name)
        if built is None:
            built = self._build(name)
            self._built[name] = built
            if len(self._built) > self._cache:
                self._built.popitem(last=False)
        self._built.move_to_end(name)
        return built


def _build(split: str, source: TaskSource, personas: PersonaSet, task: str | Sequence[str] | None,
           profile: str | os.PathLike[str] | None, logs: str | os.PathLike[str] | None, log_source: str,
           options: dict[str, Any]) -> LazyVariants:
    custom = profile is not None and not _is_role(profile, personas.ids())
    if custom and isinstance(profile, str) and not Path(profile).suffix and not Path(profile).exists():
        raise InputError(f"profile={profile!r} is neither a persona of the set ({', '.join(personas.ids())}) nor a "
                         "profile YAML in the official format")
    ids = official_ids(split, source, personas, task, profile)
    if logs is not None and not custom:
        raise InputError("logs= goes with profile=<official-format profile YAML>")

    def build(name: str) -> PhoneTask:
        if custom:
            return build_variant(name, source, None, profile=profile, logs=logs, log_source=log_source, **options)
        return build_variant(name, source, personas, log_source=log_source, **options)

    variants = LazyVariants(ids, build)
    if variants:
        variants[0]  # a variant the arguments cannot build fails here, when the env opens
    return variants
