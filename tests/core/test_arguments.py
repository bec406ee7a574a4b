"""Keyword and type checks of env and policy arguments (:mod:`personal_envs.core.arguments`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from personal_envs.core.arguments import check_keywords, check_types, keyword_names
from personal_envs.core.errors import InputError
from tests.core.toy_env import ToyEnv


def takes(env: Any, seed: int = 0, depth: int = 2, name: str | None = None,
          size: tuple[int, int] = (1, 2), where: str | Path | None = None) -> None:
    """A factory with typed keywords."""


def ignores(env: Any, seed: int = 0, **_: Any) -> None:
    """A factory that declares it ignores extra keywords."""


def forwards(env: Any, seed: int = 0, **kwargs: Any) -> None:
    """A factory that passes its keywords on."""


def test_unknown_keywords_are_named_with_the_accepted_ones() -> None:
    check_keywords(takes, {"depth": 3}, "policy 'p'")
    with pytest.raises(InputError) as raised:
        check_keywords(takes, {"deepth": 3, "depth": 1}, "policy 'p'", skip=("env", "seed"))
    assert str(raised.value) == "policy 'p' got unknown argument(s) 'deepth'; it takes: depth, name, size, where"
    with pytest.raises(InputError, match="it takes: none"):
        check_keywords(ignores, {"anything": 1}, "policy 'q'", skip=("env", "seed"))
    assert keyword_names(forwards) is None
    check_keywords(forwards, {"anything": 1}, "policy 'r'")  # its callee decides


def test_json_values_of_the_wrong_type_are_refused() -> None:
    check_types(takes, {"depth": 3, "name": None, "size": [3, 4], "where": Path("/x")}, "f()")
    with pytest.raises(InputError) as raised:
        check_types(takes, {"depth": "3"}, "f()")
    assert str(raised.value) == "f() argument depth: expected an integer, got '3'"
    with pytest.raises(InputError, match=r"f\(\) argument size: field \[1\]: expected an integer, got 'x'"):
        check_types(takes, {"size": [1, "x"]}, "f()")
    with pytest.raises(InputError, match="argument depth: expected an integer, got True"):
        check_types(takes, {"depth": True}, "f()")


def test_an_env_refuses_unknown_and_mistyped_keywords_before_it_is_built() -> None:
    with pytest.raises(InputError) as raised:
        ToyEnv(max_step=3)  # type: ignore[call-arg]
    assert str(raised.value) == "ToyEnv() got unknown argument(s) 'max_step'; it takes: max_steps"
    with pytest.raises(InputError, match=r"ToyEnv\(\) argument max_steps: expected an integer, got 'ten'"):
        ToyEnv(max_steps="ten")  # type: ignore[arg-type]
    assert ToyEnv(max_steps=3).max_steps == 3
