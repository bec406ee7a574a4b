"""Builders of official KnowU-Bench variants, by official class name.

A family module registers one builder per official class::

    from personal_envs.knowu.official.registry import BuildContext, official_task

    @official_task("WeekendSleeperTask")
    def build(ctx: BuildContext) -> PhoneTask:
        ...  # ctx.cls (parsed class), ctx.role, ctx.profile, ctx.logs, ctx.release

Builder modules live in the subpackages ``personal_envs.knowu.official.general``, ``.preference`` and ``.routine``;
every module there is imported (and so registers its builders) the first time a builder is looked up, so a family
adds modules without editing this file.  :func:`build_variant` turns an official variant name
(``"BatterySaverGeneralTask"``, ``"BuyColaPreferenceTask@developer"``) into a :class:`PhoneTask` whose ``task_id``
is that name and whose ``task_set`` is the release label.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from personal_envs.knowu.official.release import OfficialRelease, require_release
from personal_envs.knowu.official.source import (
    FAMILIES,
    MissingProfileField,
    OfficialClass,
    OfficialSource,
    load_logs,
    load_profile,
    logs_path,
    parse_release,
    profile_field,
    profile_path,
)

if TYPE_CHECKING:
    from personal_envs.knowu.task import PhoneTask

#: The env split of each official family.
FAMILY_SPLIT: dict[str, str] = {"general": "general", "preference": "personalized", "routine": "proactive"}
SPLIT_FAMILY: dict[str, str] = {split: family for family, split in FAMILY_SPLIT.items()}
#: Subpackages whose modules register builders.
BUILDER_PACKAGES: tuple[str, ...] = tuple(f"personal_envs.knowu.official.{family}" for family in FAMILIES)


@dataclass
class BuildContext:
    """Everything a builder gets.

    Attributes:
        release: The official release directory.
        source: Its parsed task definitions.
        cls: The official class being built.
        role: Role id (``"developer"``, or the profile file stem for a custom profile); ``None`` for general tasks.
        profile: The role's profile (official YAML as a dict); ``None`` for general tasks.
        logs: The role's logs (official JSON list) for ``log_source``; ``None`` for general tasks or when a custom
            profile came without logs.
        log_source: ``"clean"`` or ``"noise"``.
        profile_file: Where the profile came from (``None`` for general tasks).
        logs_file: Where the logs came from.
        options: Env options passed through (``memory``, ``top_k``, ``embedder``, ``judge``, ``protocol``...).
    """

    release: OfficialRelease
    source: OfficialSource
    cls: OfficialClass
    role: str | None = None
    profile: dict[str, Any] | None = None
    logs: list[dict[str, Any]] | None = None
    log_source: str = "clean"
    profile_file: Path | None = None
    logs_file: Path | None = None
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def variant(self) -> str:
        """The official variant name."""
        return f"{self.cls.name}@{self.role}" if self.role else self.cls.name

    def field(self, dotted: str) -> Any:
        """A profile field by dotted path under ``user_profile`` (``"habits.weekend_sleeper"``); raises
        :class:`MissingProfileField` naming the field and this variant."""
        if self.profile is None:
            raise MissingProfileField(f"{self.variant} needs a profile (field {dotted!r})")
        return profile_field(self.profile, dotted, task=self.variant)

    def require_logs(self) -> list[dict[str, Any]]:
        """The logs, or :class:`MissingProfileField` saying this variant needs them."""
        if self.logs is None:
            raise MissingProfileField(f"{self.variant} needs the user's logs (pass logs=<official log JSON>)")
        return self.logs


Builder = Callable[[BuildContext], "PhoneTask"]
_BUILDERS: dict[str, Builder] = {}
_loaded = False


def official_task(*class_names: str) -> Callable[[Builder], Builder]:
    """Decorator registering a builder for one or more official class names."""

    def register(builder: Builder) -> Builder:
        for name in class_names:
            register_builder(name, builder)
        return builder

    return register


def register_builder(class_name: str, builder: Builder) -> None:
    """Register ``builder`` for ``class_name`` (a second registration replaces the first)."""
    _BUILDERS[class_name] = builder


def load_builders() -> None:
    """Import every module of :data:`BUILDER_PACKAGES` (once) so their builders register."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for package_name in BUILDER_PACKAGES:
        try:
            package = importlib.import_module(package_name)
        except ModuleNotFoundError as exc:
            if exc.name == package_name:
                continue
            raise
        for info in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"{package_name}.{info.name}")


