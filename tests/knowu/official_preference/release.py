"""Where the preference tests find the official release (the anchors subset), and the mark that skips without it."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest

from personal_envs.core.task import EpisodeTrace
from personal_envs.knowu.official.registry import persona_ids
from personal_envs.knowu.official.release import OfficialRelease
from personal_envs.knowu.official.source import OfficialSource, parse_release
from personal_envs.knowu.personas import PersonaSet, official_personas
from personal_envs.knowu.state import EndState, read_state
from personal_envs.simulators.phone.phone import Phone
from tests.conftest import ANCHORS

RELEASE = ANCHORS / "knowu" / "official"
PROFILES = RELEASE / "src/knowu_bench/user_profile"
NEEDS_RELEASE = pytest.mark.skipif(not (RELEASE / "src/knowu_bench").is_dir(), reason="official release not present")


@functools.cache
def source() -> OfficialSource:
    """The parsed official release (the task source of the official variants)."""
    return parse_release(OfficialRelease(RELEASE))


@functools.cache
def personas() -> PersonaSet:
    """The official roles of the release."""
    return official_personas(RELEASE)


def variants() -> list[tuple[str, str]]:
    """Every official preference variant as ``(class, role)``, sorted by class."""
    found = source()
    return [(cls.name, role) for cls in found.tasks("preference") for role in persona_ids(found, personas(), cls.name)]


def variant_names(family: str) -> list[str]:
    """The official variant names of a family."""
    from personal_envs.knowu.official.registry import variant_names as names

    return names(source(), personas(), family)


def end_of(task: Any, answer: str = "", change: Callable[[Phone], None] | None = None) -> EndState:
    """The end state of an episode of ``task`` that changed the seeded phone with ``change`` (through the apps'
    own state, as the UI would) and answered ``answer``."""
    phone = Phone(now=task.start)
    task.prepare(phone)
    if change is not None:
        change(phone)
    trace = EpisodeTrace()
    trace.answer = answer or None
    return read_state(phone, trace)
