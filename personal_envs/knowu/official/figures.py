"""Figures of merged KnowU runs (``personal-envs knowu table RESULTS... --figures DIR``): what the paper's tables
say, drawn per policy, from the same numbers the tables print (:mod:`personal_envs.knowu.official.paper_metrics`).

* ``sr_by_split.png``: success rate per split and difficulty (the Table 2 layout);
* ``proactive_calibration.png``: the proactive Act / Silent / Stop rates (intervention calibration);
* ``per_role.png``: average score and AveQueries per user role.

Each function returns the plotted series too, so a test can check the figure's data rather than its pixels.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from personal_envs.knowu.official.paper_metrics import SPLITS, Episode, summarize, traj_metrics


def _policies(episodes: Sequence[Episode]) -> dict[str, list[Episode]]:
    groups: dict[str, list[Episode]] = {}
    for episode in episodes:
        groups.setdefault(str(episode.extra.get("policy", "run")), []).append(episode)
    return groups


def _rate(values: Sequence[bool]) -> float:
    return 100.0 * sum(values) / len(values) if values else float("nan")


def sr_by_split(episodes: Sequence[Episode]) -> dict[str, dict[str, float]]:
    """Per policy, SR (%) of each ``<split> <difficulty>`` group (NaN where a run has none)."""
    series: dict[str, dict[str, float]] = {}
    for policy, group in _policies(episodes).items():
        series[policy] = {f"{split} {diff}": _rate([e.success for e in group if e.split == split
                                                    and e.difficulty == diff])
                          for split in SPLITS for diff in ("easy", "hard")}
    return series


def proactive_calibration(episodes: Sequence[Episode]) -> dict[str, dict[str, float]]:
    """Per policy, the proactive Act / Silent / Stop values (%) as the official script computes them."""
    series: dict[str, dict[str, float]] = {}
    for policy, group in _policies(episodes).items():
        summary = summarize(group)["proactive_policy"]
        series[policy] = {name: (100.0 * summary[name]["value"] if summary[name]["value"] is not None
                                 else float("nan")) for name in ("Act", "Silent", "Stop")}
    return series


def per_role(episodes: Sequence[Episode]) -> dict[str, dict[str, tuple[float, float]]]:
    """Per policy and role: (average score, AveQueries)."""
    series: dict[str, dict[str, tuple[float, float]]] = {}
    for policy, group in _policies(episodes).items():
        roles: dict[str, list[Episode]] = {}
        for episode in group:
            if episode.role:
                roles.setdefault(str(episode.role), []).append(episode)
        series[policy] = {role: (sum(e.score for e in items) / len(items),
                                 sum(traj_metrics(e.traj).queries for e in items) / len(items))
                          for role, items in sorted(roles.items())}
    return series


def _bars(ax: Any, series: dict[str, dict[str, float]], ylabel: str) -> None:
    import numpy as np

    groups = list(dict.fromkeys(key for values in series.values() for key in values))
    width = 0.8 / max(1, len(series))
    x = np.arange(len(groups))
    for index, (policy, values) in enumerate(series.items()):
        ax.bar(x + index * width, [values.get(g, float("nan")) for g in groups], width, label=policy)
    ax.set_xticks(x + width * (len(series) - 1) / 2, groups, rotation=30, ha="right")
    ax.set_ylabel(ylabel)
    ax.legend(fontsize="small")


def write_figures(episodes: Sequence[Episode], directory: str | os.PathLike[str]) -> list[Path]:
    """Draw the three figures into ``directory`` (PNG); return their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, title, series, ylabel in (
            ("sr_by_split.png", "Success rate by split and difficulty", sr_by_split(episodes), "SR (%)"),
            ("proactive_calibration.png", "Proactive calibration (Act / Silent / Stop)",
             proactive_calibration(episodes), "%")):
        fig, ax = plt.subplots(figsize=(8, 4))
        _bars(ax, series, ylabel)
        ax.set_title(title)
        fig.tight_layout()
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        written.append(out / name)
    roles = per_role(episodes)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    _bars(left, {p: {r: v[0] for r, v in values.items()} for p, values in roles.items()}, "average score")
    _bars(right, {p: {r: v[1] for r, v in values.items()} for p, values in roles.items()}, "AveQueries")
    fig.suptitle("Per user role")
    fig.tight_layout()
    fig.savefig(out / "per_role.png", dpi=110)
    plt.close(fig)
    written.append(out / "per_role.png")
    return written
