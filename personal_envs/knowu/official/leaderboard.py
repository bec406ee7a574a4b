"""The published KnowU-Bench leaderboard beside a run: ``personal-envs knowu table RESULTS --leaderboard [PATH]``.

The leaderboard is the official repository's ``site/leaderboard.json`` (published models' success rates per split,
192 tasks, 50 steps), read at run time from the given path or, when none is given, from the release
(``<release>/site/leaderboard.json``); it is never shipped with the project.  The run's rows are its success rates
per policy over the episodes it holds, with the task counts, so a partial run is visible as such.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from personal_envs.core.errors import InputError, MissingDataError

#: Where the official repository keeps the leaderboard.
LEADERBOARD_PATH = "site/leaderboard.json"
#: The splits in the leaderboard's keys.
COLUMNS: tuple[str, ...] = ("overall", "general", "personalized", "proactive")


def find_leaderboard(path: str | Path | None = None, data_dir: str | None = None) -> Path:
    """The leaderboard file: ``path``, else the release's ``site/leaderboard.json``.

    Raises:
        MissingDataError: no such file (the message says where it was looked for and what to pass).
    """
    if path is not None:
        found = Path(path)
        if not found.is_file():
            raise MissingDataError(f"no leaderboard file at {found}")
        return found
    from personal_envs.knowu.official.release import find_release

    release = find_release(data_dir)
    candidate = release.root / LEADERBOARD_PATH if release is not None else None
    if candidate is None or not candidate.is_file():
        where = str(candidate) if candidate is not None else "no release found"
        raise MissingDataError(f"the published leaderboard is not in the data ({where}): pass --leaderboard PATH, the "
                               f"{LEADERBOARD_PATH} of ZJU-REAL/KnowU-Bench")
    return candidate


def load_leaderboard(path: Path) -> list[dict[str, Any]]:
    """The published rows (``model``, ``date``, ``overall``, ``general``... in percent).

    Raises:
        InputError: the file is not the leaderboard's JSON (the message says what is wrong).
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: not a readable leaderboard JSON ({exc})") from None
    rows = data.get("results") if isinstance(data, Mapping) else None
    if not isinstance(rows, list) or not all(isinstance(r, Mapping) and "model" in r for r in rows):
        raise InputError(f"{path}: no 'results' list of models (expected the official {LEADERBOARD_PATH})")
    return [dict(r) for r in rows]


def _cell(value: Any) -> str:
    return f"{float(value):.1f}" if isinstance(value, int | float) else "n/a"


def beside(published: Sequence[Mapping[str, Any]], runs: Mapping[str, Mapping[str, tuple[int, int]]],
           task_set: str) -> str:
    """The published rows and the run's rows in one table (SR % per split).

    Args:
        published: Leaderboard rows.
        runs: Per policy, per column (``overall`` and each split): (successes, episodes).
        task_set: The run's task set (comparable with the paper only when it is the official one).
    """
    lines = [f"KnowU-Bench leaderboard (SR %) beside this run (task set: {task_set})",
             f"{'model / policy':<34}{'Overall':>9}{'General':>9}{'Personal':>10}{'Proactive':>10}  source"]
    for row in published:
        name = str(row.get("model", "?"))[:33]
        cells = "".join(f"{_cell(row.get(c)):>{w}}" for c, w in zip(COLUMNS, (9, 9, 10, 10), strict=True))
        lines.append(f"{name:<34}{cells}  published {row.get('date', '')}".rstrip())
    for policy, counts in runs.items():
        rates: list[str] = []
        for column, width in zip(COLUMNS, (9, 9, 10, 10), strict=True):
            done, total = counts.get(column, (0, 0))
            rates.append(f"{100.0 * done / total:>{width}.1f}" if total else f"{'n/a':>{width}}")
        totals = "/".join(str(counts.get(c, (0, 0))[1]) for c in COLUMNS[1:])
        lines.append(f"{policy[:33]:<34}{''.join(rates)}  this run ({totals} episodes)")
    if not task_set.startswith("KnowU-Bench"):
        lines.append("note: this run's task set is not the official one; its rates are not comparable with the paper's")
    return "\n".join(lines)
