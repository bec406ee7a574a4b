"""LLMPolicy against servers that refuse or ignore tools, drop tool messages, and small context windows."""

from __future__ import annotations

import json
from typing import Any

import pytest

from personal_envs.llm.client import ChatClient
from personal_envs.llm.testing import ScriptedChatServer
from personal_envs.policies.llm import DEFAULT_MAX_TOKENS, LLMEpisodeFailed, LLMPolicy
from tests.policies.test_llm_policy import QuizEnv, run_episode

SAY = {"tool_calls": [{"name": "say", "arguments": {"text": "hmm"}}]}
SUBMIT = {"tool_calls": [{"name": "submit", "arguments": {"answer": "42"}}]}


def policy_for(server: ScriptedChatServer, env: QuizEnv, **kwargs: Any) -> LLMPolicy:
    client = ChatClient(base_url=server.base_url, model="m", max_retries=2, backoff_s=0.0, timeout=10)
    return LLMPolicy(env, client=client, **kwargs)


def test_server_that_ignores_tools_is_detected_and_text_mode_takes_over() -> None:
    env = QuizEnv()
    replies = iter(["I think I should say something.", "Still thinking.",
                    '{"action_type": "say", "text": "hi"}', '{"action_type": "submit", "answer": "42"}'])
    with ScriptedChatServer(lambda request: next(replies)) as server:
        policy = policy_for(server, env)
        actions, observations = run_episode(env, policy)
    assert [a["action_type"] for a in actions][2:] == ["say", "submit"]
    assert observations[-1][1]["score"] == 1.0
    assert ["tools" in r for r in server.requests] == [True, True, False, False]
    assert policy.effective_tool_mode == "text" and "ignores tools" in policy.switches[0]
    assert "- say(text: string)" in server.requests[2]["messages"][0]["content"]


def test_a_json_action_in_text_is_used_even_in_native_mode() -> None:
    env = QuizEnv()
    with ScriptedChatServer(lambda request: '```json\n{"action_type": "submit", "answer": "42",}\n```') as server:
        policy = policy_for(server, env, tool_mode="native")
        actions, _ = run_episode(env, policy)
    assert actions == [{"action_type": "submit", "answer": "42"}]
    assert "trailing commas removed" in policy.trace[0]["repairs"]


def test_http_500_refusing_tools_switches_to_text_without_retrying() -> None:
    def responder(request: dict[str, Any]) -> dict[str, Any] | str:
        if "tools" in request:
            return {"status": 500, "message": "tools param requires --jinja flag"}
        return '{"action_type": "submit", "answer": "42"}'

    env = QuizEnv()
    with ScriptedChatServer(responder) as server:
        policy = policy_for(server, env)
        actions, _ = run_episode(env, policy)
    assert actions == [{"action_type": "submit", "answer": "42"}]
    assert len(server.requests) == 2  # the refusal once, then the same turn in text mode
    assert policy.effective_tool_mode == "text" and policy.errors == []


def test_native_mode_never_switches() -> None:
    env = QuizEnv()
    with ScriptedChatServer(lambda request: {"status": 400, "message": "tools are not supported"}) as server:
        policy = policy_for(server, env, tool_mode="native")
        with pytest.raises(LLMEpisodeFailed, match="tools are not supported"):
            run_episode(env, policy, max_steps=2)
    assert server.requests and all("tools" in r for r in server.requests) and policy.effective_tool_mode == "native"


def test_template_that_drops_tool_messages_makes_observations_user_messages() -> None:
    seen: list[list[str]] = []

    def responder(request: dict[str, Any]) -> dict[str, Any]:
        seen.append([str(m.get("content")) for m in request["messages"]])
        return SAY if len(seen) < 4 else SUBMIT

    env = QuizEnv(page_size=2000)
    with ScriptedChatServer(responder, drop_tool_messages=True) as server:
        policy = policy_for(server, env)
        actions, _ = run_episode(env, policy)
    assert policy.effective_observation_role == "user"
    assert "dropped the tool message" in policy.switches[0]
    # step 2 was sent once with a tool message (which the template dropped), then again as a user message
    assert server.requests[1]["messages"][-1]["role"] == "tool"
    assert server.requests[2]["messages"][-1]["role"] == "user"
    assert "heard: hmm" in seen[2][-1]
    roles = [m["role"] for m in server.requests[-1]["messages"]]
    assert "tool" not in roles and roles.count("assistant") == 2
    assert json.loads(server.requests[-1]["messages"][2]["content"]) == {"action_type": "say", "text": "hmm"}
    assert actions[-1]["action_type"] == "submit"


