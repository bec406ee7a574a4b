"""The paper metrics on hand-built records, by the official script's rules (constants parsed from the script)."""

from __future__ import annotations

import pytest

from personal_envs.knowu.official import paper_metrics as pm
from personal_envs.knowu.official.paper_metrics import Episode, summarize, trajectory_from_steps
from tests.knowu.official_routine.conftest import METRICS_SCRIPT, module_constant

pytestmark = pytest.mark.usefixtures("anchors")


def test_constants_are_the_official_scripts() -> None:
    assert module_constant(METRICS_SCRIPT, "SUCCESS_THRESHOLD") == pm.SUCCESS_THRESHOLD
    assert module_constant(METRICS_SCRIPT, "GENERIC_TERMINAL_ANSWERS") == set(pm.GENERIC_TERMINAL_ANSWERS)
    assert module_constant(METRICS_SCRIPT, "NON_ENGAGEMENT_ACTIONS") == set(pm.NON_ENGAGEMENT_ACTIONS)
    assert pm.NON_ENGAGEMENT_ACTIONS | {"answer"} == pm.STOP_ALLOWED_ACTIONS


def _traj(*pairs: tuple[dict, str | None]) -> list[dict]:
    return trajectory_from_steps(list(pairs))


ASK = {"action_type": "ask_user", "text": "Shall I turn on Dark mode?"}
CLICK = {"action_type": "click", "x": 10, "y": 10}
DONE = {"action_type": "finished"}


def test_the_reply_appears_on_the_next_entry_as_the_official_logger_records_it() -> None:
    traj = _traj((ASK, "<decision>reject</decision>"), (DONE, None))
    assert traj[0]["ask_user_response"] is None and traj[1]["ask_user_response"] == "<decision>reject</decision>"
    tm = pm.traj_metrics(traj)
    assert (tm.steps, tm.queries, tm.user_decision, tm.first_reject_step, tm.last_query_step) == (2, 1, "reject", 2, 1)


def test_buckets_are_disjoint_and_the_last_decision_decides() -> None:
    episodes = [
        # habit applies, user rejected -> Stop bucket (not Act), stopped correctly
        Episode("A@u", "proactive", 1.0, _traj((ASK, "no <decision>reject</decision>"), (DONE, None)), True),
        # habit applies, rejected then acted -> Stop failure
        Episode("B@u", "proactive", 0.0, _traj((ASK, "<decision>reject</decision>"), (CLICK, None), (DONE, None)),
                True),
        # rejected first, accepted last -> need bucket (last decision), score decides
        Episode("C@u", "proactive", 1.0, _traj((ASK, "<decision>reject</decision>"), (ASK, "<decision>accept</decision>"),
                                               (CLICK, None), (DONE, None)), True),
        # no habit, silent with a generic answer -> Silent success
        Episode("D@u", "proactive", 1.0, _traj(({"action_type": "answer", "text": " Task  finished "}, None)), False),
        # no habit, substantive answer -> engagement -> Silent failure (score may still be 1)
        Episode("E@u", "proactive", 1.0, _traj(({"action_type": "answer", "text": "It will rain today"}, None)),
                False),
        # no habit, asked and got an answer without decision words -> noneed; asking is not engagement
        Episode("F@u", "proactive", 1.0, _traj((ASK, "Maybe later."), (DONE, None)), False),
        # habit applies, acted without asking, failed -> Act failure
        Episode("G@u", "proactive", 0.5, _traj((CLICK, None), (DONE, None)), True),
    ]
    records = [pm.measure(e) for e in episodes]
    assert [r.bucket for r in records] == ["reject", "reject", "need", "noneed", "noneed", "noneed", "need"]
    assert [r.policy_success for r in records] == [True, False, True, True, False, True, False]
    out = summarize(episodes)
    assert out["proactive_policy"] == {"Act": {"episodes": 2, "value": 0.5}, "Silent": {"episodes": 3,
                                       "value": round(2 / 3, 6)}, "Stop": {"episodes": 2, "value": 0.5}}
    split = out["splits"]["proactive"]
    assert split["episodes"] == 7 and split["success_rate"] == round(5 / 7, 6)  # 0.5 is not a success
    assert split["ave_queries"] == round((1 + 1 + 2 + 0 + 0 + 1 + 0) / 7, 6)
    # IE = mean(score / max(queries, 1))
    assert split["interaction_efficiency"] == round((1 + 0 + 0.5 + 1 + 1 + 1 + 0.5) / 7, 6)
    steps = (2 + 3 + 4 + 1 + 1 + 2 + 2) / 7
    assert split["ave_steps"] == round(steps, 6) and split["efficiency"] == round(50 / steps, 6)


