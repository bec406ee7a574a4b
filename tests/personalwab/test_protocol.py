"""The official episode protocol (HongruCai/PersonalWAB at 23ff65c): result formula, single-turn ending on every kind
of task-function call, empty results, placeholders and the observation text.

The reference below re-derives the official scorer from its rules, independently of the package: the result of a
search or recommendation is the Python list the official function returns (the agent sees ``str`` of it); the
result accuracy is ``1 - i / len(results)`` for the first result text that contains the target ASIN; a call that
raised scores ``[0, 0]``; an empty list scores ``[function matches, 0]``.
"""

from __future__ import annotations

import ast

import pytest

from personal_envs.personalwab.env import PersonalWABEnv
from personal_envs.personalwab.functions import RECOMMEND, SEARCH, official_search_observation
from personal_envs.personalwab.scoring import EMPTY_REVIEW_PLACEHOLDER, score_ranked_call
from tests.personalwab.tiny_data import tiny_data

DATA = tiny_data()


def official_rule(result_texts: list[str], target_asin: str) -> float:
    """The official ``calculate_reward`` for a list observation: first text holding the ASIN, ``1 - i/len``."""
    for i, text in enumerate(result_texts):
        if target_asin in text:
            return 1 - i / len(result_texts)
    return 0.0


def texts_for(ids: list[str]) -> list[str]:
    return [f"Product {i}: \n- parent_asin: {asin}\n" for i, asin in enumerate(ids)]


@pytest.mark.parametrize(
    "ids, target",
    [
        (["T", "A", "B"], "T"),  # fewer than 10 hits, first
        (["A", "T"], "T"),  # two hits, second: 0.5 (the paper's formula gives 0.9)
        ([f"A{i}" for i in range(8)] + ["T"], "T"),  # nine hits, last: 1 - 8/9
        ([f"A{i}" for i in range(10)], "T"),  # target absent
        (["A", "T", "T", "B"], "T"),  # duplicates: the first occurrence counts
        ([f"A{i}" for i in range(9)] + ["T"], "T"),  # ten hits: both formulas agree
        ([], "T"),  # nothing came back
    ],
)
def test_official_formula_matches_the_official_rule_on_hand_built_lists(ids, target):
    call = score_ranked_call("search", SEARCH, ids, target)
    assert call.result_accuracy == pytest.approx(official_rule(texts_for(ids), target))
    assert call.official_accuracy == call.result_accuracy
    paper = score_ranked_call("search", SEARCH, ids, target, "paper")
    rank = ids.index(target) + 1 if target in ids else None
    assert paper.result_accuracy == pytest.approx(0.0 if rank is None or rank > 10 else 1 - (rank - 1) / 10)
    if len(ids) == 10:
        assert paper.result_accuracy == pytest.approx(call.result_accuracy)


def test_issue_figures_two_and_nine_hits():
    assert score_ranked_call("search", SEARCH, ["A", "T"], "T").result_accuracy == pytest.approx(0.5)
    assert score_ranked_call("search", SEARCH, ["A", "T"], "T", "paper").result_accuracy == pytest.approx(0.9)
    nine = ["A", "B", "C", "T", "D", "E", "F", "G", "H"]
    assert score_ranked_call("recommend", RECOMMEND, nine, "T").result_accuracy == pytest.approx(1 - 3 / 9)
    assert score_ranked_call("recommend", RECOMMEND, nine, "T", "paper").result_accuracy == pytest.approx(0.7)


def test_unknown_formula_is_rejected():
    with pytest.raises(ValueError, match="result_formula"):
        score_ranked_call("search", SEARCH, ["A"], "A", "ndcg")
    with pytest.raises(ValueError, match="result_formula"):
        PersonalWABEnv(data=DATA, result_formula="ndcg")


def similarity(a: str, b: str) -> float:
    """A deterministic stand-in similarity that tells texts apart (length ratio)."""
    return min(len(a), len(b)) / max(len(a), len(b), 1)


def make(mode: str = "single", **kw) -> PersonalWABEnv:
    return PersonalWABEnv(mode=mode, data=DATA, review_similarity=similarity, **kw)


def target_of(index: int) -> str:
    return str(DATA.instructions["test"][index]["target"]["product_info"]["parent_asin"])


def test_env_scores_a_short_result_list_with_the_official_rule_on_the_text_it_shows():
    """A query matching few products: the env's score equals the official rule applied to the observation."""
    env = make()
    env.reset(seed=0, options={"task_index": 0})
    obs, reward, terminated, _, info = env.step({"action_type": SEARCH, "query": "oolong 15"})
    shown = ast.literal_eval(obs["result"])
    assert terminated and isinstance(shown, list) and 0 < len(shown) < 10
    assert reward == pytest.approx(official_rule(shown, target_of(0)))
    m = info["metrics"]
    assert m["result_accuracy"] == m["result_accuracy_official"] == pytest.approx(reward)
    position = next(i for i, text in enumerate(shown) if target_of(0) in text)
    assert m["result_accuracy_paper"] == pytest.approx(1 - position / 10)


