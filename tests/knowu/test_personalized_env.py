"""KnowU-Personalized-v0 on the default (embedded cards x default personas): checker, what the observation shows,
RAG memory and noisy logs, and the deterministic user answering from the profile and refusing identity data.
The oracle on all 86 variants and a near miss per class are in ``embedded/test_embedded_env.py``; a dropped-in
persona folder in ``test_splits.py``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing

import pytest
from gymnasium.utils.env_checker import check_env

import personal_envs  # noqa: F401  (registers the ids)
from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.official.guard import REFUSAL
from personal_envs.knowu.personas import default_personas

COLA = "BuyColaPreferenceTask@engineer"
SNEAKERS = "SearchWhiteSneakersCheckoutPreferenceAskUserTask@engineer"


@pytest.fixture(scope="module")
def env() -> Iterator[KnowUEnv]:
    with closing(KnowUEnv(family="personalized", render="text")) as environment:
        yield environment


def test_env_checker_passes(env: KnowUEnv) -> None:
    assert env.num_tasks == 86
    check_env(env)


def test_observation_shows_the_request_and_the_logs_only(env: KnowUEnv) -> None:
    obs, info = env.reset(options={"task_index": env.tasks.names.index(COLA)})  # type: ignore[attr-defined]
    assert info["task_id"] == COLA and info["role"] == "engineer" and info["split"] == "personalized"
    assert obs["instruction"] == env.task.instruction and "@" not in obs["instruction"]
    lines = obs["logs"].splitlines()
    clean = default_personas().logs("engineer")
    assert len(lines) == len(clean) and all(line.startswith("- [") for line in lines)
    first = clean[0]
    assert lines[0] == f"- [{first['time'][:16].replace('T', ' ')}] ({first['location']}) {first['action']}"
    assert "signal" not in obs["logs"] and "category" not in obs["logs"]


def test_rag_memory_and_noisy_logs() -> None:
    with closing(KnowUEnv(family="personalized", task=COLA, render="text")) as everything_env:
        everything = everything_env.reset(seed=0)[0]["logs"].splitlines()
    with closing(KnowUEnv(family="personalized", task=COLA, memory="rag", top_k=5, render="text")) as rag:
        lines = rag.reset(seed=0)[0]["logs"].splitlines()
    assert len(lines) == 5 and set(lines) <= set(everything)
    with closing(KnowUEnv(family="personalized", task=COLA, log_source="noise", render="text")) as noisy:
        noise = noisy.reset(seed=0)[0]["logs"].splitlines()
    assert len(noise) > len(everything)


def test_simulated_user_answers_from_the_profile_and_refuses_identity_data(env: KnowUEnv) -> None:
    env.reset(options={"task_index": env.tasks.names.index(SNEAKERS)})  # type: ignore[attr-defined]
    obs, *_ = env.step({"action_type": "ask_user", "text": "What shoe size do you wear?"})
    assert "EU 43" in obs["user_reply"]
    obs, *_ = env.step({"action_type": "ask_user", "text": "What is your ID card number?"})
    assert obs["user_reply"] == REFUSAL
    id_card = str(default_personas().profile("engineer")["user_profile"]["identity"]["auth_documents"]["id_card"])
    assert id_card not in obs["user_reply"]
    *_, info = env.step({"action_type": "finished"})
    assert info["metrics"]["ask_user_count"] == 2 and info["score"] == 0.0
