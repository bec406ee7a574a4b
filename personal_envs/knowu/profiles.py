"""KnowU user profiles: loading the loose YAML schema and reading it safely.

A profile file holds ``user_profile`` (``identity``, ``locations``, ``digital_context``, ``habits``,
``preferences``, ``decision_criteria``, ``social_graph``) and ``environment_init_state`` (per-app seed state).  The
format is deliberately loose: any section may be missing, extra keys are kept, habits may sit directly under
``habits`` or one level deeper under a category.  :func:`parse_profile` never fails on a missing optional field.

:func:`load_profile` accepts a role name or a path.  Role names are looked up, in order, in ``data_dir`` (argument),
in ``$PERSONAL_ENVS_DATA``, and in the profiles this project ships (``personal_envs/knowu/data/profiles``).  Inside a
data directory the files may sit at ``knowu/user_profile/<role>.yaml``, ``user_profile/<role>.yaml`` or
``<role>.yaml``.

The profile is hidden from the agent: only the simulated user and the verifiers read it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from personal_envs.core.errors import InputError, reraise_as
from personal_envs.core.schema import existing_dir, read_yaml, validate
from personal_envs.knowu import schema

#: Environment variable naming a directory with official benchmark data.
DATA_ENV = "PERSONAL_ENVS_DATA"
#: Profiles shipped with the project (written for it; same schema as the official ones).
SHIPPED_PROFILE_DIR = Path(__file__).resolve().parent / "data" / "profiles"
#: The four roles this project ships.
SHIPPED_ROLES: tuple[str, ...] = ("researcher", "developer", "student", "grandma")
#: Sub-folders of a data directory searched for ``<role>.yaml``.
PROFILE_SUBDIRS: tuple[str, ...] = ("knowu/user_profile", "user_profile", "profiles", ".")
#: The top-level sections of ``user_profile``.
PROFILE_SECTIONS: tuple[str, ...] = (
    "identity", "locations", "digital_context", "habits", "preferences", "decision_criteria", "social_graph",
)
#: Keys under ``identity`` (at any depth) whose values are never revealed to the agent.
SENSITIVE_IDENTITY_KEYS: tuple[str, ...] = ("auth_documents", "contact_info", "security")


class ProfileError(InputError):
    """A profile that cannot be found, read or checked against :mod:`personal_envs.knowu.schema`; the message says
    where it looked (or the file and the field) and what to do."""


@dataclass(frozen=True)
class Habit:
    """One habit (routine): a trigger and the action the user takes when it fires.

    Attributes:
        name: The habit's key in the profile (e.g. ``"weekend_sleeper"``).
        description: Free text.
        trigger: The trigger mapping (time, days, condition, keyword, ...), kept as written.
        action: The action mapping (type, app, target, content, ...), kept as written.
        category: The enclosing category key when habits are grouped, else ``""``.
        extra: Any other keys of the habit.
    """

    name: str
    description: str = ""
    trigger: Mapping[str, Any] = field(default_factory=dict)
    action: Mapping[str, Any] = field(default_factory=dict)
    category: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Profile:
    """A parsed KnowU profile.

    Attributes:
        role: The role name (file stem or the name asked for).
        user_profile: The ``user_profile`` mapping as written (missing sections are absent, not invented).
        environment_init_state: The ``environment_init_state`` mapping (``{}`` when absent).
        raw: The whole YAML document.
        source: Where it was loaded from, if from a file.
    """

    role: str
    user_profile: Mapping[str, Any]
    environment_init_state: Mapping[str, Any] = field(default_factory=dict)
    raw: Mapping[str, Any] = field(default_factory=dict)
    source: Path | None = None

    # ------------------------------------------------------------------ sections (always the right type)
    def section(self, name: str) -> dict[str, Any]:
        """A top-level section of ``user_profile`` as a dict (``{}`` when missing or not a mapping)."""
        value = self.user_profile.get(name)
        return dict(value) if isinstance(value, Mapping) else {}

    @property
    def identity(self) -> dict[str, Any]:
        return self.section("identity")

    @property
    def locations(self) -> dict[str, Any]:
        return self.section("locations")

    @property
    def digital_context(self) -> dict[str, Any]:
        return self.section("digital_context")

    @property
    def preferences(self) -> dict[str, Any]:
        return self.section("preferences")

    @property
    def decision_criteria(self) -> dict[str, Any]:
        return self.section("decision_criteria")

    @property
    def social_graph(self) -> dict[str, Any]:
        return self.section("social_graph")

    @property
    def full_name(self) -> str:
        """The user's full name, or the role when the profile has none."""
        name = self.identity.get("full_name") or self.identity.get("name")
        return str(name) if name else self.role

    @cached_property
    def habits(self) -> dict[str, Habit]:
        """Habits by name; grouped habits (category -> habit) are flattened (computed once)."""
        return dict(_iter_habits(self.user_profile.get("habits")))

    def has_habit(self, *names: str) -> bool:
        """True when the profile has a habit under any of ``names``."""
        habits = self.habits
        return any(name in habits for name in names)

    def habit(self, *names: str) -> Habit | None:
        """The first habit found under ``names``, or ``None``."""
        habits = self.habits
        for name in names:
            if name in habits:
                return habits[name]
        return None

    def get(self, dotted: str, default: Any = None) -> Any:
        """A value of ``user_profile`` by dotted path (``"preferences.diet.delivery_platform"``)."""
        node: Any = self.user_profile
        for part in dotted.split("."):
            if isinstance(node, Mapping) and part in node:
                node = node[part]
            else:
                return default
        return node

    def first(self, *dotted: str) -> Any:
        """The first non-empty value among several dotted paths, or ``None``."""
        for path in dotted:
            value = self.get(path)
            if value not in (None, "", [], {}):
                return value
        return None

    def location_address(self, key: str) -> str:
        """The address of ``locations.<key>`` (``""`` when missing); accepts a plain string location too."""
        value = self.locations.get(key)
        if isinstance(value, Mapping):
            return str(value.get("address", "") or "")
        return str(value) if isinstance(value, str) else ""

    def location_label(self, key: str) -> str:
        """The label of ``locations.<key>`` (falls back to the key, capitalised)."""
        value = self.locations.get(key)
        if isinstance(value, Mapping) and value.get("label"):
            return str(value["label"])
        return key.capitalize()

    def contacts(self) -> list[dict[str, Any]]:
        """Every person of the social graph (any group), each with its group under ``"group"``."""
        people: list[dict[str, Any]] = []
        for group, members in self.social_graph.items():
            if isinstance(members, list):
                for member in members:
                    if isinstance(member, Mapping) and member.get("name"):
                        people.append({**dict(member), "group": str(group)})
            elif isinstance(members, Mapping) and members.get("name"):
                people.append({**dict(members), "group": str(group)})
        return people

    def sensitive_values(self) -> list[str]:
        """Strings the user never reveals: ID/auth numbers, contact details, security settings, coordinates.

        Values shorter than 4 characters are left out (they would match ordinary words).
        """
        found: list[str] = []
        identity = self.identity
        for key in SENSITIVE_IDENTITY_KEYS:
            found.extend(_leaf_strings(identity.get(key)))
        found.extend(_leaf_strings(self.digital_context.get("security")))
        for key, value in identity.items():
            lowered = str(key).lower()
            if any(word in lowered for word in ("id", "passport", "card", "ssn", "license", "number")) and not (
                isinstance(value, Mapping | list)
            ):
                found.append(str(value))
        for value in self.locations.values():
            if isinstance(value, Mapping):
                for coord in ("latitude", "longitude", "lat", "lng", "lon"):
                    if coord in value:
                        found.append(str(value[coord]))
        unique = sorted({v.strip() for v in found if len(v.strip()) >= 4}, key=len, reverse=True)
        return unique

    def addresses(self) -> list[str]:
        """All addresses of ``locations`` (revealed only when the user is asked where to deliver or go)."""
        result = [self.location_address(key) for key in self.locations]
        return [a for a in result if len(a) >= 4]

    def to_dict(self) -> dict[str, Any]:
        """The profile as a plain dict (what :class:`~personal_envs.simulators.users.UserContext` carries)."""
        return {"role": self.role, "user_profile": _plain(self.user_profile),
                "environment_init_state": _plain(self.environment_init_state)}


