"""The paper's metrics exactly as the official ``scripts/calc_paper_metrics.py`` computes them, and its tables.

An :class:`Episode` holds what the official script reads from a run directory: the variant name
(``"WeekendSleeperTask@grandma"``), its split, the score, and the trajectory in the official ``traj.json`` shape
(one entry per step: ``{"action": {"action_type": ...}, "ask_user_response": <the reply the agent saw before this
step's action>}``).  :func:`trajectory_from_trace` converts the project's
:class:`~personal_envs.core.task.EpisodeTrace` into that shape.

Rules (reimplemented from the script): success = score > 0.99; steps = trajectory entries; queries = ``ask_user``
actions; the user's decision is the LAST decision parsed from the responses (``<decision>`` tag, else the words
"reject" / "accept"); proactive buckets are disjoint: ``reject`` when that last decision is a rejection, else
``need`` / ``noneed`` from the official habit-key map and the role's profile.  Act = success over ``need``; Silent =
no engagement action over ``noneed`` (a substantive ``answer`` is engagement, a generic one is not); Stop = no
action other than wait / finished / ask_user / answer from the first rejection on (or after the last question).
Efficiency = 50 / average steps; IE = mean(score / max(queries, 1)) (personalized and proactive).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from personal_envs.core.errors import InputError
from personal_envs.core.schema import validate
from personal_envs.knowu import schema
from personal_envs.run_records import TableRecord, Warn, print_warning, read_records

SUCCESS_THRESHOLD = 0.99
MAX_STEPS = 50
DECISION_RE = re.compile(r"<decision>\s*(accept|reject)\s*</decision>", re.IGNORECASE | re.DOTALL)
GENERIC_TERMINAL_ANSWERS: frozenset[str] = frozenset({"", "task finished", "task failed", "finished", "failed",
                                                      "success"})
NON_ENGAGEMENT_ACTIONS: frozenset[str] = frozenset({"wait", "finished", "ask_user"})
STOP_ALLOWED_ACTIONS: frozenset[str] = NON_ENGAGEMENT_ACTIONS | {"answer"}
SPLITS: tuple[str, ...] = ("general", "personalized", "proactive")


@dataclass
class Episode:
    """One episode as the official metrics script sees it.

    Attributes:
        task_name: The variant name (``"Cls"`` or ``"Cls@role"``).
        split: ``"general"``, ``"personalized"`` or ``"proactive"``.
        score: The episode's score.
        traj: Official ``traj.json`` entries (``action`` and ``ask_user_response``).
        habit_should_act: Proactive only: whether the official habit-key map finds the habit in the role's profile.
        difficulty: ``"easy"`` / ``"hard"`` (the class's tags).
        extra: Grouping keys for the tables (``policy``, ``memory``, ``log_source``, ``task_set``...).
    """

    task_name: str
    split: str
    score: float
    traj: list[dict[str, Any]] = field(default_factory=list)
    habit_should_act: bool | None = None
    difficulty: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def role(self) -> str | None:
        return self.task_name.split("@", 1)[1] if "@" in self.task_name else None

    @property
    def success(self) -> bool:
        return self.score > SUCCESS_THRESHOLD


def parse_decision(raw: Any) -> str | None:
    """The decision in a user response: the tag, else "reject" / "accept" anywhere in it (reject first)."""
    text = str(raw or "").strip()
    if not text:
        return None
    match = DECISION_RE.search(text)
    if match:
        return match.group(1).lower()
    lowered = text.lower()
    if "reject" in lowered:
        return "reject"
    if "accept" in lowered:
        return "accept"
    return None


def _type(action: Mapping[str, Any]) -> str:
    return str(action.get("action_type") or "").lower()


def is_substantive_answer(action: Mapping[str, Any]) -> bool:
    if _type(action) != "answer":
        return False
    return re.sub(r"\s+", " ", str(action.get("text") or "").strip()).lower() not in GENERIC_TERMINAL_ANSWERS


def is_engagement_action(action: Mapping[str, Any]) -> bool:
    kind = _type(action)
    if not kind:
        return False
    if kind == "answer":
        return is_substantive_answer(action)
    return kind not in NON_ENGAGEMENT_ACTIONS


def is_stop_violation_action(action: Mapping[str, Any]) -> bool:
    kind = _type(action)
    return bool(kind) and kind not in STOP_ALLOWED_ACTIONS


@dataclass(frozen=True)
class TrajMetrics:
    steps: int
    queries: int
    user_decision: str | None
    first_reject_step: int | None
    last_query_step: int | None


def traj_metrics(traj: Sequence[Mapping[str, Any]]) -> TrajMetrics:
    """Steps, queries, the last decision, the step of the first rejection, the step of the last question."""
    queries, decisions = 0, []
    first_reject: int | None = None
    last_query: int | None = None
    for idx, item in enumerate(traj, start=1):
        action = item.get("action") or {}
        if action.get("action_type") == "ask_user":
            queries += 1
            last_query = idx
        decision = parse_decision(item.get("ask_user_response"))
        if decision is not None:
            decisions.append(decision)
            if decision == "reject" and first_reject is None:
                first_reject = idx
    return TrajMetrics(len(traj), queries, decisions[-1] if decisions else None, first_reject, last_query)


def proactive_bucket(user_decision: str | None, habit_should_act: bool | None) -> str | None:
    """``"reject"``, ``"need"``, ``"noneed"`` or ``None`` (disjoint: the last decision decides first)."""
    if user_decision == "reject":
        return "reject"
    if habit_should_act is True:
        return "need"
    if habit_should_act is False:
        return "noneed"
    return None


def policy_success(bucket: str | None, traj: Sequence[Mapping[str, Any]], tm: TrajMetrics, success: bool
                   ) -> bool | None:
    """Act / Silent / Stop success of one proactive episode."""
    if bucket is None:
        return None
    actions = [item.get("action") or {} for item in traj]
    if bucket == "need":
        return success
    if bucket == "noneed":
        return not any(is_engagement_action(a) for a in actions)
    start = tm.first_reject_step
    if start is None and tm.last_query_step is not None:
        start = tm.last_query_step + 1
    after = actions[start - 1:] if start is not None else []
    return not any(is_stop_violation_action(a) for a in after)


@dataclass(frozen=True)
class EpisodeMetrics:
    """The official per-episode record."""

    episode: Episode
    steps: int
    queries: int
    user_decision: str | None
    bucket: str | None
    policy_success: bool | None


def measure(episode: Episode) -> EpisodeMetrics:
    """The official per-episode metrics of ``episode``."""
    tm = traj_metrics(episode.traj)
    bucket = policy = None
    if episode.split == "proactive":
        bucket = proactive_bucket(tm.user_decision, episode.habit_should_act)
        policy = policy_success(bucket, episode.traj, tm, episode.success)
    return EpisodeMetrics(episode, tm.steps, tm.queries, tm.user_decision, bucket, policy)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _round(value: float | None) -> float | None:
    return round(value, 6) if value is not None else None


def summarize_split(records: Sequence[EpisodeMetrics], split: str) -> dict[str, Any]:
    """``summarize_split`` of the script (plus ``average_score`` for every split and Efficiency)."""
    chosen = [r for r in records if r.episode.split == split]
    steps = _mean([float(r.steps) for r in chosen])
    out: dict[str, Any] = {
        "episodes": len(chosen),
        "success_rate": _round(_mean([1.0 if r.episode.success else 0.0 for r in chosen])),
        "ave_steps": _round(steps),
        "ave_queries": _round(_mean([float(r.queries) for r in chosen])),
        "average_score": _round(_mean([r.episode.score for r in chosen])),
        "efficiency": _round(MAX_STEPS / steps) if steps else None,
    }
    if split in ("personalized", "proactive"):
        out["interaction_efficiency"] = _round(_mean([r.episode.score / max(r.queries, 1) for r in chosen]))
    return out


def summarize_policy(records: Sequence[EpisodeMetrics]) -> dict[str, dict[str, Any]]:
    """Act / Silent / Stop: episodes and value over the proactive records of each bucket."""
    out: dict[str, dict[str, Any]] = {}
    for name, bucket in (("Act", "need"), ("Silent", "noneed"), ("Stop", "reject")):
        valid = [r for r in records if r.episode.split == "proactive" and r.bucket == bucket
                 and r.policy_success is not None]
        out[name] = {"episodes": len(valid), "value": _round(_mean([1.0 if r.policy_success else 0.0 for r in valid]))}
    return out


def summarize(episodes: Iterable[Episode]) -> dict[str, Any]:
    """Every split's summary and the proactive policy metrics, as the script's JSON output."""
    records = [measure(e) for e in episodes]
    return {"success_threshold": SUCCESS_THRESHOLD, "episodes": len(records),
            "splits": {s: summarize_split(records, s) for s in SPLITS},
            "proactive_policy": summarize_policy(records)}


# ------------------------------------------------------------------------------------------ conversion
def trajectory_from_steps(steps: Sequence[tuple[Mapping[str, Any] | None, str | None]]) -> list[dict[str, Any]]:
    """Official traj entries from (action, reply to this action) pairs: the reply to an ``ask_user`` appears as
    the ``ask_user_response`` of the NEXT entry (the observation the agent saw before acting), as the official
    trajectory logger records it; a reply to the last action is not logged."""
    traj: list[dict[str, Any]] = []
    previous: str | None = None
    for action, reply in steps:
        traj.append({"action": dict(action or {}), "ask_user_response": previous})
        previous = reply
    return traj


def trajectory_from_trace(trace: Any) -> list[dict[str, Any]]:
    """Official traj entries from a core :class:`~personal_envs.core.task.EpisodeTrace`."""
    pairs = []
    for step in trace.steps:
        turn = step.user_turn
        pairs.append((step.action or {"action_type": "unknown"}, turn.reply if turn is not None else None))
    return trajectory_from_steps(pairs)


def episode_from_record(record: Mapping[str, Any]) -> Episode | None:
    """An :class:`Episode` from an eval record: an official one from ``metrics["official_episode"]`` (see the
    routine builders); for a general or personalized record without an official trajectory (general and preference
    variants), one with the step and question counts; ``None`` for a record of another benchmark and for a
    proactive record without an official trajectory (result files of the removed project task set: their buckets
    cannot be derived by the official rules, so they are not counted)."""
    inner = record.get("metrics")
    metrics: Mapping[str, Any] = inner if isinstance(inner, Mapping) else record
    extra = {k: record.get(k, metrics.get(k)) for k in ("policy", "memory", "log_source", "task_set", "protocol")
             if record.get(k, metrics.get(k)) is not None}
    data = metrics.get("official_episode")
    if isinstance(data, Mapping):
        return Episode(str(data["task_name"]), str(data["split"]), float(data["score"]), list(data.get("traj", [])),
                       data.get("habit_should_act"), str(data.get("difficulty", "")), extra)
    split = metrics.get("split")
    if split not in ("general", "personalized") or "score" not in metrics:
        return None
    # records without an official trajectory: only the counts matter (steps, ask_user queries), as in the official
    # script
    steps = int(record.get("steps", metrics.get("steps", 0)) or 0)
    queries = int(metrics.get("ask_user_count", 0) or 0)
    traj = [{"action": {"action_type": "ask_user" if i < queries else "step"}, "ask_user_response": None}
            for i in range(max(steps, queries))]
    name = str(record.get("task_id") or metrics.get("task_id") or "?")
    return Episode(name, str(split), float(metrics["score"]), traj, None, str(metrics.get("difficulty", "")), extra)


def load_results(paths: Iterable[str], warn: Warn | None = print_warning) -> list[Episode]:
    """Episodes of results JSONL files (the eval runner's records; several splits and policies may be merged).

    A line that is not a valid record (:func:`personal_envs.run_records.read_records`), or a record whose KnowU
    metrics break :class:`~personal_envs.knowu.schema.RecordMetrics`, is skipped and reported through ``warn``.

    Raises:
        MissingDataError: a results file does not exist.
    """
    episodes: list[Episode] = []
    for path in paths:
        for number, record in enumerate(read_records(path, warn=warn, schema=TableRecord), start=1):
            where = f"{path} record {number} (episode {record.get('episode', '?')})"
            try:
                validate(schema.RecordMetrics, record.get("metrics") or {}, f"{where} metrics")
            except InputError as exc:
                if warn is not None:
                    warn(f"{exc}; record skipped")
                continue
            episode = episode_from_record(record)
            if episode is not None:
                episodes.append(episode)
    return episodes


def _excluded(paths: Iterable[str]) -> list[str]:
    """The line saying how many failed episodes (an error such as no valid model reply) the tables left out.

    Reads the files through the validated reader, silently (:func:`load_results` already reported bad lines)."""
    from personal_envs.run_extras import exclusion_lines

    records = [r for path in paths for r in read_records(path, warn=None, schema=TableRecord)]
    return exclusion_lines(records)


def success_counts(episodes: Sequence[Episode]) -> dict[str, dict[str, tuple[int, int]]]:
    """Per policy: (successes, episodes) overall and per split."""
    out: dict[str, dict[str, tuple[int, int]]] = {}
    for policy, group in _groups(episodes, lambda e: str(e.extra.get("policy", "run"))).items():
        counts = {"overall": (sum(e.success for e in group), len(group))}
        for split in SPLITS:
            chosen = [e for e in group if e.split == split]
            counts[split] = (sum(e.success for e in chosen), len(chosen))
        out[policy] = counts
    return out


def table_command(paths: Sequence[str], figures: str | os.PathLike[str] | None = None,
                  leaderboard: str | None = None) -> int:
    """``personal-envs knowu table RESULTS... [--figures DIR] [--leaderboard [PATH]]``: merge the runs' records,
    print every table, optionally the run beside the published leaderboard (``leaderboard=""``: the release's;
    :mod:`personal_envs.knowu.official.leaderboard`) and draw the figures (:mod:`personal_envs.knowu.official.figures`)."""
    episodes = load_results(paths)
    if not episodes:
        print("no KnowU episodes in the given results files")
        return 1
    sets = sorted({str(e.extra.get("task_set", "?")) for e in episodes})
    print(report(episodes, ", ".join(sets)))
    for line in _excluded(paths):
        print(line)
    if leaderboard is not None:
        from personal_envs.knowu.official.leaderboard import beside, find_leaderboard, load_leaderboard

        try:
            published = load_leaderboard(find_leaderboard(leaderboard or None))
        except InputError as exc:
            print(f"leaderboard skipped: {exc}")
        else:
            print()
            print(beside(published, success_counts(episodes), ", ".join(sets)))
    if figures is not None:
        from personal_envs.knowu.official.figures import write_figures

        for path in write_figures(episodes, figures):
            print(f"figure: {path}")
    return 0


# ------------------------------------------------------------------------------------------ tables
def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100.0 * value:.2f}"


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def _groups(episodes: Sequence[Episode], key: Callable[[Episode], str]) -> dict[str, list[Episode]]:
    out: dict[str, list[Episode]] = {}
    for e in episodes:
        out.setdefault(key(e), []).append(e)
    return out


def table2(episodes: Sequence[Episode]) -> str:
    """The paper's Table 2 layout per policy: overall SR over all episodes; per split easy / hard SR and score."""
    header = ["Policy", "N", "Overall SR"] + [f"{s[:5].title()} {d} {m}" for s in SPLITS for d in ("Easy", "Hard")
                                              for m in ("SR", "Score")]
    lines = ["  ".join(header)]
    for policy, group in _groups(episodes, lambda e: str(e.extra.get("policy", "run"))).items():
        row = [policy, str(len(group)), _pct(_mean([1.0 if e.success else 0.0 for e in group]))]
        for split in SPLITS:
            for diff in ("easy", "hard"):
                chosen = [e for e in group if e.split == split and e.difficulty == diff]
                row += [_pct(_mean([1.0 if e.success else 0.0 for e in chosen])),
                        _num(_mean([e.score for e in chosen]))]
        lines.append("  ".join(row))
    return "KnowU-Bench Table 2 (SR %, score)\n" + "\n".join(lines)


def table3(episodes: Sequence[Episode]) -> str:
    """Table 3: the memory settings (memory x log source) per policy, SR and score per split."""
    lines = ["Policy  Memory  Logs  " + "  ".join(f"{s[:5].title()} SR  {s[:5].title()} Score" for s in SPLITS)]
    key = lambda e: (str(e.extra.get("policy", "run")), str(e.extra.get("memory", "?")),  # noqa: E731
                     str(e.extra.get("log_source", "?")))
    groups: dict[tuple[str, str, str], list[Episode]] = {}
    for e in episodes:
        groups.setdefault(key(e), []).append(e)
    for (policy, memory, logs), group in groups.items():
        row = [policy, memory, logs]
        for split in SPLITS:
            chosen = [e for e in group if e.split == split]
            row += [_pct(_mean([1.0 if e.success else 0.0 for e in chosen])), _num(_mean([e.score for e in chosen]))]
        lines.append("  ".join(row))
    return "KnowU-Bench Table 3 (memory settings)\n" + "\n".join(lines)


def role_table(episodes: Sequence[Episode]) -> str:
    """Per role: episodes, average score and AveQueries."""
    lines = ["Role  N  AvgScore  AveQueries"]
    for role, group in _groups([e for e in episodes if e.role], lambda e: str(e.role)).items():
        queries = [float(traj_metrics(e.traj).queries) for e in group]
        lines.append(f"{role}  {len(group)}  {_num(_mean([e.score for e in group]))}  {_num(_mean(queries))}")
    return "KnowU-Bench per role\n" + "\n".join(lines)


def policy_table(episodes: Sequence[Episode]) -> str:
    """The script's text table: per split SR, AvgScore, AveSteps, AveQueries, IE; then Act / Silent / Stop."""
    out = summarize(episodes)
    lines = [f"{'split':<14}{'episodes':<10}{'SR':<12}{'AvgScore':<12}{'AveSteps':<12}{'AveQueries':<12}{'IE':<12}"]
    for split in SPLITS:
        s = out["splits"][split]
        lines.append(f"{split:<14}{s['episodes']:<10}{_pct(s['success_rate']):<12}{_num(s['average_score']):<12}"
                     f"{_num(s['ave_steps']):<12}{_num(s['ave_queries']):<12}"
                     f"{_num(s.get('interaction_efficiency')):<12}")
    lines.append("")
    for name in ("Act", "Silent", "Stop"):
        p = out["proactive_policy"][name]
        lines.append(f"{name:<14}{p['episodes']:<10}{_pct(p['value']):<12}")
    return "\n".join(lines)


def report(episodes: Sequence[Episode], task_set: str = "") -> str:
    """All tables (what ``personal-envs knowu table`` prints)."""
    head = f"task set: {task_set}\n" if task_set else ""
    parts = [head + table2(episodes), table3(episodes)]
    for policy, group in _groups(episodes, lambda e: str(e.extra.get("policy", "run"))).items():
        parts.append(f"== {policy} ==\n{policy_table(group)}\n\n{role_table(group)}")
    return "\n\n".join(parts)


def report_records(records: Sequence[Mapping[str, Any]]) -> str:
    """The three ids' ``report`` (what ``personal-envs eval`` prints after a run): the task-set line, the judge line
    when an episode was judged, then :func:`report` over the records' episodes (the official script's rules for
    every family)."""
    from personal_envs.knowu.official.preference.tables import judge_line
    from personal_envs.knowu.official.release import task_set_line

    kept: list[Mapping[str, Any]] = []  # a record of another benchmark names no task set
    episodes: list[Episode] = []
    for record in records:
        episode = episode_from_record(record)
        if episode is not None:
            kept.append(record)
            episodes.append(episode)
    if not episodes:
        return "KnowU-Bench: no episodes."
    head = [task_set_line(kept), *filter(None, [judge_line(kept)])]
    return "\n".join(head) + "\n" + report(episodes)
