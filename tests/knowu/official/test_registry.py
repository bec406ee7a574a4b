"""Builders by official class, variant names, the env's resolution of official names, and the listings."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from personal_envs.cli import main
from personal_envs.core.errors import InputError
from personal_envs.core.task import EpisodeTrace, Evaluation
from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.official import registry
from personal_envs.knowu.official.embedded import EMBEDDED_LABEL
from personal_envs.knowu.official.registry import BuildContext, build_variant, make_context
from personal_envs.knowu.official.release import OFFICIAL_LABEL, OfficialRelease
from personal_envs.knowu.official.resolve import resolve_official
from personal_envs.knowu.official.source import parse_release
from personal_envs.knowu.personas import MissingProfileField, official_personas
from personal_envs.knowu.task import PhoneTask, PhoneWorld
from personal_envs.simulators.phone.phone import Phone

ROUTINE = "WeekendSleeperTask"


class ProbeTask(PhoneTask):
    """A stand-in built from a context: it records what the builder got."""

    def __init__(self, ctx: BuildContext) -> None:
        self.ctx = ctx
        self.instruction = ctx.cls.goal or ""
        self.start = datetime(2026, 5, 22, 23, 0)

    def seed(self, phone: Phone) -> None:
        pass

    def verify(self, phone: Phone, trace: EpisodeTrace) -> Evaluation:
        return Evaluation(1.0, {}, [], "ok")


@pytest.fixture
def probe_builder() -> Iterator[None]:
    """A builder for one routine class, removed afterwards (a real builder, if any, is restored)."""
    registry.load_builders()
    previous = registry._BUILDERS.get(ROUTINE)

    def build(ctx: BuildContext) -> PhoneTask:
        ctx.field("identity.full_name")  # a field every official profile has
        return ProbeTask(ctx)

    registry.official_task(ROUTINE)(build)
    yield
    if previous is None:
        registry._BUILDERS.pop(ROUTINE, None)
    else:
        registry._BUILDERS[ROUTINE] = previous


def test_build_variant_names_and_labels(release: OfficialRelease, probe_builder: None) -> None:
    task = build_variant(f"{ROUTINE}@grandma", data_dir=release.root)
    assert isinstance(task, ProbeTask)
    assert task.task_id == f"{ROUTINE}@grandma" and task.split == "proactive" and task.task_set == OFFICIAL_LABEL
    assert task.ctx.role == "grandma" and task.ctx.logs and task.ctx.profile_file is not None
    noisy = build_variant(f"{ROUTINE}@grandma", data_dir=release.root, log_source="noise")
    assert isinstance(noisy, ProbeTask) and noisy.ctx.logs_file is not None
    assert noisy.ctx.logs_file.name == "grandma_noise_25pct.json"
    metrics = task.evaluate(PhoneWorld(Phone()), EpisodeTrace()).metrics
    assert metrics["task_set"] == OFFICIAL_LABEL


def test_errors_name_what_is_missing(release: OfficialRelease, probe_builder: None, tmp_path: Path) -> None:
    registry.load_builders()
    saved = registry._BUILDERS.pop("DeepWorkRoutineTask", None)
    try:
        with pytest.raises(NotImplementedError, match="no builder registered for routine class "
                                                      "DeepWorkRoutineTask"):
            build_variant("DeepWorkRoutineTask@user", data_dir=release.root)
    finally:
        if saved is not None:
            registry._BUILDERS["DeepWorkRoutineTask"] = saved
    source, personas = parse_release(release), official_personas(release.root)
    with pytest.raises(ValueError, match="its personas: student"):
        make_context(source, personas, "MessagesAskMomForMoneyTask", "grandma")
    with pytest.raises(ValueError, match="no persona variants"):
        make_context(source, personas, "BatterySaverGeneralTask", "user")
    bare = tmp_path / "newcomer.yaml"
    bare.write_text("user_profile:\n  habits: {}\n", encoding="utf-8")
    with pytest.raises(MissingProfileField, match=f"identity.*{ROUTINE}@newcomer"):
        build_variant(ROUTINE, data_dir=release.root, profile=bare)


def test_resolution_official_custom_and_removed_project_ids(release: OfficialRelease, official_dir: Path,
                                                probe_builder: None, tmp_path: Path) -> None:
    every_role = resolve_official("proactive", ROUTINE, data_dir=official_dir)
    assert every_role is not None
    assert [t.task_id for t in every_role] == [f"{ROUTINE}@{r}" for r in ("developer", "grandma", "student", "user")]
    one = resolve_official("proactive", ROUTINE, profile="student", data_dir=official_dir)
    assert one is not None and [t.task_id for t in one] == [f"{ROUTINE}@student"]
    # a persona the project never saw, in the official format
    profile = tmp_path / "newcomer.yaml"
    profile.write_text((release.profiles_dir / "user.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    logs = tmp_path / "newcomer.json"
    logs.write_text('[{"time": "2026-01-01T08:00:00+08:00", "location": "x", "action": "y"}]', encoding="utf-8")
    custom = resolve_official("proactive", ROUTINE, profile=profile, logs=logs, data_dir=official_dir)
    assert custom is not None and custom[0].task_id == f"{ROUTINE}@newcomer"
    assert isinstance(custom[0], ProbeTask) and custom[0].ctx.logs == [{"time": "2026-01-01T08:00:00+08:00",
                                                                        "location": "x", "action": "y"}]
    # the project's ids and task_set="project" are gone: a clear message, with or without a release
    with pytest.raises(InputError, match="was removed"):
        resolve_official("proactive", "weekend_sleeper@student", data_dir=official_dir)
    with pytest.raises(InputError, match="was removed"):
        resolve_official("proactive", ROUTINE, data_dir=official_dir, task_set="project")
    with pytest.raises(ValueError, match=r"it is a general task: pass family='general'\)"):
        resolve_official("proactive", "BatterySaverGeneralTask", data_dir=official_dir)


def test_without_a_release_official_names_and_the_default_run_the_embedded_cards(tmp_path: Path) -> None:
    named = resolve_official("general", "BatterySaverGeneralTask", data_dir=tmp_path)
    assert named is not None and [t.task_id for t in named] == ["BatterySaverGeneralTask"]
    default = resolve_official("proactive", None, data_dir=tmp_path)
    assert default is not None and len(default) == 64 and {t.task_set for t in default} == {EMBEDDED_LABEL}
    with pytest.raises(InputError, match="was removed"):  # a project id
        resolve_official("proactive", "weekend_sleeper@student", data_dir=tmp_path)
    with pytest.raises(InputError, match=r"profile='student' is neither a persona of the set \(designer, engineer"):
        resolve_official("proactive", None, profile="student", data_dir=tmp_path)  # a project role
    # an unknown name is told by the env's own words (task=, family=), a name of another family names its family=
    with pytest.raises(InputError, match=r"^task='NoSuchGeneralTask' is no official task of family='general'"):
        resolve_official("general", "NoSuchGeneralTask", data_dir=tmp_path)
    with pytest.raises(InputError, match=r"it is a routine task: pass family='proactive'\)") as wrong:
        resolve_official("personalized", "WeekendSleeperTask@engineer", data_dir=tmp_path)
    assert "split" not in str(wrong.value)


def test_env_runs_official_names(official_dir: Path, probe_builder: None) -> None:
    env = KnowUEnv(family="proactive", task=f"{ROUTINE}@developer", data_dir=str(official_dir), screenshot=False)
    try:
        assert [t.task_id for t in env.tasks] == [f"{ROUTINE}@developer"]
        assert env.task_set_label == OFFICIAL_LABEL
    finally:
        env.close()
    with pytest.raises(InputError, match="was removed"):
        KnowUEnv(family="proactive", task="weekend_sleeper@student", data_dir=str(official_dir), screenshot=False)


def test_cli_tasks_lists_official_names(official_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tasks", "KnowU-Proactive-v0", "--data-dir", str(official_dir)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("# KnowU-Proactive-v0: task set: KnowU-Bench 0dd7989")
    assert lines[0].endswith(", 64 variants")
    assert len(lines) == 65 and any(line.startswith(f"{ROUTINE}@grandma") for line in lines)
    assert main(["tasks", "KnowU-General-v0"]) == 0
    out = capsys.readouterr().out
    assert EMBEDDED_LABEL in out.splitlines()[0] and "BatterySaverGeneralTask" in out.splitlines()[1:]
