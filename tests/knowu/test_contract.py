"""KnowU on the core Task contract: every task of every split is a core Task over a PhoneWorld, the base env records
the trace (answers, dialogue with decisions), the proactive shaping signals count acting steps without a routine
and after a rejection (what the registered weights pay), and no served page exists only because a habit applies."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing

import gymnasium as gym
import pytest

import personal_envs  # noqa: F401  (registers the ids)
from personal_envs.core.registration import entry_for
from personal_envs.core.task import Task
from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.phone_tasks import load_proactive
from personal_envs.knowu.task import PhoneWorld
from personal_envs.knowu.taskspec import ChromeVisitCheck
from personal_envs.simulators.phone.apps.chrome import canonical_url
from personal_envs.simulators.phone.phone import Phone
from personal_envs.wrappers.shaping import SignalShaping
from tests.knowu.helpers import task_index

QUESTION = "It's Friday night - shall I turn off your 07:30 alarm?"


@pytest.fixture(scope="module")
def env() -> Iterator[KnowUEnv]:
    with closing(KnowUEnv(family="proactive", task="weekend_sleeper", screenshot=False)) as environment:
        yield environment


@pytest.mark.parametrize(("split", "count"), [("general", 42), ("personalized", 86), ("proactive", 64)])
def test_every_task_is_a_core_task_with_hidden_strings(split: str, count: int) -> None:
    with closing(KnowUEnv(family=split, screenshot=False)) as environment:
        assert environment.num_tasks == count
        environment.reset(options={"task_index": 0})
        assert isinstance(environment.world, PhoneWorld) and environment.world.phone is environment.phone
        for task in environment.tasks:
            assert isinstance(task, Task)
            hidden = list(task.hidden_strings(environment.world))
            assert hidden and all(isinstance(s, str) and s for s in hidden), task.task_id
            assert task.task_id not in hidden


def test_trace_holds_the_answer_the_dialogue_and_the_decision(env: KnowUEnv) -> None:
    env.reset(options={"task_index": task_index(env, "weekend_sleeper@grandma")})  # no such habit: the user declines
    env.step({"action_type": "ask_user", "text": QUESTION})
    assert env.last_user_decision == "reject" and env.trace.last_decision() == "reject"
    *_, info = env.step({"action_type": "answer", "text": "Okay, I will leave it."})
    assert env.trace.answer == "Okay, I will leave it." and env.trace.finished
    assert [turn.decision for turn in env.trace.dialogue] == ["reject"]
    assert info["metrics"]["answer"] == "Okay, I will leave it." and info["metrics"]["ask_user_count"] == 1


def test_proactive_signals_count_acting_without_routine_and_after_rejection(env: KnowUEnv) -> None:
    env.reset(options={"task_index": task_index(env, "weekend_sleeper@grandma")})
    expected = [
        ({"action_type": "wait"}, 0, 0),
        ({"action_type": "open_app", "app_name": "NoSuchApp"}, 0, 0),  # an error does not act
        ({"action_type": "navigate_home"}, 1, 0),
        ({"action_type": "ask_user", "text": QUESTION}, 1, 0),  # rejected
        ({"action_type": "navigate_home"}, 2, 1),
        ({"action_type": "finished"}, 2, 1),
    ]
    for action, without_routine, after_rejection in expected:
        env.step(action)
        signals = env.privileged_signals()
        assert (signals["acts_without_routine"], signals["acts_after_rejection"]) == (without_routine,
                                                                                     after_rejection), action
    env.reset(options={"task_index": task_index(env, "weekend_sleeper@student")})  # has the habit
    env.step({"action_type": "navigate_home"})
    assert env.privileged_signals()["acts_without_routine"] == 0.0


def test_registered_weights_reproduce_the_proactive_penalties() -> None:
    assert entry_for("KnowU-Proactive-v0").signal_weights == {"acts_without_routine": -0.2,
                                                              "acts_after_rejection": -0.5}
    env = SignalShaping(gym.make("KnowU-Proactive-v0", task="weekend_sleeper@grandma", screenshot=False))
    try:
        env.reset(seed=0)
        terms = [env.step(action)[4]["shaping"]["signals"] for action in (
            {"action_type": "wait"}, {"action_type": "navigate_home"},
            {"action_type": "ask_user", "text": QUESTION}, {"action_type": "navigate_home"})]
        assert terms == pytest.approx([0.0, -0.2, 0.0, -0.7])
    finally:
        env.close()


def test_chrome_pages_do_not_depend_on_whether_the_habit_applies() -> None:
    tasks = load_proactive(profile="developer")
    target = next(c.url for t in tasks if t.task_id == "morning_weather_check@developer"
                  for c in t.spec.checks if isinstance(c, ChromeVisitCheck))  # type: ignore[attr-defined]
    served = []
    for task in tasks:
        phone = Phone(now=task.start)
        task.seed(phone)
        served.append(sorted(phone.chrome.pages))
    assert canonical_url(target) in served[0]  # the habit's page, served on every variant of the user
    assert all(pages == served[0] for pages in served)
