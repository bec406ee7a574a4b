"""The KnowU-Bench table for a run: success rate and average score per split and difficulty, efficiency and
interaction efficiency, from the eval runner's episode records."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from personal_envs.knowu.env import MAX_STEPS


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def summarize(records: Iterable[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Metrics per group (``all``, each split, each split/difficulty)."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        metrics = record.get("metrics") or {}
        split = str(metrics.get("split", "general"))
        difficulty = str(metrics.get("difficulty", ""))
        groups["all"].append(record)
        groups[split].append(record)
        if difficulty:
            groups[f"{split}/{difficulty}"].append(record)
    table: dict[str, dict[str, float]] = {}
    for name, rows in groups.items():
        scores = [float((r.get("metrics") or {}).get("score", r.get("score") or 0.0)) for r in rows]
        steps = [float(r.get("steps") or 0) for r in rows]
        ie = [float((r.get("metrics") or {}).get("interaction_efficiency", 0.0)) for r in rows]
        avg_steps = _mean(steps)
        table[name] = {
            "episodes": float(len(rows)),
            "SR": _mean([1.0 if s > 0.99 else 0.0 for s in scores]),
            "score": _mean(scores),
            "avg_steps": avg_steps,
            "efficiency": MAX_STEPS / avg_steps if avg_steps else 0.0,
            "IE": _mean(ie),
            "errors": float(sum(1 for r in rows if r.get("error"))),
        }
    return table


def report(records: list[dict[str, Any]]) -> str:
    """The run's table as text (SR and scores in percent)."""
    table = summarize(records)
    order = ["all"] + sorted(k for k in table if k != "all")
    header = f"{'group':<24}{'n':>5}{'SR %':>8}{'score %':>9}{'steps':>8}{'Eff.':>7}{'IE':>7}{'errors':>8}"
    from personal_envs.knowu.official.release import task_set_line

    lines = [task_set_line(records), header, "-" * len(header)]
    for name in order:
        row = table[name]
        lines.append(
            f"{name:<24}{row['episodes']:>5.0f}{100 * row['SR']:>8.1f}{100 * row['score']:>9.1f}"
            f"{row['avg_steps']:>8.1f}{row['efficiency']:>7.2f}{row['IE']:>7.2f}{row['errors']:>8.0f}"
        )
    return "\n".join(lines)