def test_paper_formula_option_scores_the_same_episode_differently():
    env = make(result_formula="paper")
    env.reset(seed=0, options={"task_index": 0})
    obs, reward, *_ , info = env.step({"action_type": SEARCH, "query": "oolong 15"})
    shown = ast.literal_eval(obs["result"])
    position = next((i for i, text in enumerate(shown) if target_of(0) in text), None)
    assert position is not None and position > 0 and len(shown) < 10
    assert reward == pytest.approx(1 - position / 10) == info["metrics"]["result_accuracy_paper"]
    assert info["metrics"]["result_accuracy_official"] == pytest.approx(1 - position / len(shown))


@pytest.mark.parametrize("query", ["", "   ", "the of and"])
def test_single_turn_query_without_indexable_words_ends_with_right_function_and_zero(query):
    env = make()
    env.reset(seed=0, options={"task_index": 0})
    obs, reward, terminated, _, info = env.step({"action_type": SEARCH, "query": query})
    assert terminated and obs["result"] == "[]" and obs["last_action_error"] == ""
    assert info["metrics"]["function_accuracy"] == 1.0 and reward == 0.0


def test_single_turn_unknown_asins_end_with_right_function_and_zero():
    env = make()
    env.reset(seed=0, options={"task_index": 1})
    obs, reward, terminated, _, info = env.step({"action_type": RECOMMEND, "product_sequence": ["X1", "X2"]})
    assert terminated and obs["result"] == "[]" and obs["last_action_error"] == ""
    assert info["metrics"]["function_accuracy"] == 1.0 and reward == 0.0


@pytest.mark.parametrize("review", ["", "   "])
def test_single_turn_empty_review_is_scored_against_the_placeholder(review):
    env = make()
    env.reset(seed=0, options={"task_index": 2})
    real = DATA.instructions["test"][2]["target"]["review"]["text"]
    obs, reward, terminated, _, info = env.step({"action_type": "add_product_review", "review": review})
    assert terminated and info["metrics"]["function_accuracy"] == 1.0
    posted = review if review else EMPTY_REVIEW_PLACEHOLDER
    assert reward == pytest.approx(similarity(posted, real))
    assert ast.literal_eval(obs["result"]) == {"review": posted}


@pytest.mark.parametrize(
    "index, action",
    [
        (0, {"action_type": SEARCH, "q": "shoes"}),  # wrong key: TypeError officially
        (0, {"action_type": SEARCH}),  # missing key
        (2, {"action_type": "add_product_review", "text": "nice"}),
        (1, {"action_type": RECOMMEND, "products": ["B000000001"]}),
        (0, {"action_type": SEARCH, "query": "x" * 1_000_000}),  # over the query limit
        ('{"name": "search_product_by_query", "arguments": {"query": 1, "k": 2}}', None),  # extra key, as text
    ],
)
def test_single_turn_failed_task_call_ends_and_scores_zero(index, action):
    env = make()
    if action is None:  # the raw text is the action
        index, action = 0, index
    env.reset(seed=0, options={"task_index": index})
    obs, reward, terminated, _, info = env.step(action)
    assert terminated and obs["last_action_error"]
    m = info["metrics"]
    assert m["function_accuracy"] == 0.0 and reward == 0.0
    assert m["failed_calls"] == 1 and m["task_function_calls"] == 1
    assert "failed" in info["evaluation"]["checks"][0]["detail"]


def test_multi_turn_failed_call_is_scored_zero_and_the_episode_goes_on():
    env = make("multi")
    env.reset(seed=0, options={"task_index": 0})
    obs, _, terminated, truncated, _ = env.step({"action_type": SEARCH, "q": "shoes"})
    assert not (terminated or truncated) and obs["last_action_error"]
    title = DATA.products[target_of(0)]["title"]
    env.step({"action_type": SEARCH, "query": title})
    _, reward, terminated, _, info = env.step({"action_type": "stop"})
    assert terminated and info["metrics"]["failed_calls"] == 1 and reward == pytest.approx(1.0)


def test_search_observation_is_the_official_list_text():
    text = official_search_observation(["first contents", "second"])
    assert ast.literal_eval(text) == ["Product 0: \nfirst contents\n", "Product 1: \nsecond\n"]
    assert official_search_observation([]) == "[]"


def test_wrong_function_on_a_search_task_scores_zero_even_if_its_list_holds_the_target():
    env = make()
    env.reset(seed=0, options={"task_index": 0})
    _, reward, terminated, _, info = env.step({"action_type": RECOMMEND, "product_sequence": [target_of(0)]})
    assert terminated and info["metrics"]["function_accuracy"] == 0.0 and reward == 0.0
