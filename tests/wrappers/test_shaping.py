"""Reward shaping wrappers: unshaped returns equal the paper score; shaped terms are what each metric says."""

from __future__ import annotations

import pytest

from personal_envs.personalwab.policies import HeuristicPolicy
from personal_envs.simulators.users.base import SimulatedUser, UserReply
from personal_envs.wrappers.shaping import EfficiencyStepCost, InteractionEfficiencyCost, SignalShaping
from tests.wrappers.conftest import make

ASK = {"action_type": "respond", "content": "Any brand you like?"}


def run_heuristic(env, task_index):
    policy = HeuristicPolicy(env)
    obs, info = env.reset(seed=task_index, options={"task_index": task_index})
    policy.reset(obs, info)
    total, done = 0.0, False
    while not done:
        obs, reward, terminated, truncated, info = env.step(policy.act(obs, info))
        total += float(reward)
        done = terminated or truncated
    return total, info


@pytest.mark.parametrize("env_id", ["PersonalWAB-SingleTurn-v0", "PersonalWAB-MultiTurn-v0"])
def test_unshaped_return_equals_the_paper_score(env_id):
    env = make(env_id)
    scores = []
    for task_index in range(8):
        total, info = run_heuristic(env, task_index)
        assert total == pytest.approx(info["score"])
        assert info["score"] == pytest.approx(info["metrics"]["result_accuracy"])
        scores.append(info["score"])
    assert max(scores) > 0  # the comparison is not trivially 0 == 0
    env.close()


def test_step_cost_shapes_efficiency_and_keeps_the_paper_score():
    env = EfficiencyStepCost(make("PersonalWAB-MultiTurn-v0"), cost=0.05)
    for task_index in range(4):
        total, info = run_heuristic(env, task_index)
        assert total == pytest.approx(info["score"] - 0.05 * info["steps"])
        assert info["shaping_total"]["efficiency"] == pytest.approx(-0.05 * info["steps"])
        assert info["paper_reward"] == pytest.approx(info["score"])
    env.close()


def test_ask_user_cost_counts_only_questions():
    env = InteractionEfficiencyCost(make("PersonalWAB-MultiTurn-v0"), cost=0.1)
    env.reset(seed=0, options={"task_index": 0})
    rewards = [env.step(action)[1] for action in
               (ASK, {"action_type": "search_product_by_query", "query": "shoes"}, ASK, {"action_type": "nonsense"})]
    assert rewards == pytest.approx([-0.1, 0.0, -0.1, 0.0])
    env.close()


def test_personalwab_call_accuracy_pays_each_scored_call():
    env = SignalShaping(make("PersonalWAB-MultiTurn-v0"),
                        {"correct_call_accuracy": 1.0, "wrong_function_calls": -0.25}, replace_final=True)
    base = env.unwrapped
    index = next(i for i, task in enumerate(base.tasks) if task.task_type == "search")
    obs, _ = env.reset(seed=0, options={"task_index": index})
    title = base.task.target["title"]
    total = 0.0
    for action in ({"action_type": "search_product_by_query", "query": title},
                   {"action_type": "search_product_by_query", "query": "cheap thing"},
                   {"action_type": "add_product_review", "review": "nice"},
                   {"action_type": "stop"}):
        _, reward, terminated, _, info = env.step(action)
        assert "call_score" not in info and ("evaluation" in info) == terminated  # scores reach a policy at the end
        total += float(reward)
    calls = base.task.scored_calls(base.world, base.trace)
    expected = sum(c.result_accuracy for c in calls if c.correct_function) - 0.25 * sum(
        not c.correct_function for c in calls)
    assert len(calls) == 3 and calls[0].result_accuracy > 0 and total == pytest.approx(expected)
    assert terminated and info["score"] == pytest.approx(max(c.result_accuracy for c in calls if c.correct_function))
    env.close()