def test_stop_without_a_logged_reply_starts_after_the_last_question() -> None:
    # the reply to the last ask is never logged (the episode ended): no decision -> by habit
    episode = Episode("A@u", "proactive", 0.0, _traj((CLICK, None), (ASK, "<decision>reject</decision>")), True)
    record = pm.measure(episode)
    assert record.user_decision is None and record.bucket == "need" and record.policy_success is False
    tm = pm.TrajMetrics(3, 1, "reject", None, 1)
    assert pm.policy_success("reject", _traj((ASK, None), (DONE, None), (CLICK, None)), tm, False) is False
    assert pm.policy_success("reject", _traj((ASK, None), (DONE, None)), tm, False) is True


def test_decisions_without_tags_read_reject_before_accept() -> None:
    assert pm.parse_decision("I accept... no, reject") == "reject"
    assert pm.parse_decision("<decision> Accept </decision> though I'd reject") == "accept"
    assert pm.parse_decision("Sure.") is None and pm.parse_decision(None) is None


def test_tables_report_splits_roles_and_memory_settings() -> None:
    episodes = [Episode("X", "general", 1.0, _traj((DONE, None)), difficulty="easy"),
                Episode("P@student", "personalized", 0.7, _traj((ASK, "ok"), (DONE, None)), difficulty="hard",
                        extra={"memory": "rag", "log_source": "noise"}),
                Episode("R@student", "proactive", 1.0, _traj((DONE, None)), False, "easy")]
    text = pm.report(episodes, "KnowU-Bench 0dd7989")
    assert "KnowU-Bench 0dd7989" in text and "Table 2" in text and "Table 3" in text
    assert "student  2  0.8500  0.5000" in text  # per role: average score and AveQueries
    overall = text.splitlines()[3].split()
    assert overall[:3] == ["run", "3", "66.67"]