# ---------------------------------------------------------------------------------------------- parsing
def parse_profile(document: Any, role: str = "user", source: Path | None = None) -> Profile:
    """Build a :class:`Profile` from a parsed YAML document, tolerating missing and extra fields but checking the
    types of those present (:class:`~personal_envs.knowu.schema.UserProfile`).

    A document without ``user_profile`` but with profile sections at the top level is accepted as well.

    Raises:
        ProfileError: the document is not a mapping, or a field has the wrong type (the field is named).
    """
    if document is None:
        document = {}
    where = str(source) if source is not None else f"profile {role!r}"
    if not isinstance(document, Mapping):
        raise ProfileError(f"{where}: a profile is a YAML mapping (with user_profile), got a "
                           f"{type(document).__name__}")
    flat = document.get("user_profile") is None and any(key in document for key in PROFILE_SECTIONS)
    with reraise_as(ProfileError):
        if flat:
            validate(schema.UserProfile, {k: v for k, v in document.items() if k != "environment_init_state"},
                     where)
            validate(schema.ProfileDocument, {k: v for k, v in document.items() if k == "environment_init_state"},
                     where)
        else:
            validate(schema.ProfileDocument, dict(document), where)
    if isinstance(document.get("user_profile"), Mapping):
        user_profile = dict(document["user_profile"])
    elif flat:
        user_profile = {key: document[key] for key in document if key != "environment_init_state"}
    else:
        user_profile = {}
    init_state = document.get("environment_init_state")
    return Profile(
        role=role,
        user_profile=user_profile,
        environment_init_state=dict(init_state) if isinstance(init_state, Mapping) else {},
        raw=dict(document),
        source=source,
    )


