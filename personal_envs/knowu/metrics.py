"""KnowU metrics as pure functions over per-episode records, and the paper-style tables.

An episode record is the eval runner's JSON record (its ``metrics`` dict is read) or the metrics dict itself.
:func:`episode_metrics` builds that dict at episode end; the keys the aggregates read are

``split`` (general / personalized / proactive), ``role``, ``difficulty`` (easy / hard), ``score`` (S),
``success`` (S > 0.99), ``steps``, ``ask_user_count``, and for proactive episodes ``routine_applies``,
``rejected`` (the user rejected a proposal), ``silent`` (no action other than wait / finished / ask_user / answer /
status) and ``stopped_after_rejection``.

Definitions: SR = mean success; Score = mean S; Efficiency = 50 / mean steps; IE = mean(S / max(ask_user, 1));
Act = success rate over episodes whose routine applies; Silent = fraction of no-routine episodes that are silent;
Stop = fraction of rejected episodes with no action other than wait / finished / ask_user / answer / status after
the rejection.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from personal_envs.core.metrics import mean
from personal_envs.core.table import format_table
from personal_envs.knowu.judge import ScoreBreakdown
from personal_envs.knowu.taskspec import KnowUTask, first_rejection, mutating_steps

MAX_STEPS = 50
SPLITS: tuple[str, ...] = ("general", "personalized", "proactive")
DIFFICULTIES: tuple[str, ...] = ("easy", "hard")


def episode_metrics(task: KnowUTask, breakdown: ScoreBreakdown, trace: Sequence[Mapping[str, Any]],
                    steps: int | None = None) -> dict[str, Any]:
    """The per-episode ``info["metrics"]`` of a personalized or proactive episode."""
    rejected_at = first_rejection(trace)
    acting = mutating_steps(trace)
    metrics: dict[str, Any] = {
        "split": task.split, "role": task.role, "difficulty": task.difficulty, "template": task.template,
        "score": breakdown.score, "success": breakdown.success, "s_rule": breakdown.s_rule,
        "s_llm": breakdown.s_llm, "lambda": breakdown.lam, "judge": breakdown.judge_kind,
        "judge_error": breakdown.judge_error,
        "steps": len(trace) if steps is None else steps,
        "ask_user_count": sum(1 for s in trace if s.get("action_type") == "ask_user"),
        "rejected": rejected_at is not None,
        "silent": not acting,
        "stopped_after_rejection": None if rejected_at is None else not [i for i in acting if i > rejected_at],
    }
    if task.split == "proactive":
        metrics["routine_applies"] = bool(task.routine_applies)
    return metrics


def _metrics(record: Mapping[str, Any]) -> dict[str, Any]:
    inner = record.get("metrics")
    merged = dict(record)
    if isinstance(inner, Mapping):
        merged.update(inner)
    return merged


def _score(m: Mapping[str, Any]) -> float:
    value = m.get("score", m.get("reward", 0.0))
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _success(m: Mapping[str, Any]) -> bool:
    value = m.get("success")
    return bool(value) if value is not None else _score(m) > 0.99


def _steps(m: Mapping[str, Any]) -> float:
    value = m.get("steps", MAX_STEPS)
    return float(value) if isinstance(value, int | float) else float(MAX_STEPS)


def success_rate(records: Iterable[Mapping[str, Any]]) -> float:
    """Fraction of successful episodes (0 for none)."""
    return mean(float(_success(_metrics(r))) for r in records)


def average_score(records: Iterable[Mapping[str, Any]]) -> float:
    return mean(_score(_metrics(r)) for r in records)


def efficiency(records: Iterable[Mapping[str, Any]], max_steps: int = MAX_STEPS) -> float:
    """max_steps / average steps (0 for no episodes)."""
    steps = [_steps(_metrics(r)) for r in records]
    avg = mean(steps)
    return max_steps / avg if steps and avg > 0 else 0.0


def interaction_efficiency(records: Iterable[Mapping[str, Any]]) -> float:
    """mean(S / max(ask_user_count, 1))."""
    return mean(_score(m) / max(int(m.get("ask_user_count", 0) or 0), 1) for m in map(_metrics, records))


def act_rate(records: Iterable[Mapping[str, Any]]) -> float | None:
    """Success rate over proactive episodes whose routine applies (``None`` when there are none)."""
    chosen = [m for m in map(_metrics, records) if m.get("split") == "proactive" and m.get("routine_applies")]
    return mean(float(_success(m)) for m in chosen) if chosen else None


def silent_rate(records: Iterable[Mapping[str, Any]]) -> float | None:
    """Fraction of no-routine proactive episodes with no action beyond the passive ones."""
    chosen = [m for m in map(_metrics, records)
              if m.get("split") == "proactive" and m.get("routine_applies") is False]
    return mean(float(bool(m.get("silent"))) for m in chosen) if chosen else None


def stop_rate(records: Iterable[Mapping[str, Any]]) -> float | None:
    """Fraction of episodes with a rejection after which nothing but passive actions followed."""
    chosen = [m for m in map(_metrics, records) if m.get("rejected")]
    return mean(float(bool(m.get("stopped_after_rejection"))) for m in chosen) if chosen else None


def official_policy_rates(records: Sequence[Mapping[str, Any]]) -> dict[str, float | None] | None:
    """Act / Silent / Stop of the official proactive episodes among ``records`` as ``calc_paper_metrics.py`` computes
    them (:mod:`personal_envs.knowu.official.paper_metrics`); ``None`` when there are none."""
    from personal_envs.knowu.official.paper_metrics import episode_from_record
    from personal_envs.knowu.official.paper_metrics import summarize as official_summary

    episodes = [e for e in (episode_from_record(r) for r in records if "official_episode" in _metrics(r))
                if e is not None]
    if not episodes:
        return None
    policy = official_summary(episodes)["proactive_policy"]
    return {name.lower(): policy[name]["value"] for name in ("Act", "Silent", "Stop")}


def summarize(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Every metric for the given records (one split or a mix); the official proactive episodes' Act / Silent / Stop
    are the official script's."""
    by_difficulty = {d: [r for r in records if _metrics(r).get("difficulty") == d] for d in DIFFICULTIES}
    official = official_policy_rates(records)
    if official is not None:
        return {"episodes": len(records), "sr": success_rate(records), "score": average_score(records),
                "efficiency": efficiency(records), "ie": interaction_efficiency(records),
                "sr_easy": success_rate(by_difficulty["easy"]) if by_difficulty["easy"] else None,
                "sr_hard": success_rate(by_difficulty["hard"]) if by_difficulty["hard"] else None, **official}
    return {
        "episodes": len(records), "sr": success_rate(records), "score": average_score(records),
        "efficiency": efficiency(records), "ie": interaction_efficiency(records),
        "sr_easy": success_rate(by_difficulty["easy"]) if by_difficulty["easy"] else None,
        "sr_hard": success_rate(by_difficulty["hard"]) if by_difficulty["hard"] else None,
        "act": act_rate(records), "silent": silent_rate(records), "stop": stop_rate(records),
    }


