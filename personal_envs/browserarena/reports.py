"""The paper's failure-mode tables from episode records (one JSON record per episode, see the eval runner).

* :func:`captcha_report`: percentage of tasks in which each model used each of the 14 captcha strategies;
* :func:`banner_report`: banner shown, banner detected by the agent (% of tasks: it said or did something about
  it), banner closed (% of tasks where detected, as the paper), task marked completed, marked completed although
  the banner was never closed, answer correct;
* :func:`navigation_report`: the paper's Table 5: % of tasks per column (Google API / Google site / Wiki / Other
  site / Direct answer / Failed; exclusive, summing to 100%; Failed = the answer is not right, whatever the route;
  Other site = a typed URL of neither the search engine nor the encyclopedia, which the paper's columns do not
  name), per model and question set (real facts, fictional landmarks);
* :func:`open_report`: finished / success claimed / mean steps for open-web runs.

Records are grouped by their ``policy`` field (the model).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from personal_envs.browserarena.judges.rules import CAPTCHA_STRATEGIES, NAVIGATION_CATEGORIES
from personal_envs.core.table import format_table


def _by_policy(records: Iterable[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    groups: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for record in records:
        if isinstance(record.get("metrics"), Mapping):
            groups[str(record.get("policy", "?"))].append(record)
    return dict(sorted(groups.items()))


def _pct(count: float, total: float) -> float:
    return 100.0 * count / total if total else 0.0


def captcha_report(records: Iterable[Mapping[str, Any]]) -> str:
    """Strategy percentages per model (rows) and strategy (columns)."""
    groups = _by_policy(records)
    rows = []
    for policy, items in groups.items():
        n = len(items)
        counts = {s: sum(1 for r in items if r["metrics"].get("strategies", {}).get(s)) for s in CAPTCHA_STRATEGIES}
        correct = sum(1 for r in items if r["metrics"].get("correct"))
        rows.append([policy, n, *[_pct(counts[s], n) for s in CAPTCHA_STRATEGIES], _pct(correct, n), _judges(items)])
    headers = ["model", "tasks", *CAPTCHA_STRATEGIES, "correct", "judge"]
    return format_table(headers, rows, title="Captcha strategies (% of tasks in which the model used each)",
                        digits=1)


def _judges(items: list[Mapping[str, Any]]) -> str:
    names = sorted({str(r["metrics"].get("trace_judge", "rules")) for r in items})
    return "/".join(names)


def banner_report(records: Iterable[Mapping[str, Any]]) -> str:
    """Banner scenario rates per model (the paper's Table 4 columns, plus how often a banner was shown)."""
    rows = []
    for policy, items in _by_policy(records).items():
        n = len(items)
        present = sum(1 for r in items if r["metrics"].get("banner_present", r["metrics"].get("banner_detected")))
        detected = [r for r in items if r["metrics"].get("banner_detected")]
        closed = sum(1 for r in detected if r["metrics"].get("banner_closed"))
        completed = sum(1 for r in items if r["metrics"].get("success_claimed"))
        misleading = sum(1 for r in items if r["metrics"].get("success_claimed")
                         and r["metrics"].get("banner_present", True) and not r["metrics"].get("banner_closed"))
        correct = sum(1 for r in items if r["metrics"].get("correct"))
        rows.append([policy, n, _pct(present, n), _pct(len(detected), n), _pct(closed, len(detected)),
                     _pct(completed, n), _pct(misleading, n), _pct(correct, n), _judges(items)])
    headers = ["model", "tasks", "banner shown %", "banner detected %", "closed % of detected", "marked completed %",
               "completed w/o closing %", "correct %", "judge"]
    return format_table(headers, rows, title="Pop-up banners", digits=1)


def navigation_rates(items: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """% of ``items`` in each Table 5 column (they sum to 100 when there is at least one item)."""
    cats = [str(r["metrics"].get("navigation_category", "failed")) for r in items]
    return {c: _pct(cats.count(c), len(cats)) for c in NAVIGATION_CATEGORIES}


def navigation_report(records: Iterable[Mapping[str, Any]]) -> str:
    """The paper's Table 5 per model and question set: % of tasks per navigation column, and % correct."""
    rows = []
    for policy, items in _by_policy(records).items():
        sets: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
        for record in items:
            sets[str(record["metrics"].get("question_set", "fictional"))].append(record)
        for name, group in sorted(sets.items()):
            rates = navigation_rates(group)
            correct = sum(1 for r in group if r["metrics"].get("correct"))
            rows.append([policy, name, len(group), *[rates[c] for c in NAVIGATION_CATEGORIES],
                         _pct(correct, len(group)), _judges(group)])
    headers = ["model", "questions", "tasks", "Google API %", "Google site %", "Wiki %", "Other site %",
               "Direct answer %", "Failed %", "correct %", "judge"]
    return format_table(headers, rows, title="Direct navigation (Table 5: % of tasks, columns exclusive)", digits=1)


def open_report(records: Iterable[Mapping[str, Any]]) -> str:
    """Finished / success-claimed rates, web access and mean steps per model.

    "success claimed" counts only claims made on a page that loaded: a claim on a blank or unreachable page (a
    machine without web access) is counted under "claims on blank / unreachable pages" instead, and a line under the
    table says plainly when no episode reached the web.
    """
    rows = []
    all_items: list[Mapping[str, Any]] = []
    for policy, items in _by_policy(records).items():
        all_items.extend(items)
        n = len(items)
        metrics = [r["metrics"] for r in items]
        finished = sum(1 for m in metrics if m.get("finished"))
        claimed = sum(1 for m in metrics if _valid_claim(m))
        void = sum(1 for m in metrics if m.get("success_claimed") and not _valid_claim(m))
        reached = sum(1 for m in metrics if m.get("web_access") == "reached")
        unreachable = sum(1 for m in metrics if m.get("web_access") == "unreachable")
        steps = sum(float(r.get("steps") or 0) for r in items) / n if n else 0.0
        rows.append([policy, n, _pct(finished, n), _pct(claimed, n), _pct(void, n), _pct(reached, n),
                     _pct(unreachable, n), steps])
    table = format_table(["model", "tasks", "finished %", "success claimed %", "claims on blank / unreachable pages %",
                          "web reached %", "web unreachable %", "mean steps"], rows,
                         title="BrowserArena open-web runs", digits=1)
    return "\n".join([table, *_web_access_lines(all_items)])


def _valid_claim(metrics: Mapping[str, Any]) -> bool:
    if "success_claimed_valid" in metrics:
        return bool(metrics["success_claimed_valid"])
    return bool(metrics.get("success_claimed"))  # records written before web-access metrics existed


def _web_access_lines(items: list[Mapping[str, Any]]) -> list[str]:
    access = [str(r["metrics"].get("web_access", "")) for r in items if "web_access" in r["metrics"]]
    if not access or "reached" in access:
        return []
    failed = access.count("unreachable")
    if failed:
        head = (f"No web access: no episode loaded a web page and {failed} of {len(access)} found the web "
                "unreachable.")
    else:
        head = f"No episode loaded a web page ({len(access)} stayed on blank pages); web access was not tested."
    return [head + " Success claims made on blank or unreachable pages are not counted as success."]


def paper_tables(records: Iterable[Mapping[str, Any]]) -> str:
    """The paper's tables 3-5 from the records of one or more runs (each record goes to its task kind's table):
    Table 3 captcha strategies, Table 4 pop-up banners, Table 5 direct navigation; absent kinds are skipped."""
    by_kind: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for record in records:
        metrics = record.get("metrics")
        if isinstance(metrics, Mapping):
            by_kind[str(metrics.get("kind", ""))].append(record)
    parts = []
    for number, kind, make in ((3, "captcha", captcha_report), (4, "banner", banner_report),
                               (5, "trivia", navigation_report)):
        if by_kind.get(kind):
            parts.append(f"Table {number}\n" + make(by_kind[kind]))
    return "\n\n".join(parts) if parts else "no captcha, banner or trivia records"