def read_profile_file(path: str | os.PathLike[str], role: str | None = None) -> Profile:
    """Read one profile YAML file."""
    file = Path(path)
    with reraise_as(ProfileError):
        document = read_yaml(file, "profile file")
    return parse_profile(document, role=role or file.stem, source=file)


def data_search_dirs(data_dir: str | os.PathLike[str] | None, subdirs: Sequence[str], shipped: Path) -> list[Path]:
    """``subdirs`` of ``data_dir``, then of ``$PERSONAL_ENVS_DATA``, then ``shipped``: the existing ones, resolved,
    without repeats, in that order.  A ``data_dir`` that is not a folder raises
    :class:`~personal_envs.core.errors.MissingDataError` (never a silent fall-back to other data)."""
    if data_dir is not None:
        existing_dir(data_dir, "KnowU data_dir")
    roots: list[Path] = []
    for root in (data_dir, os.environ.get(DATA_ENV)):
        if root:
            roots.extend(Path(root) / sub for sub in subdirs)
    roots.append(shipped)
    seen: list[Path] = []
    for candidate in roots:
        resolved = candidate.resolve()
        if resolved.is_dir() and resolved not in seen:
            seen.append(resolved)
    return seen


def profile_dirs(data_dir: str | os.PathLike[str] | None = None) -> list[Path]:
    """Directories searched for role profiles, in order (existing ones only)."""
    return data_search_dirs(data_dir, PROFILE_SUBDIRS, SHIPPED_PROFILE_DIR)


def list_roles(data_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """Role names available (``template`` files are skipped)."""
    roles: list[str] = []
    for directory in profile_dirs(data_dir):
        for file in sorted(directory.glob("*.yaml")) + sorted(directory.glob("*.yml")):
            if file.stem != "template" and file.stem not in roles:
                roles.append(file.stem)
    return roles


def load_profile(name_or_path: str | os.PathLike[str] | Profile,
                 data_dir: str | os.PathLike[str] | None = None) -> Profile:
    """Load a profile by role name (``"student"``) or by path to a YAML file.

    Raises:
        ProfileError: the file is missing or unreadable; the message lists the roles that exist.
    """
    if isinstance(name_or_path, Profile):
        return name_or_path
    text = os.fspath(name_or_path)
    as_path = Path(text).expanduser()
    if as_path.suffix in (".yaml", ".yml") or os.sep in text or as_path.is_file():
        if not as_path.is_file():
            raise ProfileError(f"profile file {as_path} does not exist")
        return read_profile_file(as_path)
    for directory in profile_dirs(data_dir):
        for suffix in (".yaml", ".yml"):
            candidate = directory / f"{text}{suffix}"
            if candidate.is_file():
                return read_profile_file(candidate, role=text)
    raise ProfileError(
        f"unknown KnowU profile {text!r}; available roles: {', '.join(list_roles(data_dir)) or 'none'} "
        f"(pass a path to a profile YAML, or set {DATA_ENV} to a directory with user_profile/<role>.yaml)"
    )


# ---------------------------------------------------------------------------------------------- helpers
def _looks_like_habit(value: Any) -> bool:
    return isinstance(value, Mapping) and ("trigger" in value or "action" in value)


def _iter_habits(node: Any, category: str = "") -> Iterator[tuple[str, Habit]]:
    if not isinstance(node, Mapping):
        return
    for key, value in node.items():
        name = str(key)
        if _looks_like_habit(value):
            trigger = value.get("trigger")
            action = value.get("action")
            extra = {k: v for k, v in value.items() if k not in ("description", "trigger", "action")}
            yield name, Habit(
                name=name,
                description=str(value.get("description", "") or ""),
                trigger=dict(trigger) if isinstance(trigger, Mapping) else ({"condition": trigger} if trigger else {}),
                action=dict(action) if isinstance(action, Mapping) else ({"detail": action} if action else {}),
                category=category,
                extra=extra,
            )
        elif isinstance(value, Mapping) and not category:
            yield from _iter_habits(value, category=name)


def _leaf_strings(node: Any) -> list[str]:
    if node is None:
        return []
    if isinstance(node, Mapping):
        out: list[str] = []
        for value in node.values():
            out.extend(_leaf_strings(value))
        return out
    if isinstance(node, list | tuple):
        out = []
        for value in node:
            out.extend(_leaf_strings(value))
        return out
    return [str(node)]


def _plain(node: Any) -> Any:
    if isinstance(node, Mapping):
        return {str(k): _plain(v) for k, v in node.items()}
    if isinstance(node, list | tuple):
        return [_plain(v) for v in node]
    return node
