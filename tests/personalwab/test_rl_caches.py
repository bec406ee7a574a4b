"""The RL fast paths of PersonalWAB (memoised candidates and features, review scores warmed before training) give
exactly what the uncached computation gives: the same candidate actions, observation vectors and rewards."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from personal_envs.core import embedding
from personal_envs.personalwab import similarity
from personal_envs.personalwab.candidates import PersonalWABCandidates
from personal_envs.personalwab.env import PersonalWABEnv
from personal_envs.personalwab.features import PersonalWABFeatures, warm_embeddings
from personal_envs.wrappers.discrete import DiscreteActions
from personal_envs.wrappers.rl import make_rl_env
from tests.personalwab.tiny_data import tiny_data

DATA = tiny_data()
REVIEW_SLOTS = ("add_product_review/last", "add_product_review/relevant", "add_product_review/relevant_only")


def forget_everything() -> None:
    embedding.clear_cache()
    similarity.clear_pair_cache()


def rl_env(mode: str = "single") -> Any:
    return make_rl_env(PersonalWABEnv(mode=mode, data=DATA), provider=PersonalWABCandidates(), max_actions=13,
                       features=PersonalWABFeatures())


def post_every_review_candidate(env: Any) -> list[tuple[float, float, np.ndarray]]:
    """Each review slot on each review task, in the warm-up's order: (reward, paper score, observation)."""
    base = env.unwrapped
    slots = env.get_wrapper_attr("fixed_slots")
    results = []
    for index, task in enumerate(base.tasks):
        if task.task_type != "review":
            continue
        for slot in REVIEW_SLOTS:
            env.reset(seed=0, options={"task_index": index})
            observation, reward, terminated, _, info = env.step(slots.index(slot))
            assert terminated and info["score"] is not None
            results.append((float(reward), float(info["score"]), observation))
    return results


def test_warmed_review_scores_equal_the_uncached_scores_and_need_no_forward_pass():
    forget_everything()
    uncached = post_every_review_candidate(rl_env())
    forget_everything()
    env = rl_env()
    warm_embeddings(env)
    embedded = embedding.cached_count()
    cached = post_every_review_candidate(env)
    assert embedding.cached_count() == embedded  # every posted review and target was embedded by the warm-up
    assert len(cached) == len(uncached) == 3
    assert [(r, s) for r, s, _ in cached] == [(r, s) for r, s, _ in uncached]  # bit-identical rewards and scores
    assert len({s for _, s, _ in cached}) > 1 and all(0 < s < 1 for _, s, _ in cached)  # real cosines, not a stub
    for (_, _, ours), (_, _, theirs) in zip(cached, uncached, strict=True):
        np.testing.assert_allclose(ours, theirs, atol=1e-6)  # embedded in another batch: equal to float rounding


def test_review_similarity_remembers_a_pair_with_the_value_it_computed():
    forget_everything()
    first = similarity.review_similarity("The kettle boils fast.", "Great kettle, quick to boil.")
    assert similarity.review_similarity("The kettle boils fast.", "Great kettle, quick to boil.") == first
    forget_everything()
    assert similarity.review_similarity("The kettle boils fast.", "Great kettle, quick to boil.") == first
    assert similarity.review_similarity("Great kettle, quick to boil.", "The kettle boils fast.") == pytest.approx(
        first, abs=1e-6)


@pytest.mark.parametrize("mode", ["single", "multi"])
def test_memoised_candidates_and_features_equal_freshly_built_ones(mode):
    provider, features = PersonalWABCandidates(), PersonalWABFeatures()
    env = DiscreteActions(PersonalWABEnv(mode=mode, data=DATA, review_similarity=lambda a, b: 0.5),
                          provider=provider, max_actions=13)
    rng = np.random.default_rng(0)
    seen_replies = 0
    for episode in range(12):
        observation, info = env.reset(seed=episode, options={"task_index": episode % 3})
        for _ in range(6):
            fresh = PersonalWABCandidates().build(observation["instruction"], observation["logs"],
                                                  observation["user_reply"])
            assert env.candidates == fresh and provider(observation) == fresh
            vector = features(observation)
            assert np.array_equal(vector, PersonalWABFeatures()(observation))
            assert np.array_equal(features(observation), vector)  # the memo's answer, again
            seen_replies += bool(observation["user_reply"])
            observation, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            if terminated or truncated:
                break
    if mode == "multi":
        assert seen_replies > 0  # the memo was exercised with the user's replies in the key


def test_the_multi_turn_warm_up_embeds_the_users_replies_a_random_policy_meets():
    forget_everything()
    env = rl_env("multi")
    warm_embeddings(env)
    embedded = embedding.cached_count()
    rng = np.random.default_rng(1)
    replies = set()
    for episode in range(30):
        _, info = env.reset(seed=episode, options={"task_index": episode % 3})
        done = False
        while not done:
            _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            replies.add(env.unwrapped.user_reply)
            done = terminated or truncated
    assert len(replies - {""}) >= 3
    assert embedding.cached_count() == embedded  # no reply needed a forward pass during the episodes
