"""What the env hands the agent on the default (embedded cards x default personas) hides the persona: on every
variant of the three ids, the reset observation (the logs aside: the agent learns from them, as officially) and the
info carry no identity value and no answer-key field, and opening every app on one variant per class shows none.
The screen walk over the default and generated personas is ``embedded/test_leaks.py``; refusals and the LLM user's
redaction are ``embedded/test_users.py``."""

from __future__ import annotations

import html
import json
from collections.abc import Iterator
from contextlib import closing
from typing import Any

import pytest

from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.personas import default_personas, hidden_values

#: Info keys that would give the answer away (the routine's applicability, rubric, checks, the profile).
HIDDEN_INFO = {"routine_applies", "habit_should_act", "rubric", "checks", "lambda", "intended_action", "profile",
               "official_episode", "user_context"}


def _assert_hidden(text: str, secrets: list[str], where: str) -> None:
    lowered = html.unescape(text).lower()
    leaked = [s for s in secrets if s.lower() in lowered]
    assert not leaked, f"{where} shows {leaked[:3]}"


def _texts(obs: dict[str, Any]) -> str:
    return "\n".join(str(v) for k, v in obs.items() if k not in ("screenshot", "logs"))


@pytest.fixture(scope="module")
def secrets() -> dict[str, list[str]]:
    personas = default_personas()
    found = {pid: hidden_values(personas.profile(pid)) for pid in personas.ids()}
    assert all(found.values()), found
    return found


@pytest.fixture(scope="module", params=["general", "personalized", "proactive"])
def env(request: pytest.FixtureRequest) -> Iterator[KnowUEnv]:
    with closing(KnowUEnv(family=request.param, render="text")) as environment:
        yield environment


def test_reset_observations_and_info_hide_the_persona(env: KnowUEnv, secrets: dict[str, list[str]]) -> None:
    every = sorted({value for values in secrets.values() for value in values})
    classes: set[str] = set()
    for index in range(env.num_tasks):
        obs, info = env.reset(options={"task_index": index})
        where = str(info["task_id"])
        pid = where.split("@", 1)[1] if "@" in where else None
        # a general task has no persona: none of the default personas' values may show
        _assert_hidden(_texts(obs) + json.dumps(info, default=str), secrets[pid] if pid else every, f"{where} reset")
        assert not HIDDEN_INFO & set(info), (where, HIDDEN_INFO & set(info))
        cls = where.split("@", 1)[0]
        if cls in classes:
            continue
        classes.add(cls)
        for app in env.phone.apps.values():  # every app through the env, once per class
            obs, _, _, _, step_info = env.step({"action_type": "open_app", "app_name": app.label})
            _assert_hidden(_texts(obs) + json.dumps(step_info, default=str), secrets[pid] if pid else every,
                           f"{where} {app.label}")
    assert len(classes) in (42, 26, 16)