def test_tool_messages_are_kept_when_the_template_keeps_them() -> None:
    env = QuizEnv(page_size=2000)
    with ScriptedChatServer(lambda request: SAY) as server:
        policy = policy_for(server, env)
        run_episode(env, policy, max_steps=4)
    assert policy.effective_observation_role == "tool" and policy.switches == []
    assert len(server.requests) == 4


def test_request_fields_default_max_tokens_and_extra_fields() -> None:
    env = QuizEnv()
    extra = {"tool_choice": "auto", "grammar": "root ::= x", "seed": 99}
    replies = iter(["no call", "no call", '{"action_type": "submit", "answer": "42"}'])
    with ScriptedChatServer(lambda request: next(replies)) as server:
        policy = policy_for(server, env, request_extra=extra)
        run_episode(env, policy)
    first, _, third = server.requests
    assert first["max_tokens"] == DEFAULT_MAX_TOKENS
    assert first["tool_choice"] == "auto" and first["grammar"] == "root ::= x" and first["seed"] == 99
    assert "tool_choice" not in third and third["grammar"] == "root ::= x"  # no tool_choice without tools


def test_tool_choice_defaults_to_auto_and_can_be_left_out() -> None:
    env = QuizEnv()
    with ScriptedChatServer(lambda request: SUBMIT) as server:
        run_episode(env, policy_for(server, env))
        run_episode(env, policy_for(server, env, request_extra={"tool_choice": None}))
    assert server.requests[0]["tool_choice"] == "auto" and "tool_choice" not in server.requests[1]


def test_prompts_are_append_only_between_compactions_and_fit_the_context() -> None:
    env = QuizEnv(page_size=6000)
    with ScriptedChatServer(lambda request: SAY) as server:
        policy = policy_for(server, env, context_tokens=2048, max_tokens=256, max_history_turns=50)
        obs, info = env.reset(seed=0)
        policy.reset(obs, info)
        for _ in range(5):
            obs, *_ = env.step(policy.act(obs, info))
    budget = 2048 - 256
    assert all(entry["estimated_prompt_tokens"] <= budget for entry in policy.trace)
    compared = 0
    for before, after in zip(server.requests, server.requests[1:], strict=False):
        old, new = before["messages"], after["messages"]
        if len(new) < len(old):  # a compaction: the oldest half of the history was left out
            assert "left out to fit the context window" in new[1]["content"]
            continue
        assert new[:len(old) - 1] == old[:-1]  # only the previous observation was made compact
        compared += 1
    assert compared >= 2 and any("left out" in json.dumps(r["messages"]) for r in server.requests)


def test_episode_report_carries_model_endpoint_sampling_tokens_and_errors() -> None:
    env = QuizEnv()
    replies = iter([{"tool_calls": [{"name": "say", "arguments": '{"text": "a\nb"}'}]}, {"status": 404}, SUBMIT])
    with ScriptedChatServer(lambda request: next(replies)) as server:
        policy = policy_for(server, env, temperature=0.3, max_tokens=64)
        run_episode(env, policy)
        report = policy.episode_report()
    # the server echoes the requested name but lists only its own model: the record names the one that answered
    assert report["model"] == "scripted-model" and report["requested_model"] == "m"
    assert report["reply_models"] == ["m"] and report["endpoint"] == server.base_url
    assert report["sampling"]["temperature"] == 0.3 and report["sampling"]["max_tokens"] == 64
    assert report["calls"] == 3 and report["ok_calls"] == 2
    assert report["prompt_tokens"] > 0 and report["completion_tokens"] > 0
    assert len(report["errors"]) == 1 and "HTTP 404" in report["errors"][0]
    assert report["error_kinds"] == {"http": 1}
    first = report["trace"][0]
    assert first["raw_arguments"] == '{"text": "a\nb"}' and first["repairs"] == ["control characters"]
    assert first["action"] == "say" and first["prompt_tokens"] > 0
    assert report["tokenizer"] == "estimate"


def test_server_tokenizer_is_used_when_the_server_has_one() -> None:
    env = QuizEnv()
    with ScriptedChatServer(lambda request: SUBMIT, tokenize_route="/extras/tokenize") as server:
        policy = policy_for(server, env)
        run_episode(env, policy)
    assert policy.episode_report()["tokenizer"] == "server"


