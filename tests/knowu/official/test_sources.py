"""Task sources: every text slot renders for every official variant, through the one protocol the builders use."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from personal_envs.knowu.official import texts as tx
from personal_envs.knowu.official.preference.judge import JudgeProtocol
from personal_envs.knowu.official.registry import persona_ids
from personal_envs.knowu.official.release import OfficialRelease
from personal_envs.knowu.official.routine.rules import setup_routine
from personal_envs.knowu.official.source import parse_release
from personal_envs.knowu.official.template import TemplateError
from personal_envs.knowu.personas import official_personas


class AnySlot(dict[str, Any]):
    """A namespace holding every name a rubric may read (each one a short text)."""

    def __contains__(self, key: object) -> bool:
        return True

    def __missing__(self, key: str) -> str:
        return f"<{key}>"


def _profiles(release: OfficialRelease) -> Iterator[tuple[str, dict[str, Any]]]:
    personas = official_personas(release.root)
    for role in personas.ids():
        yield role, personas.profile(role)["user_profile"]


def test_every_slot_renders_for_the_192_official_variants(release: OfficialRelease) -> None:
    source = parse_release(release)
    profiles = dict(_profiles(release))
    rendered = 0
    for cls in source.tasks("general"):
        values = {"goal": cls.goal, "app_names": cls.app_names, "start": datetime(2026, 5, 22, 9)}
        assert source.text(cls.name, tx.GENERAL_USER_PROMPT, values).startswith("You are acting")
        assert len(source.text(cls.name, tx.GENERAL_DATE, values)) == 10
        rendered += 1
    for name in ("CommuteLateNightGeneralTask", "CommuteRoutingBadWeatherGeneralTask"):
        method = next(m for m in source.get(name).methods if m.startswith("_query_"))
        messages = source.text(name, tx.GENERAL_JUDGE, {"method": method, "plan": "PLAN-TEXT"})
        assert messages[0]["role"] == "system" and "PLAN-TEXT" in messages[-1]["content"]
    assert isinstance(source.text("", tx.PREFERENCE_JUDGE, {}), JudgeProtocol)
    for cls in source.tasks("preference"):
        rubric = source.text(cls.name, tx.PREFERENCE_RUBRIC, AnySlot())
        assert isinstance(rubric, str) and len(rubric) > 40, cls.name
        for role in persona_ids(source, official_personas(release.root), cls.name):
            request = source.text(cls.name, tx.PREFERENCE_REQUEST, {"role": role})
            assert isinstance(request, str) and request, (cls.name, role)
            rendered += 1
    for profile in profiles.values():
        persona = source.text("", tx.PERSONA, {"profile": profile})
        assert profile["identity"]["full_name"] in persona
    instruction = source.text("", tx.ROUTINE_INSTRUCTION, {})
    assert isinstance(instruction, str) and instruction
    for cls in source.tasks("routine"):
        for role in persona_ids(source, official_personas(release.root), cls.name):
            setup = setup_routine(cls.name, profiles[role])
            values = {**setup.values, "should_act": setup.should_act, "user_profile": profiles[role]}
            goal = source.text(cls.name, tx.ROUTINE_GOAL, {**values, "user_log_context": "- [LOGS]"})
            assert "- [LOGS]" in goal and instruction in goal
            info = source.text(cls.name, tx.ROUTINE_CONTEXT, {**values, "persona_text": "PERSONA"})
            prompt = source.text(cls.name, tx.USER_SYSTEM_PROMPT, {"family": "routine", "relevant_information": info})
            assert "PERSONA" in info and info in prompt
            rendered += 1
    assert rendered == 42 + 86 + 64


def test_an_unknown_slot_is_refused_by_name(release: OfficialRelease) -> None:
    with pytest.raises(TemplateError, match="unknown text slot 'general.goal'"):
        parse_release(release).text("BatterySaverGeneralTask", "general.goal", {})
