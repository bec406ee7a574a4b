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


# ---------------------------------------------------------------------------------------- with the release texts
from tests.personalwab.fake_release import write_release  # noqa: E402


def recording_embedder(seen):
    def embed(texts):
        seen.append(list(texts))
        vectors = np.array([[1.0, float(len(t) % 7), float(i)] for i, t in enumerate(texts)])
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return embed


def test_relevant_embeds_the_official_history_template_with_each_records_index(tmp_path):
    from personal_envs.personalwab.memory import fill_template
    from personal_envs.personalwab.official_texts import Release

    release = Release(write_release(tmp_path / "official"))
    seen: list[list[str]] = []
    memory = HistoryMemory("relevant", k=3, embed=recording_embedder(seen), release=release)
    memory.select(OBS)
    template = release.agent_text("HISTORY_PROMPT")
    assert seen[0] == ["I need new shoes for trail running"]  # the task sentence alone
    assert seen[1] == [fill_template(template, "HISTORY_PROMPT", r, i) for i, r in enumerate(RECORDS)]
    assert seen[1][2] == ("\nMEMORY 2:\n- Title: Running socks\n- Parent Asin: A2\n- Main Category: Sports\n"
                          "- Price: 1\n- Details: null\n- Rating: 5\n- Text: Comfortable on long runs\n")


def test_official_memory_texts(tmp_path):
    from personal_envs.personalwab.official_texts import Release

    release = Release(write_release(tmp_path / "official"))
    last = HistoryMemory("last", k=2, release=release).context(OBS, {})
    assert last.startswith("\nLAST-HEADER:\n\n\nMEMORY 0:\n- Title: Frying pan\n") and "\nMEMORY 1:\n" in last
    recmind = HistoryMemory("recmind", k=2, release=release).context(OBS, {})
    assert recmind == "\nRECMIND-HEADER:\n\nMINI 0: Frying pan (A4) 5\nMINI 1: Green tea (A3) 5"
    review_obs = {**OBS, "instruction": "USER U1: Write a review\nHere is the product information: \n- UT: x"}
    task = HistoryMemory("task", k=2, release=release, embed=recording_embedder([])).context(review_obs, {})
    assert task.startswith("- TYPE review\n- TOOL add_product_review\n- TS-MEMORY:\nTSV 5/")
    assert task.count("|") == 1
    assert HistoryMemory("none", release=release).context(OBS, {}) == ""


def test_relevant_equals_the_official_selection_code_on_real_release_texts():
    """The official ``retrieve_top_k_memories`` (run from the release files with MiniLM through transformers) and
    ``HistoryMemory("relevant")`` pick the same records in the same order on every task of the tiny dataset."""
    from benchmarks._pwab_official import official_memory_code, official_relevant
    from personal_envs.personalwab.env import PersonalWABEnv
    from personal_envs.personalwab.official_texts import Release
    from tests.personalwab.test_official_texts import real_release_root
    from tests.personalwab.tiny_data import tiny_data

    root = real_release_root()
    code = official_memory_code(root)
    data = tiny_data()
    env = PersonalWABEnv(mode="single", data=data, review_similarity=lambda a, b: 0.5)
    memory = HistoryMemory("relevant", k=5, release=Release(root))
    for index, task in enumerate(env.tasks):
        obs, _ = env.reset(seed=0, options={"task_index": index})
        history = data.history_before(task.user_id, int(task.record["timestamp"]))
        assert [r["parent_asin"] for r in memory.select(obs)] == official_relevant(code, task.record["task"],
                                                                                   history, k=5)
