"""Which task set a KnowU env runs: the official variants (a release is present) or the project's own tasks.

:func:`resolve_official` is what :class:`~personal_envs.knowu.env.KnowUEnv` asks first.  It returns the official
tasks, or ``None`` for the project's tasks:

* ``task_set="project"``: the project's tasks.  ``task_set="official"``: the official ones (a release is required).
* ``task_set=None`` (default): official when a release is found (``data_dir``, ``$PERSONAL_ENVS_DATA``, the fetch
  cache) unless every requested ``task`` is a project id (the project's tasks stay available by their own names);
  an official name (``"BatterySaverGeneralTask"``) without a release raises, saying how to get one.

Official ids: ``"X"`` (general; for preference / routine classes: every role of ``X``, or the one given by
``profile=``), ``"X@role"``; ``profile=`` a role id or a profile in the official format (``logs=`` its log JSON).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from personal_envs.core.errors import InputError, MissingDataError
from personal_envs.knowu.official.registry import SPLIT_FAMILY, build_variant, split_variant
from personal_envs.knowu.official.release import (
    OfficialRelease,
    candidate_dirs,
    find_release,
    require_release,
)
from personal_envs.knowu.official.source import parse_release

if TYPE_CHECKING:
    from personal_envs.knowu.task import PhoneTask

TASK_SETS: tuple[str, ...] = ("official", "project")
_OFFICIAL_NAME = re.compile(r"^[A-Z][A-Za-z0-9_]*Task$")


def looks_official(name: str) -> bool:
    """True for names shaped like official class names (``CamelCase...Task``, optional ``@role``)."""
    return bool(_OFFICIAL_NAME.match(split_variant(name)[0]))


def _names(task: str | Sequence[str] | None) -> list[str]:
    if task is None:
        return []
    return [task] if isinstance(task, str) else list(task)


def official_ids(split: str, release: OfficialRelease, task: str | Sequence[str] | None = None,
                 profile: str | os.PathLike[str] | None = None) -> list[str]:
    """The official variant names the arguments select (``ValueError`` on unknown names, with close names)."""
    family = SPLIT_FAMILY[split]
    source = parse_release(release)
    all_names = source.variant_names(family)
    custom = profile is not None and not _is_role(profile, source.roles())
    role_filter = str(profile) if profile is not None and not custom else None
    wanted = _names(task)
    if not wanted:
        if custom:
            return [c.name for c in source.tasks(family)]
        return [n for n in all_names if role_filter is None or split_variant(n)[1] == role_filter]
    out: list[str] = []
    for name in wanted:
        class_name, role = split_variant(name)
        cls = source.classes.get(class_name)
        if cls is None or not cls.is_task or cls.family != family:
            import difflib

            close = difflib.get_close_matches(name, all_names, n=3, cutoff=0.5)
            where = f" (it is a {cls.family} task)" if cls is not None and cls.family != family else ""
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise InputError(f"unknown official task {name!r} in split {split!r}{where}{hint}")
        if family == "general" or role is not None or custom:
            if role is not None and custom:
                raise InputError(f"{name!r} names a role and profile= gives a profile: use one")
            if role is not None and f"{class_name}@{role}" not in all_names:
                raise InputError(f"{class_name} has no variant for role {role!r}; its roles: "
                                 f"{', '.join(source.roles_of(class_name))}")
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
    **options: Any,
) -> list[PhoneTask] | None:
    """The official tasks the env arguments select, or ``None`` when the project's tasks run."""
    if task_set is not None and task_set not in TASK_SETS:
        raise InputError(f"task_set must be one of {TASK_SETS} or None, got {task_set!r}")
    if split not in SPLIT_FAMILY or task_set == "project":
        return None
    names = _names(task)
    if task_set == "official":
        release = require_release(data_dir)
    else:
        found = find_release(data_dir)
        if found is None:
            official_looking = [n for n in names if looks_official(n)]
            if official_looking:  # official names need a release
                looked = ", ".join(str(p) for p in candidate_dirs(data_dir))
                raise MissingDataError(
                    f"task {official_looking[0]!r} looks like an official KnowU-Bench class name, but no official "
                    f"release was found (looked in {looked}); run 'personal-envs data fetch knowu' or pass "
                    "data_dir=, or name one of the project's tasks ('personal-envs tasks' lists them)")
            return None
        release = found
        source = parse_release(release)
        if names and not any(split_variant(n)[0] in source.classes for n in names):
            return None  # project ids: the project's tasks, as an extra set
    source = parse_release(release)
    custom = profile is not None and not _is_role(profile, source.roles())
    ids = official_ids(split, release, task, profile)
    if logs is not None and not custom:
        raise InputError("logs= goes with profile=<official-format profile YAML>")
    tasks: list[PhoneTask] = []
    for name in ids:
        if custom:
            tasks.append(build_variant(name, release, profile=profile, logs=logs, log_source=log_source, **options))
        else:
            tasks.append(build_variant(name, release, log_source=log_source, **options))
    return tasks
