"""SearchTopInfo sends its judge the facts the official check sends: the workflow apps (a module constant of the
class file), the interest-field hint, the evidence policy ("Do not penalize missing Chrome evidence"), read from the
release.  The official ``is_successful`` runs here on the same sent mail (its judge call captured) and the
project's judge data must equal its ``eval_data`` on every role."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from personal_envs.knowu.official.preference.judge import JudgeVerdict
from personal_envs.knowu.official.preference.variants import build_variant
from tests.knowu.official_preference.release import (
    NEEDS_RELEASE,
    PROFILES,
    RELEASE,
    end_of,
    personas,
    source,
    variants,
)
from tests.knowu.official_runtime import Anything, no_sleep, official_runtime

pytestmark = NEEDS_RELEASE
NAME = "SearchTopInfoPreferenceAskUserTask"
MAIL = {"to": "kevin@example.com", "subject": "AI news", "body": "Here is the recent news in the AI field: ..."}


class Recorder:
    """A judge that records what it is sent and gives full marks."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def judge(self, **kwargs: Any) -> JudgeVerdict:
        self.sent.append(dict(kwargs["eval_data"]))
        return JudgeVerdict(1.0, "recorded", "llm")


def official_eval_data(role: str) -> dict[str, Any]:
    sent: list[dict[str, Any]] = []
    with official_runtime(RELEASE) as runtime:
        module = runtime.load(f"knowu_bench.tasks.definitions.preference.{Path(source().get(NAME).path).stem}")
        no_sleep(module)
        module.get_sent_email_info = lambda: dict(MAIL)
        task = getattr(module, NAME)(params={"profile_id": role, "profile_path": str(PROFILES / f"{role}.yaml")})
        task.initialized = True
        task.query_user_agent_judge = lambda eval_data, **kwargs: sent.append(eval_data) or (1.0, "recorded")
        controller = Anything()
        controller.user_agent_chat_history = []
        task.is_successful(controller)
    return sent[0]


def test_the_search_judge_is_sent_what_the_official_check_sends() -> None:
    roles = [role for name, role in variants() if name == NAME]
    assert roles
    for role in roles:
        task = build_variant(source(), NAME, role, PROFILES / f"{role}.yaml", personas=personas())
        recorder = Recorder()
        task.judge = recorder  # type: ignore[assignment]
        end = end_of(task, change=lambda phone: phone.mail.add(
            "me", MAIL["subject"], MAIL["body"], datetime(2026, 5, 22, 10, 0), to=[MAIL["to"]], folder="sent"))
        assert task.score_end(end, []).score == 1.0
        ours, official = recorder.sent[0], official_eval_data(role)
        assert ours == official, role
        assert list(ours) == list(official)  # the same order in the judge's JSON
    assert official["expected_workflow_apps"] == ["Chrome", "Mail"]
    assert "Do not penalize missing Chrome evidence" in official["workflow_evidence_policy"]
