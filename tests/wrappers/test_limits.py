"""StepLimitEnds on a real PersonalWAB multi-turn episode."""

from __future__ import annotations

from personal_envs.wrappers.limits import StepLimitEnds
from tests.wrappers.conftest import make

SEARCH = {"action_type": "search_product_by_query", "query": "headphones"}


def _run(env, actions):
    env.reset(seed=0, options={"task_index": 0})
    for action in actions:
        result = env.step(action)
        if result[2] or result[3]:
            return result
    raise AssertionError("the episode did not end")


def test_the_env_step_limit_becomes_termination_with_the_same_score():
    plain = make("PersonalWAB-MultiTurn-v0")
    _, reward, terminated, truncated, info = _run(plain, [SEARCH] * 10)
    assert truncated and not terminated  # what the env itself reports at its limit
    wrapped = StepLimitEnds(make("PersonalWAB-MultiTurn-v0"))
    _, wrapped_reward, terminated, truncated, wrapped_info = _run(wrapped, [SEARCH] * 10)
    assert terminated and not truncated and wrapped_info["step_limit_ended"]
    assert wrapped_reward == reward and wrapped_info["score"] == info["score"] and wrapped_info["steps"] == 10
    # an episode that stops by itself is untouched
    _, _, terminated, truncated, info = _run(wrapped, [SEARCH, {"action_type": "stop"}])
    assert terminated and not truncated and "step_limit_ended" not in info and info["steps"] == 2
    plain.close()
    wrapped.close()
