"""Reading runs: a results file, its records grouped by env id and policy, and their trajectories."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from personal_envs.core.errors import InputError, MissingDataError
from personal_envs.core.schema import read_json, validate
from personal_envs.run_records import Warn, print_warning, read_records
from personal_envs.trajectories import schema
from personal_envs.trajectories.recorder import (
    SIZE_FILE,
    SUMMARY_FILE,
    TRAJECTORY_FILE,
    episode_dirname,
    run_dirname,
    trajectory_root,
)

#: Keys of a record's ``task_info`` / ``metrics`` that name an episode's category, in order of preference.
CATEGORY_KEYS: tuple[str, ...] = ("category", "template", "task_type", "kind")
#: Keys that name an episode's split, in order of preference.
SPLIT_KEYS: tuple[str, ...] = ("split", "difficulty", "mode", "task_set")


@dataclass
class Run:
    """One env id and policy of a results file: its latest record per episode and where its trajectories are."""

    results: Path
    env_id: str
    policy: str
    records: list[dict[str, Any]]

    @property
    def key(self) -> str:
        """A short unique name: ``<results stem>/<env id>__<policy>``."""
        return f"{self.results.stem}/{run_dirname(self.env_id, self.policy)}"

    @property
    def label(self) -> str:
        """Legend label: the policy, and the results file when its name does not already say the policy."""
        return self.results.stem if self.policy in self.results.stem else f"{self.policy} ({self.results.stem})"

    @property
    def trajectory_dir(self) -> Path:
        """Directory of this run's trajectories."""
        return trajectory_root(self.results) / run_dirname(self.env_id, self.policy)

    def episode_dir(self, episode: int) -> Path:
        """Directory of one episode's trajectory (it may not exist: recording off, or the episode failed early)."""
        return self.trajectory_dir / episode_dirname(episode)

    def has_trajectory(self, episode: int) -> bool:
        """True if episode ``episode`` has a written trajectory."""
        return (self.episode_dir(episode) / TRAJECTORY_FILE).is_file()

    def summary(self, episode: int, warn: Warn | None = print_warning) -> dict[str, Any]:
        """The small ``summary.json`` of an episode's trajectory (steps, action errors, user turns), or ``{}`` when
        it has none, or when it is unreadable or breaks :class:`~personal_envs.trajectories.schema.SummaryFile`
        (then reported through ``warn``)."""
        path = self.episode_dir(episode) / SUMMARY_FILE
        if not path.is_file():
            return {}
        try:
            data = read_json(path, "episode summary")
            validate(schema.SummaryFile, data, str(path))
        except InputError as exc:
            if warn is not None:
                warn(f"{exc}; the episode list shows no summary for episode {episode}")
            return {}
        return dict(data)

    def size(self, warn: Warn | None = print_warning) -> dict[str, Any] | None:
        """The run's ``size.json`` (episodes, images, bytes), or ``None`` when it has none, or when it is unreadable
        or breaks :class:`~personal_envs.trajectories.schema.SizeFile` (then reported through ``warn``)."""
        path = self.trajectory_dir / SIZE_FILE
        if not path.is_file():
            return None
        try:
            data = read_json(path, "size report")
            validate(schema.SizeFile, data, str(path))
        except InputError as exc:
            if warn is not None:
                warn(f"{exc}; the run page shows no size for this run")
            return None
        return dict(data)

    def record(self, episode: int) -> dict[str, Any] | None:
        """The record of episode ``episode``."""
        return next((r for r in self.records if r["episode"] == episode), None)


def category_of(record: dict[str, Any]) -> str:
    """The record's category (task category, template, task type or kind; ``"all"`` if none)."""
    return _first(record, CATEGORY_KEYS) or "all"


def split_of(record: dict[str, Any]) -> str:
    """The record's split (split, difficulty, mode or task set; ``"all"`` if none)."""
    return _first(record, SPLIT_KEYS) or "all"


def success_of(record: dict[str, Any]) -> bool:
    """Whether the episode succeeded: the ``success`` / ``completed`` / ``correct`` metric, else score >= 1."""
    metrics = record.get("metrics") or {}
    for key in ("success", "completed", "correct"):
        value = metrics.get(key)
        if isinstance(value, bool | int | float) and value is not None:
            return bool(value >= 1 if not isinstance(value, bool) else value)
    return float(record.get("score") or 0.0) >= 1.0 - 1e-9


def _first(record: dict[str, Any], keys: Sequence[str]) -> str:
    for source in (record.get("task_info") or {}, record.get("metrics") or {}):
        for key in keys:
            value = source.get(key)
            if isinstance(value, str) and value:
                return value
    return ""


def load_runs(paths: Sequence[str | os.PathLike[str]], warn: Warn | None = print_warning) -> list[Run]:
    """Every (env id, policy) run in the given results files, latest record per episode, in file order.

    A path may also be a ``*.trajectories`` directory (its results file beside it is used).  Lines that are not
    valid records are skipped and reported through ``warn`` (:func:`personal_envs.run_records.read_records`).

    Raises:
        MissingDataError: a results file does not exist.
    """
    runs: list[Run] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir() and path.name.endswith(".trajectories"):
            path = path.with_name(path.name[: -len(".trajectories")] + ".jsonl")
        if not path.is_file():
            raise MissingDataError(f"no results file at {path}")
        groups: dict[tuple[str, str], dict[int, dict[str, Any]]] = {}
        for record in read_records(path, warn=warn):
            groups.setdefault((record["env_id"], record.get("policy", "")), {})[record["episode"]] = record
        for (env_id, policy), by_episode in groups.items():
            runs.append(Run(path, env_id, policy, [by_episode[i] for i in sorted(by_episode)]))
    return runs


def load_trajectory(run: Run, episode: int) -> dict[str, Any] | None:
    """The parsed ``trajectory.json`` of an episode, or ``None`` if it has none.

    Raises:
        InputError: the file is unreadable, not JSON, or breaks
            :class:`~personal_envs.trajectories.schema.TrajectoryFile` (file and field named).
    """
    path = run.episode_dir(episode) / TRAJECTORY_FILE
    if not path.is_file():
        return None
    data = read_json(path, "trajectory")
    validate(schema.TrajectoryFile, data, str(path))
    return dict(data)
