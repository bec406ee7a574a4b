import pytest

from personal_envs.core.metrics import rank_score
from personal_envs.personalwab.functions import RECOMMEND, REVIEW, SEARCH
from personal_envs.personalwab.scoring import (
    CallScore,
    episode_metrics,
    report,
    score_ranked_call,
    score_review_call,
)


@pytest.mark.parametrize("rank, expected", [(1, 1.0), (2, 0.9), (5, 0.6), (10, 0.1), (11, 0.0), (None, 0.0)])
def test_rank_formula(rank, expected):
    assert rank_score(rank) == pytest.approx(expected)


def test_search_call_scores_target_rank_and_function():
    ids = [f"A{i}" for i in range(10)]
    call = score_ranked_call("search", SEARCH, ids, "A3")  # rank 4
    assert call.correct_function and call.target_rank == 4 and call.result_accuracy == pytest.approx(0.7)
    wrong = score_ranked_call("search", RECOMMEND, ids, "A0")
    assert not wrong.correct_function and wrong.result_accuracy == pytest.approx(1.0)
    miss = score_ranked_call("recommend", RECOMMEND, ids, "ZZ")
    assert miss.correct_function and miss.result_accuracy == 0.0 and miss.target_rank is None


def test_paper_formula_counts_only_the_top_ten():
    ids = [f"A{i}" for i in range(20)]
    assert score_ranked_call("search", SEARCH, ids, "A12", "paper").result_accuracy == 0.0
    assert score_ranked_call("search", SEARCH, ids, "A12").result_accuracy == pytest.approx(1 - 12 / 20)


def test_review_call_uses_similarity():
    call = score_review_call("review", "great", "good", lambda a, b: 0.42)
    assert call == CallScore(REVIEW, True, 0.42, paper_accuracy=0.42, official_accuracy=0.42)
    assert not score_review_call("search", "great", "good", lambda a, b: 0.9).correct_function


def test_episode_keeps_best_correct_call_and_outcome_counts_either_function():
    calls = [
        CallScore(RECOMMEND, False, 1.0, 1),  # wrong function, target at rank 1
        CallScore(SEARCH, True, 0.5, 6),
        CallScore(SEARCH, True, 0.8, 3),
    ]
    metrics = episode_metrics("search", calls, steps=4)
    assert metrics["function_accuracy"] == 1.0
    assert metrics["result_accuracy"] == pytest.approx(0.8)
    assert metrics["outcome_accuracy"] == pytest.approx(1.0)
    assert metrics["best_target_rank"] == 3
    none = episode_metrics("search", [CallScore(RECOMMEND, False, 0.9, 2)], steps=1)
    assert none["function_accuracy"] == 0.0 and none["result_accuracy"] == 0.0
    assert none["outcome_accuracy"] == pytest.approx(0.9)
    assert none["best_target_rank"] == 0  # an int, never None: vector envs stack it next to a rank


def test_report_averages_per_type_and_overall():
    records = [
        {"env_id": "E", "policy": "p", "metrics": {"task_type": "search", "function_accuracy": 1.0,
                                                   "result_accuracy": 0.8, "outcome_accuracy": 0.8, "steps": 1}},
        {"env_id": "E", "policy": "p", "metrics": {"task_type": "search", "function_accuracy": 0.0,
                                                   "result_accuracy": 0.0, "outcome_accuracy": 0.2, "steps": 3}},
        {"env_id": "E", "policy": "p", "metrics": {"task_type": "review", "function_accuracy": 1.0,
                                                   "result_accuracy": 0.6, "outcome_accuracy": 0.6, "steps": 2}},
    ]
    lines = report(records).splitlines()
    search = next(line for line in lines if line.startswith("search")).split()
    assert search[1:] == ["2", "0.500", "0.400", "0.500", "2.000"]
    overall = next(line for line in lines if line.startswith("overall")).split()
    assert overall[1:] == ["3", "0.667", "0.467", "0.533", "2.000"]
