"""Contract of the chat environment on every id: OpenAI-valid messages, tool calls that round trip, and the
Gymnasium env's own rewards for the same actions."""

from __future__ import annotations

import json
from typing import Any

import pytest

from personal_envs.chat import ChatEnv
from personal_envs.chat.replies import NO_TOOL_CALL_ACTION
from personal_envs.core.errors import InputError
from personal_envs.core.registration import entry_for
from personal_envs.llm.client import ChatResponse, ToolCall
from personal_envs.runner import make_policy
from tests.wrappers.conftest import gated_ids, make

ROLES = {"system", "user", "assistant", "tool"}
SEED = 5
MAX_STEPS = 8


def scripted_policy_name(env_id: str) -> str:
    """The id's first non-LLM policy (a heuristic, an oracle or a scripted agent)."""
    return next(name for name in entry_for(env_id).policies if name not in ("browser-use", "official-agent"))


def single_actions(output: Any) -> list[dict[str, Any]]:
    """A policy's output as single actions: a browser-use agent output (``{"current_state", "action": [...]}``,
    BrowserArena's scripted agents) is split into its actions, one per chat turn."""
    output = json.loads(json.dumps(output))
    if isinstance(output, dict) and isinstance(output.get("action"), list):
        return [{"action_type": name, **(arguments or {})} for item in output["action"]
                for name, arguments in item.items()]
    return [output]


def assert_openai_messages(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> None:
    """Roles, contents and tool-call ids as the OpenAI chat format requires; JSON-serialisable throughout."""
    json.dumps(messages)
    assert messages[0]["role"] == "system" and isinstance(messages[0]["content"], str)
    tool_names = {tool["function"]["name"] for tool in tools}
    open_ids: list[str] = []
    for message in messages:
        assert message["role"] in ROLES, message
        if message["role"] == "tool":
            assert message["tool_call_id"] in open_ids, (message, open_ids)
            open_ids.remove(message["tool_call_id"])
            assert isinstance(message["content"], str)
            continue
        assert not open_ids, f"tool calls {open_ids} left unanswered before a {message['role']} message"
        if message["role"] == "assistant":
            for call in message.get("tool_calls") or []:
                assert call["type"] == "function" and call["function"]["name"] in tool_names
                assert isinstance(json.loads(call["function"]["arguments"]), dict)
                open_ids.append(call["id"])
        else:
            content = message["content"]
            assert isinstance(content, str) and content or isinstance(content, list)


def reply_in_shape(action: dict[str, Any], step: int) -> Any:
    """The action as a model reply, in turn in each shape the policy parses."""
    name = action["action_type"]
    arguments = {key: value for key, value in action.items() if key != "action_type"}
    shape = step % 4
    if shape == 0:
        return {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{step}", "type": "function",
             "function": {"name": name, "arguments": json.dumps(arguments)}}]}
    if shape == 1:  # arguments as an object, no id
        return {"role": "assistant", "content": "Let me do this.",
                "tool_calls": [{"function": {"name": name, "arguments": arguments}}]}
    if shape == 2:  # the legacy function_call
        return {"role": "assistant", "content": "", "function_call": {"name": name,
                                                                      "arguments": json.dumps(arguments)}}
    return ChatResponse(content="", tool_calls=[ToolCall(f"c{step}", name, arguments)], usage={}, raw={},
                        finish_reason="tool_calls")


@pytest.mark.parametrize("env_id", gated_ids(always=("PersonalWAB-SingleTurn-v0", "PersonalWAB-MultiTurn-v0")))
def test_the_chat_env_replays_the_gym_episode_with_valid_messages_and_the_same_rewards(env_id):
    env = make(env_id)
    try:
        # the Gymnasium episode of the id's scripted policy
        policy = make_policy(env_id, scripted_policy_name(env_id), env, seed=SEED)
        observation, info = env.reset(seed=SEED)
        policy.reset(observation, info)
        actions: list[dict[str, Any]] = []
        expected = []
        queue: list[dict[str, Any]] = []
        while len(actions) < MAX_STEPS and not (expected and (expected[-1][1] or expected[-1][2])):
            queue = queue or single_actions(policy.act(observation, info))
            action = queue.pop(0)
            observation, reward, terminated, truncated, info = env.step(action)
            actions.append(action)
            expected.append((float(reward), bool(terminated), bool(truncated)))
        # the same actions as chat replies, on the same env reset with the same seed
        chat = ChatEnv(env)
        opening = chat.reset(seed=SEED)
        assert [m["role"] for m in opening.messages] == ["system", "user"]
        assert opening.tools == env.unwrapped.tool_schemas() and opening.tools
        got = []
        for number, action in enumerate(actions):
            conversation = chat.messages
            result = chat.step(reply_in_shape(action, number))
            assert result.action == action  # the tool call round trips
            assert chat.steps[-1]["messages"] == conversation  # the exact messages the reply answered
            got.append((result.reward, result.terminated, result.truncated))
            assert_openai_messages(chat.messages, opening.tools)
            assert chat.messages[: len(conversation)] == conversation  # full history: prefixes only grow
            assert result.messages and result.messages == chat.messages[len(conversation) + 1:]
        assert got == expected
        assert chat.done == (expected[-1][1] or expected[-1][2])
    finally:
        env.close()


