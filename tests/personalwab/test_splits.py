"""Train and test worlds share no user, persona or answer (target ASIN, target title, real review)."""

from __future__ import annotations

import copy

import gymnasium as gym
import pytest

from personal_envs.personalwab.data import PersonalWABData, load, load_profiles
from personal_envs.personalwab.splits import TRAIN_WORLD, overlaps, train_world
from tests.wrappers.conftest import lexical_similarity

SMALL = {"n_users": 40, "n_products": 800}


def test_the_generated_train_world_is_disjoint_from_the_embedded_test_data():
    test = load(None)
    world = train_world(test, **SMALL)
    assert len(world.tasks("train")) >= 100 and not world.tasks("test")
    assert not overlaps(world, test)
    # the data's own train list shares every user with its test list: what the train split avoids
    shared = overlaps(test, test, train_split="train", test_split="test")
    assert shared.users and shared.personas


def test_collisions_with_the_test_world_are_dropped():
    world = train_world(load(None), **SMALL)
    # a test world that holds one train user (same id and persona), one answer product and one real review
    test = copy.deepcopy(world)
    victims = world.tasks("train")[:3]
    test.instructions = {"train": [], "test": [victims[1], victims[2]]}
    test.profiles = {victims[0]["user_id"]: world.profiles[victims[0]["user_id"]]}
    test.histories = {}
    again = train_world(test, **SMALL)
    assert len(again.tasks("train")) < len(world.tasks("train"))
    assert not overlaps(again, test)
    kept_users = {t["user_id"] for t in again.tasks("train")}
    assert victims[0]["user_id"] not in kept_users
    kept_answers = {t["target"]["product_info"]["parent_asin"] for t in again.tasks("train")}
    assert not kept_answers & {v["target"]["product_info"]["parent_asin"] for v in victims[1:]}


def test_no_train_user_or_persona_is_an_official_user(anchors_dir):
    profiles = load_profiles(anchors_dir / "personalwab" / "user_profiles.json")
    assert len(profiles) == 1000
    official = PersonalWABData(profiles=profiles, products={}, histories={}, instructions={"train": [], "test": []},
                               source="official sample")
    world = train_world(official, n_users=TRAIN_WORLD["n_users"])
    assert not overlaps(world, official)
    users = {t["user_id"] for t in world.tasks("train")}
    assert len(users) >= 290 and users.isdisjoint(profiles)
    assert {tuple(sorted(world.profiles[u].items())) for u in users}.isdisjoint(
        tuple(sorted(p.items())) for p in profiles.values())


@pytest.mark.parametrize("env_id", ["PersonalWAB-SingleTurn-v0", "PersonalWAB-MultiTurn-v0"])
def test_env_splits_read_disjoint_worlds(env_id):
    kwargs = {"review_similarity": lexical_similarity, "train_generate": SMALL}
    train = gym.make(env_id, split="train", **kwargs).unwrapped
    test = gym.make(env_id, split="test", **kwargs).unwrapped
    release = gym.make(env_id, split="release_train", **kwargs).unwrapped
    try:
        train_users = {t.record["user_id"] for t in train.tasks}
        test_users = {t.record["user_id"] for t in test.tasks}
        assert train_users and test_users and train_users.isdisjoint(test_users)
        assert train.backend.data is not test.backend.data and release.backend.data is test.backend.data
        assert {t.record["user_id"] for t in release.tasks} <= set(test.backend.data.profiles)
        assert not overlaps(train.backend.data, test.backend.data)
        observation, _ = train.reset(seed=0, options={"task_index": 0})
        assert observation["instruction"].startswith(f"USER {train.tasks[0].record['user_id']}:")
        with pytest.raises(ValueError, match="unknown split"):
            gym.make(env_id, split="validation", **kwargs)
    finally:
        for env in (train, test, release):
            env.close()
