"""The official user-simulator protocol of the preference and general families.

The user model's system prompt is compared with the one the official code builds: the official task classes run here
(``tests/knowu/official_runtime.py``: the release's files, device stubbed), their ``initialize_task_hook`` and
``initialize_user_agent_hook`` set ``controller.user_sys_prompt``, and the project's rendering must be identical, for
every official preference variant and every general task.  Then the prompt, the dialogue and the sampling are checked
on the wire of a loopback chat server, through ``gym.make``'s ``user="llm"``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.official.general.user import OfficialGeneralUser
from personal_envs.knowu.official.llm_user import OfficialLLMUser
from personal_envs.knowu.official.preference.variants import build_variant
from personal_envs.knowu.official.registry import build_variant as build_official
from personal_envs.knowu.official.release import find_release
from personal_envs.knowu.official.source import parse_release
from personal_envs.llm.testing import ScriptedChatServer
from tests.knowu.official_preference.release import (
    NEEDS_RELEASE,
    PROFILES,
    RELEASE,
    personas,
    source,
    variant_names,
    variants,
)
from tests.knowu.official_runtime import Anything, no_sleep, official_runtime

pytestmark = NEEDS_RELEASE


def _official_preference_prompt(file_stem: str, name: str, profile: Path) -> str:
    with official_runtime(RELEASE) as runtime:
        module = runtime.load(f"knowu_bench.tasks.definitions.preference.{file_stem}")
        no_sleep(module)
        task = getattr(module, name)(params={"profile_path": str(profile)})
        controller = Anything()
        task.initialize_task_hook(controller)
        task.initialize_user_agent_hook(controller)
        return str(controller.user_sys_prompt)


def test_every_preference_variant_tells_the_user_model_what_the_official_code_tells_it() -> None:
    compared: list[str] = []
    for name, role in variants():
        profile = PROFILES / f"{role}.yaml"
        ours = build_variant(source(), name, role, profile, personas=personas()).user_prompt
        official = _official_preference_prompt(Path(source().get(name).path).stem, name, profile)
        assert ours == official, f"{name}@{role}"
        compared.append(f"{name}@{role}")
    assert len(compared) == 86
    # the class's own facts are in it, not only the persona
    search = build_variant(source(), "SearchTopInfoPreferenceAskUserTask", "student", PROFILES / "student.yaml",
                           personas=personas())
    assert search.user_prompt.startswith("Context: ### USER PERSONA")
    assert "Task fact: Kevin's email address is kevin@example.com." in search.user_prompt
    assert search.user_prompt.endswith(". Only answer based on this info.")


def test_every_general_task_tells_the_user_model_what_the_official_code_tells_it() -> None:
    release = find_release(str(RELEASE))
    assert release is not None
    names = variant_names("general")
    dates = set()
    for name in names:
        task = build_official(name, data_dir=release.root)
        official_class = parse_release(release).classes[name]
        module_name = official_class.path.removeprefix("src/").removesuffix(".py").replace("/", ".")
        with official_runtime(RELEASE, now=task.start) as runtime:
            module = runtime.load(module_name)
            controller = Anything()
            getattr(module, name)().initialize_user_agent_hook(controller)
        assert task.user_prompt == controller.user_sys_prompt, name  # type: ignore[attr-defined]
        dates.add(task.today)  # type: ignore[attr-defined]
    assert len(names) == 42
    assert "2025-10-16" in dates and len(dates) >= 2  # the fixed date, and the device date of the Chrome/Maps tasks


def test_the_preference_llm_user_gets_the_official_prompt_dialogue_and_sampling(monkeypatch: pytest.MonkeyPatch
                                                                                ) -> None:
    replies = iter(["My field is weather forecasting.", "Yes, kevin@example.com."])

    def responder(request: dict[str, Any]) -> str:
        return next(replies)

    with ScriptedChatServer(responder) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("PERSONAL_ENVS_LLM_MODEL", "m")
        env = KnowUEnv(family="personalized", task="SearchTopInfoPreferenceAskUserTask@grandma",
                       data_dir=str(RELEASE), screenshot=False, user="llm")
        try:
            _, info = env.reset()
            assert "Kevin's email address is" not in str(info)  # the user's context stays with the user
            obs, *_ = env.step({"action_type": "ask_user", "text": "Which field are you interested in?"})
            assert obs["user_reply"] == "My field is weather forecasting."  # the raw reply, as officially
            env.step({"action_type": "ask_user", "text": "Is Kevin's address kevin@example.com?"})
            task = env.task
        finally:
            env.close()
    assert isinstance(env.user, OfficialLLMUser)
    first, second = server.requests
    system = first["messages"][0]
    assert system == {"role": "system", "content": task.user_prompt}  # type: ignore[attr-defined]
    assert "Wang Shulan" in system["content"]  # grandma's persona, to the user only
    assert (first["temperature"], first["top_p"], first["seed"]) == (0.0, 1.0, 42)
    assert (first["frequency_penalty"], first["presence_penalty"]) == (0.0, 0.0)
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "user"]
    assert second["messages"][1]["content"] == "Which field are you interested in?"
    assert second["messages"][2]["content"] == "My field is weather forecasting."


def test_the_general_llm_user_gets_the_official_general_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    with ScriptedChatServer(lambda request: "Sorry, I can't provide more information.") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("PERSONAL_ENVS_LLM_MODEL", "m")
        env = KnowUEnv(family="general", task="BatterySaverGeneralTask", data_dir=str(RELEASE), screenshot=False,
                       user="llm")
        try:
            env.reset()
            obs, *_ = env.step({"action_type": "ask_user", "text": "Which level of battery saver?"})
            prompt = env.task.user_prompt  # type: ignore[attr-defined]
        finally:
            env.close()
    assert obs["user_reply"] == "Sorry, I can't provide more information."
    system = server.requests[0]["messages"][0]["content"]
    assert system == prompt and system.startswith("You are acting as a mobile phone user.")
    assert "No more task-related information can be provided." in system and "Today is 2025-10-16." in system


def test_the_deterministic_general_user_knows_the_request_and_the_official_date_only() -> None:
    env = KnowUEnv(family="general", task="BatterySaverGeneralTask", data_dir=str(RELEASE), screenshot=False)
    try:
        env.reset()
        assert isinstance(env.user, OfficialGeneralUser)
        asked = {q: env.step({"action_type": "ask_user", "text": q})[0]["user_reply"]
                 for q in ("What is the date today?", "What is your phone number?", "Which saver mode do you like?")}
        goal = env.task.instruction
    finally:
        env.close()
    assert asked["What is the date today?"] == "Today is 2025-10-16."  # the official BaseTask date, not the clock's
    assert "rather not share" in asked["What is your phone number?"]
    assert goal in asked["Which saver mode do you like?"] and "2025" not in asked["Which saver mode do you like?"]


def test_an_unknown_user_kind_is_refused_by_name() -> None:
    task = build_variant(source(), "BuyColaPreferenceTask", "developer", PROFILES / "developer.yaml")
    with pytest.raises(ValueError, match="unknown simulated user kind 'oracle'"):
        task.user_of_kind("oracle")
    assert task.user_of_kind("profile").kind == "official-preference"
