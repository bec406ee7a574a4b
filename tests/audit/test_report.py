"""The audit's verdicts and table: the threshold is the best honest baseline, only degenerate and searched programs
above it are flagged, documented ones are marked as such; task spreading and program steps."""

from __future__ import annotations

from typing import Any

from personal_envs.audit.programs import CandidateSource, Choice, Script
from personal_envs.audit.report import AuditReport, Row, judge, render
from personal_envs.audit.shortcuts import example, spread
from personal_envs.wrappers.candidates import Candidate


def _rows() -> list[Row]:
    return [Row("oracle", "oracle", [1.0, 1.0]), Row("always_silent", "baseline", [1.0, 0.0]),
            Row("heuristic", "baseline", [0.5, 0.5]), Row("finish_at_once", "degenerate", [1.0, 0.0]),
            Row("ask_then_finish", "degenerate", [1.0, 1.0]), Row("tap > finished", "search", [1.0, 0.5])]


def test_the_threshold_is_the_best_honest_baseline_and_only_programs_above_it_are_flagged() -> None:
    rows = _rows()
    threshold, source = judge(rows, ("always_silent", "heuristic"), {})
    assert (threshold, source) == (0.5, "always_silent")  # the first of the tied best
    verdicts = {r.name: r.verdict for r in rows}
    assert verdicts == {"oracle": "", "always_silent": "", "heuristic": "", "finish_at_once": "",
                        "ask_then_finish": "FLAGGED", "tap > finished": "FLAGGED"}
    report = AuditReport("X-v0", "set", [0, 1], 2, rows, ("always_silent", "heuristic"), threshold, source)
    assert [r.name for r in report.flagged] == ["ask_then_finish", "tap > finished"]
    text = render(report)
    assert "threshold 0.500 = always_silent" in text and "| ask_then_finish | degenerate | 1.000 | 1.000 |" in text
    assert text.splitlines()[-1].startswith("FLAGGED") and "tap > finished 0.750 > 0.500" in text


def test_documented_programs_are_marked_and_no_baseline_means_threshold_zero() -> None:
    rows = _rows()
    threshold, source = judge(rows, (), {"ask_then_finish": "official quirk (README)"})
    assert threshold == 0.0 and "no honest non-oracle baseline" in source
    verdicts = {r.name: r.verdict for r in rows}
    assert verdicts["ask_then_finish"] == "documented: official quirk (README)"
    assert verdicts["finish_at_once"] == "FLAGGED" and verdicts["always_silent"] == ""  # baselines are never flagged
    report = AuditReport("X-v0", "set", [0, 1], 2, rows, (), threshold, source)
    assert [r.name for r in report.documented] == ["ask_then_finish"]
    data = report.to_dict()
    assert data["rows"][4]["mean"] == 1.0 and data["rows"][5]["success_rate"] == 0.5


def test_spread_and_example() -> None:
    assert spread(64, 4) == [0, 16, 32, 48] and spread(5, 8) == [0, 1, 2, 3, 4] and spread(10, 3) == [0, 3, 6]
    assert example(["wait()", "wait()", "wait()", "x" * 80]) == "wait() x3 > " + "x" * 59 + "\u2026"


def _source(observation: dict[str, Any]) -> list[Candidate]:
    items = [Candidate("click", f"tap {name}", {"action_type": "click", "name": name})
             for name in str(observation.get("screen", "")).split()]
    return items + [Candidate("ask", "ask", {"action_type": "ask_user", "text": "hi"})]


def test_a_script_plays_its_choices_then_finishes_and_finishes_when_a_choice_is_not_offered() -> None:
    finish = {"action_type": "finished"}
    source = CandidateSource(_source)
    script = Script("p", (Choice("click", 1), Choice("ask")), finish, source)
    script.reset({}, {})
    assert script.act({"screen": "a b c"}, {}) == {"action_type": "click", "name": "b"}
    assert script.act({"screen": ""}, {}) == {"action_type": "ask_user", "text": "hi"}
    assert script.act({"screen": ""}, {}) == finish and script.played == ["tap b", "ask", "finish"]
    script.reset({}, {})
    assert script.act({"screen": "a"}, {}) == finish  # only one click offered: the program cannot go on
    repeat = Script("r", ({"action_type": "wait"},), finish, tail="repeat")
    repeat.reset({}, {})
    assert [repeat.act({}, {})["action_type"] for _ in range(3)] == ["wait"] * 3
    assert source.families({"screen": "a b"}) == {"click": 2, "ask": 1}


def test_top_keeps_the_best_and_the_flagged_searched_programs() -> None:
    rows = [Row("silent", "baseline", [0.5]), *[Row(f"s{i}", "search", [i / 10]) for i in range(8)]]
    threshold, source = judge(rows, ("silent",), {})
    text = render(AuditReport("X-v0", "set", [0], 1, rows, ("silent",), threshold, source), top=2)
    shown = [line.split(" |")[0][2:] for line in text.splitlines() if "| search |" in line]
    assert shown[:2] == ["s6", "s7"]  # the two best (in search order), both flagged (0.6 and 0.7 > 0.5)
    assert shown[2:] == ["6 more searched programs"] and "| 6 more searched programs | search | <= 0.500 |" in text