def builder_for(class_name: str) -> Builder | None:
    """The registered builder of an official class, or ``None``."""
    load_builders()
    return _BUILDERS.get(class_name)


def registered_classes() -> list[str]:
    """Official class names that have a builder."""
    load_builders()
    return sorted(_BUILDERS)


def split_variant(name: str) -> tuple[str, str | None]:
    """``"X@role"`` -> ``("X", "role")``; ``"X"`` -> ``("X", None)``."""
    cls, _, role = name.partition("@")
    return cls, role or None


def variant_names(release: OfficialRelease, family: str | None = None) -> list[str]:
    """The official variant names of a family (or all 192)."""
    return parse_release(release).variant_names(family)


def make_context(
    release: OfficialRelease,
    class_name: str,
    role: str | None = None,
    *,
    profile: str | os.PathLike[str] | dict[str, Any] | None = None,
    logs: str | os.PathLike[str] | list[dict[str, Any]] | None = None,
    log_source: str = "clean",
    options: dict[str, Any] | None = None,
) -> BuildContext:
    """The :class:`BuildContext` of one variant.

    For preference and routine classes: ``profile`` is a path (or dict) in the official format, else the official
    profile of ``role``; ``logs`` a path (or list), else the role's official logs (``log_source``), else none for
    a custom profile.  ``role`` defaults to the profile file's stem.
    """
    source = parse_release(release)
    cls = source.get(class_name)
    if not cls.is_task:
        raise ValueError(f"{class_name} is an official base class, not a task")
    ctx = BuildContext(release, source, cls, log_source=log_source, options=dict(options or {}))
    if cls.family == "general":
        if role is not None:
            raise ValueError(f"{class_name} is a general task: it has no role variants (use {class_name!r})")
        return ctx
    if isinstance(profile, dict):
        ctx.profile = profile
        ctx.role = role or "custom"
    elif profile is not None:
        ctx.profile_file = Path(profile)
        ctx.profile = load_profile(ctx.profile_file)
        ctx.role = role or ctx.profile_file.stem
    else:
        if role is None:
            raise ValueError(f"{class_name} needs a role ({', '.join(source.roles_of(class_name))}) or profile=")
        allowed = source.roles_of(class_name)
        if role not in allowed:
            raise ValueError(f"{class_name} has no variant for role {role!r}; its roles: {', '.join(allowed)}")
        ctx.role = role
        ctx.profile_file = profile_path(release, role)
        ctx.profile = load_profile(ctx.profile_file)
    if isinstance(logs, list):
        ctx.logs = logs
    elif logs is not None:
        ctx.logs_file = Path(logs)
        ctx.logs = load_logs(ctx.logs_file)
    elif profile is None and ctx.role is not None:
        ctx.logs_file = logs_path(release, ctx.role, log_source)
        ctx.logs = load_logs(ctx.logs_file)
    return ctx


def build(ctx: BuildContext) -> PhoneTask:
    """Run the class's builder on ``ctx``; the task gets the variant name as ``task_id`` and the release label as
    ``task_set``.  Raises ``NotImplementedError`` when no builder is registered for the class."""
    builder = builder_for(ctx.cls.name)
    if builder is None:
        raise NotImplementedError(
            f"no builder registered for official {ctx.cls.family} class {ctx.cls.name} ({ctx.cls.path}); "
            f"builders live in personal_envs.knowu.official.{ctx.cls.family}")
    task = builder(ctx)
    task.task_id = ctx.variant
    task.split = FAMILY_SPLIT[ctx.cls.family]
    task.task_set = ctx.source.label
    return task


def build_variant(
    name: str,
    release: OfficialRelease | None = None,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    profile: str | os.PathLike[str] | dict[str, Any] | None = None,
    logs: str | os.PathLike[str] | list[dict[str, Any]] | None = None,
    log_source: str = "clean",
    **options: Any,
) -> PhoneTask:
    """Build one official variant by name (``"WeekendSleeperTask@grandma"``, or ``"WeekendSleeperTask"`` with
    ``profile=``)."""
    release = release or require_release(data_dir)
    class_name, role = split_variant(name)
    ctx = make_context(release, class_name, role, profile=profile, logs=logs, log_source=log_source,
                       options=options)
    return build(ctx)


def build_family(
    family: str,
    release: OfficialRelease | None = None,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    log_source: str = "clean",
    **options: Any,
) -> list[PhoneTask]:
    """Every official variant of a family, in :func:`variant_names` order."""
    release = release or require_release(data_dir)
    return [build_variant(n, release, log_source=log_source, **options) for n in variant_names(release, family)]
