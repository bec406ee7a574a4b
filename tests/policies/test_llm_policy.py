"""LLMPolicy driving a tiny PersonalEnv through a real scripted OpenAI-compatible server."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces
from PIL import Image

from personal_envs.core.actions import Action, ActionError, ActionSpec, Param
from personal_envs.core.env import MAX_ERROR_CHARS, EpisodeOutcome, PersonalEnv, StepResult
from personal_envs.core.spaces import UnicodeText
from personal_envs.llm.client import ChatClient, LLMError
from personal_envs.llm.testing import ScriptedChatServer
from personal_envs.policies.llm import (
    LLM_ERROR_ACTION,
    NO_TOOL_CALL_ACTION,
    LLMEpisodeFailed,
    LLMPolicy,
    MemoryProvider,
    make_llm_policy,
    render_observation,
)

SPECS = (
    ActionSpec.make("say", "Say something to the user.", text=Param("string", "what to say")),
    ActionSpec.make("submit", "Submit the final answer.", answer=Param("string", "the answer"),
                    confidence=Param("number", "0..1", required=False, minimum=0, maximum=1)),
)


class QuizEnv(PersonalEnv):
    """One task: answer 42.  ``page_size`` sets how long the axtree is (to test truncation)."""

    def __init__(self, page_size: int = 100) -> None:
        super().__init__(SPECS, max_steps=6)
        self.page_size = page_size
        self.said: list[str] = []
        self.answer: str | None = None
        self.observation_space = spaces.Dict({
            "instruction": UnicodeText(1000),
            "axtree": UnicodeText(1_000_000),
            "user_reply": UnicodeText(1000),
            "last_action_error": UnicodeText(MAX_ERROR_CHARS),
        })

    @property
    def num_tasks(self) -> int:
        return 1

    def _reset_task(self, task_index: int, options: dict[str, Any]) -> dict[str, Any]:
        self.said, self.answer = [], None
        return {"task_id": "quiz-0"}

    def _execute(self, action: Action) -> StepResult:
        if action.name == "say":
            if not action.arguments["text"].strip():
                raise ActionError("say needs some text")
            self.said.append(action.arguments["text"])
            return StepResult()
        self.answer = action.arguments["answer"]
        return StepResult(terminated=True)

    def _observation(self) -> dict[str, Any]:
        return {
            "instruction": "What is six times seven?",
            "axtree": "[1] RootWebArea 'Quiz'\n" + "y" * self.page_size,
            "user_reply": f"heard: {self.said[-1]}" if self.said else "",
        }

    def _episode_metrics(self) -> EpisodeOutcome:
        success = float(self.answer == "42")
        return EpisodeOutcome(success, {"success": success})


def policy_for(server: ScriptedChatServer, env: QuizEnv, **kwargs: Any) -> LLMPolicy:
    client = ChatClient(base_url=server.base_url, model="m", max_retries=1, backoff_s=0.01, timeout=10)
    return LLMPolicy(env, client=client, **kwargs)


def run_episode(env: QuizEnv, policy: LLMPolicy, max_steps: int = 6) -> tuple[list[dict[str, Any]], list[Any]]:
    obs, info = env.reset(seed=0)
    policy.reset(obs, info)
    actions: list[dict[str, Any]] = []
    observations: list[Any] = [obs]
    for _ in range(max_steps):
        action = policy.act(obs, info)
        actions.append(action)
        obs, _reward, terminated, truncated, info = env.step(action)
        observations.append((obs, info))
        if terminated or truncated:
            break
    return actions, observations


def scripted(*replies: dict[str, Any] | str) -> Any:
    queue = list(replies)
    return lambda request: queue.pop(0)


def test_tool_calls_become_actions_and_solve_the_task() -> None:
    env = QuizEnv()
    responder = scripted(
        {"tool_calls": [{"id": "c1", "name": "say", "arguments": {"text": "Let me think, ünïcode ok"}}]},
        {"tool_calls": [{"id": "c2", "name": "submit", "arguments": {"answer": "42", "confidence": 0.9}}]},
    )
    with ScriptedChatServer(responder) as server:
        policy = policy_for(server, env)
        actions, observations = run_episode(env, policy)
    assert actions == [{"action_type": "say", "text": "Let me think, ünïcode ok"},
                       {"action_type": "submit", "answer": "42", "confidence": 0.9}]
    _final_obs, final_info = observations[-1]
    assert final_info["score"] == 1.0 and final_info["metrics"] == {"success": 1.0}
    first, second = server.requests
    assert first["tools"] == env.tool_schemas()
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    # the constant instruction is sent once, in the system message; the observation in the user message
    assert "What is six times seven?" in first["messages"][0]["content"]
    assert "What is six times seven?" not in first["messages"][1]["content"]
    assert "RootWebArea" in first["messages"][1]["content"]
    # the observation after the tool call is sent as that call's result
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "tool"]
    assert second["messages"][2]["tool_calls"][0]["id"] == "c1"
    assert second["messages"][3]["tool_call_id"] == "c1"
    assert "heard: Let me think" in second["messages"][3]["content"]
    assert policy.errors == []
    assert policy.usage["calls"] == 2 and policy.usage["total_tokens"] > 0


def test_text_only_reply_with_json_action_is_parsed() -> None:
    env = QuizEnv()
    reply = 'I will answer now.\n```json\n{"action_type": "submit", "answer": "42"}\n```'
    with ScriptedChatServer(scripted(reply)) as server:
        actions, observations = run_episode(env, policy_for(server, env))
    assert actions == [{"action_type": "submit", "answer": "42"}]
    assert observations[-1][1]["score"] == 1.0


def test_inline_nested_json_action_is_parsed() -> None:
    env = QuizEnv()
    reply = 'Answer: {"name": "submit", "arguments": {"answer": "41"}} done'
    with ScriptedChatServer(scripted(reply)) as server:
        actions, observations = run_episode(env, policy_for(server, env))
    assert actions[0]["name"] == "submit"
    assert observations[-1][1]["score"] == 0.0  # a wrong but valid answer ends the episode


def test_text_without_action_is_rejected_by_env_and_explained() -> None:
    env = QuizEnv()
    responder = scripted(
        "I think the answer is forty-two.",
        {"tool_calls": [{"name": "submit", "arguments": {"answer": "42"}}]},
    )
    with ScriptedChatServer(responder) as server:
        actions, observations = run_episode(env, policy_for(server, env))
    assert actions[0]["action_type"] == NO_TOOL_CALL_ACTION
    obs_after_first, info_after_first = observations[1]
    assert "unknown action" in obs_after_first["last_action_error"]
    assert env.steps == 2  # the rejected step counted
    second_request = server.requests[1]["messages"]
    assert [m["role"] for m in second_request] == ["system", "user", "assistant", "user"]
    assert "no tool call" in second_request[-1]["content"]
    assert "unknown action" in second_request[-1]["content"]  # last_action_error reaches the model
    assert observations[-1][1]["score"] == 1.0


def test_broken_tool_arguments_are_repaired_or_reported() -> None:
    env = QuizEnv()
    responder = scripted(
        {"tool_calls": [{"name": "say", "arguments": 'oops {"text": "repaired"} trailing'}]},
        {"tool_calls": [{"name": "say", "arguments": '{"text": '}]},
        {"tool_calls": [{"name": "submit", "arguments": {"answer": "42"}}]},
    )
    with ScriptedChatServer(responder) as server:
        actions, observations = run_episode(env, policy_for(server, env))
    assert actions[0] == {"action_type": "say", "text": "repaired"}
    assert actions[1] == {"action_type": "say", "_raw": '{"text": '}
    assert "unexpected argument" in observations[2][0]["last_action_error"]
    assert "not valid JSON" in server.requests[2]["messages"][-1]["content"]
    assert env.said == ["repaired"]


def test_endpoint_down_ends_the_episode_as_an_error_at_the_first_failed_call() -> None:
    env = QuizEnv()
    server = ScriptedChatServer(lambda request: "unused").start()
    server.close()
    policy = policy_for(server, env)
    with pytest.raises(LLMEpisodeFailed, match="has not given a valid reply yet.*not running"):
        run_episode(env, policy, max_steps=3)
    assert len(policy.errors) == 1 and "not running" in policy.errors[0]
    assert env.steps == 0 and policy.last_response is None  # no rejected action was sent on the model's behalf
    assert policy.episode_report()["gave_up"].startswith("no valid model reply")


def test_server_errors_are_recorded_and_isolated_ones_let_the_episode_go_on() -> None:
    env = QuizEnv()
    with ScriptedChatServer(lambda request: {"status": 500, "message": "gpu fell off"}) as server:
        policy = policy_for(server, env)
        obs, info = env.reset(seed=0)
        policy.reset(obs, info)
        with pytest.raises(LLMEpisodeFailed):
            policy.act(obs, info)
    assert len(server.requests) == 1  # a deterministic HTTP 500 is not retried
    assert "gpu fell off" in policy.errors[0]
    say = {"tool_calls": [{"name": "say", "arguments": {"text": "hmm"}}]}
    replies = iter([say, {"status": 500, "message": "gpu fell off"}, say, {"status": 500}, {"status": 500},
                    {"status": 500}])
    with ScriptedChatServer(lambda request: next(replies)) as server:
        policy = policy_for(server, env)
        obs, info = env.reset(seed=0)
        policy.reset(obs, info)
        names = [policy.act(obs, info)["action_type"] for _ in range(4)]
        assert names == ["say", LLM_ERROR_ACTION, "say", LLM_ERROR_ACTION]  # after a valid reply: recorded, go on
        policy.act(obs, info)
        with pytest.raises(LLMEpisodeFailed, match="3 calls in a row failed"):
            policy.act(obs, info)


def test_long_fields_are_truncated_and_history_is_bounded() -> None:
    env = QuizEnv(page_size=200_000)
    say = {"tool_calls": [{"name": "say", "arguments": {"text": "hmm"}}]}
    with ScriptedChatServer(lambda request: say) as server:
        policy = policy_for(server, env, max_history_turns=2)
        run_episode(env, policy, max_steps=6)
    sizes = [len(json.dumps(request["messages"])) for request in server.requests]
    assert max(sizes) < 20_000
    assert "more characters (about" in server.requests[0]["messages"][1]["content"]
    roles = [[m["role"] for m in request["messages"]] for request in server.requests]
    assert roles[2] == ["system", "user", "assistant", "tool", "assistant", "tool"]  # 2 earlier turns + current
    # a third earlier turn is one too many: the oldest half is left out at once, with a note naming their actions
    assert roles[3] == ["system", "user", "assistant", "tool"]
    note = server.requests[3]["messages"][1]["content"]
    assert note.startswith("[2 earlier turn(s) of this episode were left out") and "say, say" in note
    assert roles[4] == ["system", "user", "assistant", "tool", "assistant", "tool"]


class FixedMemory:
    def __init__(self) -> None:
        self.calls = 0

    def context(self, observation: dict[str, Any], info: dict[str, Any]) -> str:
        self.calls += 1
        return "The user prefers answers with no decimals."


def test_memory_provider_text_reaches_the_model() -> None:
    env = QuizEnv()
    memory = FixedMemory()
    assert isinstance(memory, MemoryProvider)
    with ScriptedChatServer(scripted({"tool_calls": [{"name": "submit", "arguments": {"answer": "42"}}]})) as server:
        run_episode(env, policy_for(server, env, memory=memory, system_prompt="CUSTOM PROMPT"))
    messages = server.requests[0]["messages"]
    assert messages[0]["content"].startswith("CUSTOM PROMPT")
    assert "no decimals" in messages[1]["content"]
    assert memory.calls == 1


def test_endpoint_without_tool_support_switches_to_json_mode() -> None:
    env = QuizEnv()

    def responder(request: dict[str, Any]) -> dict[str, Any] | str:
        if "tools" in request:
            return {"status": 400, "message": '"auto" tool choice requires --enable-auto-tool-choice'}
        return '{"action_type": "submit", "answer": "42"}'

    with ScriptedChatServer(responder) as server:
        policy = policy_for(server, env)
        actions, observations = run_episode(env, policy)
    assert actions == [{"action_type": "submit", "answer": "42"}]
    assert observations[-1][1]["score"] == 1.0
    assert not policy.use_tools
    assert "submit" in server.requests[1]["messages"][0]["content"]  # actions described in the prompt
    assert policy.errors == []  # a capability switch is not an error; it is recorded as a switch
    assert "tool_mode -> text" in policy.switches[0] and "enable-auto-tool-choice" in policy.switches[0]
    assert policy.trace[0]["switches"] and policy.trace[0]["mode"] == "text"


def test_seed_is_sent_and_varies_per_episode() -> None:
    env = QuizEnv()
    submit = {"tool_calls": [{"name": "submit", "arguments": {"answer": "42"}}]}
    with ScriptedChatServer(lambda request: submit) as server:
        policy = policy_for(server, env, seed=5)
        run_episode(env, policy)
        run_episode(env, policy)
    assert [request["seed"] for request in server.requests] == [5, 6]
    assert len(server.requests[1]["messages"]) == 2  # a new episode starts a new conversation


def test_factory_builds_client_from_arguments_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    env = QuizEnv()
    with ScriptedChatServer(lambda request: "x") as server:
        policy = make_llm_policy(env, seed=3, base_url=server.base_url, model="factory-model", max_history_turns=4)
        assert policy.client.base_url == server.base_url and policy.client.model == "factory-model"
        assert policy.seed == 3 and policy.max_history_turns == 4 and policy.name == "llm"
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(LLMError, match="OPENAI_BASE_URL"):
        make_llm_policy(env)


class ScreenEnv(QuizEnv):
    """QuizEnv with a small screenshot in the observation."""

    def __init__(self) -> None:
        super().__init__()
        assert isinstance(self.observation_space, spaces.Dict)
        self.observation_space = spaces.Dict({
            **self.observation_space.spaces,
            "screenshot": spaces.Box(0, 255, (8, 6, 3), np.uint8),
        })

    def _observation(self) -> dict[str, Any]:
        screen = np.zeros((8, 6, 3), np.uint8)
        screen[:, :, 0] = 200
        return {**super()._observation(), "screenshot": screen}


def test_screenshot_is_sent_as_png_only_when_asked() -> None:
    env = ScreenEnv()
    say = {"tool_calls": [{"name": "say", "arguments": {"text": "look"}}]}
    with ScriptedChatServer(lambda request: say) as server:
        run_episode(env, policy_for(server, env, include_screenshot=True), max_steps=2)
        run_episode(env, policy_for(server, env), max_steps=1)
    first, second, without = server.requests
    assert [m["role"] for m in first["messages"]] == ["system", "user", "user"]
    image_messages = [m for m in second["messages"] if isinstance(m["content"], list)]
    assert len(image_messages) == 1  # the first turn's image is not resent
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "tool", "user"]
    assert second["messages"][-1] is image_messages[0]
    url = image_messages[0]["content"][1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    image = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert image.size == (6, 8) and image.getpixel((0, 0)) == (200, 0, 0)
    assert not any(isinstance(m["content"], list) for m in without["messages"])


def test_render_observation_orders_fields_and_includes_env_specific_text() -> None:
    observation = {
        "last_action_error": "bad click",
        "result": "Product 1: shoes. " * 30,
        "screenshot": np.zeros((2, 2, 3), np.uint8),
        "instruction": "buy shoes",
        "user_reply": "",
        "context": {"time": "07:30", "place": "home"},
    }
    text = render_observation(observation, {"result": 20})
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == ["## instruction", "## context", "## result", "## last_action_error"]
    assert '"place": "home"' in text
    assert "Product 1:" in text and "more characters (about" in text  # result cut to its budget of 20 tokens
    assert "screenshot" not in text and "user_reply" not in text


def test_json_mode_sends_no_tools_and_no_tool_roles() -> None:
    env = QuizEnv()
    responder = scripted('{"action_type": "say", "text": "hi"}', '{"action_type": "submit", "answer": "42"}')
    with ScriptedChatServer(responder) as server:
        actions, observations = run_episode(env, policy_for(server, env, use_tools=False))
    assert [a["action_type"] for a in actions] == ["say", "submit"]
    assert observations[-1][1]["score"] == 1.0
    assert all("tools" not in request for request in server.requests)
    second = server.requests[1]["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert json.loads(second[2]["content"]) == {"action_type": "say", "text": "hi"}
    assert "- submit(answer: string, confidence?: number)" in second[0]["content"]  # actions in the system prompt


def test_action_type_argument_cannot_rename_the_call() -> None:
    env = QuizEnv()
    call = {"tool_calls": [{"name": "say", "arguments": {"text": "x", "action_type": "submit"}}]}
    with ScriptedChatServer(scripted(call)) as server:
        actions, _ = run_episode(env, policy_for(server, env), max_steps=1)
    assert actions == [{"action_type": "say", "text": "x"}]
