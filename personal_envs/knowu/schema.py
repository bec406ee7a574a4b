"""Schemas of the KnowU files (pydantic): persona profiles (YAML) and user logs (JSON) in the official format.

The profile format stays loose (sections may be missing, extra keys are kept and ignored), but what is there must
have the type the tasks, the simulated user and the verifiers read: the seven sections and
``environment_init_state`` are mappings; names, addresses, labels, people's names, roles, phones and e-mails are
text; coordinates are numbers; a habit is a mapping; a social-graph group is a list of people (or one person), each
a mapping.  A location may also be written as plain text (its address), a group as one person.

A log is a JSON list of entries (or a mapping holding it under ``logs`` / ``entries``) whose ``time``,
``location``, ``action``, ``label`` and ``category`` are text.

The metrics of a KnowU results record that the paper's tables read (:class:`RecordMetrics`) are typed as well.
"""

from __future__ import annotations

from typing import Annotated, Any, NotRequired, Required

from pydantic import BeforeValidator, StrictBool, StrictFloat, StrictInt, StrictStr
from typing_extensions import TypedDict


class Identity(TypedDict, total=False):
    """``user_profile.identity`` (other keys, such as ``age``, are free)."""

    full_name: StrictStr
    name: StrictStr
    nickname: StrictStr
    gender: StrictStr
    occupation: StrictStr
    employer: StrictStr
    auth_documents: dict[str, Any]
    contact_info: dict[str, Any]


class Location(TypedDict, total=False):
    """A place of ``user_profile.locations``."""

    address: StrictStr
    label: StrictStr
    instructions: StrictStr
    latitude: float
    longitude: float


def _place(value: Any) -> Any:
    """A location written as text is its address."""
    return {"address": value} if isinstance(value, str) else value


class Person(TypedDict, total=False):
    """A person of ``user_profile.social_graph``."""

    name: StrictStr
    role: StrictStr
    phone: StrictStr
    email: StrictStr


def _people(value: Any) -> Any:
    """A social-graph group written as one person is a group of one."""
    return [value] if isinstance(value, dict) else value


class DigitalContext(TypedDict, total=False):
    """``user_profile.digital_context``."""

    devices: list[StrictStr]
    system_settings: dict[str, Any]
    security: dict[str, Any]


class UserProfile(TypedDict, total=False):
    """``user_profile``: the seven sections, each optional."""

    identity: Identity
    locations: dict[str, Annotated[Location, BeforeValidator(_place)]]
    digital_context: DigitalContext
    habits: dict[str, dict[str, Any]]
    preferences: dict[str, Any]
    decision_criteria: dict[str, Any]
    social_graph: dict[str, Annotated[list[Person], BeforeValidator(_people)]]


class OfficialProfileDocument(TypedDict):
    """An official-format profile: ``user_profile`` is required."""

    user_profile: UserProfile
    environment_init_state: NotRequired[dict[str, Any]]


class LogEntry(TypedDict, total=False):
    """One entry of a user log."""

    time: StrictStr
    location: StrictStr
    action: StrictStr
    label: StrictStr
    category: StrictStr


#: A log file's entries.
LogEntries = list[LogEntry]


class OfficialEpisode(TypedDict, total=False):
    """``metrics.official_episode`` of a results record: what the official metrics script reads of an episode."""

    task_name: Required[StrictStr]
    split: Required[StrictStr]
    score: Required[StrictFloat]
    traj: list[Any]
    habit_should_act: StrictBool | None


class RecordMetrics(TypedDict, total=False):
    """The KnowU part of a results record's ``metrics`` that ``personal-envs knowu table`` reads."""

    official_episode: OfficialEpisode
    split: StrictStr
    score: StrictFloat
    steps: StrictInt
    ask_user_count: StrictInt
