"""User-as-agent wrappers on the real envs: PettingZoo API tests, turn passing, default policy, hidden context."""

from __future__ import annotations

import json
import warnings

import pytest
from pettingzoo.test import api_test, parallel_api_test

from personal_envs.simulators.users.base import UserReply
from personal_envs.wrappers import (
    ProfileMatchReward,
    SimulatedUserPolicy,
    UserAgentAEC,
    UserAgentParallel,
    UserEvent,
)
from personal_envs.wrappers.turns import reply_from_action
from tests.wrappers.conftest import all_ids, lexical_similarity, make

MULTI = "PersonalWAB-MultiTurn-v0"
ASK = {"action_type": "respond", "content": "Which brand do you prefer?"}


@pytest.fixture
def game():
    aec = UserAgentAEC(make(MULTI))
    yield aec
    aec.close()


@pytest.mark.parametrize("env_id", all_ids())
def test_pettingzoo_api_tests_pass_for_every_env_with_a_simulated_user(env_id):
    env = make(env_id)
    if not env.unwrapped.user_turn_actions:
        with pytest.raises(ValueError, match="no simulated user"):
            UserAgentAEC(env)
        env.close()
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's style hints (non-Box spaces, agent names)
        aec = UserAgentAEC(env, user_reward="profile_match")
        api_test(aec, num_cycles=100)
        aec.close()
        parallel = UserAgentParallel(make(env_id), user_reward="shared")
        parallel_api_test(parallel, num_cycles=100)
        parallel.close()


def test_a_question_hands_the_turn_to_the_user_whose_reply_reaches_the_assistant(game):
    game.reset(seed=0, options={"task_index": 2})
    assert game.agent_selection == "assistant"
    before = game.observe("assistant")
    game.step(ASK)
    assert game.agent_selection == "user"
    assert game.infos["user"]["is_turn"] and game.infos["user"]["question_pending"]
    user_view = game.observe("user")
    assert user_view["question"] == ASK["content"]
    profile = json.loads(user_view["profile"])
    assert "Price Sensitivity" in profile and json.loads(user_view["task"])["type"] in ("search", "recommend", "review")
    assert game.observe("assistant") == before  # the env was not stepped yet
    assert game.env.unwrapped.steps == 0
    game.step({"text": "Something from Groline, please.", "decision": 0})
    assert game.agent_selection == "assistant"
    assert game.observe("assistant")["user_reply"] == "Something from Groline, please."
    assert game.env.unwrapped.steps == 1
    dialogue = game.observe("user")["dialogue"]
    assert "agent: Which brand do you prefer?" in dialogue and "user: Something from Groline, please." in dialogue


def test_the_default_user_policy_replies_exactly_like_the_env_simulated_user():
    script = [ASK, {"action_type": "search_product_by_query", "query": "gift"}, ASK, {"action_type": "stop"}]
    plain = make(MULTI)
    plain.reset(seed=3, options={"task_index": 5})
    plain_replies, plain_info = [], {}
    for action in script:
        obs, _, _, _, plain_info = plain.step(action)
        plain_replies.append(obs["user_reply"])
    plain.close()

    aec = UserAgentAEC(make(MULTI))
    policy = SimulatedUserPolicy(aec)
    aec.reset(seed=3, options={"task_index": 5})
    replies = []
    for action in script:
        aec.step(action)
        if aec.agent_selection == "user":
            aec.step(policy.act(aec.observe("user")))
        replies.append(aec.observe("assistant")["user_reply"])
    assert replies == plain_replies and any(replies)
    assert aec.game.proxy.delegate_replies == 0  # every reply came through the user agent
    assert aec.terminations["assistant"] and aec.infos["assistant"]["score"] == plain_info["score"]
    # the same metrics, except which user answered: the user agent (through its proxy) instead of the env's own
    assert aec.infos["assistant"]["metrics"].pop("user_kind") == "agent"
    assert aec.infos["assistant"]["metrics"] == {k: v for k, v in plain_info["metrics"].items() if k != "user_kind"}
    aec.close()


def test_the_assistant_never_sees_the_hidden_profile(game):
    game.reset(seed=0, options={"task_index": 7})
    profile = json.loads(game.observe("user")["profile"])
    secrets = [str(v) for v in profile.values() if len(str(v)) > 12]
    assert secrets
    for agent in game.agent_iter(30):
        obs, _, terminated, truncated, info = game.last()
        if agent == "assistant":
            visible = json.dumps(obs, ensure_ascii=False) + json.dumps(info, default=str, ensure_ascii=False)
            assert not any(secret in visible for secret in secrets)
        if terminated or truncated:
            game.step(None)
        elif agent == "user":
            game.step(game.simulated_user_action())
        else:
            game.step(ASK if game.env.unwrapped.steps < 3 else {"action_type": "stop"})


