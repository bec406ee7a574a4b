"""The BM25 search: rankings and scores against Lucene 9.5's BM25 written out operation by operation in float32."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from personal_envs.personalwab.analysis import analyze
from personal_envs.personalwab.search import K1, MAX_CLAUSES, B, ProductSearch, TooManyClauses, lucene_length

CORPUS = {
    "P1": "Trail running shoes with a grippy outsole for muddy trails",
    "P2": "Running socks, cushioned heel, 3-pack; the runner's choice",
    "P3": "Nonstick frying pan, oven safe to 450F",
    "P4": "Stainless kettle: boils 1,000 ml quickly. Price 25.99",
    "P5": "Shoes shoes shoes: a rack for running shoes and boots",
    "P6": "Wireless earbuds with noise cancelling and a 30h battery",
}
f32 = np.float32


def lucene_scores(query: str, corpus: dict[str, str]) -> dict[str, float]:
    """Lucene 9.5: BooleanQuery of TermQuery(term)^count; BM25Similarity.scorer caches
    1 / (k1 * ((1 - b) + b * LENGTH_TABLE[norm] / avgdl)) per norm, BM25Scorer.score is
    weight - weight / (1 + freq * cache) with weight = boost * idf, all in float; clause scores summed in double."""
    docs = {pid: Counter(analyze(text)) for pid, text in corpus.items()}
    n = len(docs)
    avgdl = f32(sum(sum(c.values()) for c in docs.values()) / n)
    scores: dict[str, float] = {}
    for term, count in Counter(analyze(query)).items():
        df = sum(1 for c in docs.values() if term in c)
        if df == 0:
            continue
        weight = f32(count) * f32(math.log(1 + (n - df + 0.5) / (df + 0.5)))
        for pid, counts in docs.items():
            if term not in counts:
                continue
            length = f32(lucene_length(sum(counts.values())))
            cache = f32(1) / (f32(K1) * ((f32(1) - f32(B)) + f32(B) * length / avgdl))
            score = weight - weight / (f32(1) + f32(counts[term]) * cache)
            scores[pid] = scores.get(pid, 0.0) + float(score)
    return {pid: float(f32(s)) for pid, s in scores.items()}


def lucene_rank(query: str, corpus: dict[str, str] = CORPUS) -> list[str]:
    scores = lucene_scores(query, corpus)
    return sorted(scores, key=lambda pid: (-scores[pid], pid))[:10]


@pytest.mark.parametrize("query", ["running shoes", "shoes", "runner's socks", "kettle 25.99", "the running running",
                                   "battery noise", "frying pans for trails", "the of and", ""])
def test_ranking_and_scores_match_lucene_bm25(query):
    search = ProductSearch(list(CORPUS), list(CORPUS.values()))
    assert search.search(query) == lucene_rank(query)
    assert search.scores(query) == lucene_scores(query, CORPUS)


def test_defaults_are_anserinis():
    assert (K1, B) == (0.9, 0.4)


def test_document_lengths_go_through_lucenes_one_byte_norm():
    assert [lucene_length(n) for n in range(24)] == list(range(24))  # small lengths are exact
    assert lucene_length(100) == 96 and lucene_length(103) == 96 and lucene_length(104) == 104
    decoded = [lucene_length(n) for n in range(2000)]
    assert decoded == sorted(decoded) and all(d <= n for n, d in enumerate(decoded))


def test_equal_scores_are_ordered_by_id_as_anserini_sorts_them():
    """Two documents whose exact lengths differ but decode to the same norm tie; the smaller id comes first,
    whatever the catalogue order (Anserini sorts by score, then by the id field)."""
    filler = " ".join(f"w{i}" for i in range(95))
    texts = [f"kettle {filler} x y z", f"kettle {filler}"]  # 99 and 96 terms: both decode to 96
    assert ProductSearch(["B2", "B1"], texts).search("kettle") == ["B1", "B2"]
    assert ProductSearch(["B1", "B2"], texts).search("kettle") == ["B1", "B2"]


def test_more_ties_than_hits_keep_the_smallest_ids():
    ids = [f"B{i:02d}" for i in (7, 3, 14, 0, 11, 5, 9, 1, 13, 2, 8, 12, 4, 10, 6)]
    search = ProductSearch(ids, ["kettle"] * len(ids))
    assert search.search("kettle") == [f"B{i:02d}" for i in range(10)]
    texts = ["kettle"] * 14 + ["kettle kettle"]  # one better document, then the tied ones by id
    assert ProductSearch(ids, texts).search("kettle")[:3] == ["B06", "B00", "B01"]


def test_a_query_with_too_many_distinct_terms_fails_as_in_lucene():
    """Lucene 9.5 answers 1,024 distinct terms (unknown ones included) and fails on 1,025."""
    search = ProductSearch(list(CORPUS), list(CORPUS.values()))
    words = " ".join(f"w{i}" for i in range(MAX_CLAUSES - 1))
    assert search.search(words + " kettle kettle") == ["P4"]
    with pytest.raises(TooManyClauses, match="maxClauseCount"):
        search.search(words + " w1023 kettle")
