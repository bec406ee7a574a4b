"""What an eval record says about the model calls behind an episode, and the run-level lines printed under a table.

* :func:`episode_extras` reads, after an episode, the policy's :meth:`episode_report` (model, endpoint, sampling,
  tokens, LLM errors, trace), the judge that scored it (``metrics["judge"]`` / ``metrics["judge_error"]``) and the
  simulated user's fallbacks and leaks (``env.unwrapped.user``), for the record's ``llm``, ``judge`` and ``user``
  keys.
* :func:`summary_lines` turns those keys of all records into lines such as ``judge: fallback on 3/4 episodes``.
* :func:`llm_episode_failure` tells when an episode had no valid model reply (every call failed, or the policy gave
  up after failures in a row): such an episode is an error, not a score.
* :func:`fatal_llm_failure` tells when an episode shows the endpoint cannot serve the run (no valid reply, or the
  policy gave up), so the runner stops with one clear line.
* :func:`split_failed` and :func:`exclusion_lines` keep failed episodes out of the paper's table and say how many
  were left out and why; :func:`partial_failure_line` counts the scored episodes some of whose calls failed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

#: The fraction of failed episodes above which a run exits non-zero (``eval --max-failed``).
DEFAULT_MAX_FAILED_FRACTION = 0.1


def episode_extras(env: Any, policy: Any, record: dict[str, Any]) -> dict[str, Any]:
    """The ``llm``, ``judge`` and ``user`` entries for ``record`` (only those that apply)."""
    extras: dict[str, Any] = {}
    report = getattr(policy, "episode_report", None)
    if callable(report):
        extras["llm"] = report()
    metrics = record.get("metrics") or {}
    if isinstance(metrics, dict) and "judge" in metrics:
        extras["judge"] = {"kind": str(metrics.get("judge")), "error": metrics.get("judge_error")}
    user = getattr(getattr(env, "unwrapped", env), "user", None)
    if user is not None and hasattr(user, "kind"):
        errors = [str(e) for e in getattr(user, "errors", []) or []]
        entry: dict[str, Any] = {"kind": str(user.kind), "fallbacks": len(errors), "errors": errors[:20]}
        leaks = getattr(user, "leaks", None)
        if leaks is not None:
            entry["leaks"] = list(leaks)
        extras["user"] = entry
    return extras


def llm_episode_failure(record: dict[str, Any]) -> str | None:
    """Why the episode had no valid model reply (one line), or ``None``: the policy gave up, or it made calls and
    none succeeded."""
    llm = record.get("llm")
    if not isinstance(llm, dict):
        return None
    if llm.get("gave_up"):
        return str(llm["gave_up"])
    if llm.get("calls") and not llm.get("ok_calls"):
        first = str((llm.get("errors") or ["unknown error"])[0]).splitlines()[0]
        return f"no valid model reply ({llm['calls']} call(s), none succeeded): {first[:300]}"
    return None


def fatal_llm_failure(record: dict[str, Any]) -> str | None:
    """One line explaining why the run cannot go on, or ``None``: the episode had no valid model reply (see
    :func:`llm_episode_failure`), whatever the kind of failure (refused, timed out, not JSON, no choices...)."""
    failure = llm_episode_failure(record)
    if failure is None:
        return None
    return f"episode {record.get('episode')}: {failure}; stopping the run"


def split_failed(records: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(scored, failed)``: records with an ``error`` are failed and stay out of the paper's table."""
    scored = [r for r in records if not r.get("error")]
    failed = [r for r in records if r.get("error")]
    return scored, failed


def failure_reason(record: dict[str, Any]) -> str:
    """The kind of failure of a failed record: ``no model reply`` or the exception's name."""
    if llm_episode_failure(record) is not None:
        return "no model reply"
    first = str(record.get("error") or "").splitlines()[0]
    head = first.split(":", 1)[0].strip()
    return head if head and " " not in head else "error"


