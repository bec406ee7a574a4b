"""Every case of the bad-input harness (``benchmarks/bad_input.py``) ends as the project promises: one ``error:``
line naming the culprit and exit 2, or a documented recovery (a ``warning:`` line, the command goes on); never a
traceback, never silence, never a hang (each case runs in its own process group, killed at its time limit).

The cases run two at a time once per session (about five minutes on two cores); each is then one test.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.bad_input import Result, run_all
from benchmarks.bad_input_cases import build_cases

CASES = build_cases()


@pytest.fixture(scope="session")
def results() -> dict[str, Result]:
    return {result.case.name: result for result in run_all(CASES, jobs=2)}


@pytest.mark.timeout(1800)
@pytest.mark.parametrize("name", [case.name for case in CASES])
def test_bad_input_ends_in_one_clear_line(name: str, results: dict[str, Any]) -> None:
    result = results[name]
    if result.outcome == "skipped":
        pytest.skip(result.message)
    wanted = "ok" if result.case.expect == "ok" else "clear"
    assert result.outcome == wanted, (f"{name} ({result.case.what}): {result.outcome}, exit {result.returncode}: "
                                      f"{result.message}")


def test_the_cases_cover_every_group_and_have_controls() -> None:
    groups = {case.group for case in CASES}
    assert groups == {"control", "data", "args", "results", "api"}
    assert len({case.name for case in CASES}) == len(CASES)
    assert all(case.marker for case in CASES if case.expect != "ok")  # every message must name its culprit
