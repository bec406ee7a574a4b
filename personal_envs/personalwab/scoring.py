"""PersonalWAB metrics as the official code computes them (HongruCai/PersonalWAB at 23ff65c, ``envs/base.py``).

* Function accuracy of a call: 1 when the called function is the task type's function (search / recommend /
  review) *and the call ran*; a call that failed (missing or wrong argument key, an error inside the function)
  scores 0 / 0, as the official env returns ``[0, 0]`` for any ``"Error: ..."`` observation.
* Result accuracy of a search or recommendation call, ``result_formula="official"`` (default): with ``i`` the 0-based
  position of the first result that is the target and ``n`` the length of the returned list, ``1 - i / n``; 0 when
  the target is absent or the list is empty.  ``result_formula="paper"``: the paper's ``1 - (rank - 1) / 10`` for a
  1-based rank within the top 10.  The two agree only when 10 results came back.
* Result accuracy of a review call: MiniLM cosine of the posted review and the real one; an empty review is scored
  as the official function's placeholder text (:data:`EMPTY_REVIEW_PLACEHOLDER`).
* Per episode (the official ``calculate_statistics``): among the calls with function accuracy 1, the best result
  accuracy; 0 / 0 when there is none.
* Outcome accuracy (reported beside them, not official): the best result accuracy of any search or recommendation
  call whichever of the two was used; for review tasks, the similarity of the best posted review.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from personal_envs.core.metrics import mean, rank_score
from personal_envs.core.table import format_table
from personal_envs.personalwab.functions import RECOMMEND, REVIEW, SEARCH, TASK_FUNCTION, TASK_TYPES, TOP_K

#: The two result-accuracy formulas for search and recommendation (see the module docstring).
RESULT_FORMULAS: tuple[str, ...] = ("official", "paper")

#: What the official ``add_product_review`` posts (and the scorer compares) when the review argument is empty.
EMPTY_REVIEW_PLACEHOLDER = "No review provided."


@dataclass(frozen=True)
class CallScore:
    """The score of one task-function call.

    Attributes:
        function: The function called.
        correct_function: It is the task type's function and it ran (official function accuracy).
        result_accuracy: Result accuracy with the episode's formula.
        target_rank: 1-based position of the target in the returned list (``None``: absent or not a ranked call).
        result_count: Length of the returned list (ranked calls).
        paper_accuracy: The paper's ``1 - (rank - 1) / 10`` (ranked calls; equals ``result_accuracy`` for reviews).
        official_accuracy: The official ``1 - i / len(results)``.
        failed: The call did not run (an error observation; scored 0 / 0).
    """

    function: str
    correct_function: bool
    result_accuracy: float
    target_rank: int | None = None
    result_count: int = 0
    paper_accuracy: float = 0.0
    official_accuracy: float = 0.0
    failed: bool = False


def target_position(result_ids: Sequence[str], target_asin: str) -> int | None:
    """0-based position of the first result that is the target (duplicates: the first one counts), else ``None``."""
    for position, asin in enumerate(result_ids):
        if asin == target_asin:
            return position
    return None


def official_result_accuracy(position: int | None, count: int) -> float:
    """The official code's ``1 - i / len(results)`` (0 when the target is absent or nothing came back)."""
    if position is None or count <= 0:
        return 0.0
    return 1.0 - position / count


def paper_result_accuracy(position: int | None, k: int = TOP_K) -> float:
    """The paper's ``1 - (rank - 1) / 10`` with ``rank = position + 1`` (0 outside the top ``k``)."""
    return rank_score(None if position is None else position + 1, k)


def _check_formula(formula: str) -> None:
    if formula not in RESULT_FORMULAS:
        raise ValueError(f"result_formula must be one of {RESULT_FORMULAS}, got {formula!r}")