def test_knowu_table_command_merges_results_files(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    from personal_envs.cli import main

    proactive = {"policy": "p", "task_id": "WeekendSleeperTask@student", "steps": 1, "metrics": {
        "split": "proactive", "score": 1.0, "task_set": "KnowU-Bench 0dd7989", "memory": "all",
        "log_source": "noise", "official_episode": {
            "task_name": "WeekendSleeperTask@student", "split": "proactive", "score": 1.0, "difficulty": "easy",
            "habit_should_act": True, "traj": _traj((CLICK, None), (DONE, None))}}}
    general = {"policy": "p", "task_id": "BatterySaverGeneralTask", "steps": 4, "metrics": {
        "split": "general", "score": 0.0, "difficulty": "easy", "ask_user_count": 1,
        "task_set": "KnowU-Bench 0dd7989"}}
    (tmp_path / "a.jsonl").write_text(json.dumps(proactive) + "\n", encoding="utf-8")
    (tmp_path / "b.jsonl").write_text(json.dumps(general) + "\n", encoding="utf-8")
    assert main(["knowu", "table", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "task set: KnowU-Bench 0dd7989" in out
    assert "p  2  50.00" in out  # overall SR over both splits
    assert "p  all  noise" in out  # Table 3 row of the memory setting
    assert main(["knowu", "table", str(tmp_path / "missing.jsonl")]) == 2


def test_figures_plot_the_tables_numbers(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from personal_envs.cli import main
    from personal_envs.knowu.official import figures

    episodes = [Episode("X", "general", 1.0, _traj((DONE, None)), difficulty="easy", extra={"policy": "a"}),
                Episode("Y", "general", 0.0, _traj((DONE, None)), difficulty="easy", extra={"policy": "a"}),
                Episode("P@student", "personalized", 0.7, _traj((ASK, "ok"), (DONE, None)), difficulty="hard",
                        extra={"policy": "a"}),
                Episode("R@grandma", "proactive", 1.0, _traj((DONE, None)), False, "easy", extra={"policy": "b"})]
    sr = figures.sr_by_split(episodes)
    assert sr["a"]["general easy"] == 50.0 and sr["a"]["personalized hard"] == 0.0
    assert set(sr) == {"a", "b"} and sr["b"]["proactive easy"] == 100.0
    roles = figures.per_role(episodes)
    assert roles["a"] == {"student": (0.7, 1.0)} and roles["b"] == {"grandma": (1.0, 0.0)}
    calibration = figures.proactive_calibration(episodes)
    assert set(calibration["b"]) == {"Act", "Silent", "Stop"}
    paths = figures.write_figures(episodes, tmp_path / "figs")
    assert [p.name for p in paths] == ["sr_by_split.png", "proactive_calibration.png", "per_role.png"]
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and p.stat().st_size > 5000 for p in paths)
    # from the command: the tables, then the figures
    import json

    record = {"policy": "p", "task_id": "BatterySaverGeneralTask", "steps": 4, "metrics": {
        "split": "general", "score": 1.0, "success": True, "difficulty": "easy", "task_set": "KnowU-Bench 0dd7989"}}
    (tmp_path / "r.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert main(["knowu", "table", str(tmp_path / "r.jsonl"), "--figures", str(tmp_path / "cli")]) == 0
    assert sorted(p.name for p in (tmp_path / "cli").iterdir()) == sorted(p.name for p in paths)


def _official(name: str, split: str, score: float, traj: list[dict], habit: bool | None, difficulty: str) -> dict:
    episode = {"task_name": name, "split": split, "score": score, "traj": traj, "habit_should_act": habit,
               "difficulty": difficulty}
    return {"task_id": name, "policy": "p", "memory": "none", "log_source": "clean",
            "metrics": {"split": split, "score": score, "task_set": "KnowU-Bench embedded",
                        "official_episode": episode}}


def test_report_records_on_hand_built_records_gives_the_numbers_derived_by_hand() -> None:
    click = {"action_type": "click", "x": 1, "y": 1}
    records = [
        # general, easy: 4 steps, no question, success
        _official("SetAlarmGeneralTask", "general", 1.0, _traj((click, None), (click, None), (click, None),
                                                                (DONE, None)), None, "easy"),
        # personalized, hard, no official trajectory: 5 steps of which 2 questions, score 0.5, judged by the fallback
        {"task_id": "PrefTask@engineer", "steps": 5, "policy": "p", "memory": "none", "log_source": "clean",
         "metrics": {"split": "personalized", "score": 0.5, "ask_user_count": 2, "difficulty": "hard",
                     "judge": "fallback", "task_set": "KnowU-Bench embedded"}},
        # proactive, easy: habit applies, asked, accepted, acted -> Act success (3 steps, 1 question)
        _official("HabitTask@engineer", "proactive", 1.0, _traj((ASK, "<decision>accept</decision>"), (click, None),
                                                                 (DONE, None)), True, "easy"),
        # proactive, hard: no habit, clicked anyway -> Silent failure (2 steps, 0 questions)
        _official("NoHabitTask@designer", "proactive", 0.0, _traj((click, None), (DONE, None)), False, "hard"),
        # proactive, hard: the user rejected, the agent stopped -> Stop success (2 steps, 1 question)
        _official("RejectTask@designer", "proactive", 0.0, _traj((ASK, "<decision>reject</decision>"), (DONE, None)),
                  True, "hard"),
        {"task_id": "x", "metrics": {"score": 1.0}},  # another benchmark's record: left out
    ]
    text = pm.report_records(records)
    lines = text.splitlines()
    assert lines[0] == "task set: KnowU-Bench embedded"
    assert lines[1] == ("judge: fallback on 1 of 1 judged episodes; 0 judge error(s) (a fallback is not the paper's "
                        "LLM judge: S_llm is deterministic there)")
    rows = {tuple(line.split()[:3]): line.split() for line in lines if line.split()}
    # Table 2: 2 of 5 episodes succeed; per split easy / hard SR and score
    assert rows[("p", "5", "40.00")] == ["p", "5", "40.00", "100.00", "1.0000", "n/a", "n/a", "n/a", "n/a",
                                         "0.00", "0.5000", "100.00", "1.0000", "0.00", "0.0000"]
    # Table 3: one memory setting; proactive SR 1/3, score 1/3
    assert rows[("p", "none", "clean")] == ["p", "none", "clean", "100.00", "1.0000", "0.00", "0.5000",
                                            "33.33", "0.3333"]
    # the script's table: steps 4 / 5 / (3+2+2)/3, queries 0 / 2 / (1+0+1)/3, IE 0.5/2 and mean(1/1, 0/1, 0/1)
    assert rows[("general", "1", "100.00")] == ["general", "1", "100.00", "1.0000", "4.0000", "0.0000", "n/a"]
    assert rows[("personalized", "1", "0.00")] == ["personalized", "1", "0.00", "0.5000", "5.0000", "2.0000",
                                                   "0.2500"]
    assert rows[("proactive", "3", "33.33")] == ["proactive", "3", "33.33", "0.3333", "2.3333", "0.6667", "0.3333"]
    assert [rows[(name, "1", value)] for name, value in (("Act", "100.00"), ("Silent", "0.00"), ("Stop", "100.00"))]
    # per role: engineer 0.5 and 1.0 with 2 and 1 questions; designer 0 and 0 with 0 and 1
    assert rows[("engineer", "2", "0.7500")] == ["engineer", "2", "0.7500", "1.5000"]
    assert rows[("designer", "2", "0.0000")] == ["designer", "2", "0.0000", "0.5000"]
    assert pm.report_records(records[-1:]) == "KnowU-Bench: no episodes."
