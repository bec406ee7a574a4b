"""KnowU tables say which judge scored S_llm."""

from __future__ import annotations

from personal_envs.knowu.official.paper_metrics import report_records
from personal_envs.knowu.official.preference.tables import judge_line


def _record(kind: str, error: str | None = None) -> dict[str, object]:
    return {"steps": 5, "metrics": {"split": "personalized", "difficulty": "easy", "role": "student", "score": 1.0,
                                    "success": True, "judge": kind, "judge_error": error, "ask_user_count": 0}}


def test_a_fallback_judge_is_named_in_the_tables() -> None:
    records = [_record("fallback"), _record("fallback"), _record("llm"), _record("fallback-after-error", "HTTP 500"),
               _record("none (pure rule)")]
    line = judge_line(records)
    assert line.startswith("judge: fallback on 2 of 4; fallback-after-error on 1 of 4; llm on 1 of 4")
    assert "1 judge error(s)" in line and "not the paper's LLM judge" in line
    assert line in report_records(records).splitlines()[:2]
    assert judge_line([_record("llm")]) == "judge: llm on 1 of 1 judged episodes; 0 judge error(s)"
    assert judge_line([_record("none (pure rule)")]) == ""