def group_by(records: Sequence[Mapping[str, Any]], key: str) -> dict[str, list[Mapping[str, Any]]]:
    """Records grouped by a metrics key (missing values under ``"?"``), in first-seen order."""
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for record in records:
        groups.setdefault(str(_metrics(record).get(key, "?")), []).append(record)
    return groups


def summarize_by_split(records: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """:func:`summarize` per split present in the records."""
    groups = group_by(records, "split")
    return {split: summarize(groups[split]) for split in (*SPLITS, *groups) if split in groups}


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100.0 * value:.1f}"


def format_table2(records: Sequence[Mapping[str, Any]]) -> str:
    """The paper's Table 2 layout: one row per policy, SR (%) per split with easy / hard / all columns, overall SR;
    followed by the score, efficiency, IE and proactive Act / Silent / Stop per policy."""
    policies = group_by(records, "policy") if any("policy" in r for r in records) else {"run": list(records)}
    splits = [s for s in SPLITS if any(_metrics(r).get("split") == s for r in records)]
    headers = ["Policy"] + [f"{s.capitalize()} {c}" for s in splits for c in ("Easy", "Hard", "All")] + ["Overall"]
    rows, detail_rows = [], []
    for policy, group in policies.items():
        per_split = summarize_by_split(group)
        row: list[Any] = [policy]
        for split in splits:
            stats = per_split.get(split)
            row += ["-", "-", "-"] if stats is None else [_pct(stats["sr_easy"]), _pct(stats["sr_hard"]),
                                                          _pct(stats["sr"])]
        row.append(_pct(success_rate(group)))
        rows.append(row)
        for split in splits:
            stats = per_split.get(split)
            if stats is None:
                continue
            detail_rows.append([policy, split, stats["episodes"], f"{stats['score']:.3f}", f"{stats['efficiency']:.2f}",
                                f"{stats['ie']:.3f}", _pct(stats["act"]), _pct(stats["silent"]), _pct(stats["stop"])])
    table = format_table(headers, rows, title="KnowU-Bench success rate (%) - Table 2 layout")
    detail = format_table(["Policy", "Split", "N", "Score", "Eff.", "IE", "Act", "Silent", "Stop"], detail_rows,
                          title="Per split: average score, Efficiency = 50/avg steps, IE, proactive Act/Silent/Stop (%)")
    return f"{table}\n\n{detail}"


def format_role_breakdown(records: Sequence[Mapping[str, Any]]) -> str:
    """SR (%) per role and split, with the proactive Act / Silent / Stop per role."""
    splits = [s for s in SPLITS if any(_metrics(r).get("split") == s for r in records)]
    rows = []
    for role, group in group_by(records, "role").items():
        per_split = summarize_by_split(group)
        row: list[Any] = [role, len(group)]
        row += [_pct(per_split[s]["sr"]) if s in per_split else "-" for s in splits]
        proactive = per_split.get("proactive", {})
        row += [_pct(proactive.get("act")), _pct(proactive.get("silent")), _pct(proactive.get("stop"))]
        rows.append(row)
    headers = ["Role", "N", *[f"{s.capitalize()} SR" for s in splits], "Act", "Silent", "Stop"]
    return format_table(headers, rows, title="KnowU-Bench by role")


def report(records: Sequence[Mapping[str, Any]]) -> str:
    """Table 2 and the role breakdown (the registration's ``report`` function)."""
    if not records:
        return "KnowU-Bench: no episodes."
    from personal_envs.knowu.official.preference.tables import judge_line
    from personal_envs.knowu.official.release import task_set_line

    judged = judge_line(records)
    return f"{format_table2(records)}\n\n{format_role_breakdown(records)}\n{task_set_line(records)}" + (
        f"\n{judged}" if judged else "")
