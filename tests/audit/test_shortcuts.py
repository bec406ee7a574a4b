"""The shortcut audit on real envs: it finds the phone-number shortcut where the official parser keeps it
(``protocol="paper"``) and not in the default protocol, the command's exit status says so, and a small budget runs
on every registered id."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from personal_envs.audit import audit_shortcuts, render
from personal_envs.audit.spec import AuditSpec
from personal_envs.cli import main
from personal_envs.core.registration import all_env_ids

OFFICIAL = {"task": ["WeekendSleeperTask@student", "WeekendSleeperTask@developer"]}


@pytest.fixture()
def release(official_dir: Path) -> dict[str, Any]:
    return {**OFFICIAL, "data_dir": str(official_dir)}


def _row(report: Any, name: str) -> Any:
    return next(r for r in report.rows if r.name == name)


def test_the_phone_question_is_no_shortcut_in_the_default_protocol(release: dict[str, Any]) -> None:
    report = audit_shortcuts("KnowU-Proactive-v0", 2, max_programs=4, env_kwargs=release)
    assert report.task_set == "KnowU-Bench 0dd7989" and report.threshold_from == "always_silent"
    assert report.threshold == 0.5  # the student has the habit (silence fails), the developer not
    assert _row(report, "ask_irrelevant_then_finish").mean == 0.5 and _row(report, "oracle").mean == 1.0
    assert _row(report, "ask_irrelevant_then_finish").example.startswith("ask_user(text='What is your phone number?')")
    assert report.flagged == [] and report.documented == [], render(report)
    assert {r.kind for r in report.rows} == {"oracle", "baseline", "degenerate", "search"}


def test_under_the_paper_protocol_the_audit_finds_it_and_the_spec_documents_it(release: dict[str, Any]) -> None:
    report = audit_shortcuts("KnowU-Proactive-v0", 2, max_programs=0, env_kwargs={**release, "protocol": "paper"})
    row = _row(report, "ask_irrelevant_then_finish")
    assert row.mean == 1.0 > report.threshold == 0.5
    assert row.verdict.startswith("documented: official quirk kept under protocol='paper'")
    assert report.flagged == []


def test_the_command_exits_1_on_an_undocumented_shortcut_and_writes_json(
        release: dict[str, Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    import personal_envs.knowu.audit as knowu_audit

    original = knowu_audit.audit_spec

    def spec(env_id: str, env_kwargs: Any = None) -> AuditSpec:  # the same spec, documenting nothing
        from dataclasses import replace

        return replace(original(env_id, env_kwargs), documented={})

    monkeypatch.setattr(knowu_audit, "audit_spec", spec)
    kwargs = json.dumps({**release, "task": ["WeekendSleeperTask@student"], "protocol": "paper"})
    out = tmp_path / "audit.json"
    code = main(["audit", "shortcuts", "--env", "KnowU-Proactive-v0", "--budget", "1", "--programs", "0",
                 "--env-kwargs", kwargs, "--json", str(out)])
    captured = capsys.readouterr()
    assert code == 1 and "undocumented shortcut(s): KnowU-Proactive-v0: ask_irrelevant_then_finish" in captured.err
    assert "| ask_irrelevant_then_finish (e.g." in captured.out and "FLAGGED" in captured.out
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data[0]["env_id"] == "KnowU-Proactive-v0" and data[0]["threshold"] == 0.0
    assert main(["audit", "shortcuts", "--env", "Nope-v0"]) == 2
    assert "error: unknown env id 'Nope-v0'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:  # argparse: a budget below 1 is a usage error
        main(["audit", "shortcuts", "--env", "KnowU-Proactive-v0", "--budget", "0"])
    assert exit_info.value.code == 2 and "must be at least 1" in capsys.readouterr().err


#: Env arguments that keep the browser ids' small-budget audit short (their step limit bounds the programs that
#: run until it; docs/audit.md's figures use the real limits).
SHORT: dict[str, dict[str, Any]] = {"WebMall": {"max_steps": 8}, "BrowserArena": {"max_steps": 5}}
#: What one task can flag that the whole task list does not. None today: the embedded default's first proactive
#: variant is one whose habit does not apply (always_silent 1.0, always_act 0.0). Were it one whose habit applies,
#: the registered always_act (which knows the routine's action) would beat silence there and be flagged.
ONE_TASK_FLAGS: dict[str, set[str]] = {}


@pytest.mark.skipif(os.environ.get("PERSONAL_ENVS_SLOW_TESTS") == "0", reason="PERSONAL_ENVS_SLOW_TESTS=0")
@pytest.mark.parametrize("env_id", all_env_ids())
def test_a_small_budget_runs_on_every_id(env_id: str) -> None:
    kwargs = next((v for k, v in SHORT.items() if env_id.startswith(k)), {})
    report = audit_shortcuts(env_id, 1, beam=1, max_programs=2, env_kwargs=kwargs)
    names = [r.name for r in report.rows]
    assert {"finish_at_once", "always_act", "repeat_first_action", "random"} <= set(names)
    assert len([r for r in report.rows if r.kind == "search"]) == 2
    assert all(len(r.scores) == 1 for r in report.rows) and not [r.errors for r in report.rows if r.errors]
    assert {r.name for r in report.flagged} == ONE_TASK_FLAGS.get(env_id, set()), render(report)
