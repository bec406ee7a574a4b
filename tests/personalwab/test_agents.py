"""The paper's agent baselines (official agents' protocol) against a real OpenAI-compatible server on loopback
(``ScriptedChatServer``) and the env, with the prompts of a release in the official layout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from personal_envs.llm.client import ChatClient
from personal_envs.llm.testing import ScriptedChatServer
from personal_envs.personalwab import functions as fn
from personal_envs.personalwab.agents import OfficialAgent, card_field
from personal_envs.personalwab.env import PersonalWABEnv
from tests.personalwab.fake_release import write_release
from tests.personalwab.tiny_data import tiny_data

DATA = tiny_data()
REACT_SEARCH = 'Thought:\nlook it up\nAction:\nsearch_product_by_query\nArguments:\n{"query": "trail shoes"}'


@pytest.fixture(autouse=True)
def release(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("PERSONAL_ENVS_DATA", str(tmp_path))
    return write_release(tmp_path / "personalwab" / "official")


def make(mode: str = "single", **kw) -> PersonalWABEnv:
    return PersonalWABEnv(mode=mode, data=DATA, review_similarity=lambda a, b: 0.5, **kw)


def run(env: PersonalWABEnv, agent: OfficialAgent, index: int) -> dict:
    obs, info = env.reset(seed=0, options={"task_index": index})
    agent.reset(obs, info)
    for _ in range(12):
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        if terminated or truncated:
            return info
    raise AssertionError("the episode did not end")


def search_index(env: PersonalWABEnv) -> int:
    return next(i for i, task in enumerate(env.tasks) if task.task_type == "search")


def test_function_calling_single_turn_sends_the_official_request_and_is_scored():
    env = make("single")
    with ScriptedChatServer(lambda r: {"tool_calls": [{"name": fn.SEARCH, "arguments": {"query": "trail shoes"}}]}
                            ) as server:
        agent = OfficialAgent(env, "function_calling", client=ChatClient(base_url=server.base_url, model="m"))
        info = run(env, agent, search_index(env))
    request = server.requests[0]
    assert request["messages"] == [{"role": "system", "content": "SINGLE-SYSTEM one call only.\n"},
                                   {"role": "user", "content": env._instruction}]
    assert [t["function"]["name"] for t in request["tools"]] == [fn.SEARCH, fn.RECOMMEND, fn.REVIEW, fn.STOP]
    assert request["tools"][0]["function"]["description"] == "S-DESC official search"
    assert request["temperature"] == 0.0 and request["tool_choice"] == "auto"
    assert info["metrics"]["function_accuracy"] == 1.0 and len(server.requests) == 1


def test_function_calling_multi_turn_keeps_the_official_conversation_and_memory():
    env = make("multi")
    replies = iter(["What size do you need?",
                    {"tool_calls": [{"name": fn.SEARCH, "arguments": {"query": "trail running shoes"}}]},
                    {"tool_calls": [{"name": fn.STOP, "arguments": {}}]}])
    with ScriptedChatServer(lambda r: next(replies)) as server:
        agent = OfficialAgent(env, "function_calling", memory="last",
                              client=ChatClient(base_url=server.base_url, model="m"))
        run(env, agent, search_index(env))
    first, second, third = server.requests
    system = first["messages"][0]["content"]
    assert system.startswith("MULTI-SYSTEM at most 10 steps.\n\nLAST-HEADER:\n\n\nMEMORY 0:\n- Title: ")
    assert second["messages"][2] == {"role": "assistant", "content": "What size do you need?"}
    assert second["messages"][3]["role"] == "user" and second["messages"][3]["content"]  # the simulated user
    call, result = third["messages"][4], third["messages"][5]
    assert call["tool_calls"][0]["function"]["name"] == fn.SEARCH
    assert result["role"] == "tool" and result["tool_call_id"] == call["tool_calls"][0]["id"]
    assert result["content"].startswith("['Product 0: \\n- Title: ")  # the full official result, all 10 products
    assert result["content"].count("Product ") == 10


def test_recmind_gets_every_tool_and_its_own_prompt_and_memory():
    with pytest.raises(ValueError, match="details_function=True"):
        OfficialAgent(make("single"), "recmind", client=ChatClient(base_url="http://127.0.0.1:9", model="m"))
    env = make("single", details_function=True)
    replies = iter([{"tool_calls": [{"name": fn.DETAILS, "arguments": {"product_asin": "B000000003"}}]},
                    {"tool_calls": [{"name": fn.SEARCH, "arguments": {"query": "shoes"}}]}])
    with ScriptedChatServer(lambda r: next(replies)) as server:
        agent = OfficialAgent(env, "recmind", client=ChatClient(base_url=server.base_url, model="m"))
        run(env, agent, search_index(env))
    first, second = server.requests
    assert len(first["tools"]) == 5
    assert first["messages"][0]["content"].startswith("RECMIND-SINGLE\nRECMIND-HEADER:\n\nMINI 0: ")
    assert second["messages"][-1]["content"].startswith("\nDETAILS:\n- DT: ")


def test_react_parses_the_official_format_prefixes_api_output_and_stops_after_three_calls():
    env = make("multi")
    replies = iter([REACT_SEARCH, "Thought:\nask\nAction:\nrespond\nArguments:\nWhich color?", REACT_SEARCH,
                    'Thought:\nfin\nAction:\nstop\nArguments:\n{}'])
    with ScriptedChatServer(lambda r: next(replies)) as server:
        agent = OfficialAgent(env, "react", memory="relevant", client=ChatClient(base_url=server.base_url, model="m"),
                              )
        agent.memory_length = 2
        run(env, agent, search_index(env))
    system = server.requests[0]["messages"][0]["content"]
    assert system.startswith("MULTI-SYSTEM at most 10 steps.\n\n#Available tools\n[{\"type\": \"function\"")
    assert "REACT-FORMAT Thought/Action/Arguments\nREACT-RELEVANT:\n\n\nMEMORY " in system
    assert "tools" not in server.requests[0]
    second = server.requests[1]["messages"]
    assert second[2] == {"role": "assistant", "content": REACT_SEARCH}
    assert second[3]["content"].startswith("API output: ['Product 0: ")
    assert server.requests[2]["messages"][-1]["role"] == "user"  # the user's answer, no prefix
    # single-turn: at most three model calls; a reply whose arguments never parse is retried, then the episode stops
    env = make("single")
    with ScriptedChatServer(lambda r: "Action:\nsearch_product_by_query\nArguments:\n{broken") as server:
        agent = OfficialAgent(env, "react", client=ChatClient(base_url=server.base_url, model="m"))
        info = run(env, agent, search_index(env))
    assert len(server.requests) == 10 and agent.errors and info["metrics"]["function_accuracy"] == 0.0


def test_reflexion_reflects_after_each_message_to_the_user():
    env = make("multi")
    replies = iter(["Action:\nrespond\nArguments:\nWhich brand?", "I should search sooner.", REACT_SEARCH,
                    "Action:\nstop\nArguments:\n{}"])
    with ScriptedChatServer(lambda r: next(replies)) as server:
        agent = OfficialAgent(env, "reflexion", client=ChatClient(base_url=server.base_url, model="m"))
        run(env, agent, search_index(env))
    reflection = server.requests[1]
    assert len(reflection["messages"]) == 1 and reflection["messages"][0]["role"] == "system"
    prompt = reflection["messages"][0]["content"]
    assert prompt.startswith("REFLECT task=I need ") and "assistant:Action:\nrespond" in prompt
    assert server.requests[2]["messages"][-1] == {"role": "assistant", "content": "I should search sooner."}


def test_puma_chooses_the_function_then_generates_the_argument_from_task_memory():
    env = make("single")
    replies = iter(["### Tool:\nsearch_product_by_query", "### Tool Parameter:\nstridex trail running shoes"])
    with ScriptedChatServer(lambda r: next(replies)) as server:
        agent = OfficialAgent(env, "puma", client=ChatClient(base_url=server.base_url, model="m"))
        info = run(env, agent, search_index(env))
    choose, param = (r["messages"][0]["content"] for r in server.requests)
    assert choose == f"CHOOSE {env.tasks[search_index(env)].record['task']}\n### Tool:\n"
    assert param.startswith("PARAM I=I need ") and "M=TSS " in param and "T=search_product_by_query" in param
    assert info["metrics"]["function_accuracy"] == 1.0
    assert card_field("x\nHere is the product information: \n- UT: a\n- Title: Shoe\n- Price: 3", "Title") == "Shoe"


def test_interecagent_builds_and_updates_its_memory(tmp_path):
    env = make("single")
    memory_file = tmp_path / "interec.json"

    def responder(request):
        system = request["messages"][0]["content"]
        if system.startswith("PROFILE "):
            return '```json\n{"like": ["B000000001"], "dislike": ["B000000002"]}\n```'
        if system.startswith("UPDATE "):
            return '{"like": ["B000000002"], "dislike": [], "expect": ["trail gear"]}'
        return {"tool_calls": [{"name": fn.SEARCH, "arguments": {"query": "shoes"}}]}

    with ScriptedChatServer(responder) as server:
        agent = OfficialAgent(env, "interecagent", client=ChatClient(base_url=server.base_url, model="m"),
                              interec_memory_file=memory_file)
        index = search_index(env)
        obs, info = env.reset(seed=0, options={"task_index": index})
        agent.reset(obs, info)
        obs, *_ = env.step(agent.act(obs, info))
        agent.finish(obs)  # the final observation: the call's result goes into the conversation
    profiles = [r for r in server.requests if r["messages"][0]["content"].startswith("PROFILE ")]
    assert len(profiles) == len(DATA.histories)
    assert profiles[0]["messages"][0]["content"].startswith("PROFILE [")
    act = next(r for r in server.requests if r["messages"][0]["content"].startswith("INTEREC -1"))
    assert "\n\nINTEREC-HISTORY:\nIR " in act["messages"][0]["content"]
    assert "\nLIKE:\n['B000000001']\nDISLIKE:\n['B000000002']\nEXPECT:\n[]" in act["messages"][0]["content"]
    update = server.requests[-1]["messages"][0]["content"]
    assert "assistant:Function(arguments='{\"query\": \"shoes\"}', name='search_product_by_query')\ntool:['Product 0" in update
    user = env.tasks[index].user_id
    saved = json.loads(memory_file.read_text())[user]
    assert saved == {"like": ["B000000001", "B000000002"], "dislike": [], "expect": ["trail gear"]}


def test_agents_refuse_to_start_without_the_release(tmp_path, monkeypatch):
    from personal_envs.personalwab.agents import ReleaseMissing

    monkeypatch.setenv("PERSONAL_ENVS_DATA", str(tmp_path / "empty"))
    with pytest.raises(ReleaseMissing, match="data fetch personalwab"):
        OfficialAgent(make("single"), client=ChatClient(base_url="http://127.0.0.1:9", model="m"))


def test_an_endpoint_failure_ends_the_episode_with_the_error_recorded():
    env = make("single")
    with ScriptedChatServer(lambda r: {"status": 400, "message": "bad request"}) as server:
        agent = OfficialAgent(env, client=ChatClient(base_url=server.base_url, model="m", max_retries=0))
        info = run(env, agent, search_index(env))
    assert agent.errors and "bad request" in agent.errors[0] and info["metrics"]["function_accuracy"] == 0.0


def test_the_generic_llm_policy_sees_all_ten_results_as_the_official_agent_does():
    """A search result of the generated catalogue is about 3,000 tokens: the env's field budget shows it whole (a
    1,000-token cut showed the first 3 or 4 products)."""
    from personal_envs.policies.llm import LLMPolicy

    env = PersonalWABEnv(mode="multi", generate={"n_users": 4, "n_products": 300}, review_similarity=lambda a, b: 0.5)
    seen = {}
    for budgets in (None, {"result": 1000}):
        replies = iter([{"tool_calls": [{"name": fn.SEARCH, "arguments": {"query": "gear for everyday use"}}]},
                        {"tool_calls": [{"name": fn.STOP, "arguments": {}}]}])
        with ScriptedChatServer(lambda r, replies=replies: next(replies)) as server:
            policy = LLMPolicy(env, client=ChatClient(base_url=server.base_url, model="m"), field_budgets=budgets,
                               tokenizer="estimate")
            obs, info = env.reset(seed=0, options={"task_index": 0})
            policy.reset(obs, info)
            obs, *_ = env.step(policy.act(obs, info))
            policy.act(obs, info)
        shown = server.requests[1]["messages"][-1]["content"]
        seen[str(budgets)] = sum(f"Product {i}: " in shown for i in range(10))
        assert obs["result"].count("Product ") == 10
    assert seen["None"] == 10 and seen["{'result': 1000}"] < 10
