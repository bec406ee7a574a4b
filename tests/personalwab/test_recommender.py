"""The SASRec recommender behind get_recommendations_by_history, against a popularity baseline.

The data is a seeded Markov walk over product series (see personal_envs.personalwab.sequence_data): the next
purchase is usually the next volume of the current series, which a sequential model can learn and popularity
cannot. Models stay small so the whole file trains in a few CPU seconds.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
import warnings
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from personal_envs.personalwab.recommender import (  # noqa: E402
    SUBPROCESS_TRAINING_MIN_ITEMS,
    PopularityRecommender,
    SequentialRecommender,
    TorchMissingError,
    hit_rate_at_k,
    ndcg_at_k,
)
from personal_envs.personalwab.sequence_data import (  # noqa: E402
    MarkovCatalogConfig,
    leave_last_out,
    markov_sequences,
)

SMALL = MarkovCatalogConfig(num_items=500)
TINY = MarkovCatalogConfig(num_items=120, max_length=12)
QUICK_FIT: dict[str, Any] = {"epochs": 2, "batch_size": 64, "lr": 3e-3}


@pytest.fixture(scope="module")
def dataset():
    item_ids, sequences = markov_sequences(600, SMALL, seed=1)
    train, test_cases = leave_last_out(sequences)
    return item_ids, train, test_cases


@pytest.fixture(scope="module")
def trained(dataset):
    item_ids, train, _ = dataset
    model = SequentialRecommender(item_ids, hidden=64, seed=0)
    stats = model.fit(train, epochs=8, batch_size=128, lr=3e-3)
    return model, stats


@pytest.fixture(scope="module")
def popularity(dataset):
    item_ids, train, _ = dataset
    model = PopularityRecommender(item_ids)
    model.fit(train)
    return model


@pytest.fixture(scope="module")
def tiny():
    return markov_sequences(150, TINY, seed=3)


def _state(model: SequentialRecommender) -> dict:
    return {name: tensor.clone() for name, tensor in model._net.state_dict().items()}


# ------------------------------------------------------------------------------------------------ quality


def test_sasrec_beats_popularity_on_held_out_next_items(dataset, trained, popularity):
    _, _, test_cases = dataset
    model, stats = trained
    assert len(test_cases) == 600
    hr_model, hr_pop = hit_rate_at_k(model, test_cases, 10), hit_rate_at_k(popularity, test_cases, 10)
    ndcg_model, ndcg_pop = ndcg_at_k(model, test_cases, 10), ndcg_at_k(popularity, test_cases, 10)
    assert hr_model >= 1.5 * hr_pop and hr_model - hr_pop >= 0.15, (hr_model, hr_pop)
    assert ndcg_model >= 1.5 * ndcg_pop, (ndcg_model, ndcg_pop)
    assert stats["epochs"] == 8 and math.isfinite(stats["final_loss"])
    assert stats["epoch_losses"][-1] < stats["epoch_losses"][0]


def test_training_uses_every_transition_once(dataset, trained):
    _, train, _ = dataset
    model, stats = trained
    assert stats["transitions"] == sum(len(sequence) - 1 for sequence in train)
    long_item_ids, _ = markov_sequences(1, TINY, seed=0)
    long_sequence = [long_item_ids[i % len(long_item_ids)] for i in range(75)]  # longer than two windows
    fresh = SequentialRecommender(long_item_ids, hidden=16, layers=1, seed=0)
    fresh_stats = fresh.fit([long_sequence, long_sequence[:1]], epochs=1)
    assert fresh_stats["transitions"] == 74 and fresh_stats["windows"] == 3


def test_sampled_softmax_and_bce_paths_train(tiny):
    item_ids, sequences = tiny
    for kwargs in ({"num_negatives": 40}, {"loss": "bce"}):
        model = SequentialRecommender(item_ids, hidden=16, layers=1, seed=0, **kwargs)
        stats = model.fit(sequences, **QUICK_FIT)
        assert math.isfinite(stats["final_loss"]) and model.is_trained
        top = model.recommend(sequences[0], k=10)
        assert len(top) == 10 and set(top) <= set(item_ids)


# ------------------------------------------------------------------------------------------- determinism


def test_same_seed_same_model_and_recommendations(tiny):
    item_ids, sequences = tiny
    first = SequentialRecommender(item_ids, hidden=16, layers=1, seed=7)
    second = SequentialRecommender(item_ids, hidden=16, layers=1, seed=7)
    first_stats = first.fit(sequences, **QUICK_FIT)
    second_stats = second.fit(sequences, **QUICK_FIT)
    assert first_stats["epoch_losses"] == second_stats["epoch_losses"]
    for name, tensor in _state(first).items():
        assert torch.equal(tensor, _state(second)[name]), name
    histories = [sequence[:-1] for sequence in sequences[:20]]
    assert first.recommend_many(histories) == second.recommend_many(histories)
    other = SequentialRecommender(item_ids, hidden=16, layers=1, seed=8)
    other.fit(sequences, **QUICK_FIT)
    assert not torch.equal(_state(other)["item_embedding.weight"], _state(first)["item_embedding.weight"])


def test_fit_leaves_global_torch_state_alone(tiny):
    item_ids, sequences = tiny
    threads = torch.get_num_threads()
    deterministic = torch.are_deterministic_algorithms_enabled()
    torch.manual_seed(123)
    expected_next = torch.rand(3)
    torch.manual_seed(123)
    model = SequentialRecommender(item_ids, hidden=16, layers=1, seed=0, threads=1)
    model.fit(sequences, **QUICK_FIT)
    model.recommend(sequences[0])
    assert torch.equal(torch.rand(3), expected_next)  # the caller's RNG stream was not consumed
    assert torch.get_num_threads() == threads
    assert torch.are_deterministic_algorithms_enabled() == deterministic


# ------------------------------------------------------------------------------------ persistence, cache


def test_save_load_round_trip_is_identical(dataset, trained, tmp_path):
    _, _, test_cases = dataset
    model, stats = trained
    path = model.save(tmp_path / "nested" / "model.pt")
    loaded = SequentialRecommender.load(path)
    histories = [history for history, _ in test_cases[:50]] + [[], ["unknown"]]
    assert loaded.recommend_many(histories, k=15) == model.recommend_many(histories, k=15)
    assert loaded.recommend(histories[0], exclude_history=True) == model.recommend(
        histories[0], exclude_history=True
    )
    assert loaded.item_ids == model.item_ids and loaded.config == model.config
    assert loaded.training_stats["final_loss"] == pytest.approx(stats["final_loss"])
    assert not list(path.parent.glob("*.tmp"))
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's private 0600


def test_load_rejects_foreign_file(tmp_path):
    foreign = tmp_path / "foreign.pt"
    torch.save({"weights": torch.zeros(2)}, foreign)
    with pytest.raises(ValueError, match="not a SequentialRecommender"):
        SequentialRecommender.load(foreign)


def test_cache_trains_once_in_a_child_process_then_loads(tiny, tmp_path):
    item_ids, sequences = tiny
    kwargs = {"hidden": 16, "layers": 1, **QUICK_FIT}
    first = SequentialRecommender.cached(item_ids, sequences, tmp_path, train_in_subprocess=True, **kwargs)
    files = list(tmp_path.glob("*.pt"))
    assert not first.loaded_from_cache and first.is_trained and len(files) == 1
    key = SequentialRecommender.cache_key(item_ids, sequences, **kwargs)
    assert files[0].name == f"{key}.pt"
    assert not list(tmp_path.glob("*.json")) and not list(tmp_path.glob("*.tmp"))  # job file cleaned up
    # the child's weights are exactly those of training in this process
    in_process = SequentialRecommender(item_ids, hidden=16, layers=1)
    in_process.fit(sequences, **QUICK_FIT)
    for name, tensor in _state(in_process).items():
        assert torch.equal(tensor, _state(first)[name]), name
    stamp = files[0].stat().st_mtime_ns
    second = SequentialRecommender.cached(item_ids, sequences, tmp_path, **kwargs)
    assert second.loaded_from_cache and files[0].stat().st_mtime_ns == stamp
    histories = [sequence[:-1] for sequence in sequences[:10]]
    assert second.recommend_many(histories) == first.recommend_many(histories)
    # progress does not change the model, so it must not change the key; hyperparameters and data do
    assert SequentialRecommender.cache_key(item_ids, sequences, progress=True, **kwargs) == key
    assert SequentialRecommender.cache_key(item_ids, sequences, **{**kwargs, "hidden": 32}) != key
    assert SequentialRecommender.cache_key(item_ids, sequences, **{**kwargs, "epochs": 3}) != key
    assert SequentialRecommender.cache_key(item_ids, sequences[1:], **kwargs) != key
    assert SequentialRecommender.cache_key(item_ids[::-1], sequences, **kwargs) != key
    with pytest.raises(TypeError, match="unknown"):
        SequentialRecommender.cache_key(item_ids, sequences, hiden=16)


def test_corrupt_cache_entry_is_rebuilt(tiny, tmp_path):
    item_ids, sequences = tiny
    kwargs = {"hidden": 16, "layers": 1, "train_in_subprocess": False, **QUICK_FIT}
    path = (
        tmp_path
        / f"{SequentialRecommender.cache_key(item_ids, sequences, hidden=16, layers=1, **QUICK_FIT)}.pt"
    )
    path.write_bytes(b"not a torch file")
    model = SequentialRecommender.cached(item_ids, sequences, tmp_path, **kwargs)
    assert not model.loaded_from_cache and model.is_trained
    assert SequentialRecommender.cached(item_ids, sequences, tmp_path, **kwargs).loaded_from_cache


def test_failed_training_child_falls_back_in_process(tiny, tmp_path, monkeypatch):
    item_ids, sequences = tiny
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-such-python"))
    with pytest.warns(UserWarning, match="training in-process"):
        model = SequentialRecommender.cached(
            item_ids, sequences, tmp_path, train_in_subprocess=True, hidden=16, layers=1, **QUICK_FIT
        )
    assert model.is_trained and len(list(tmp_path.glob("*.pt"))) == 1
    # a small catalog (below SUBPROCESS_TRAINING_MIN_ITEMS) trains in-process by default: no child, no warning
    assert len(item_ids) < SUBPROCESS_TRAINING_MIN_ITEMS
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        small = SequentialRecommender.cached(
            item_ids, sequences, tmp_path / "auto", hidden=16, layers=1, **QUICK_FIT
        )
    assert small.is_trained and not small.loaded_from_cache


def test_concurrent_cache_misses_train_once(tiny, tmp_path):
    item_ids, sequences = tiny
    kwargs = {"hidden": 16, "layers": 1, "train_in_subprocess": False, **QUICK_FIT}
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [
            pool.submit(SequentialRecommender.cached, item_ids, sequences, tmp_path, **kwargs)
            for _ in range(2)
        ]
        models = [future.result(timeout=300) for future in futures]
    assert sorted(model.loaded_from_cache for model in models) == [False, True]


# ------------------------------------------------------------------------------------------- bad inputs


@pytest.mark.parametrize(
    "history",
    [
        [],
        None,
        "B0NOTREAL00",
        ["B0NOTREAL00", "???", ""],
        [None, 3, 4.5, {"a": 1}, ["nested"]],
        {"product_sequence": ["x"]},
        42,
        ["x" * 100_000],
    ],
)
def test_bad_histories_fall_back_to_popularity(trained, popularity, history):
    model, _ = trained
    assert model.recommend(history, k=10) == popularity.recommend([], k=10)


def test_huge_duplicate_and_mixed_histories_never_raise(dataset, trained):
    item_ids, train, _ = dataset
    model, _ = trained
    thousand = [item_ids[i % len(item_ids)] for i in range(1000)]
    duplicates = [item_ids[5]] * 50
    mixed = [item_ids[1], None, "unknown", 7, item_ids[2]]
    for history in (thousand, duplicates, mixed, tuple(train[0]), iter(train[1])):
        top = model.recommend(history, k=10)
        assert len(top) == 10 and len(set(top)) == 10 and set(top) <= set(item_ids)


@pytest.mark.parametrize(
    "k, expected",
    [(0, 0), (-3, 0), (1, 1), ("ten", 10), (None, 10), (float("nan"), 10), (10**9, 500), (3.7, 3)],
)
def test_any_k_is_clamped(dataset, trained, k, expected):
    _, train, _ = dataset
    model, _ = trained
    top = model.recommend(train[0], k=k)
    assert len(top) == expected and len(set(top)) == expected


def test_only_the_last_max_len_known_items_matter(dataset, trained):
    item_ids, train, _ = dataset
    model, _ = trained
    recent = [item_ids[i] for i in range(100, 130)]
    older = [item_ids[i] for i in range(300, 340)]
    assert model.max_len == 30
    expected = model.recommend(recent, k=20)
    assert model.recommend(older + recent, k=20) == expected
    interleaved = [x for pair in zip(recent, ["UNKNOWN"] * 30, strict=True) for x in pair]
    assert model.recommend(interleaved, k=20) == expected
    assert model.recommend(older[-1:] + recent, k=20) == expected  # 31 known: the oldest is dropped


def test_order_matters_for_the_sequential_model(dataset, trained):
    item_ids, _, _ = dataset
    model, _ = trained
    forward = [item_ids[i] for i in range(40, 44)]  # a series walked in order
    assert model.recommend(forward) != model.recommend(forward[::-1])


def test_exclude_history_removes_seen_items(dataset, trained):
    item_ids, train, _ = dataset
    model, _ = trained
    history = train[3]
    top = model.recommend(history, k=25, exclude_history=True)
    assert len(top) == 25 and not set(top) & set(history)
    all_but_history = model.recommend(history, k=10**6, exclude_history=True)
    assert len(all_but_history) == len(item_ids) - len(set(history))


def test_untrained_and_degenerate_models_still_answer(tiny):
    item_ids, _ = tiny
    model = SequentialRecommender(item_ids, hidden=16, layers=1)
    assert model.recommend([item_ids[0]], k=5) == item_ids[:5]  # no data yet: catalog order
    stats = model.fit([[item_ids[3]], [item_ids[3], "unknown"], []])  # no transitions to learn from
    assert stats["final_loss"] is None and not model.is_trained
    assert model.recommend([item_ids[9]], k=2) == [item_ids[3], item_ids[0]]  # popularity, ties in order
    messy_catalog: list[Any] = [item_ids[0], item_ids[0], item_ids[1], 5, ""]
    duplicated = SequentialRecommender(messy_catalog, hidden=8, heads=1)
    assert duplicated.item_ids == [item_ids[0], item_ids[1]]
    with pytest.raises(ValueError):
        SequentialRecommender([], hidden=8)
    with pytest.raises(ValueError):
        SequentialRecommender(item_ids, hidden=10, heads=3)


# ----------------------------------------------------------------------------------------------- metrics


def test_metric_values_are_exact():
    catalog = ["a", "b", "c", "d"]
    model = PopularityRecommender(catalog)
    model.fit([["c", "c", "c"], ["b", "b"], ["a"]])  # ranking: c, b, a, d
    assert model.recommend([], k=4) == ["c", "b", "a", "d"]
    cases = [([], "c"), ([], "b"), ([], "d"), (["x"], "zzz")]
    assert hit_rate_at_k(model, cases, k=2) == pytest.approx(0.5)
    assert hit_rate_at_k(model, cases, k=4) == pytest.approx(0.75)
    expected_ndcg = (1.0 + 1.0 / math.log2(3) + 1.0 / math.log2(5)) / 4
    assert ndcg_at_k(model, cases, k=4) == pytest.approx(expected_ndcg)
    assert hit_rate_at_k(model, [], k=10) == 0.0 and ndcg_at_k(model, [], k=10) == 0.0
    assert model.recommend(["c"], k=2, exclude_history=True) == ["b", "a"]


# ------------------------------------------------------------------------------------------ lazy torch


def _run_python(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env, timeout=120
    )


def test_importing_the_module_does_not_import_torch():
    result = _run_python(
        """
        import sys
        import personal_envs.personalwab.recommender as rec
        rec.PopularityRecommender(["a"]).fit([["a"]])
        print("torch" in sys.modules)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_missing_torch_gives_an_install_hint():
    result = _run_python(
        """
        import sys
        sys.modules["torch"] = None  # what Python does for a package that cannot be imported
        from personal_envs.personalwab.recommender import SequentialRecommender, TorchMissingError
        try:
            SequentialRecommender(["a", "b"])
        except TorchMissingError as exc:
            print("ERR", exc)
        """
    )
    assert result.returncode == 0, result.stderr
    assert "ERR" in result.stdout and "pip install 'personal-envs[rl]'" in result.stdout
    assert "torch==2.13.0" in result.stdout
    assert issubclass(TorchMissingError, ImportError)


def test_give_catalogue_places_items_unseen_in_training_among_their_group(tiny):
    item_ids, sequences = tiny
    unseen = "NEW-ITEM"
    model = SequentialRecommender([*item_ids, unseen], hidden=16, layers=1, seed=0)
    model.fit(sequences, **QUICK_FIT)
    peers = list(item_ids[:3])
    groups = {item: ["group-a" if item in peers else "group-b"] for item in item_ids}
    groups[unseen] = ["no-such-group", "group-a"]  # falls back to the broader key
    weight = model._net.item_embedding.weight
    index = model._catalog.index
    before = weight[index[unseen]].detach().clone()
    never_seen = [item for item in groups if model._catalog.counts[index[item]] == 0]
    assert unseen in never_seen and all(item not in peers for item in never_seen)
    assert model.give_catalogue(groups) == len(never_seen)
    expected = weight[[index[p] for p in peers]].detach().mean(dim=0)
    after = weight[index[unseen]].detach()
    assert not bool((after == before).all()) and bool(((after - expected).abs() < 1e-6).all())
    # scoring uses the new embedding: the unseen item scores as its group's mean
    model.recommend(sequences[0], k=5)
    assert bool(((model._item_matrix()[:, index[unseen]] - expected).abs() < 1e-6).all())
