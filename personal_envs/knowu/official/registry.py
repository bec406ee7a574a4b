"""Builders of KnowU variants, by class name, and the variants of a task source x persona set.

A family module registers one builder per class::

    from personal_envs.knowu.official.registry import BuildContext, official_task

    @official_task("WeekendSleeperTask")
    def build(ctx: BuildContext) -> PhoneTask:
        ...  # ctx.cls (the class), ctx.source (its texts), ctx.role, ctx.profile, ctx.logs, ctx.personas

Builder modules live in the subpackages ``personal_envs.knowu.official.general``, ``.preference`` and ``.routine``;
every module there is imported (and so registers its builders) the first time a builder is looked up, so a family
adds modules without editing this file.

Variants follow the official registry's rules on any persona set: a general class once; a preference or routine
class once per persona its ``supported_profiles`` admits (none: every persona).  :func:`build_variant` turns a
variant name (``"BatterySaverGeneralTask"``, ``"BuyColaPreferenceTask@developer"``) into a :class:`PhoneTask`
whose ``task_id`` is that name and whose ``task_set`` is the source's label.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from personal_envs.core.errors import InputError
from personal_envs.knowu.official.release import require_release
from personal_envs.knowu.official.source import FAMILIES, OfficialClass, parse_release
from personal_envs.knowu.personas import (
    MissingProfileField,
    PersonaSet,
    load_logs,
    load_profile,
    official_personas,
    profile_field,
)

if TYPE_CHECKING:
    from personal_envs.knowu.official.texts import TaskSource
    from personal_envs.knowu.task import PhoneTask

#: The env split of each family.
FAMILY_SPLIT: dict[str, str] = {"general": "general", "preference": "personalized", "routine": "proactive"}
SPLIT_FAMILY: dict[str, str] = {split: family for family, split in FAMILY_SPLIT.items()}
#: Subpackages whose modules register builders.
BUILDER_PACKAGES: tuple[str, ...] = tuple(f"personal_envs.knowu.official.{family}" for family in FAMILIES)


@dataclass
class BuildContext:
    """Everything a builder gets.

    Attributes:
        source: The task source (the class's texts and attributes).
        cls: The class being built.
        personas: The persona set the variant's persona belongs to (media, the set's channels); ``None`` for general
            tasks or a profile given by path.
        role: The persona id (``"developer"``, ``"g0-03"``, a profile file's stem); ``None`` for general tasks.
        profile: The persona's profile document; ``None`` for general tasks.
        logs: The persona's logs for ``log_source``; ``None`` for general tasks or a profile given without logs.
        log_source: ``"clean"`` or ``"noise"``.
        profile_file: Where the profile came from.
        logs_file: Where the logs came from.
        options: Env options passed through (``memory``, ``top_k``, ``judge``, ``user``...).
    """

    source: TaskSource
    cls: OfficialClass
    personas: PersonaSet | None = None
    role: str | None = None
    profile: dict[str, Any] | None = None
    logs: list[dict[str, Any]] | None = None
    log_source: str = "clean"
    profile_file: Path | None = None
    logs_file: Path | None = None
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def variant(self) -> str:
        """The variant name."""
        return f"{self.cls.name}@{self.role}" if self.role else self.cls.name

    def field(self, dotted: str) -> Any:
        """A profile field by dotted path under ``user_profile``; :class:`MissingProfileField` naming the field
        and this variant."""
        if self.profile is None:
            raise MissingProfileField(f"{self.variant} needs a profile (field {dotted!r})")
        return profile_field(self.profile, dotted, task=self.variant)


Builder = Callable[[BuildContext], "PhoneTask"]
_BUILDERS: dict[str, Builder] = {}
_loaded = False


def official_task(*class_names: str) -> Callable[[Builder], Builder]:
    """Decorator registering a builder for one or more class names."""

    def register(builder: Builder) -> Builder:
        for name in class_names:
            _BUILDERS[name] = builder
        return builder

    return register


def load_builders() -> None:
    """Import every module of :data:`BUILDER_PACKAGES` (once) so their builders register."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for package_name in BUILDER_PACKAGES:
        package = importlib.import_module(package_name)
        for info in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"{package_name}.{info.name}")


def builder_for(class_name: str) -> Builder | None:
    """The registered builder of a class, or ``None``."""
    load_builders()
    return _BUILDERS.get(class_name)


def split_variant(name: str) -> tuple[str, str | None]:
    """``"X@role"`` -> ``("X", "role")``; ``"X"`` -> ``("X", None)``."""
    cls, _, role = name.partition("@")
    return cls, role or None


