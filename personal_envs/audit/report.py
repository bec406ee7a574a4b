"""The audit's table: each program's score next to the honest baselines, and which programs are flagged."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

#: A degenerate program must beat the threshold by more than this to be flagged (scores are exact here: the same
#: tasks, seeds and deterministic users for every program).
EPSILON = 1e-9
#: Row kinds, in table order.
KINDS: tuple[str, ...] = ("oracle", "baseline", "degenerate", "search")


@dataclass
class Row:
    """One program's results on the audited tasks.

    Attributes:
        name: Program name (``finish_at_once``, ``ask_user > finished``...).
        kind: ``"oracle"``, ``"baseline"`` (honest, non-oracle), ``"degenerate"`` or ``"search"``.
        scores: The episode scores (the paper's per-episode score, the env's reward), in task order.
        steps: Steps per episode.
        errors: Episodes that ended with a runner error (recorded, scored 0).
        example: The concrete actions of the first episode (for degenerate and searched programs).
        verdict: ``""``, ``"FLAGGED"`` or ``"documented: ..."`` (set by :func:`judge`).
    """

    name: str
    kind: str
    scores: list[float] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    example: str = ""
    verdict: str = ""

    @property
    def mean(self) -> float:
        """Mean episode score."""
        return sum(self.scores) / len(self.scores) if self.scores else 0.0

    @property
    def success_rate(self) -> float:
        """Share of episodes with score > 0.99."""
        return sum(1 for s in self.scores if s > 0.99) / len(self.scores) if self.scores else 0.0

    @property
    def mean_steps(self) -> float:
        """Mean episode length."""
        return sum(self.steps) / len(self.steps) if self.steps else 0.0


@dataclass
class AuditReport:
    """An id's audit: settings, the honest threshold and every row."""

    env_id: str
    task_set: str
    tasks: list[int]
    num_tasks: int
    rows: list[Row]
    baselines: tuple[str, ...] = ()
    threshold: float = 0.0
    threshold_from: str = ""
    env_kwargs: dict[str, Any] = field(default_factory=dict)

    @property
    def flagged(self) -> list[Row]:
        """Programs that beat the best honest non-oracle baseline and are not documented."""
        return [r for r in self.rows if r.verdict == "FLAGGED"]

    @property
    def documented(self) -> list[Row]:
        """Programs that beat it and are documented by the benchmark."""
        return [r for r in self.rows if r.verdict.startswith("documented")]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (with each row's mean, success rate and steps)."""
        out = asdict(self)
        for row, data in zip(self.rows, out["rows"], strict=True):
            data.update(mean=round(row.mean, 6), success_rate=round(row.success_rate, 6),
                        mean_steps=round(row.mean_steps, 3))
        return out


def judge(rows: Sequence[Row], baselines: Sequence[str], documented: Mapping[str, str]) -> tuple[float, str]:
    """Set each row's verdict; return the threshold (the best honest non-oracle baseline's mean, 0 without one)
    and where it comes from."""
    honest = [r for r in rows if r.kind == "baseline" and r.name in baselines]
    best = max(honest, key=lambda r: r.mean, default=None)
    threshold = best.mean if best is not None else 0.0
    source = best.name if best is not None else "no honest non-oracle baseline registered (threshold 0)"
    for row in rows:
        if row.kind in ("degenerate", "search") and row.mean > threshold + EPSILON:
            note = documented.get(row.name)
            row.verdict = f"documented: {note}" if note else "FLAGGED"
    return threshold, source


def render(report: AuditReport, top: int | None = None) -> str:
    """A Markdown table with a header line (id, task set, tasks, threshold) and the flags under it.

    ``top``: show only the ``top`` best searched programs (flagged ones always), and one line for the others.
    """
    tasks = (f"{len(report.tasks)} of {report.num_tasks} tasks" if len(report.tasks) < report.num_tasks
             else f"all {report.num_tasks} tasks")
    kwargs = f", env kwargs {report.env_kwargs}" if report.env_kwargs else ""
    lines = [f"{report.env_id} ({report.task_set}; {tasks}{kwargs}): threshold {report.threshold:.3f} "
             f"= {report.threshold_from}", "",
             "| program | kind | score | success | steps | verdict |", "|---|---|---:|---:|---:|---|"]
    order = {kind: i for i, kind in enumerate(KINDS)}
    searched = sorted((r for r in report.rows if r.kind == "search"), key=lambda r: -r.mean)
    hidden = [r for r in searched[top:] if not r.verdict] if top is not None else []
    for row in sorted(report.rows, key=lambda r: order.get(r.kind, len(KINDS))):
        if row in hidden:
            continue
        name = f"{row.name} (e.g. {row.example})" if row.example and row.kind in ("degenerate", "search") else row.name
        errors = f" ({len(row.errors)} errors)" if row.errors else ""
        lines.append(f"| {name} | {row.kind} | {row.mean:.3f} | {row.success_rate:.3f} | {row.mean_steps:.1f} | "
                     f"{row.verdict}{errors} |")
    if hidden:
        lines.append(f"| {len(hidden)} more searched programs | search | <= {max(r.mean for r in hidden):.3f} | | | |")
    lines.append("")
    if report.flagged:
        lines.append("FLAGGED (a degenerate program beats the best honest baseline): "
                     + "; ".join(f"{r.name} {r.mean:.3f} > {report.threshold:.3f}" for r in report.flagged))
    else:
        lines.append("no undocumented shortcut: no degenerate program beats the best honest baseline"
                     + (f" ({len(report.documented)} documented)" if report.documented else ""))
    return "\n".join(lines)
