"""The LLM shopper's replies are checked for the hidden target's details; leaks are recorded and redacted on request;
a failing endpoint falls back to the deterministic shopper, recorded."""

from typing import Any

from personal_envs.llm.client import ChatClient
from personal_envs.llm.testing import ScriptedChatServer
from personal_envs.personalwab.leaks import find_leaks, redact_leaks
from personal_envs.personalwab.users import LLMShopper
from personal_envs.run_extras import episode_extras, summary_lines
from personal_envs.simulators.users.base import UserContext
from tests.personalwab.tiny_data import PROFILE, product

TARGET = product(3)
CONTEXT = UserContext(profile=PROFILE, task={"type": "search", "instruction": "I need a spatula", "product": TARGET})


def test_find_leaks_names_each_identifying_detail() -> None:
    title = TARGET["title"]
    assert find_leaks(f"I want the {title}!", TARGET) == ["title", "store"]  # "Panly Silicone Spatula Set model 3"
    assert find_leaks("a silicone spatula set, model 3 please", TARGET) == ["title"]  # 4 consecutive title words
    assert find_leaks("a spatula set in silicone", TARGET) == []
    assert find_leaks(f"code {TARGET['parent_asin'].lower()} please", TARGET) == ["asin"]
    assert find_leaks(f"Something by {TARGET['store']} would be nice", TARGET) == ["store"]
    assert find_leaks("Something for flipping pancakes, under twenty dollars", TARGET) == []


def test_redaction_removes_what_was_found() -> None:
    text = f"It is the {TARGET['title']} by {TARGET['store']}, code {TARGET['parent_asin']}."
    redacted = redact_leaks(text, TARGET)
    assert find_leaks(redacted, TARGET) == []
    assert "that product" in redacted


def shopper(reply: Any, **kwargs: Any) -> tuple[LLMShopper, ScriptedChatServer]:
    server = ScriptedChatServer(lambda request: reply).start()
    user = LLMShopper(ChatClient(base_url=server.base_url, model="m", max_retries=0), **kwargs)
    user.start(CONTEXT)
    return user, server


def test_leaks_are_recorded_and_kept_unless_redaction_is_asked() -> None:
    leaky = f"I'd like the {TARGET['title']}."
    user, server = shopper(leaky)
    try:
        reply = user.reply("What are you looking for?")
    finally:
        server.close()
    assert reply.text == leaky
    assert user.leaks == [{"turn": 1, "details": ["title", "store"], "redacted": False}]
    user, server = shopper(leaky, redact_leaks=True)
    try:
        reply = user.reply("What are you looking for?")
    finally:
        server.close()
    assert find_leaks(reply.text, TARGET) == [] and user.leaks[0]["redacted"] is True


def test_endpoint_failure_falls_back_to_the_deterministic_shopper_and_is_recorded() -> None:
    user, server = shopper({"status": 500, "message": "model crashed"})
    try:
        reply = user.reply("Which brand do you prefer?")
    finally:
        server.close()
    assert "Stridex" in reply.text and "Panly" not in reply.text  # the deterministic shopper: profile brands, not the store
    assert len(user.errors) == 1 and "model crashed" in user.errors[0]
    assert reply.private_notes.startswith("fallback after:")

    class Env:
        pass

    env = Env()
    env.user = user  # type: ignore[attr-defined]
    extras = episode_extras(env, object(), {"metrics": {}})
    assert extras["user"]["fallbacks"] == 1 and extras["user"]["kind"] == "llm" and extras["user"]["leaks"] == []
    lines = summary_lines([{"user": extras["user"]}, {"user": {"kind": "llm", "fallbacks": 0, "leaks": [{}]}}])
    assert "user: fallback on 1/2 episodes (1 replies from the deterministic user instead of the llm user)" in lines
    assert "user: leaked the target's details in 1/2 episodes" in lines
