"""KnowU scoring: S = lambda * S_rule + (1 - lambda) * S_llm, success when S > 0.99.

* S_rule comes from the task's rule checks over the final app state and the action trace
  (:meth:`KnowUTask.verify`).
* S_llm comes from a rubric judge.  :class:`LLMRubricJudge` asks a chat model (via
  :class:`personal_envs.llm.judge.RubricJudge`, ``<score>x</score>`` in [0, 1]) with the task rubric and the
  evidence (new orders, messages, posts, mails, answers, the dialogue); :class:`FallbackJudge` is deterministic
  and says so in its result (``kind="fallback"``).
* A judge error is reported in :attr:`ScoreBreakdown.judge_error`, never turned into a default score: with
  ``on_error="fallback"`` (default) the deterministic fallback is used and labelled ``"fallback-after-error"``;
  with ``on_error="raise"`` a :class:`JudgeError` is raised.  Pure-rule tasks (lambda = 1) never call a judge.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, Protocol

from personal_envs.knowu.taskspec import KnowUTask, new_items
from personal_envs.llm.judge import JudgeResult

SUCCESS_THRESHOLD = 0.99


class JudgeError(RuntimeError):
    """The LLM judge failed and ``on_error="raise"`` was asked for."""


class Judge(Protocol):
    """Anything that scores evidence against a rubric."""

    def score(self, rubric: str, evidence: str) -> JudgeResult: ...


def combine_scores(s_rule: float, s_llm: float, lam: float) -> float:
    """S = lam * S_rule + (1 - lam) * S_llm."""
    if not 0.0 <= lam <= 1.0:
        raise ValueError(f"lambda must be in [0, 1], got {lam}")
    return lam * s_rule + (1.0 - lam) * s_llm


def is_success(score: float) -> bool:
    """KnowU success: S > 0.99."""
    return score > SUCCESS_THRESHOLD


def build_evidence(task: KnowUTask, final_state: Mapping[str, Any], trace: Sequence[Mapping[str, Any]],
                   dialogue: Sequence[Any] = ()) -> str:
    """What the judge reads: request, context, what changed in each app, answers, and the dialogue."""
    initial = task.initial_state()
    lines = [f"Task: {task.instruction or '(proactive: no instruction)'}",
             f"Device context: {task.context.render()}", "", "## Changes in the apps"]
    for app_name in sorted(set(initial) | set(final_state)):
        before, after = initial.get(app_name, {}), final_state.get(app_name, {})
        if not isinstance(before, Mapping) or not isinstance(after, Mapping) or before == after:
            continue
        for key in sorted(set(before) | set(after)):
            old, new = before.get(key), after.get(key)
            if old == new:
                continue
            if isinstance(old, list | type(None)) and isinstance(new, list):
                added = new_items(old or [], new)
                removed = new_items(new, old or [])
                if added:
                    lines.append(f"- {app_name}.{key} added: {json.dumps(added, ensure_ascii=False)[:1500]}")
                if removed:
                    lines.append(f"- {app_name}.{key} removed: {json.dumps(removed, ensure_ascii=False)[:800]}")
            else:
                lines.append(f"- {app_name}.{key}: {json.dumps(old, ensure_ascii=False)[:400]} -> "
                             f"{json.dumps(new, ensure_ascii=False)[:400]}")
    if lines[-1] == "## Changes in the apps":
        lines.append("(no app changed)")
    answers = [str(step.get("text", "")) for step in trace if step.get("action_type") == "answer"]
    if answers:
        lines += ["", "## Agent's answers", *answers]
    lines += ["", "## Actions", ", ".join(str(step.get("action_type", "?")) for step in trace) or "(none)"]
    turns = [f"{getattr(turn, 'speaker', 'agent')}: {getattr(turn, 'text', turn)}" for turn in dialogue]
    if turns:
        lines += ["", "## Dialogue with the user", *turns]
    return "\n".join(lines)


class FallbackJudge:
    """Deterministic stand-in for the LLM judge (used without an endpoint; labelled ``kind="fallback"``).

    Score = S_rule of the same episode x the fraction of the task's ``judge_keywords`` found in the evidence
    (1 when the task lists none).  It does not judge style or tone.
    """

    kind = "fallback"

    def score_task(self, task: KnowUTask, s_rule: float, evidence: str) -> JudgeResult:
        keywords = [k for k in task.judge_keywords if k]
        found = sum(1 for k in keywords if k.lower() in evidence.lower())
        fraction = found / len(keywords) if keywords else 1.0
        value = max(0.0, min(1.0, s_rule * fraction))
        return JudgeResult(score=value, reason=f"deterministic fallback: S_rule {s_rule:.3f} x keyword coverage "
                                               f"{fraction:.3f}", kind="fallback")


@dataclass(frozen=True)
class ScoreBreakdown:
    """Everything the env reports about one episode's score."""

    s_rule: float
    s_llm: float
    lam: float
    score: float
    success: bool
    judge_kind: str
    judge_error: str | None
    rule_reason: str
    judge_reason: str
    #: Each rule check's ``(description, passed, reason)``.
    checks: tuple[tuple[str, bool, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class KnowUScorer:
    """Scores episodes of KnowU tasks.

    Args:
        judge: An LLM rubric judge (``personal_envs.llm.judge.RubricJudge``); ``None`` uses the fallback only.
        on_error: ``"fallback"`` (report the error, score with the labelled fallback) or ``"raise"``.
    """

    def __init__(self, judge: Judge | None = None, on_error: Literal["fallback", "raise"] = "fallback") -> None:
        if on_error not in ("fallback", "raise"):
            raise ValueError("on_error must be 'fallback' or 'raise'")
        self.judge = judge
        self.on_error = on_error
        self.fallback = FallbackJudge()

    def score(self, task: KnowUTask, final_state: Mapping[str, Any], trace: Sequence[Mapping[str, Any]],
              dialogue: Sequence[Any] = ()) -> ScoreBreakdown:
        """S_rule, S_llm and S for one finished episode."""
        results = task.check_results(final_state, trace)
        s_rule, rule_reason = task.rule_score(results)
        checks = tuple((check.description or type(check).__name__, ok, reason) for check, ok, reason in results)
        if task.lam >= 1.0:
            return ScoreBreakdown(s_rule, s_rule, 1.0, s_rule, is_success(s_rule), "none (pure rule)", None,
                                  rule_reason, "", checks)
        evidence = build_evidence(task, final_state, trace, dialogue)
        judge_error: str | None = None
        result: JudgeResult | None = None
        kind = "fallback"
        if self.judge is not None:
            result = self.judge.score(task.rubric, evidence)
            if result.ok:
                kind = "llm"
            else:
                judge_error = result.error or "judge returned no score"
                if self.on_error == "raise":
                    raise JudgeError(judge_error)
                result = None
                kind = "fallback-after-error"
        if result is None:
            result = self.fallback.score_task(task, s_rule, evidence)
        s_llm = float(result.score if result.score is not None else 0.0)
        total = combine_scores(s_rule, s_llm, task.lam)
        return ScoreBreakdown(s_rule, s_llm, task.lam, total, is_success(total), kind, judge_error, rule_reason,
                              result.reason, checks)
