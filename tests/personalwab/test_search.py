"""The Lucene-style BM25 search: the analyzer's terms and rankings against Lucene's BM25 formula written out."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from personal_envs.personalwab.search import K1, B, ProductSearch, analyze

CORPUS = {
    "P1": "Trail running shoes with a grippy outsole for muddy trails",
    "P2": "Running socks, cushioned heel, 3-pack; the runner's choice",
    "P3": "Nonstick frying pan, oven safe to 450F",
    "P4": "Stainless kettle: boils 1,000 ml quickly. Price 25.99",
    "P5": "Shoes shoes shoes: a rack for running shoes and boots",
    "P6": "Wireless earbuds with noise cancelling and a 30h battery",
}


def test_analyzer_stems_drops_lucene_stop_words_and_possessives():
    assert analyze("The runner's batteries are running") == ["runner", "batteri", "run"]
    assert analyze("this is not what they were") == ["what", "were"]  # only Lucene's 33 stop words go
    assert analyze("costs 25.99 for 1,000 ml") == ["cost", "25.99", "1,000", "ml"]
    assert analyze("") == []


def lucene_rank(query: str) -> list[str]:
    """Lucene's BM25Similarity, written out: idf = ln(1 + (N - df + 0.5)/(df + 0.5)), tf part
    freq / (freq + k1 * (1 - b + b * dl / avgdl)), summed over the query terms (repeats count again)."""
    docs = {pid: Counter(analyze(text)) for pid, text in CORPUS.items()}
    lengths = {pid: sum(c.values()) for pid, c in docs.items()}
    avgdl = sum(lengths.values()) / len(lengths)
    n = len(docs)
    scores = {}
    for pid, counts in docs.items():
        score = 0.0
        for term in analyze(query):
            df = sum(1 for c in docs.values() if term in c)
            freq = counts.get(term, 0)
            if df == 0 or freq == 0:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            score += idf * freq / (freq + K1 * (1 - B + B * lengths[pid] / avgdl))
        if score > 0:
            scores[pid] = score
    return sorted(scores, key=lambda pid: (-scores[pid], list(CORPUS).index(pid)))[:10]


@pytest.mark.parametrize("query", ["running shoes", "shoes", "runner's socks", "kettle 25.99", "the running running",
                                   "battery noise", "frying pans for trails", "the of and", ""])
def test_ranking_matches_lucene_bm25_with_anserini_defaults(query):
    search = ProductSearch(list(CORPUS), list(CORPUS.values()))
    assert search.search(query) == lucene_rank(query)


def test_defaults_are_anserinis():
    assert (K1, B) == (0.9, 0.4)


def test_document_lengths_go_through_lucenes_one_byte_norm():
    from personal_envs.personalwab.search import lucene_length

    assert [lucene_length(n) for n in range(24)] == list(range(24))  # small lengths are exact
    assert lucene_length(100) == 96 and lucene_length(103) == 96 and lucene_length(104) == 104
    decoded = [lucene_length(n) for n in range(2000)]
    assert decoded == sorted(decoded) and all(d <= n for n, d in enumerate(decoded))


def test_lossy_norm_changes_a_ranking_as_in_lucene():
    """Two documents whose exact lengths differ but decode to the same norm tie, and the catalogue order wins."""
    filler = " ".join(f"w{i}" for i in range(95))
    texts = [f"kettle {filler} x y z", f"kettle {filler}"]  # 99 and 96 terms: both decode to 96
    search = ProductSearch(["late", "early"], texts)
    assert search.search("kettle") == ["late", "early"]
