"""Persona sets: the users KnowU variants are built for, each a profile (official YAML) with its logs (JSON).

A :class:`PersonaSet` is a folder in the official layout: ``user_profile/<id>.yaml``, ``user_logs/<id>.json`` (clean)
and ``user_logs/<id>_noise_25pct.json`` (25 % noise), and optional media (``cache/users/<slug>/{email_share,
mastodon_share}/``, the user's own photos), either at the top of the folder or under ``src/knowu_bench/`` as in the
official repository.  The sets the env knows:

* the official roles of a release (``developer``, ``student``, ``user``, ``grandma``): :func:`official_personas`;
* the default personas shipped in the package (``data/personas/default``): :func:`default_personas`;
* generated personas (``personal-envs knowu generate``; the train split): :func:`generated_personas`;
* any folder in that layout: :meth:`PersonaSet.from_dir`.

The loaders return plain data: a profile is the YAML document (``{"user_profile": {...}}``), logs a list of entries
``{time, location, action, label, category}``.  :func:`profile_field` reads a dotted field and raises
:class:`MissingProfileField` naming it.
"""

from __future__ import annotations

import copy
import functools
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from personal_envs.core.errors import InputError, MissingDataError
from personal_envs.core.schema import read_json, read_yaml, validate
from personal_envs.knowu import schema

#: Profile stems that are not personas (the official release's schema file).
NOT_PERSONAS = frozenset({"template"})
PACKAGE = "src/knowu_bench"
DEFAULT_DIR = Path(__file__).with_name("data") / "personas" / "default"


class MissingProfileField(KeyError):
    """A variant needs a profile field the given profile does not have (the message names the field)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def load_profile(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A profile YAML as a dict, checked against :class:`~personal_envs.knowu.schema.OfficialProfileDocument`
    (:class:`~personal_envs.core.errors.InputError` naming the file and the field).  A fresh copy each call; the
    parse is remembered per file version (path, size, modification time): every reset of a task reads its profile."""
    try:
        stat = os.stat(path)
    except OSError:
        return _parse_profile(path)  # read_yaml names the missing file
    return copy.deepcopy(_parsed_profile(os.fspath(path), stat.st_size, stat.st_mtime_ns))


@functools.lru_cache(maxsize=64)
def _parsed_profile(path: str, size: int, mtime_ns: int) -> dict[str, Any]:
    return _parse_profile(path)


def _parse_profile(path: str | os.PathLike[str]) -> dict[str, Any]:
    data = read_yaml(path, "profile file")
    if not isinstance(data, dict):
        raise InputError(f"{path}: a KnowU profile is a YAML mapping with 'user_profile', got a "
                         f"{type(data).__name__}")
    validate(schema.OfficialProfileDocument, data, str(path))
    return data