def persona_ids(source: TaskSource, personas: PersonaSet, class_name: str) -> list[str]:
    """The personas a class runs for: none for general classes; every persona of the set, or those its
    ``supported_profiles`` names, for preference and routine classes."""
    cls = source.get(class_name)
    if cls.family == "general":
        return []
    supported = source.attribute(class_name, "supported_profiles")
    return [p for p in personas.ids() if supported is None or p in supported]


def variant_names(source: TaskSource, personas: PersonaSet, family: str | None = None) -> list[str]:
    """The variant names of a family (or of all) for a task source and a persona set."""
    names: list[str] = []
    for cls in source.tasks(family):
        names += [f"{cls.name}@{p}" for p in persona_ids(source, personas, cls.name)] \
            if cls.family != "general" else [cls.name]
    return names


def make_context(
    source: TaskSource,
    personas: PersonaSet | None,
    class_name: str,
    role: str | None = None,
    *,
    profile: str | os.PathLike[str] | dict[str, Any] | None = None,
    logs: str | os.PathLike[str] | list[dict[str, Any]] | None = None,
    log_source: str = "clean",
    options: dict[str, Any] | None = None,
) -> BuildContext:
    """The :class:`BuildContext` of one variant.

    For preference and routine classes: ``profile`` is a path (or dict) in the official format, else the profile of
    persona ``role`` in ``personas``; ``logs`` a path (or list), else that persona's logs (``log_source``), else none
    for a profile given by path.  ``role`` defaults to the profile file's stem.
    """
    cls = source.get(class_name)
    if not cls.is_task:
        raise InputError(f"{class_name} is a base class, not a task")
    ctx = BuildContext(source, cls, personas, log_source=log_source, options=dict(options or {}))
    if cls.family == "general":
        if role is not None:
            raise InputError(f"{class_name} is a general task: it has no persona variants (use {class_name!r})")
        ctx.personas = None
        return ctx
    if isinstance(profile, dict):
        ctx.profile, ctx.role, ctx.personas = profile, role or "custom", None
    elif profile is not None:
        ctx.profile_file = Path(profile)
        ctx.profile = load_profile(ctx.profile_file)
        ctx.role, ctx.personas = role or ctx.profile_file.stem, None
    else:
        if personas is None or role is None:
            raise InputError(f"{class_name} needs a persona or profile=")
        allowed = persona_ids(source, personas, class_name)
        if role not in allowed:
            raise InputError(f"{class_name} has no variant for persona {role!r}; its personas: {', '.join(allowed)}")
        ctx.role = role
        ctx.profile_file = personas.profile_path(role)
        ctx.profile = load_profile(ctx.profile_file)
    if isinstance(logs, list):
        ctx.logs = logs
    elif logs is not None:
        ctx.logs_file = Path(logs)
        ctx.logs = load_logs(ctx.logs_file)
    elif profile is None and personas is not None and ctx.role is not None:
        ctx.logs_file = personas.logs_path(ctx.role, log_source)
        ctx.logs = load_logs(ctx.logs_file)
    return ctx


def build(ctx: BuildContext) -> PhoneTask:
    """Run the class's builder on ``ctx``; the task gets the variant name as ``task_id`` and the source's label as
    ``task_set``.  Raises ``NotImplementedError`` when no builder is registered for the class."""
    builder = builder_for(ctx.cls.name)
    if builder is None:
        raise NotImplementedError(
            f"no builder registered for {ctx.cls.family} class {ctx.cls.name} ({ctx.cls.path}); "
            f"builders live in personal_envs.knowu.official.{ctx.cls.family}")
    task = builder(ctx)
    task.task_id = ctx.variant
    task.split = FAMILY_SPLIT[ctx.cls.family]
    task.task_set = ctx.source.label
    task.personas = ctx.personas.label if ctx.personas is not None and ctx.role is not None else ""
    return task


def official_pair(data_dir: str | os.PathLike[str] | None = None) -> tuple[TaskSource, PersonaSet]:
    """The official release's task source and its roles (``MissingDataError`` without a release)."""
    release = require_release(data_dir)
    return parse_release(release), official_personas(release.root)


def build_variant(
    name: str,
    source: TaskSource | None = None,
    personas: PersonaSet | None = None,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    profile: str | os.PathLike[str] | dict[str, Any] | None = None,
    logs: str | os.PathLike[str] | list[dict[str, Any]] | None = None,
    log_source: str = "clean",
    **options: Any,
) -> PhoneTask:
    """Build one variant by name (``"WeekendSleeperTask@grandma"``, or ``"WeekendSleeperTask"`` with
    ``profile=``); without a source, the official release's (and its roles)."""
    if source is None:
        source, official = official_pair(data_dir)
        personas = personas or official
    class_name, role = split_variant(name)
    return build(make_context(source, personas, class_name, role, profile=profile, logs=logs,
                              log_source=log_source, options=options))
