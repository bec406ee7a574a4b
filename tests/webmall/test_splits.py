"""WebMall's train tasks share no answer, product, task text or buyer with the test tasks."""

from __future__ import annotations

import gymnasium as gym

from personal_envs.webmall.catalog import load_catalog
from personal_envs.webmall.generator import generate_tasks
from personal_envs.webmall.splits import TRAIN_BUYERS, overlaps, task_products, train_tasks
from personal_envs.webmall.tasks import load_official_tasks


def test_train_tasks_avoid_the_embedded_test_tasks():
    catalog = load_catalog(None)
    test = generate_tasks(catalog, None, seed=0)
    train = train_tasks(catalog, test)
    assert len(train) >= 100 and all(t.task_id.startswith("Train_") for t in train)
    assert not any(overlaps(catalog, train, test).values())
    # without the filter the generator does reuse test products: the filter is what keeps them apart
    raw = generate_tasks(catalog, 1500, seed=7919)
    assert overlaps(catalog, raw, test)["products"]
    checkout = [t for t in train if t.user_details]
    assert checkout and {t.user_details["name"] for t in checkout} <= {b["name"] for b in TRAIN_BUYERS}


def test_train_tasks_avoid_the_official_tasks(anchors_dir):
    data = anchors_dir / "webmall"
    catalog = load_catalog(data)
    official = load_official_tasks(data)
    assert len(official) == 91
    train = train_tasks(catalog, official)
    assert len(train) >= 200
    assert not any(overlaps(catalog, train, official).values())
    answers = {p for t in official for p in task_products(catalog, t)}
    assert len(answers) > 100  # the official answers cover many products, and none is a train answer


def test_the_env_split_reads_train_tasks():
    train = gym.make("WebMall-v0", split="train", data_dir="shipped").unwrapped
    test = gym.make("WebMall-v0", split="test", data_dir="shipped").unwrapped
    try:
        assert train.split == "train" and test.split == "test"
        assert not any(overlaps(train.catalog, train.tasks, test.tasks).values())
        assert {t.task_id for t in train.tasks}.isdisjoint({t.task_id for t in test.tasks})
    finally:
        train.close()
        test.close()
