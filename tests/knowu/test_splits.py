"""Persona splits: ``family=`` picks the task family, ``split=`` the personas (``"test"``: the official roles with a
release, else the default personas; ``"train"``: generated personas made once in the data cache), and the two share
no persona, no identity value and no habit answer."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping
from contextlib import closing
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import personal_envs  # noqa: F401  (registers the ids)
from personal_envs.core.errors import InputError
from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.generate import VERSION
from personal_envs.knowu.official.resolve import LazyVariants
from personal_envs.knowu.personas import (
    PersonaSet,
    default_personas,
    generated_personas,
    hidden_values,
    official_personas,
    user_profile_of,
)
from tests.conftest import ANCHORS


@pytest.mark.parametrize("family", ["general", "personalized", "proactive"])
def test_a_family_given_as_split_is_refused_naming_family(family: str) -> None:
    with pytest.raises(InputError, match=f"pass family='{family}'"):
        KnowUEnv(split=family)
    with pytest.raises(InputError, match=f"pass family='{family}'"):
        gym.make("KnowU-General-v0", split=family)


def test_unknown_splits_and_families_are_refused() -> None:
    with pytest.raises(InputError, match="split must be one of"):
        KnowUEnv(split="validation")
    with pytest.raises(InputError, match="family must be one of"):
        KnowUEnv(family="test")
    with pytest.raises(InputError, match="train_personas must be a positive integer"):
        KnowUEnv(family="proactive", split="train", train_personas=0)
    with pytest.raises(InputError, match=r"was removed \(issue 29\).*WeekendSleeperTask@engineer"):
        KnowUEnv(family="proactive", split="train", task_set="project")
    with pytest.raises(InputError, match=r"unknown KnowU task id\(s\) \['weekend_sleeper@student'\].*was removed"):
        KnowUEnv(family="proactive", task="weekend_sleeper@student")


def test_the_test_split_is_the_default_personas_without_a_release() -> None:
    with closing(KnowUEnv(family="proactive", render="text")) as env:
        assert env.split == "test" and env.family == "proactive"
        assert {name.split("@")[1] for name in env.tasks.names} == set(default_personas().ids())  # type: ignore[attr-defined]


def test_the_train_split_is_generated_once_in_the_data_cache_built_lazily_and_reused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PERSONAL_ENVS_DATA", str(tmp_path))
    generated_personas.cache_clear()
    env = KnowUEnv(family="proactive", split="train", train_personas=3, train_seed=7, render="text")
    with closing(env):
        assert isinstance(env.tasks, LazyVariants) and env.num_tasks == 48
        assert {name.split("@")[1] for name in env.tasks.names} == {"g7-0", "g7-1", "g7-2"}
        assert len(env.tasks._built) == 1  # only the first variant is built when the env opens
        _, info = env.reset(options={"task_index": 40})
        assert info["task_id"] == env.tasks.names[40] and len(env.tasks._built) == 2
        *_, info = env.step({"action_type": "finished"})
        assert info["metrics"]["personas"] == "generated s7-n3"
    folder = tmp_path / "knowu" / "generated" / f"v{VERSION}-s7-n3"
    profile = PersonaSet.from_dir(folder).profile_path("g7-0")
    stamp = profile.stat().st_mtime_ns
    generated_personas.cache_clear()
    with closing(KnowUEnv(family="personalized", split="train", train_personas=3, train_seed=7, render="text")) as again:
        assert again.num_tasks > 0 and profile.stat().st_mtime_ns == stamp  # reused, not regenerated
    assert [p.name for p in folder.parent.iterdir()] == [folder.name]  # no temporary folder left behind
    generated_personas.cache_clear()


def test_the_lru_keeps_the_most_recently_used_variants() -> None:
    built: list[str] = []

    def build(name: str) -> Any:
        built.append(name)
        return name

    variants = LazyVariants(["a", "b", "c"], build, cache=2)
    assert [variants[0], variants[1], variants[0], variants[2], variants[1]] == ["a", "b", "a", "c", "b"]
    assert built == ["a", "b", "c", "b"] and list(variants._built) == ["c", "b"]  # "b" was evicted by "c"
    assert variants[-1] == "c" and variants[0:2] == ["a", "b"] and len(variants) == 3


def _leaves(node: Any) -> list[str]:
    if isinstance(node, Mapping):
        return [leaf for value in node.values() for leaf in _leaves(value)]
    if isinstance(node, list | tuple):
        return [leaf for value in node for leaf in _leaves(value)]
    return [str(node)]


def _habit_strings(personas: PersonaSet) -> dict[str, dict[str, set[str]]]:
    """habit -> persona -> the strings of its trigger and action (the answer the routine checks) and description."""
    found: dict[str, dict[str, set[str]]] = defaultdict(dict)
    for pid in personas.ids():
        habits = user_profile_of(personas.profile(pid)).get("habits") or {}
        for key, habit in habits.items():
            if isinstance(habit, Mapping):
                found[key][pid] = set(_leaves({"trigger": habit.get("trigger"), "action": habit.get("action")}))
                found[key][pid].add(str(habit.get("description", "")))
    return found


def _answers(personas: PersonaSet, fixed: Mapping[str, set[str]]) -> set[tuple[str, str]]:
    """(habit, string) pairs of the persona-specific part of each habit: what is not the same for every persona."""
    return {(key, leaf) for key, by_persona in _habit_strings(personas).items() for strings in by_persona.values()
            for leaf in strings - fixed.get(key, set())}


def test_train_and_test_share_no_persona_identity_value_or_answer(tmp_path: Path) -> None:
    train = generated_personas(64, 0, str(tmp_path / "train"))
    tests = [default_personas()]
    official = ANCHORS / "knowu" / "official"
    if (official / "src" / "knowu_bench" / "user_profile").is_dir():  # the official roles when the anchors exist
        tests.append(official_personas(official))
    by_habit = _habit_strings(train)
    # what every train persona with the habit has is the routine itself (the official check's fixed setup)
    fixed = {key: set.intersection(*by_persona.values()) for key, by_persona in by_habit.items()}
    train_answers = _answers(train, fixed)
    train_identity = {v for pid in train.ids() for v in hidden_values(train.profile(pid))}
    assert len(train.ids()) == 64 and len(train_identity) > 64 * 4 and len(train_answers) > 100
    for test in tests:
        assert not set(train.ids()) & set(test.ids()), test.label
        identity = {v for pid in test.ids() for v in hidden_values(test.profile(pid))}
        assert identity and not train_identity & identity, (test.label, sorted(train_identity & identity)[:5])
        shared = {(key, leaf) for key, leaf in train_answers & _answers(test, fixed) if len(leaf) >= 8}
        # the small option sets the official checks read (battery level, days kept, clock-out minute, channel,
        # reply word: under 8 characters) are drawn from the same few values; nothing longer is shared
        assert not shared, (test.label, sorted(shared)[:5])
    assert json.dumps(sorted(train_answers))  # the answers are plain strings