def load_logs(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """A log JSON (a list of ``{time, location, action, label, category}``) as a list, checked against
    :data:`~personal_envs.knowu.schema.LogEntries`."""
    data = read_json(path, "log file")
    validate(schema.LogEntries, data, str(path))
    return list(data)


def user_profile_of(document: Mapping[str, Any]) -> dict[str, Any]:
    """The ``user_profile`` part of a profile document (the document itself if it has none)."""
    inner = document.get("user_profile")
    return dict(inner) if isinstance(inner, Mapping) else dict(document)


def profile_field(profile: Mapping[str, Any], dotted: str, *, task: str = "") -> Any:
    """``profile["user_profile"]["a"]["b"]`` for ``"a.b"``; :class:`MissingProfileField` naming the missing field
    and the task.  A dotted path starting with ``user_profile.`` is taken as is."""
    node: Any = profile if dotted.startswith("user_profile.") else profile.get("user_profile", profile)
    walked: list[str] = []
    for part in dotted.split("."):
        walked.append(part)
        if not isinstance(node, Mapping) or part not in node:
            where = f" (needed by {task})" if task else ""
            raise MissingProfileField(f"the profile has no field {'.'.join(walked)!r}{where}")
        node = node[part]
    return node


def value_at(profile: Mapping[str, Any], dotted: str) -> Any:
    """The value at a dotted path of a ``user_profile`` mapping (``"locations.home"``), ``None`` when a part is
    missing."""
    node: Any = profile
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def hidden_values(profile: Mapping[str, Any]) -> list[str]:
    """Distinctive profile strings the agent must never observe except through the logs and the user's replies: the
    name, the contact details and the identity documents."""
    identity = user_profile_of(profile).get("identity") or {}
    values: list[str] = []
    if isinstance(identity, Mapping):
        values.append(str(identity.get("full_name") or ""))
        for block in ("contact_info", "auth_documents"):
            section = identity.get(block)
            if isinstance(section, Mapping):
                values += [str(v) for v in section.values() if isinstance(v, str | int)]
    return [v for v in values if len(v) >= 5]


def user_slug(profile: Mapping[str, Any]) -> str:
    """The media folder name of a profile (its full name, lower case, non-alphanumerics as ``_``)."""
    name = str((user_profile_of(profile).get("identity", {}) or {}).get("full_name", ""))
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "user"


@dataclass(frozen=True)
class PersonaSet:
    """A folder of personas in the official layout (see the module docstring).

    Attributes:
        home: The folder holding ``user_profile/`` and ``user_logs/`` (``<repo>/src/knowu_bench`` officially).
        label: How records and tables name the set (``"official roles"``, ``"default personas"``...).
    """

    home: Path
    label: str

    @classmethod
    def from_dir(cls, path: str | os.PathLike[str], label: str | None = None) -> PersonaSet:
        """The persona set of a folder (its ``src/knowu_bench/`` when it has one); ``ValueError`` without
        ``user_profile/``."""
        folder = Path(path)
        home = folder / PACKAGE if (folder / PACKAGE / "user_profile").is_dir() else folder
        if not (home / "user_profile").is_dir():
            raise MissingDataError(f"{folder} holds no personas: expected user_profile/<id>.yaml (or "
                             f"{PACKAGE}/user_profile/) with user_logs/<id>.json beside it")
        return cls(home, label or folder.name)

    @property
    def profiles_dir(self) -> Path:
        return self.home / "user_profile"

    @property
    def logs_dir(self) -> Path:
        return self.home / "user_logs"

    @property
    def media_dir(self) -> Path:
        """Where the users' own media live (``cache/users/<slug>/``)."""
        return self.home / "cache" / "users"

    def ids(self) -> list[str]:
        """The persona ids: profile stems, sorted."""
        return sorted(p.stem for p in self.profiles_dir.glob("*.yaml") if p.stem not in NOT_PERSONAS)

    def profile_paths(self) -> tuple[Path, ...]:
        return tuple(self.profiles_dir / f"{pid}.yaml" for pid in self.ids())

    def profile_path(self, pid: str) -> Path:
        """``user_profile/<pid>.yaml`` (``FileNotFoundError`` listing the ids)."""
        path = self.profiles_dir / f"{pid}.yaml"
        if not path.is_file() or pid in NOT_PERSONAS:
            raise MissingDataError(f"no persona {pid!r} in {self.profiles_dir}; personas: {', '.join(self.ids())}")
        return path

    def profile(self, pid: str) -> dict[str, Any]:
        return load_profile(self.profile_path(pid))

    def logs_path(self, pid: str, source: str = "clean") -> Path:
        """``user_logs/<pid>.json`` (``"clean"``) or ``<pid>_noise_25pct.json`` (``"noise"``)."""
        if source not in ("clean", "noise"):
            raise InputError(f"source must be 'clean' or 'noise', got {source!r}")
        name = f"{pid}.json" if source == "clean" else f"{pid}_noise_25pct.json"
        path = self.logs_dir / name
        if not path.is_file():
            raise MissingDataError(f"no logs {name} in {self.logs_dir}")
        return path

    def logs(self, pid: str, source: str = "clean") -> list[dict[str, Any]]:
        return load_logs(self.logs_path(pid, source))


def official_personas(release_root: str | os.PathLike[str]) -> PersonaSet:
    """The official roles of a release directory."""
    return PersonaSet(Path(release_root) / PACKAGE, "official roles")


def default_personas() -> PersonaSet:
    """The default personas shipped in the package (the four project personas in the official format)."""
    return PersonaSet(DEFAULT_DIR, "default personas")


def as_persona_set(personas: str | os.PathLike[str] | PersonaSet) -> PersonaSet:
    """The persona set ``personas`` names: a :class:`PersonaSet`, ``"default"`` (the shipped default personas) or a
    folder in the official layout (``user_profile/`` + ``user_logs/``, or a release with ``src/knowu_bench/``)."""
    if isinstance(personas, PersonaSet):
        return personas
    if str(personas) == "default":
        return default_personas()
    return PersonaSet.from_dir(personas)


@functools.lru_cache(maxsize=8)
def generated_personas(count: int = 64, seed: int = 0, home: str | None = None) -> PersonaSet:
    """Generated personas (``count`` of them from ``seed``), made once in the data cache (``data_home()/knowu/
    generated/v<generator version>-s<seed>-n<count>``; written to a temporary folder and renamed when complete) and
    reused."""
    from personal_envs.core.download import data_home
    from personal_envs.knowu.generate import VERSION, generate_release

    folder = Path(home) if home else data_home() / "knowu" / "generated" / f"v{VERSION}-s{seed}-n{count}"
    if not (folder / PACKAGE / "user_profile").is_dir():
        generate_release(count, seed, folder)
    return PersonaSet(folder / PACKAGE, f"generated s{seed}-n{count}")