def score_ranked_call(task_type: str, function: str, result_ids: Sequence[str], target_asin: str,
                      formula: str = "official") -> CallScore:
    """Score a search or recommendation call from the ids it returned, in the order returned.

    As officially, the result accuracy is computed from the list whichever function produced it; the episode only
    counts it when the function was the right one.
    """
    _check_formula(formula)
    position = target_position(result_ids, target_asin)
    official = official_result_accuracy(position, len(result_ids))
    paper = paper_result_accuracy(position)
    return CallScore(
        function, TASK_FUNCTION[task_type] == function, official if formula == "official" else paper,
        None if position is None else position + 1, len(result_ids), paper, official,
    )


def score_review_call(
    task_type: str, review: str, target_review: str, similarity: Callable[[str, str], float]
) -> CallScore:
    """Score an ``add_product_review`` call (an empty review is the official placeholder text)."""
    posted = review if review else EMPTY_REVIEW_PLACEHOLDER
    value = float(similarity(posted, target_review)) if task_type == "review" else 0.0
    return CallScore(REVIEW, task_type == "review", value, paper_accuracy=value, official_accuracy=value)


def score_failed_call(function: str) -> CallScore:
    """A task-function call that did not run: 0 / 0 (the official env's ``[0, 0]`` for an error observation)."""
    return CallScore(function, False, 0.0, failed=True)


def episode_metrics(task_type: str, calls: Sequence[CallScore], steps: int) -> dict[str, Any]:
    """Per-episode metrics from the scored calls (stable names used by the report).

    ``result_accuracy`` uses the calls' formula; ``result_accuracy_official`` and ``result_accuracy_paper`` give
    both formulas (they differ when a list shorter than 10 held the target).  ``best_target_rank`` is the best
    1-based rank of the target among the correct calls' lists, 0 when none held it (an int either way, so that
    Gymnasium's vector envs can stack the info of envs in different states).
    """
    correct = [call for call in calls if call.correct_function]
    if task_type == "review":
        outcome_calls = [call for call in calls if call.function == REVIEW]
    else:
        outcome_calls = [call for call in calls if call.function in (SEARCH, RECOMMEND)]
    ranks = [call.target_rank for call in correct if call.target_rank is not None]
    return {
        "task_type": task_type,
        "function_accuracy": 1.0 if correct else 0.0,
        "result_accuracy": max((call.result_accuracy for call in correct), default=0.0),
        "result_accuracy_official": max((call.official_accuracy for call in correct), default=0.0),
        "result_accuracy_paper": max((call.paper_accuracy for call in correct), default=0.0),
        "outcome_accuracy": max((call.result_accuracy for call in outcome_calls), default=0.0),
        "best_target_rank": min(ranks) if ranks else 0,
        "task_function_calls": len(calls),
        "failed_calls": sum(1 for call in calls if call.failed),
        "steps": steps,
    }


def report(records: Sequence[dict[str, Any]]) -> str:
    """The paper's table: function accuracy, result accuracy, outcome accuracy and average steps per task type."""
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        metrics = record.get("metrics") or {}
        by_type[str(metrics.get("task_type", "unknown"))].append(metrics)
    rows = []
    for task_type in (*TASK_TYPES, *sorted(set(by_type) - set(TASK_TYPES))):
        items = by_type.get(task_type, [])
        if items:
            rows.append(_row(task_type, items))
    everything = [m for items in by_type.values() for m in items]
    rows.append(_row("overall", everything))
    env_ids = sorted({str(r.get("env_id", "")) for r in records})
    policies = sorted({str(r.get("policy", "")) for r in records})
    title = f"PersonalWAB results — env {', '.join(env_ids)}, policy {', '.join(policies)}"
    headers = ["task type", "episodes", "function acc", "result acc", "outcome acc", "avg steps"]
    return format_table(headers, rows, title=title)


def _row(name: str, items: Sequence[dict[str, Any]]) -> list[Any]:
    return [
        name,
        len(items),
        mean(m.get("function_accuracy", 0.0) for m in items),
        mean(m.get("result_accuracy", 0.0) for m in items),
        mean(m.get("outcome_accuracy", 0.0) for m in items),
        mean(m.get("steps", 0) for m in items),
    ]
