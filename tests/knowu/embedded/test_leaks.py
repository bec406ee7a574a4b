"""No identity value of a persona (name, contact details, identity documents) is on any screen of any variant the
embedded cards give for the default personas and for generated ones (issue 29: the agent learns them only from the
logs and the user's replies, as with the official roles), walked through the apps' own tap handlers."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest

from personal_envs.knowu.generate import generate_release
from personal_envs.knowu.official.embedded import embedded_source
from personal_envs.knowu.personas import PersonaSet, default_personas, hidden_values
from personal_envs.simulators.phone.phone import Phone
from tests.knowu.helpers import build_family
from tests.knowu.screens import screens

GENERATED = 4


def _assert_hidden(text: str, secrets: list[str], where: str) -> None:
    lowered = html.unescape(text).lower()
    leaked = [s for s in secrets if s.lower() in lowered]
    assert not leaked, f"{where} shows {leaked[:3]}"


def _walk(personas: PersonaSet) -> int:
    """Walk the screens of every preference and routine variant on ``personas``; returns the screens seen."""
    secrets = {pid: hidden_values(personas.profile(pid)) for pid in personas.ids()}
    assert all(secrets.values()), secrets
    walked = 0
    source = embedded_source()
    for family in ("preference", "routine"):
        for task in build_family(family, source, personas):
            pid = task.task_id.split("@", 1)[1]
            phone = Phone(now=task.start)
            task.prepare(phone)
            for key, page in screens(phone, max_depth=2, per_screen=4):
                _assert_hidden(page, secrets[pid], f"{task.task_id} screen {key}")
                walked += 1
    return walked


def test_no_screen_of_a_default_persona_variant_shows_its_identity() -> None:
    personas = default_personas()
    assert _walk(personas) > 150 * 20
    profile = personas.profile(personas.ids()[0])
    with pytest.raises(AssertionError, match="shows"):  # the detector finds the values where they are
        _assert_hidden(json.dumps(profile, ensure_ascii=False), hidden_values(profile), "profile dump")


def test_no_screen_of_a_generated_persona_variant_shows_its_identity(tmp_path: Path) -> None:
    personas = PersonaSet.from_dir(generate_release(GENERATED, 31, tmp_path / "generated"))
    assert len(personas.ids()) == GENERATED
    assert _walk(personas) > GENERATED * 30 * 20