def test_the_conversation_answers_each_tool_call_with_the_observation_of_its_action():
    with ChatEnv(make("PersonalWAB-MultiTurn-v0")) as chat:  # a search does not end a multi-turn episode
        chat.reset(seed=1)
        step = chat.step({"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "search_product_by_query",
                                                         "arguments": '{"query": "running shoes"}'}},
            {"id": "b", "type": "function", "function": {"name": "stop", "arguments": "{}"}}]})
        assert [m["role"] for m in step.messages] == ["tool", "tool"]
        assert step.messages[0]["tool_call_id"] == "a" and "## result" in step.messages[0]["content"]
        assert step.messages[1] == {"role": "tool", "tool_call_id": "b",
                                    "content": "Not executed: only the first tool call of a turn is executed."}
        assert not step.done
        follow = chat.step('{"action_type": "stop"}')  # a JSON action in plain text
        assert follow.action == {"action_type": "stop"} and follow.done


@pytest.mark.parametrize("reply", ["I think the user wants shoes.", 42, {"role": "assistant", "content": None}])
def test_a_reply_without_an_action_counts_as_a_rejected_step_and_the_model_is_told(reply):
    chat = ChatEnv("PersonalWAB-SingleTurn-v0")
    try:
        chat.reset(seed=2)
        step = chat.step(reply)
        assert step.action["action_type"] == NO_TOOL_CALL_ACTION and not step.done
        assert len(chat.steps) == 1
        assert step.messages[-1]["role"] == "user"
        assert "last_action_error" in step.messages[-1]["content"] and "## note" in step.messages[-1]["content"]
        assert_openai_messages(chat.messages, chat.tools)
    finally:
        chat.close()


def test_stepping_outside_an_episode_is_a_clear_input_error():
    chat = ChatEnv("PersonalWAB-SingleTurn-v0")
    try:
        with pytest.raises(InputError, match="before reset"):
            chat.step("{}")
        chat.reset(seed=0)
        assert chat.step({"role": "assistant", "content": '{"action_type": "stop"}'}).done
        with pytest.raises(InputError, match="ended"):
            chat.step('{"action_type": "stop"}')
    finally:
        chat.close()


def test_the_text_protocol_lists_the_actions_and_sends_observations_as_user_messages():
    chat = ChatEnv("PersonalWAB-SingleTurn-v0", tool_mode="text")
    try:
        opening = chat.reset(seed=0)
        assert opening.tools == []
        assert "- search_product_by_query(" in opening.messages[0]["content"]
        said = '```json\n{"action_type": "search_product_by_query", "query": "tea"}\n```'
        step = chat.step(said)
        assert step.action == {"action_type": "search_product_by_query", "query": "tea"}
        assert [m["role"] for m in chat.messages[-2:]] == ["assistant", "user"]
        assert chat.messages[-2]["content"] == said  # the model's words are kept as it said them
    finally:
        chat.close()


def test_field_budgets_are_counted_with_the_model_tokenizer_when_one_is_given():
    words = ChatEnv("PersonalWAB-SingleTurn-v0", tokenizer=lambda text: len(text.split()),
                    field_budgets={"logs": 5, "instruction": 2000})
    estimate = ChatEnv("PersonalWAB-SingleTurn-v0", field_budgets={"logs": 5, "instruction": 2000})
    try:
        by_words = words.reset(seed=0).messages[0]["content"]
        by_chars = estimate.reset(seed=0).messages[0]["content"]
        assert words.counter.source == "tokenizer" and estimate.counter.source == "estimate"
        assert by_words != by_chars  # 5 words is not 5 x 4 characters: the model's count decides the cut
    finally:
        words.close()
        estimate.close()
