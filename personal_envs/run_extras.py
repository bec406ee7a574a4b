"""What an eval record says about the model calls behind an episode, and the run-level lines printed under a table.

* :func:`episode_extras` reads, after an episode, the policy's :meth:`episode_report` (model, endpoint, sampling,
  tokens, LLM errors, trace), the judge that scored it (``metrics["judge"]`` / ``metrics["judge_error"]``) and the
  simulated user's fallbacks and leaks (``env.unwrapped.user``), for the record's ``llm``, ``judge`` and ``user``
  keys.
* :func:`summary_lines` turns those keys of all records into lines such as ``judge: fallback on 3/4 episodes``.
* :func:`fatal_llm_failure` tells when an episode shows the endpoint cannot serve the run at all (not one call
  succeeded and the calls failed for a reason that will not go away), so the runner stops with one clear line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

#: Error kinds that make a whole run pointless when no call of an episode succeeded.
FATAL_ERROR_KINDS = frozenset({"unreachable", "config", "http"})


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


def fatal_llm_failure(record: dict[str, Any]) -> str | None:
    """One line explaining why the run cannot go on, or ``None``: the episode made LLM calls, none succeeded,
    and the failures were of a kind that will not go away (endpoint unreachable, not configured, HTTP error)."""
    llm = record.get("llm")
    if not isinstance(llm, dict) or not llm.get("calls") or llm.get("ok_calls"):
        return None
    kinds = llm.get("error_kinds") or {}
    if not kinds or not set(kinds) <= FATAL_ERROR_KINDS:
        return None
    first = str((llm.get("errors") or ["unknown error"])[0]).splitlines()[0]
    return (f"no LLM call succeeded in episode {record.get('episode')} ({llm['calls']} tried); stopping the run: "
            f"{first}")


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
