"""Train and test worlds for PersonalWAB that share no user, persona or answer.

* ``split="test"``: the instructions of the loaded data's test split (the official release when present, else the
  embedded generated default) over its users.
* ``split="train"``: a world of its own from the project's generator (:func:`personal_envs.personalwab.data.generate`)
  with a train seed: generated users, histories, catalogue and instructions (every instruction it makes is a train
  task).  A train task is dropped when its user id or persona (the 11 profile fields) is one of the test data's
  users, or its answer (target ASIN, target title, or the real review's text) is a test answer.
* ``split="release_train"``: the loaded data's own train list (the official release's 6,896 train instructions),
  which shares users with the test split; for studies that want it, never for held-out evaluation.

:func:`overlaps` lists what two datasets share; the tests assert it is empty for every pair the envs build.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from personal_envs.core.errors import InputError
from personal_envs.personalwab.data import PersonalWABData, generate

#: Seed of the generated train world (the embedded test default uses seed 0).
TRAIN_SEED = 7919
#: Size of the generated train world: 300 users, 3 instructions each (900 train tasks before filtering).
TRAIN_WORLD: dict[str, Any] = {"seed": TRAIN_SEED, "n_users": 300, "n_products": 3000, "tasks_per_user": 3}
SPLITS = ("train", "test", "release_train")


@dataclass(frozen=True)
class Overlap:
    """What a train world shares with a test world (every field empty when they are disjoint)."""

    users: frozenset[str]
    personas: frozenset[tuple[str, ...]]
    target_asins: frozenset[str]
    target_titles: frozenset[str]
    reviews: frozenset[str]

    def __bool__(self) -> bool:
        return any((self.users, self.personas, self.target_asins, self.target_titles, self.reviews))


def _persona(profile: dict[str, str]) -> tuple[str, ...]:
    return tuple(str(profile.get(key, "")) for key in sorted(profile))


def _answers(data: PersonalWABData, split: str) -> tuple[set[str], set[str], set[str]]:
    asins, titles, reviews = set(), set(), set()
    for task in data.instructions.get(split, []):
        product = task["target"].get("product_info") or {}
        asins.add(str(product.get("parent_asin")))
        if product.get("title"):
            titles.add(str(product["title"]).strip().lower())
        review = task["target"].get("review") or {}
        if review.get("text"):
            reviews.add(str(review["text"]).strip())
    return asins, titles, reviews


def _users(data: PersonalWABData) -> set[str]:
    return set(data.profiles) | set(data.histories) | {str(t["user_id"]) for ts in data.instructions.values() for t in ts}


def overlaps(train: PersonalWABData, test: PersonalWABData, train_split: str = "train",
             test_split: str = "test") -> Overlap:
    """Users, personas and answers that tasks of ``train_split`` in ``train`` share with the test world (its users
    and personas, and the answers of ``test_split``)."""
    train_users = {str(t["user_id"]) for t in train.instructions.get(train_split, [])}
    test_personas = {_persona(p) for p in test.profiles.values()}
    train_personas = {_persona(train.profiles[u]) for u in train_users if u in train.profiles}
    asins, titles, reviews = _answers(train, train_split)
    test_asins, test_titles, test_reviews = _answers(test, test_split)
    return Overlap(frozenset(train_users & _users(test)), frozenset(train_personas & test_personas),
                   frozenset(asins & test_asins), frozenset(titles & test_titles), frozenset(reviews & test_reviews))


def train_world(test: PersonalWABData, **generate_kwargs: Any) -> PersonalWABData:
    """The generated train world for ``test`` (see the module docstring); ``generate_kwargs`` override
    :data:`TRAIN_WORLD`."""
    options = {**TRAIN_WORLD, **generate_kwargs}
    world = generate(**options)
    test_users = _users(test)
    test_personas = {_persona(p) for p in test.profiles.values()}
    test_asins, test_titles, test_reviews = set(), set(), set()
    for split in test.instructions:  # every answer of the test data, whatever list it is in
        asins, titles, reviews = _answers(test, split)
        test_asins |= asins
        test_titles |= titles
        test_reviews |= reviews
    kept = []
    for task in (t for split in ("train", "test") for t in world.instructions.get(split, [])):
        uid = str(task["user_id"])
        product = task["target"].get("product_info") or {}
        review = task["target"].get("review") or {}
        if (uid in test_users or _persona(world.profiles.get(uid, {})) in test_personas
                or str(product.get("parent_asin")) in test_asins
                or str(product.get("title", "")).strip().lower() in test_titles
                or str(review.get("text", "")).strip() in test_reviews):
            continue
        kept.append(task)
    return PersonalWABData(profiles=world.profiles, products=world.products, histories=world.histories,
                           instructions={"train": kept, "test": []},
                           source=f"train world for [{test.source}]: {world.source}")


_WORLDS: dict[tuple[int, str], PersonalWABData] = {}
_WORLDS_LOCK = threading.Lock()


def shared_train_world(test: PersonalWABData, generate_kwargs: dict[str, Any]) -> PersonalWABData:
    """:func:`train_world`, built once per process for a given test data object and options."""
    key = (id(test), repr(sorted(generate_kwargs.items())))
    with _WORLDS_LOCK:
        world = _WORLDS.get(key)
        if world is None:
            world = _WORLDS[key] = train_world(test, **generate_kwargs)
        return world


def data_split(split: str) -> str:
    """The instruction list of the world an env split reads (``"release_train"`` is the data's own ``"train"``)."""
    if split not in SPLITS:
        raise InputError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")
    return "train" if split == "release_train" else split