def test_parallel_moves_only_the_agent_holding_the_turn():
    par = UserAgentParallel(make(MULTI))
    obs, infos = par.reset(seed=1, options={"task_index": 0})
    assert infos["assistant"]["is_turn"] and not infos["user"]["is_turn"]
    # no question pending: the user's action is ignored, the assistant's applies
    obs, rewards, term, trunc, infos = par.step({"assistant": ASK, "user": {"text": "ignored", "decision": 0}})
    assert infos["assistant"]["moved"] and not infos["user"]["moved"]
    assert obs["user"]["question"] == ASK["content"] and infos["user"]["is_turn"]
    assert par.env.unwrapped.steps == 0
    # question pending: the user's reply is consumed, the assistant's action ignored
    obs, rewards, term, trunc, infos = par.step({"assistant": {"action_type": "stop"}, "user": "Blue ones."})
    assert infos["user"]["moved"] and obs["assistant"]["user_reply"] == "Blue ones."
    assert par.env.unwrapped.steps == 1 and par.agents == ["assistant", "user"]
    obs, rewards, term, trunc, infos = par.step({"assistant": {"action_type": "stop"}, "user": "x"})
    assert term == {"assistant": True, "user": True} and par.agents == []
    assert "score" in infos["assistant"] and "metrics" in infos["user"]
    par.close()


def test_bad_user_actions_become_empty_replies_and_the_episode_goes_on(game):
    game.reset(seed=0, options={"task_index": 1})
    game.step(ASK)
    game.step(12345)  # not a reply at all
    assert game.agent_selection == "assistant" and game.observe("assistant")["user_reply"] == ""
    game.step(ASK)
    game.step({"text": "x" * 100_000, "decision": 99})
    assert len(game.observe("assistant")["user_reply"]) == 5_000
    assert reply_from_action({"text": "ok", "decision": "reject"}).decision == "reject"
    assert reply_from_action({"text": "ok", "decision": 1}).decision == "accept"
    # malformed assistant actions are ordinary env steps with an error, not questions
    game.step({"action_type": "respond"})
    assert game.agent_selection == "assistant" and "content" in game.observe("assistant")["last_action_error"]


def test_decisions_reach_the_env_user_interface(game):
    game.reset(seed=0, options={"task_index": 1})
    game.step(ASK)
    game.step({"text": "No thanks.", "decision": 2})
    assert game.game.proxy.last_reply == UserReply("No thanks.", "reject")


def test_profile_match_reward_prefers_grounded_replies_and_punishes_leaks():
    aec = UserAgentAEC(make(MULTI, review_similarity=lexical_similarity), user_reward="profile_match")
    aec.reset(seed=0, options={"task_index": 4})
    context = aec.game.proxy.context
    brand = context.profile["Brand Preference"].split(",")[0].strip()
    asin = context.task["product"]["parent_asin"]
    reward = ProfileMatchReward()
    grounded = reward(UserEvent("q", UserReply(f"I like {brand}"), context, 0.0, False, False))
    random_words = reward(UserEvent("q", UserReply("zebra quantum violin"), context, 0.0, False, False))
    leaked = reward(UserEvent("q", UserReply(f"I like {brand}, it is {asin}"), context, 0.0, False, False))
    assert grounded > random_words and leaked < grounded - 0.5
    aec.step(ASK)
    aec.step(f"I like {brand}")
    assert aec.rewards["user"] == pytest.approx(grounded)
    aec.close()


def test_phone_user_agent_decisions_reach_the_env_and_the_profile_stays_hidden():
    aec = UserAgentAEC(make("KnowU-Proactive-v0"))
    try:
        aec.reset(seed=0, options={"task_index": 0})
        aec.step({"action_type": "ask_user", "text": "Shall I do that for you now?"})
        assert aec.agent_selection == "user"
        user_view = aec.observe("user")
        profile = json.loads(user_view["profile"])
        assert profile and user_view["question"] == "Shall I do that for you now?"
        # identity numbers, phone numbers and e-mail addresses (places and habits also appear in the agent's logs)
        secrets = [v for v in _strings(profile) if "@" in v or sum(c.isdigit() for c in v) >= 9]
        aec.step({"text": "No, leave it.", "decision": 2})
        assistant_view = aec.observe("assistant")
        assert assistant_view["user_reply"] == "No, leave it."
        assert aec.env.unwrapped.last_user_decision == "reject"
        visible = json.dumps({k: v for k, v in assistant_view.items() if k != "screenshot"}, ensure_ascii=False)
        assert secrets and not any(secret in visible for secret in secrets)
    finally:
        aec.close()


def _strings(value):
    if isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, str):
        yield value