def test_signal_shaping_takes_the_weights_the_id_declares():
    env = SignalShaping(make("PersonalWAB-SingleTurn-v0"))
    assert env.weights == {"correct_call_accuracy": 1.0}
    base = env.unwrapped
    index = next(i for i, task in enumerate(base.tasks) if task.task_type == "search")
    env.reset(seed=0, options={"task_index": index})
    _, reward, terminated, _, info = env.step({"action_type": "search_product_by_query",
                                               "query": base.task.target["title"]})
    assert terminated and info["score"] > 0
    assert reward == pytest.approx(2 * info["score"])  # the paper's final score plus the call's shaping term
    env.close()
    from personal_envs.personalwab.env import PersonalWABEnv

    with pytest.raises(ValueError, match="no signal weights"):
        SignalShaping(PersonalWABEnv(mode="single"))  # an env built without an id declares nothing


def test_webmall_checkpoints_pay_the_first_visit_of_an_answer_page():
    env = SignalShaping(make("WebMall-Basic-v0"), {"answer_pages_visited": 0.3}, metric="webmall_checkpoints")
    try:
        env.reset(seed=0, options={"task_index": 0})
        answer = env.unwrapped.expected_urls[0]
        _, reward, _, _, info = env.step({"action_type": "goto", "url": answer})
        assert info["shaping"]["webmall_checkpoints"] == pytest.approx(0.3) and reward == pytest.approx(0.3)
        assert env.unwrapped.privileged_signals()["answer_pages_visited"] == 1
        assert "checkpoints" not in info, "answer progress stays out of what a policy sees"
        _, reward, _, _, _ = env.step({"action_type": "go_back"})
        _, reward, _, _, _ = env.step({"action_type": "goto", "url": answer})
        assert reward == pytest.approx(0.0)  # only the first visit pays
        env.reset(seed=0, options={"task_index": 0})
        _, reward, _, _, _ = env.step({"action_type": "goto", "url": answer})
        assert reward == pytest.approx(0.3)  # a new episode starts from zero
    finally:
        env.close()


class AlwaysDecline(SimulatedUser):
    """A user who rejects every proposal."""

    def _answer(self, message: str) -> UserReply:
        return UserReply("No, please don't.", "reject")


def _proactive_env(applies: bool, user: SimulatedUser | None = None):
    """A one-task env on the first default routine variant whose persona has (or lacks) the habit."""
    from personal_envs.knowu.env import KnowUEnv

    every = KnowUEnv(family="proactive", render="text")
    try:
        tasks = [next(t for t in every.tasks if t.routine_applies is applies)]
    finally:
        every.close()
    return KnowUEnv(family="proactive", tasks=tasks, user=user, render="text", max_steps=6)


KNOWU_PENALTIES = {"acts_without_routine": -0.2, "acts_after_rejection": -0.5}


def test_knowu_proactive_penalties_for_acting_without_routine_and_after_rejection():
    env = SignalShaping(_proactive_env(applies=False), KNOWU_PENALTIES, metric="knowu_proactive")
    try:
        env.reset(seed=0)
        assert env.step({"action_type": "wait"})[4]["shaping"]["knowu_proactive"] == 0.0
        assert env.step({"action_type": "navigate_home"})[4]["shaping"]["knowu_proactive"] == pytest.approx(-0.2)
    finally:
        env.close()
    env = SignalShaping(_proactive_env(applies=True, user=AlwaysDecline()), KNOWU_PENALTIES, metric="knowu_proactive")
    try:
        env.reset(seed=0)
        assert env.step({"action_type": "navigate_home"})[4]["shaping"]["knowu_proactive"] == 0.0
        info = env.step({"action_type": "ask_user", "text": "Shall I do it?"})[4]
        assert info["shaping"]["knowu_proactive"] == 0.0 and env.unwrapped.trace.last_decision() == "reject"
        assert env.step({"action_type": "navigate_home"})[4]["shaping"]["knowu_proactive"] == pytest.approx(-0.5)
        assert env.step({"action_type": "finished"})[4]["shaping"]["knowu_proactive"] == 0.0
    finally:
        env.close()
