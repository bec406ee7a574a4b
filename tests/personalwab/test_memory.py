import json

import numpy as np
import pytest

from personal_envs.personalwab.memory import HistoryMemory, parse_logs

RECORDS = [
    {"timestamp": i, "parent_asin": f"A{i}", "title": title, "category": cat, "store": "S", "price": "1",
     "rating": 5, "review_title": "ok", "review": review}
    for i, (title, cat, review) in enumerate([
        ("Trail running shoes", "Sports", "Great grip on muddy trails"),
        ("Ceramic coffee mug", "Kitchen", "Keeps coffee warm"),
        ("Running socks", "Sports", "Comfortable on long runs"),
        ("Green tea", "Grocery", "Fresh taste"),
        ("Frying pan", "Kitchen", "Nonstick works"),
    ])
]
OBS = {"instruction": "USER U1: I need new shoes for trail running", "logs": "\n".join(map(json.dumps, RECORDS))}


def test_parse_logs_skips_broken_lines():
    assert len(parse_logs(OBS["logs"] + "\n{broken\n\n")) == 5


def test_none_last_and_random():
    assert HistoryMemory("none").select(OBS) == []
    # the official ``last``: the k newest records, newest first
    assert [r["parent_asin"] for r in HistoryMemory("last", k=2).select(OBS)] == ["A4", "A3"]
    assert [r["parent_asin"] for r in HistoryMemory("last", k=10).select(OBS)] == ["A4", "A3", "A2", "A1", "A0"]
    a = HistoryMemory("random", k=3, seed=1).select(OBS)
    b = HistoryMemory("random", k=3, seed=1).select(OBS)
    assert a == b and len(a) == 3


def test_relevant_memory_ranks_by_minilm_similarity_most_relevant_first():
    chosen = HistoryMemory("relevant", k=2).select(OBS)
    assert {r["parent_asin"] for r in chosen} == {"A0", "A2"}
    assert chosen[0]["parent_asin"] == "A0"  # "Trail running shoes" before "Running socks", not time order
    ranked = HistoryMemory("relevant", k=5).select(OBS)
    assert [r["parent_asin"] for r in ranked][:2] == ["A0", "A2"]


def test_relevance_uses_the_official_embedding_at_512_tokens():
    from personal_envs.personalwab.memory import record_text, task_sentence
    from personal_envs.personalwab.similarity import embed_official

    memory = HistoryMemory("relevant", k=5)
    chosen = memory.select(OBS)
    vectors = embed_official([task_sentence(OBS["instruction"]), *(record_text(r) for r in RECORDS)])
    order = sorted(range(5), key=lambda i: -float(vectors[i + 1] @ vectors[0]))
    assert [r["parent_asin"] for r in chosen] == [f"A{i}" for i in order]


def test_task_memory_keeps_pumas_function_specific_fields():
    search = HistoryMemory("task", k=2).select(OBS)
    assert set(search[0]) == {"title", "category", "store", "price"}
    assert search[0]["title"] == "Trail running shoes"  # relevance order
    review_obs = {**OBS, "instruction": "USER U1: Write a review\nHere is the product information:\nShoes"}
    review = HistoryMemory("task", k=2).select(review_obs)
    assert set(review[0]) == {"rating", "review"}
    text = HistoryMemory("task", k=2).context(review_obs, {})
    assert text.startswith("User history (task memory, 2 records, task-specific); task type review")
    rec_obs = {**OBS, "instruction": "USER U1: Recommend something to go with my running gear"}
    rec = HistoryMemory("task", k=3).select(rec_obs)
    assert set(rec[0]) == {"title", "category", "parent_asin"}
    times = [int(r["parent_asin"][1:]) for r in rec]
    assert times == sorted(times)  # recommendation memory in time order, oldest first


def test_custom_embedder_and_bad_kind():
    def embed(texts):
        vectors = np.array([[1.0, float(i)] for i in range(len(texts))])
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    assert len(HistoryMemory("relevant", k=1, embed=embed).select(OBS)) == 1
    with pytest.raises(ValueError, match="memory kind"):
        HistoryMemory("psychic")
