"""The official LLM user protocol against a real OpenAI-compatible server on loopback."""

from __future__ import annotations

from typing import Any

import pytest

from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.official.routine.user import OfficialRoutineLLMUser
from personal_envs.llm.client import ChatClient
from personal_envs.llm.testing import ScriptedChatServer
from tests.knowu.official_routine.conftest import ANCHORS

pytestmark = pytest.mark.usefixtures("anchors")


def test_the_llm_user_gets_the_official_prompt_dialogue_and_sampling() -> None:
    replies = iter(["<think>\nI sleep in on weekends.\n</think>\n<decision>reject</decision>",
                    "<think>\nStill no.\n</think>\n<decision>reject</decision>"])

    def responder(request: dict[str, Any]) -> str:
        return next(replies)

    env = KnowUEnv(family="proactive", task="WeekendSleeperTask@student", data_dir=str(ANCHORS), screenshot=False)
    with ScriptedChatServer(responder) as server:
        client = ChatClient(base_url=server.base_url, model="m", max_retries=1, backoff_s=0.01, timeout=10)
        try:
            task = env.tasks[0]
            env.set_simulated_user(OfficialRoutineLLMUser(task.user_prompt, client))  # type: ignore[attr-defined]
            env.reset()
            obs, *_ = env.step({"action_type": "ask_user", "text": "Turn off the 07:30 alarm for tomorrow?"})
            assert obs["user_reply"].endswith("<decision>reject</decision>")  # the raw reply, as officially
            env.step({"action_type": "ask_user", "text": "Are you sure?"})
            _, reward, *_ = env.step({"action_type": "finished"})
        finally:
            env.close()
    first, second = server.requests
    system = first["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("Context: ### USER PERSONA")
    assert "### ROUTINE STATUS\nYou HAVE this routine in your profile." in system["content"]
    assert system["content"].endswith(". Only answer based on this info.")
    assert "Lucas Jensen" in system["content"]  # the persona text goes to the user model only
    assert (first["temperature"], first["top_p"], first["seed"]) == (0.0, 1.0, 42)
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "user"]
    assert second["messages"][2]["content"].endswith("<decision>reject</decision>")
    assert reward == 1.0  # the habit applies, the user rejected, the agent respected it


def test_the_llm_policy_keeps_the_start_and_the_end_of_a_long_official_goal() -> None:
    from personal_envs.knowu.official.registry import build_variant
    from personal_envs.knowu.official.release import find_release
    from personal_envs.llm.prompt import TokenCounter, render_fields

    release = find_release(str(ANCHORS))
    goal = build_variant("WeekendSleeperTask@user", data_dir=release.root).instruction
    out = render_fields({"instruction": goal}, TokenCounter(None, "estimate"), {"instruction": 600})[0]
    assert len(out) < 3000 and out.startswith("## instruction\n### USER ACTIVITY LOGS")
    assert out.rstrip().endswith(goal.rstrip()[-200:])  # the official instruction at the end survives
    assert "characters in the middle not shown]" in out
