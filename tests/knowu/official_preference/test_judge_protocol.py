"""The official preference-judge protocol against the project's scripted OpenAI-compatible server."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
import yaml

from personal_envs.knowu.official.preference.judge import (
    JudgeFailed,
    JudgeProtocol,
    OfficialPreferenceJudge,
    parse_output,
)
from personal_envs.knowu.official.texts import PERSONA
from personal_envs.llm.client import ChatClient
from personal_envs.llm.testing import ScriptedChatServer
from tests.knowu.official_preference.release import NEEDS_RELEASE, RELEASE, source

pytestmark = NEEDS_RELEASE
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


def _profile(role: str) -> dict[str, Any]:
    data = yaml.safe_load((RELEASE / f"src/knowu_bench/user_profile/{role}.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _fallback() -> tuple[float, str]:
    return 0.25, "deterministic fallback"


def test_persona_text_has_every_official_section_of_each_role() -> None:
    for role in ("developer", "student", "user", "grandma"):
        profile = _profile(role)
        text = source().text("", PERSONA, {"profile": profile["user_profile"]})
        identity = profile["user_profile"]["identity"]
        assert text.startswith(f"You are {identity['full_name']}.")
        for heading in ("### PHYSICAL LOCATIONS", "### PREFERENCES & LIFESTYLE", "### SOCIAL GRAPH",
                        "### CURRENT SITUATION"):
            assert heading in text, (role, heading)


def test_parse_output_follows_the_official_rules() -> None:
    assert parse_output("<think>ok</think><score>0.8</score>") == (0.8, "ok", None)
    score, reason, note = parse_output("I think 0.3 then 0.7")
    assert score == 0.7 and note and "last number" in note and reason.startswith("I think")
    score, _, note = parse_output("<score>high</score>")
    assert score == 0.0 and note and "invalid" in note
    assert parse_output("<score>3</score>")[0] == 1.0
    assert parse_output("")[:2] == (0.0, "Parse Error")


def test_the_judge_sees_persona_request_dialogue_facts_rubric_and_images(tmp_path: Path) -> None:
    protocol = JudgeProtocol.from_release(RELEASE)
    image = tmp_path / "photo.png"
    image.write_bytes(PNG)
    (tmp_path / "empty.jpg").write_bytes(b"")
    persona = source().text("", PERSONA, {"profile": _profile("student")["user_profile"]})
    with ScriptedChatServer(lambda request: "<think>fits the persona</think>\n<score>0.9</score>") as server:
        judge = OfficialPreferenceJudge(protocol, ChatClient(base_url=server.base_url, model="m"))
        verdict = judge.judge(persona=persona, goal="  buy cola ", eval_data={"app_used": "Taodian", "名": "可乐"},
                              rubric="RUBRIC-TEXT", fallback=_fallback,
                              chat_history=[{"role": "user", "content": "Which brand?"},
                                            {"role": "assistant", "content": "Pepsi"}],
                              images=[image, tmp_path / "empty.jpg"])
        request = server.requests[0]
    assert verdict.kind == "llm" and verdict.score == 0.9 and verdict.reasoning == "fits the persona"
    assert verdict.images == 1 and verdict.error is None
    assert request["temperature"] == 0.0 and request["max_tokens"] == 1024
    system, user = request["messages"]
    assert system["role"] == "system" and "preference judge" in system["content"]
    text = user["content"][0]["text"]
    assert persona in text and "Original user request: buy cola\n" in text and "RUBRIC-TEXT" in text
    assert "- **GUI Agent**: Which brand?" in text and "- **User**: Pepsi" in text
    assert '"名": "可乐"' in text  # facts as indented JSON, non-ASCII kept
    assert "### ATTACHED IMAGES" in text
    assert user["content"][1]["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(PNG).decode()
    assert len(user["content"]) == 2  # the empty file is skipped, as the official code skips it


def test_no_images_no_dialogue_gives_a_plain_text_prompt() -> None:
    protocol = JudgeProtocol.from_release(RELEASE)
    messages = protocol.messages(persona="P", goal="g", eval_data={}, rubric="r")
    assert isinstance(messages[1]["content"], str)
    assert "INTERACTION HISTORY" not in messages[1]["content"] and "ATTACHED IMAGES" not in messages[1]["content"]


def test_a_failed_call_is_visible_and_the_official_half_is_only_an_explicit_option() -> None:
    protocol = JudgeProtocol.from_release(RELEASE)
    with ScriptedChatServer(lambda request: {"status": 400, "message": "bad model"}) as server:
        client = ChatClient(base_url=server.base_url, model="m", max_retries=0)
        verdict = OfficialPreferenceJudge(protocol, client).judge(
            persona="P", goal="g", eval_data={}, rubric="r", fallback=_fallback)
        assert verdict.kind == "fallback-after-error" and verdict.score == 0.25
        assert verdict.error and "bad model" in verdict.error
        half = OfficialPreferenceJudge(protocol, client, on_error="official-0.5").judge(
            persona="P", goal="g", eval_data={}, rubric="r", fallback=_fallback)
        assert half.kind == "official-0.5-after-error" and half.score == 0.5 and half.error
        with pytest.raises(JudgeFailed, match="bad model"):
            OfficialPreferenceJudge(protocol, client, on_error="raise").judge(
                persona="P", goal="g", eval_data={}, rubric="r", fallback=_fallback)


def test_without_an_endpoint_the_fallback_is_labelled() -> None:
    protocol = JudgeProtocol.from_release(RELEASE)
    verdict = OfficialPreferenceJudge(protocol, ChatClient(base_url="")).judge(
        persona="P", goal="g", eval_data={}, rubric="r", fallback=_fallback)
    assert (verdict.kind, verdict.score, verdict.error) == ("fallback", 0.25, None)
    with pytest.raises(ValueError):
        OfficialPreferenceJudge(protocol, on_error="silent")  # type: ignore[arg-type]
