"""Charts of eval runs (``personal-envs plot``): the paper's metrics per category and per split with error bars over
episodes, several runs on one chart, and success against episode length.  Needs matplotlib (the ``plot`` extra)."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from personal_envs.core.errors import InputError
from personal_envs.core.schema import read_text, validate
from personal_envs.trajectories import schema
from personal_envs.trajectories.store import Run, category_of, split_of, success_of

#: The per-episode metrics each benchmark's paper reports (by env id prefix); ``score`` for anything else.
PAPER_METRICS: dict[str, tuple[str, ...]] = {
    "PersonalWAB": ("function_accuracy", "result_accuracy"),
    "WebMall": ("completed", "precision", "recall", "f1"),
    "KnowU": ("success", "score", "interaction_efficiency"),
    "BrowserArena": ("score",),
}


def paper_metrics(env_id: str) -> tuple[str, ...]:
    """Metric names plotted for ``env_id``."""
    return next((names for prefix, names in PAPER_METRICS.items() if env_id.startswith(prefix)), ("score",))


def metric_value(record: dict[str, Any], name: str) -> float | None:
    """A record's value of metric ``name`` (``score``: the episode score), ``None`` if absent or not a number."""
    if name == "success":
        return float(success_of(record))
    value = (record.get("metrics") or {}).get(name)
    if value is None and name == "score":
        value = record.get("score")
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float) and math.isfinite(float(value)):
        return float(value)
    return None


