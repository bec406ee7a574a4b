import pytest
from gymnasium.utils.env_checker import check_env

from personal_envs.core.env import EnvClosedError
from tests.core.toy_env import ToyEnv


def test_base_env_passes_gymnasium_checker():
    check_env(ToyEnv())


def test_bad_actions_count_as_steps_and_report_errors():
    env = ToyEnv(max_steps=10)
    obs, info = env.reset(seed=0, options={"task_index": 1})
    assert info["task_id"] == "toy-1"
    cases = [
        ("{oops", "not valid JSON"),
        ({"action_type": "fly"}, "unknown action"),
        ({"action_type": "boom"}, "failed inside the environment: RuntimeError: kaboom"),
        ({"action_type": "bad"}, "bad: that is impossible here"),
        ({"action_type": "say", "text": "x" * 1_000_000}, "the limit is 1000"),
    ]
    for step, (action, fragment) in enumerate(cases, start=1):
        obs, reward, terminated, truncated, info = env.step(action)
        assert fragment in obs["last_action_error"]
        assert not terminated and not truncated
        assert env.steps == step
    obs, *_ = env.step({"action_type": "say", "text": "beta"})
    assert obs["last_action_error"] == ""
    obs, reward, terminated, truncated, info = env.step({"action_type": "done"})
    assert terminated and reward == 1.0
    assert info["metrics"] == {"said": 1, "hit": 1.0} and info["steps"] == 7


def test_step_limit_truncates_and_reports_metrics():
    env = ToyEnv(max_steps=2)
    env.reset(seed=0, options={"task_index": 0})
    env.step({"action_type": "say", "text": "nope"})
    obs, reward, terminated, truncated, info = env.step({"action_type": "say", "text": "still no"})
    assert truncated and not terminated
    assert reward == 0.0 and info["metrics"]["said"] == 2


def test_step_after_the_end_does_not_raise():
    env = ToyEnv()
    env.reset(seed=0)
    env.step({"action_type": "done"})
    obs, reward, terminated, truncated, info = env.step({"action_type": "say", "text": "late"})
    assert terminated and "call reset()" in obs["last_action_error"]


def test_seeded_reset_picks_the_same_task():
    a, b = ToyEnv(), ToyEnv()
    picks_a = [a.reset(seed=s)[1]["task_id"] for s in range(10)]
    picks_b = [b.reset(seed=s)[1]["task_id"] for s in range(10)]
    assert picks_a == picks_b
    assert len(set(picks_a)) > 1


def test_render_ansi_and_tool_schemas():
    env = ToyEnv()
    env.reset(seed=0, options={"task_index": 2})
    assert "say gamma" in (env.render() or "")
    names = [tool["function"]["name"] for tool in env.tool_schemas()]
    assert names == ["say", "boom", "bad", "done"]


def test_a_closed_env_refuses_reset_and_step():
    env = ToyEnv()
    env.reset(seed=0)
    env.close()
    for call in (lambda: env.reset(seed=1), lambda: env.step({"action_type": "done"})):
        with pytest.raises(EnvClosedError, match="closed ToyEnv"):
            call()
