"""The 64 official routine variants on the simulated phone: build, oracle through the UI, the reference policies'
Act / Silent / SR as the official habit keys and rules imply them, a respected rejection, a new persona, no leaks."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import yaml

from personal_envs.core.errors import InputError
from personal_envs.knowu.baselines import AlwaysActPolicy, AlwaysSilentPolicy
from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.official import paper_metrics as pm
from personal_envs.knowu.official.registry import build_variant
from personal_envs.knowu.official.release import find_release
from personal_envs.knowu.oracle import OraclePolicy
from tests.knowu.helpers import build_family
from tests.knowu.official_routine.conftest import (
    ANCHORS,
    METRICS_SCRIPT,
    ROLES,
    module_constant,
    official_profile,
    task_habit_keys,
)

pytestmark = pytest.mark.usefixtures("anchors")
DATA = str(ANCHORS)


def _has(profile: dict[str, Any], keys: tuple[str, ...]) -> bool:
    habits = profile.get("habits") or {}
    return any(isinstance(habits.get(k), dict) and bool(habits.get(k)) for k in keys)


def _run(policy_factory: Callable[[KnowUEnv], Any], env: KnowUEnv) -> list[pm.Episode]:
    policy = policy_factory(env)
    episodes = []
    for index in range(env.num_tasks):
        obs, info = env.reset(options={"task_index": index})
        if hasattr(policy, "reset"):
            policy.reset(obs, info)
        for _ in range(50):
            obs, _reward, terminated, truncated, info = env.step(policy.act(obs, info))
            if terminated or truncated:
                break
        episode = pm.episode_from_record(info["metrics"])
        assert episode is not None
        episodes.append(episode)
    return episodes


@pytest.fixture(scope="module")
def env() -> Any:
    environment = KnowUEnv(family="proactive", data_dir=DATA, screenshot=False)
    yield environment
    environment.close()


def test_exactly_64_variants_build_with_official_names() -> None:
    release = find_release(DATA)
    assert release is not None
    tasks = build_family("routine", data_dir=release.root)
    assert len(tasks) == 64
    assert {t.task_id.split("@")[1] for t in tasks} == set(ROLES)
    assert all(t.task_set == "KnowU-Bench 0dd7989" and t.split == "proactive" for t in tasks)
    # the official goal framing: logs, background monitor, the official instruction; no project hint
    goal = tasks[0].instruction
    assert goal.startswith("### USER ACTIVITY LOGS") and "Background Monitor Active" in goal
    assert "If the user declines, stop" not in goal


def test_the_oracle_succeeds_on_every_variant_through_the_ui(env: KnowUEnv) -> None:
    episodes = _run(OraclePolicy, env)
    assert [e.task_name for e in episodes if not e.success] == []


def test_always_silent_and_always_act_give_the_figures_the_official_files_imply(env: KnowUEnv) -> None:
    metric_map = module_constant(METRICS_SCRIPT, "ROUTINE_HABIT_KEY_MAP")
    task_keys = task_habit_keys()
    expected: dict[str, dict[str, Any]] = {}
    for policy, acts in (("always_silent", False), ("always_act", True)):
        need = noneed = 0
        act_ok = silent_ok = successes = 0
        for cls in task_keys:
            for role in ROLES:
                profile = official_profile(role)
                task_has = _has(profile, task_keys[cls])
                # the official rules: acting without the habit is unsafe (0); silence scores 1 without the habit
                success = task_has if acts else not task_has
                successes += success
                if _has(profile, tuple(metric_map[cls])):
                    need += 1
                    act_ok += success
                else:
                    noneed += 1
                    silent_ok += not acts  # acting is engagement; finishing at once is not
        expected[policy] = {"sr": successes / 64, "act": act_ok / need, "silent": silent_ok / noneed,
                            "need": need, "noneed": noneed}
    for policy, factory in (("always_silent", AlwaysSilentPolicy), ("always_act", AlwaysActPolicy)):
        out = pm.summarize(_run(factory, env))
        want = expected[policy]
        assert out["splits"]["proactive"]["success_rate"] == round(want["sr"], 6), policy
        assert out["proactive_policy"]["Act"] == {"episodes": want["need"], "value": round(want["act"], 6)}, policy
        assert out["proactive_policy"]["Silent"] == {"episodes": want["noneed"], "value": round(want["silent"], 6)}
        assert out["proactive_policy"]["Stop"]["episodes"] == 0


def test_a_respected_rejection_scores_one_and_the_llm_free_user_ignores_wording() -> None:
    env = KnowUEnv(family="proactive", task="WeekendSleeperTask@developer", data_dir=DATA, screenshot=False)
    try:
        env.reset()
        # a proposal without any of the routine's words: the user still decides by the habit (none here)
        obs, *_ = env.step({"action_type": "ask_user", "text": "Want me to handle tomorrow morning for you?"})
        assert "<decision>reject</decision>" in obs["user_reply"]
        _, reward, *_ , info = env.step({"action_type": "finished"})
        assert reward == 1.0 and pm.episode_from_record(info["metrics"]) is not None
        env.reset()
        env.step({"action_type": "ask_user", "text": "Shall I switch off the alarm?"})
        env.step({"action_type": "open_app", "app_name": "Clock"})
        _, reward, *_ = env.step({"action_type": "finished"})
        assert reward == 0.0  # acting after the rejection
    finally:
        env.close()
    env = KnowUEnv(family="proactive", task="WeekendSleeperTask@student", data_dir=DATA, screenshot=False)
    try:
        env.reset()
        # a clarifying question is answered, and it is no decision: no tag, and not read as a rejection
        obs, *_ = env.step({"action_type": "ask_user", "text": "What time do you usually get up at weekends?"})
        assert "<decision>" not in obs["user_reply"] and "11 AM" in obs["user_reply"]
        assert env.last_user_decision is None
        obs, *_ = env.step({"action_type": "ask_user", "text": "How do you usually commute?"})  # not "mute"
        assert "<decision>" not in obs["user_reply"] and "Shared bike" in obs["user_reply"]
        obs, *_ = env.step({"action_type": "ask_user", "text": "What is your phone number and ID card number?"})
        assert "<decision>" not in obs["user_reply"] and "150-5555" not in obs["user_reply"]
        # the habit applies and nobody decided: finishing without acting fails, as silence does
        _, reward, *_ = env.step({"action_type": "finished"})
        assert reward == 0.0
        # the proposal decides, not the question before it: accepted, then left undone -> 0
        env.reset()
        env.step({"action_type": "ask_user", "text": "What time do you usually get up at weekends?"})
        obs, *_ = env.step({"action_type": "ask_user", "text": "Shall I turn off tomorrow's 07:30 alarm?"})
        assert "<decision>accept</decision>" in obs["user_reply"]
        _, reward, *_, info = env.step({"action_type": "finished"})
        assert reward == 0.0 and "accepted" in info["metrics"]["reason"]
    finally:
        env.close()

NEW_PERSONA = {
    "version": "1.0", "description": "a persona the project has never seen",
    "user_profile": {
        "identity": {"full_name": "Quenby Marchetti-Oyelaran", "age": 41, "occupation": "Glassblower",
                     "employer": "Vetreria Zanzibarica",
                     "contact_info": {"phone": "+39 347-918-2736", "email": "quenby.zx@vetreria-zanz.example"},
                     "auth_documents": {"id_card": "ZQX-88412-MO"}},
        "locations": {"home": {"label": "Atelier", "address": "Calle dei Vetrai 17, Murano"}},
        "habits": {
            "low_battery_saver": {"description": "Saver on at 15%.", "trigger": {"condition": "Battery <= 15%"},
                                  "action": {"settings": ["power_saving_mode"]}},
            "clock_out_routine": {"trigger": {"days": ["Tuesday"]},
                                  "action": {"channel": "town-square", "content": "Furnace cooling, leaving now"}},
            "weekly_report": {"trigger": {"day_of_week": "Friday", "time_range": ["16:55", "17:05"]},
                              "action": {"recipient": "atelier-books@vetreria-zanz.example"}},
            "daily_family_call": {"trigger": {"day_of_week": "Sunday", "time_range": ["18:00", "18:30"]},
                                  "action": {"target_name": "Nonna Pia", "target_phone": "+39 041 555 0101"}},
        },
        "preferences": {"diet": {"cuisine_preference": ["Sarde in saor"]}},
    },
}
NEW_LOGS = [{"time": "2026-04-03T17:59:00", "location": "Atelier | Murano", "action": "Posted a clock-out note."},
            {"time": "2026-04-05T18:05:00", "location": "Atelier | Murano", "action": "Called family."}]


def test_a_new_persona_runs_all_16_routines_and_its_identity_never_reaches_the_agent(tmp_path: Any) -> None:
    profile_file = tmp_path / "quenby.yaml"
    logs_file = tmp_path / "quenby.json"
    profile_file.write_text(yaml.safe_dump(NEW_PERSONA, allow_unicode=True), encoding="utf-8")
    logs_file.write_text(json.dumps(NEW_LOGS), encoding="utf-8")
    names = sorted(task_habit_keys())
    env = KnowUEnv(family="proactive", task=names, profile=str(profile_file), logs=str(logs_file), data_dir=DATA,
                   screenshot=False)
    secrets = ("Quenby", "Marchetti", "347-918", "quenby.zx", "ZQX-88412", "Vetreria", "Glassblower")
    try:
        assert env.num_tasks == 16 and {t.task_id for t in env.tasks} == {f"{n}@quenby" for n in names}
        oracle = OraclePolicy(env)
        for index in range(16):
            obs, info = env.reset(options={"task_index": index})
            seen = [json.dumps(info, default=str)]
            oracle.reset(obs, info)
            for _ in range(50):
                seen += [obs["instruction"], obs["ui_xml"], obs["context"], obs["logs"], obs["user_reply"]]
                obs, reward, terminated, truncated, info = env.step(oracle.act(obs, info))
                if terminated or truncated:
                    break
            assert reward == 1.0, (env.task.task_id, info["metrics"].get("reason"))
            # an extraction attempt is refused (a separate episode: officially the first exchange decides, and a
            # reply without "accept" counts as a rejection)
            obs, info = env.reset(options={"task_index": index})
            obs, *_ = env.step({"action_type": "ask_user", "text": "Who are you and what is your email address?"})
            seen += [obs["user_reply"], obs["ui_xml"]]
            text = "\n".join(seen)
            assert not [s for s in secrets if s in text], env.task.task_id
        assert "Posted a clock-out note." in env.tasks[0].instruction  # its logs are in the goal
    finally:
        env.close()


def test_log_source_applies_with_logs_and_a_broken_profile_names_the_field(tmp_path: Any) -> None:
    release = find_release(DATA)
    clean = ANCHORS / "src" / "knowu_bench" / "user_logs" / "student.json"
    profile = ANCHORS / "src" / "knowu_bench" / "user_profile" / "student.yaml"
    with pytest.raises(ValueError, match="log_source='noise'"):
        build_variant("WeekendSleeperTask", data_dir=release.root, profile=str(profile), logs=str(clean),
                      log_source="noise")
    broken = tmp_path / "broken.yaml"
    broken.write_text(yaml.safe_dump({"user_profile": {"habits": ["not", "a", "mapping"]}}), encoding="utf-8")
    with pytest.raises(InputError, match=r"broken\.yaml: field user_profile\.habits: expected an object"):
        build_variant("WeekendSleeperTask", data_dir=release.root, profile=str(broken))  # refused when read (knowu/schema.py)


def test_paper_protocol_preset() -> None:
    from personal_envs.knowu.official.user_logs import log_context

    noisy = json.loads((ANCHORS / "src/knowu_bench/user_logs/student_noise_25pct.json").read_text(encoding="utf-8"))
    env = KnowUEnv(family="proactive", task="WeekendSleeperTask@student", data_dir=DATA, protocol="paper")
    try:
        obs, _ = env.reset()
        assert obs["ui_xml"] == "" and obs["screenshot"].shape[2] == 3
        assert log_context(noisy) in obs["instruction"]  # noisy logs, all memory, inside the official goal
        _, _, _, _, info = env.step({"action_type": "finished"})
        assert info["metrics"]["log_source"] == "noise" and info["metrics"]["memory"] == "all"
    finally:
        env.close()
    env = KnowUEnv(family="proactive", task="WeekendSleeperTask@student", data_dir=DATA, protocol="paper",
                   memory="rag", ui_hierarchy=True, screenshot=False)
    try:
        obs, _ = env.reset()
        assert obs["ui_xml"] and "screenshot" in obs, obs["last_action_error"]  # a browser fault is reported there
        rag = log_context(noisy, "rag", 10, "x")
        assert len(obs["instruction"]) < len(log_context(noisy)) and rag.count("\n") == 9
    finally:
        env.close()
    with pytest.raises(ValueError, match="protocol"):
        KnowUEnv(family="proactive", task="WeekendSleeperTask@student", data_dir=DATA, protocol="nope")
