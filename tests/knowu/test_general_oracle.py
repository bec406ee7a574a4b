"""The oracle solves all 42 general tasks through the UI, and UI-driven near misses are rejected."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.oracle import Fill, Step, Tap, finish, open_app
from tests.knowu.helpers import oracle_infos
from tests.knowu.helpers import run_oracle as run


@pytest.fixture(scope="module")
def env() -> Iterator[KnowUEnv]:
    environment = KnowUEnv(task_set="project", screenshot=False)
    yield environment
    environment.close()


def test_oracle_scores_one_on_every_general_task(env: KnowUEnv) -> None:
    assert env.num_tasks == 42
    for info in oracle_infos(env):
        metrics = info["metrics"]
        assert metrics["success"] is True and metrics["steps"] == info["steps"] <= 50
        assert metrics["ask_user_count"] == 0 and metrics["interaction_efficiency"] == 1.0


def test_wrong_recipient_through_the_ui_is_rejected(env: KnowUEnv) -> None:
    plan: list[Step] = [open_app("Messages"), Tap(rid="start_chat_fab"), Fill("recipient", "Dad"),
                        Fill("compose_message_text", "Could you transfer 500 yuan for the rent?"),
                        Tap(rid="send_message_button"), finish()]
    info = run(env, "ask_mom_rent", plan)
    assert info["score"] < 1.0 and not info["metrics"]["success"]
    assert info["metrics"]["checks"] == {"sms to Mom": False, "no texts to other people": False}


def test_wrong_alarm_time_through_the_ui_is_rejected(env: KnowUEnv) -> None:
    plan: list[Step] = [open_app("Clock"), Tap(rid="add_alarm_fab"), Fill("alarm_time", "09:30"), Tap(rid="day_sat"),
                        Tap(rid="day_sun"), Tap(rid="alarm_sound"), Tap(text="Bright Morning"), Tap(rid="save_alarm"),
                        finish()]
    info = run(env, "weekend_alarm", plan)
    assert info["score"] == 0.0 and "alarm at 08:30" in info["metrics"]["reason"]


def test_an_extra_order_through_the_ui_is_rejected(env: KnowUEnv) -> None:
    once: list[Step] = [Fill("search_input", "zero sugar cola"), Tap(rid="search_button"),
                        Tap(text="Zero Sugar Cola 330ml × 24 cans"), Tap(rid="buy_now"),
                        Fill("receiver_name", "Zhang Wei"), Fill("receiver_phone", "13800138000"),
                        Fill("receiver_address", "Zheda Science Park, 478 Wensan Road"), Tap(rid="submit_order")]
    plan: list[Step] = [open_app("Taodian"), *once, open_app("Taodian"), *once, finish()]
    info = run(env, "buy_zero_cola", plan)
    assert info["metrics"]["checks"]["exactly one taodian order"] is False
    assert not info["metrics"]["success"]