def exclusion_lines(records: Sequence[dict[str, Any]]) -> list[str]:
    """Lines saying how many episodes were left out of the table and why ('' when none was)."""
    _, failed = split_failed(records)
    if not failed:
        return []
    reasons = Counter(failure_reason(r) for r in failed)
    first = str(failed[0]["error"]).splitlines()[0][:300]
    return [f"excluded from the table: {len(failed)} of {len(records)} episodes failed ({_counts(reasons)}); "
            f"first: episode {failed[0].get('episode')}: {first}"]


def partial_failure_line(records: Sequence[dict[str, Any]]) -> str:
    """The scored episodes some of whose model calls failed (the episode went on), or ''."""
    scored, _ = split_failed(records)
    partial = [r["llm"] for r in scored if isinstance(r.get("llm"), dict) and r["llm"].get("errors")]
    if not partial:
        return ""
    failed_calls = sum(len(x.get("errors") or []) for x in partial)
    calls = sum(int(x.get("calls") or 0) for x in partial)
    return (f"partial failures: {len(partial)} of {len(scored)} scored episodes had failed model calls "
            f"({failed_calls} of their {calls} calls)")


def failed_fraction_error(records: Sequence[dict[str, Any]], max_fraction: float) -> str | None:
    """One line when more than ``max_fraction`` of the episodes failed, else ``None``."""
    _, failed = split_failed(records)
    if not records or len(failed) <= max_fraction * len(records):
        return None
    return (f"{len(failed)} of {len(records)} episodes failed (more than {max_fraction:.0%}); the scores above "
            "cover only the others")


def summary_lines(records: Sequence[dict[str, Any]]) -> list[str]:
    """Lines about LLM calls, judges and simulated users under the benchmark's table ('' parts are omitted)."""
    total = len(records)
    lines: list[str] = []
    llm = [r["llm"] for r in records if isinstance(r.get("llm"), dict)]
    if llm:
        models = sorted({str(x.get("model")) for x in llm})
        errors = [len(x.get("errors") or []) for x in llm]
        with_errors = sum(1 for n in errors if n)
        calls = sum(int(x.get("calls") or 0) for x in llm)
        prompt = sum(int(x.get("prompt_tokens") or 0) for x in llm)
        completion = sum(int(x.get("completion_tokens") or 0) for x in llm)
        modes = Counter(str((x.get("tool_mode") or {}).get("effective")) for x in llm)
        lines.append(f"llm: model {', '.join(models)} at {llm[-1].get('endpoint')}; {calls} calls, {prompt} prompt + "
                     f"{completion} completion tokens; tool mode {_counts(modes)}")
        lines.append(f"llm errors: {sum(errors)} in {with_errors}/{len(llm)} episodes"
                     + (f" (per episode: {', '.join(str(n) for n in errors)})" if with_errors else ""))
        overflows = sum(int(x.get("overflows") or 0) for x in llm)
        over_limit = sum(int(x.get("completion_over_limit") or 0) for x in llm)
        if overflows or over_limit:
            retried = sum(int(x.get("overflow_retries_ok") or 0) for x in llm)
            lines.append(f"llm context overflows: {overflows} ({retried} trimmed and retried successfully); "
                         f"replies longer than max_tokens: {over_limit}")
    judges = Counter(str(r["judge"]["kind"]) for r in records if isinstance(r.get("judge"), dict))
    fallback_judges = sum(n for kind, n in judges.items() if kind.startswith("fallback"))
    if judges and fallback_judges:
        lines.append(f"judge: fallback on {fallback_judges}/{total} episodes ({_counts(judges)})")
    users = [r["user"] for r in records if isinstance(r.get("user"), dict)]
    fallback_users = sum(1 for u in users if u.get("fallbacks"))
    if fallback_users:
        replies = sum(int(u.get("fallbacks") or 0) for u in users)
        lines.append(f"user: fallback on {fallback_users}/{total} episodes ({replies} replies from the "
                     f"deterministic user instead of the {users[0].get('kind')} user)")
    leaking = sum(1 for u in users if u.get("leaks"))
    if leaking:
        lines.append(f"user: leaked the target's details in {leaking}/{total} episodes")
    return lines


def _counts(counter: Counter[str]) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in counter.most_common())