def mean_and_error(values: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error of the mean (0 for fewer than two values)."""
    if not values:
        return math.nan, 0.0
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, 0.0
    variance = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return mean, math.sqrt(variance / len(values))


def grouped(runs: Sequence[Run], metric: str, group: Callable[[dict[str, Any]], str]
            ) -> tuple[list[str], list[list[tuple[float, float, int]]]]:
    """Groups (sorted) and, per run, (mean, standard error, episodes) of ``metric`` in each group."""
    groups = sorted({group(r) for run in runs for r in run.records})
    table = []
    for run in runs:
        row = []
        for name in groups:
            values = [v for r in run.records if group(r) == name and (v := metric_value(r, metric)) is not None]
            mean, error = mean_and_error(values)
            row.append((mean, error, len(values)))
        table.append(row)
    return groups, table


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise RuntimeError("plots need matplotlib: pip install 'personal-envs[plot]'") from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_bars(runs: Sequence[Run], group: Callable[[dict[str, Any]], str], title: str, path: Path) -> Path:
    """One panel per paper metric, bars per group, one colour per run, error bars = standard error."""
    plt = _pyplot()
    metrics = paper_metrics(runs[0].env_id)
    groups = sorted({group(r) for run in runs for r in run.records})
    width_in = max(6.0, 0.5 * len(groups) * max(1, len(runs)) + 2)
    figure, axes = plt.subplots(len(metrics), 1, figsize=(min(width_in, 24), 2.6 * len(metrics) + 0.8),
                                squeeze=False)
    bar = 0.8 / len(runs)
    for axis, metric in zip(axes[:, 0], metrics, strict=True):
        names, table = grouped(runs, metric, group)
        for k, (run, row) in enumerate(zip(runs, table, strict=True)):
            xs = [i - 0.4 + bar * (k + 0.5) for i in range(len(names))]
            means = [0.0 if math.isnan(m) else m for m, _, _ in row]
            axis.bar(xs, means, bar, yerr=[e for _, e, _ in row], capsize=3, label=run.label)
        axis.set_ylabel(metric)
        axis.set_xticks(range(len(names)))
        axis.set_xticklabels(names, rotation=30 if len(names) > 4 else 0, ha="right" if len(names) > 4 else "center",
                             fontsize=8)
        axis.grid(axis="y", alpha=0.3)
    axes[0, 0].set_title(title)
    axes[0, 0].legend(fontsize=8, loc="best")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return path


def plot_success_vs_steps(runs: Sequence[Run], title: str, path: Path) -> Path:
    """Success rate (with standard error) against the number of steps an episode took, one line per run."""
    plt = _pyplot()
    figure, axis = plt.subplots(figsize=(6.5, 3.8))
    for run in runs:
        by_steps: dict[int, list[float]] = {}
        for record in run.records:
            by_steps.setdefault(int(record.get("steps") or 0), []).append(float(success_of(record)))
        steps = sorted(by_steps)
        stats = [mean_and_error(by_steps[s]) for s in steps]
        axis.errorbar(steps, [m for m, _ in stats], yerr=[e for _, e in stats], marker="o", capsize=3,
                      label=f"{run.label} (n={len(run.records)})")
    axis.set_xlabel("steps in the episode")
    axis.set_ylabel("success rate")
    axis.set_ylim(-0.05, 1.05)
    axis.set_title(title)
    axis.grid(alpha=0.3)
    axis.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return path


def plot_runs(runs: Sequence[Run], out: str | os.PathLike[str], fmt: str = "png") -> list[Path]:
    """Every chart for ``runs`` (grouped by env id) in ``out``; return the files written."""
    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    by_env: dict[str, list[Run]] = {}
    for run in runs:
        by_env.setdefault(run.env_id, []).append(run)
    written = []
    for env_id, env_runs in by_env.items():
        written.append(plot_bars(env_runs, category_of, f"{env_id}: paper metrics per category",
                                 target / f"{env_id}__by_category.{fmt}"))
        written.append(plot_bars(env_runs, split_of, f"{env_id}: paper metrics per split",
                                 target / f"{env_id}__by_split.{fmt}"))
        written.append(plot_success_vs_steps(env_runs, f"{env_id}: success against steps",
                                             target / f"{env_id}__success_vs_steps.{fmt}"))
    return written


def read_curve(file: str | os.PathLike[str]) -> list[dict[str, str]]:
    """The rows of a learning-curve CSV that are not blank, each checked against
    :class:`~personal_envs.trajectories.schema.CurveRow`."""
    import csv
    import io

    text = read_text(file, "learning-curve CSV")
    try:
        rows = [row for row in csv.DictReader(io.StringIO(text, newline="")) if any(row.values())]
    except csv.Error as exc:
        raise InputError(f"{file}: not a readable CSV file ({exc})") from None
    for number, row in enumerate(rows, start=2):  # an empty cell counts as missing
        validate(schema.CurveRow, {k: v for k, v in row.items() if v not in ("", None)}, f"{file} line {number}")
    if not rows:
        raise InputError(f"{file}: no rows; a learning curve has the columns timesteps and mean_reward")
    return rows


def plot_learning_curve(csv_files: Sequence[str | os.PathLike[str]], out: str | os.PathLike[str],
                        x: str = "timesteps", y: str = "mean_reward") -> Path:
    """Learning curves from CSV logs (``examples/train_ppo.py --log-dir``): ``y`` against ``x``, one line per file.

    Raises:
        InputError: a file is unreadable, or a row breaks :class:`~personal_envs.trajectories.schema.CurveRow`
            (file, line and column named), or a file has no rows.
    """
    curves = {file: read_curve(file) for file in csv_files}
    plt = _pyplot()
    figure, axis = plt.subplots(figsize=(6.5, 3.8))
    for file, rows in curves.items():
        axis.plot([float(r[x]) for r in rows], [float(r[y]) for r in rows], marker=".", label=Path(file).parent.name)
        if rows and rows[0].get("random_reward"):
            axis.axhline(float(rows[0]["random_reward"]), linestyle=":", linewidth=1,
                         label=f"{Path(file).parent.name} random")
    axis.set_xlabel(x)
    axis.set_ylabel(y)
    axis.grid(alpha=0.3)
    axis.legend(fontsize=8)
    figure.tight_layout()
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    plt.close(figure)
    return path