def test_dropped_tool_messages_are_noticed_when_the_template_renders_the_tool_schemas_smaller() -> None:
    # llama-cpp-python's function-calling template prints only names and parameters of the tools and a long system
    # prompt stays long: a single server-to-ours ratio then hides the missing observation (seen on PersonalWAB with
    # SmolLM2); the growth from one request to the next does not.
    def responder(request: dict[str, Any]) -> dict[str, Any]:
        return SAY if len(server.requests) < 3 else SUBMIT

    env = QuizEnv(page_size=800)
    with ScriptedChatServer(responder, drop_tool_messages=True, tool_schema_scale=0.05) as server:
        policy = policy_for(server, env, system_prompt="Profile of the user. " * 60)
        run_episode(env, policy)
    assert policy.effective_observation_role == "user" and "dropped the tool message" in policy.switches[0]
    assert server.requests[1]["messages"][-1]["role"] == "tool"
    assert server.requests[2]["messages"][-1]["role"] == "user"


def test_kept_tool_messages_are_not_mistaken_for_dropped_ones_when_schemas_render_smaller() -> None:
    env = QuizEnv(page_size=800)
    with ScriptedChatServer(lambda request: SAY, tool_schema_scale=0.05) as server:
        policy = policy_for(server, env, system_prompt="Profile of the user. " * 60)
        run_episode(env, policy, max_steps=4)
    assert policy.effective_observation_role == "tool" and policy.switches == []


def test_dropped_tool_messages_are_noticed_after_a_reply_with_several_tool_calls() -> None:
    # SmolLM2 sometimes calls two tools at once: the observation's tool message is then followed by a short "not
    # executed" one, and the check must weigh both, not only the last.
    twice = {"tool_calls": [{"name": "say", "arguments": {"text": "hmm"}}, {"name": "say", "arguments": {"text": "x"}}]}
    env = QuizEnv(page_size=800)
    with ScriptedChatServer(lambda request: twice if len(server.requests) < 3 else SUBMIT,
                            drop_tool_messages=True) as server:
        policy = policy_for(server, env)
        run_episode(env, policy)
    assert [m["role"] for m in server.requests[1]["messages"]][-2:] == ["tool", "tool"]
    assert policy.effective_observation_role == "user" and "dropped the tool message" in policy.switches[0]


class TerseQuizEnv(QuizEnv):
    """The quiz with observations that hardly change: the tool messages are a few tokens long."""

    def _observation(self) -> dict[str, Any]:
        return {**super()._observation(), "user_reply": ""}


def test_dropped_short_observations_are_found_by_one_probe() -> None:
    # Seen on llama-cpp-python's chatml-function-calling with SmolLM2 on PersonalWAB-MultiTurn: the tool messages
    # were 12-26 characters (empty search results), too short for the prompt-size comparison, so three steps went
    # by with the observations dropped.  A probe with a filler settles it at the first tool message.
    env = TerseQuizEnv(page_size=0)
    with ScriptedChatServer(lambda request: SAY if len(server.requests) < 5 else SUBMIT,
                            drop_tool_messages=True) as server:
        policy = policy_for(server, env)
        run_episode(env, policy)
    probes = [r for r in server.requests if r.get("max_tokens") == 1]
    assert len(probes) == 1 and "observation observation" in str(probes[0]["messages"][-1]["content"])
    assert policy.effective_observation_role == "user" and "dropped the tool message" in policy.switches[0]
    assert policy.trace[1]["tool_message_probe"]["with_filler"] == policy.trace[1]["tool_message_probe"][
        "prompt_tokens"]
    # the observations after the switch reach the model as user messages
    assert server.requests[-1]["messages"][-1]["role"] == "user"


def test_a_probe_that_shows_tool_messages_kept_changes_nothing_and_is_sent_once() -> None:
    env = TerseQuizEnv(page_size=0)
    with ScriptedChatServer(lambda request: SAY if len(server.requests) < 6 else SUBMIT) as server:
        policy = policy_for(server, env)
        run_episode(env, policy)
    probes = [r for r in server.requests if r.get("max_tokens") == 1]
    assert len(probes) == 1 and policy.switches == [] and policy.effective_observation_role == "tool"
    probe = policy.trace[1]["tool_message_probe"]
    assert probe["with_filler"] - probe["prompt_tokens"] >= 0.5 * probe["filler_tokens"]
