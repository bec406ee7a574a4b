"""KnowU-Personalized-v0 on the embedded phone: checker, the oracle on all 86 variants, the state adapters, wrong
outcomes through the UI, profiles and logs from files, memory modes, and the simulated user."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from gymnasium.utils.env_checker import check_env

import personal_envs  # noqa: F401  (registers the ids)
from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.logs import load_logs, render_entry
from personal_envs.knowu.oracle import Fill, Step, Tap, finish, open_app
from personal_envs.knowu.personalized import build_personalized_tasks
from personal_envs.knowu.phone_state import export_state, seed_phone
from personal_envs.knowu.phone_tasks import KnowUPhoneTask
from personal_envs.knowu.proactive import build_proactive_tasks
from personal_envs.knowu.profiles import SHIPPED_PROFILE_DIR, ProfileError
from personal_envs.simulators.phone.phone import Phone
from tests.knowu.helpers import make_env, oracle_infos, task_index
from tests.knowu.helpers import run_oracle as run


@pytest.fixture(scope="module")
def env() -> Iterator[KnowUEnv]:
    with closing(make_env("KnowU-Personalized-v0", task_set="project", screenshot=False)) as environment:
        yield environment


def test_env_checker_passes(env: KnowUEnv) -> None:
    check_env(env)


def test_every_variant_round_trips_through_the_phone() -> None:
    tasks = build_personalized_tasks() + build_proactive_tasks()
    assert len(tasks) == 150
    for task in tasks:
        phone = Phone()
        record = seed_phone(phone, task)
        assert export_state(phone, record) == task.initial_state(), task.id
        for app in phone.apps.values():  # every app renders its main screen from the seeded state
            phone.open_app(app.key)
            assert phone.render()[0]


def test_oracle_scores_one_on_all_86_variants(env: KnowUEnv) -> None:
    assert env.num_tasks == 86
    for info in oracle_infos(env):
        metrics = info["metrics"]
        assert metrics["success"] and metrics["split"] == "personalized" and metrics["steps"] == info["steps"] <= 50
        assert metrics["role"] in ("researcher", "developer", "student", "grandma")
        assert metrics["judge"] in ("fallback", "none (pure rule)")


def test_orders_on_the_wrong_platform_or_with_the_wrong_payment_fail(env: KnowUEnv) -> None:
    task: Any = next(t for t in env.tasks if t.task_id == "buy_cola@student")
    order = task.spec.checks[0]
    other = "jingdian" if order.app_name == "taodian" else "taodian"
    title = next(i["title"] for i in task.spec.app_state[other]["catalog"] if i["id"] == order.acceptable[0])
    wrong_app: list[Step] = [open_app("jingdian" if other == "jingdian" else "Taodian"), Fill("search_input", title),
                             Tap(rid="search_button"), Tap(text=title), Tap(rid="buy_now"),
                             Fill("receiver_address", order.address), Tap(rid="submit_order"), finish()]
    info = run(env, "buy_cola@student", wrong_app)
    assert info["score"] == 0.0 and f"ordered on {other}" in info["metrics"]["reason"]
    plan = task.oracle_plan()
    wrong_pay = [step for step in plan if not (isinstance(step, Tap) and (step.rid or "").startswith("pay_"))]
    info = run(env, "buy_cola@student", wrong_pay)
    assert info["score"] == 0.0 and "payment 'alipay' is not the usual" in info["metrics"]["reason"]


def test_observation_shows_the_request_and_the_logs_only(env: KnowUEnv) -> None:
    obs, info = env.reset(options={"task_index": 0})
    task = env.task
    assert isinstance(task, KnowUPhoneTask)
    assert obs["instruction"] == task.spec.instruction and info["template"] == task.spec.template
    assert obs["logs"].splitlines() == [render_entry(e) for e in load_logs(task.spec.role)]
    assert "Time:" not in obs["context"] and task.spec.context.time in obs["context"]


def test_rag_memory_and_noisy_logs() -> None:
    environment = KnowUEnv(family="personalized", task="buy_cola@student", memory="rag", top_k=5, screenshot=False)
    try:
        obs, _ = environment.reset(seed=0)
        lines = obs["logs"].splitlines()
        everything = [render_entry(e) for e in load_logs("student")]
        assert len(lines) == 5 and set(lines) <= set(everything)
        assert any("cola" in line.lower() or "coke" in line.lower() or "pepsi" in line.lower() for line in lines)
    finally:
        environment.close()
    noisy = KnowUEnv(family="personalized", task="buy_cola@student", log_source="noise", screenshot=False)
    try:
        obs, _ = noisy.reset(seed=0)
        assert len(obs["logs"].splitlines()) == len(load_logs("student", "noise")) > len(everything)
    finally:
        noisy.close()


def test_a_users_own_profile_file_and_logs(tmp_path: Path) -> None:
    profile = tmp_path / "profiles" / "alice.yaml"
    profile.parent.mkdir()
    shutil.copy(SHIPPED_PROFILE_DIR / "student.yaml", profile)
    logs = tmp_path / "alice_log.json"
    logs.write_text(json.dumps([{"time": "2026-03-01 08:00", "location": "Home", "action": "ordered Pepsi Zero",
                                 "label": "signal", "category": "shopping"}]), encoding="utf-8")
    environment = KnowUEnv(family="personalized", profile=str(profile), logs=str(logs), task_set="project",
                           screenshot=False)
    try:
        assert environment.num_tasks > 10 and all(t.task_id.endswith("@alice") for t in environment.tasks)
        info = run(environment, environment.tasks[0].task_id)
        assert info["score"] == 1.0 and info["metrics"]["role"] == "alice"
        obs, _ = environment.reset(options={"task_index": 0})
        assert obs["logs"] == "[2026-03-01 08:00] (Home) ordered Pepsi Zero"
    finally:
        environment.close()
    with pytest.raises(Exception, match=r"logs=<path"):
        KnowUEnv(family="personalized", profile=str(profile), task_set="project", screenshot=False)
    with pytest.raises(ProfileError, match="available roles: .*student"):
        KnowUEnv(family="personalized", profile="nobody", screenshot=False)


def test_simulated_user_answers_clarifications_from_the_profile(env: KnowUEnv) -> None:
    env.reset(options={"task_index": task_index(env, "commute_sneakers_checkout@student")})
    obs, *_ = env.step({"action_type": "ask_user", "text": "What shoe size do you wear?"})
    assert "EU" in obs["user_reply"]
    obs, *_ = env.step({"action_type": "ask_user", "text": "What is your ID card number?"})
    assert obs["user_reply"].startswith("Sorry, I'd rather not share")
    *_, info = env.step({"action_type": "finished"})
    assert info["metrics"]["ask_user_count"] == 2 and info["score"] == 0.0
