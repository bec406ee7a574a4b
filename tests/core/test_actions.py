import itertools
import json
from collections.abc import Iterator, Mapping

import numpy as np
import pytest

from personal_envs.core.actions import (
    MAX_ACTION_CHARS,
    MAX_ACTION_NODES,
    ActionError,
    ActionSpec,
    Param,
    parse_action,
    tool_schemas,
)

SPECS = {
    spec.name: spec
    for spec in (
        ActionSpec.make("click", "tap", x=Param("integer", minimum=0, maximum=1079), y=Param("integer", minimum=0)),
        ActionSpec.make("search", "q", query=Param("string", max_length=50)),
        ActionSpec.make("rec", "r", seq=Param("array", items="string", max_items=3)),
        ActionSpec.make("scroll", "s", direction=Param("string", enum=("up", "down"))),
        ActionSpec.make("stop", "end"),
        ActionSpec.make("opt", "o", flag=Param("boolean", required=False)),
    )
}


@pytest.mark.parametrize(
    "raw",
    [
        {"action_type": "click", "x": 5, "y": 6},
        {"name": "click", "arguments": {"x": 5, "y": 6}},
        {"name": "click", "arguments": '{"x": 5, "y": 6}'},
        {"type": "function", "function": {"name": "click", "arguments": '{"x": 5, "y": 6}'}},
        '{"action_type": "click", "x": 5, "y": 6}',
        {"action_type": "click", "x": "5", "y": 6.0},
    ],
)
def test_every_accepted_form_parses_to_the_same_action(raw):
    action = parse_action(raw, SPECS)
    assert action.name == "click"
    assert action.arguments == {"x": 5, "y": 6}


@pytest.mark.parametrize(
    "raw, fragment",
    [
        ("", "empty action"),
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ({"x": 1}, "has no name"),
        ({"action_type": "fly"}, "unknown action 'fly'"),
        ({"action_type": "click", "x": 1}, "missing required argument(s) ['y']"),
        ({"action_type": "click", "x": 1, "y": 2, "z": 3}, "unexpected argument(s) ['z']"),
        ({"action_type": "click", "x": 2000, "y": 2}, "must be <= 1079"),
        ({"action_type": "click", "x": "left", "y": 2}, "must be of type integer"),
        ({"action_type": "click", "x": True, "y": 2}, "must be of type integer"),
        ({"action_type": "scroll", "direction": "sideways"}, "must be one of ['up', 'down']"),
        ({"action_type": "rec", "seq": ["a", "b", "c", "d"]}, "at most 3 items"),
        ({"action_type": "rec", "seq": "abc"}, "must be of type array"),
        ({"action_type": "search", "query": "x" * 1_000_000}, "the limit is 50"),
        ({"action_type": 7}, "must be a string"),
    ],
)
def test_bad_actions_raise_action_error_with_a_helpful_message(raw, fragment):
    with pytest.raises(ActionError) as caught:
        parse_action(raw, SPECS)
    assert fragment in str(caught.value)
    assert len(str(caught.value)) < 400  # a 1 MB value is never echoed back whole


def test_tool_schemas_follow_the_openai_format():
    schemas = tool_schemas(list(SPECS.values()))
    click = next(s for s in schemas if s["function"]["name"] == "click")
    assert click["type"] == "function"
    params = click["function"]["parameters"]
    assert params["required"] == ["x", "y"]
    assert params["properties"]["x"] == {"type": "integer", "minimum": 0, "maximum": 1079}
    opt = next(s for s in schemas if s["function"]["name"] == "opt")
    assert opt["function"]["parameters"]["required"] == []
    json.dumps(schemas)  # serialisable as sent to an endpoint


def test_sampled_arguments_always_validate():
    rng = np.random.default_rng(0)
    for spec in SPECS.values():
        for _ in range(50):
            arguments = spec.sample_arguments(rng)
            assert spec.validate(arguments) == arguments


class _Endless(Mapping):  # type: ignore[type-arg]
    """A mapping whose keys never end (its ``len`` says 1)."""

    reads = 0

    def __getitem__(self, key: str) -> str:
        return "x"

    def __iter__(self) -> Iterator[str]:
        n = 0
        while True:
            n += 1
            _Endless.reads += 1
            yield f"k{n}"

    def __len__(self) -> int:
        return 1


class _EndlessList(list):  # type: ignore[type-arg]
    def __iter__(self) -> Iterator[int]:
        return itertools.count()


@pytest.mark.parametrize("raw", [
    _Endless(),
    {"action_type": "search", "arguments": _Endless()},
    {"action_type": "rec", "seq": _EndlessList()},
])
def test_endless_containers_are_refused_after_a_bounded_read(raw: object) -> None:
    _Endless.reads = 0
    with pytest.raises(ActionError, match=f"holds more than {MAX_ACTION_NODES} values"):
        parse_action(raw, SPECS)
    assert _Endless.reads <= MAX_ACTION_NODES + 1


def test_the_checked_action_is_a_plain_copy_read_once() -> None:
    calls = []

    class Once(Mapping):  # type: ignore[type-arg]
        def __getitem__(self, key: str) -> str:
            return {"action_type": "search", "query": "hi"}[key]

        def __iter__(self) -> Iterator[str]:
            calls.append(1)
            return iter(["action_type", "query"]) if len(calls) == 1 else iter(["action_type"])

        def __len__(self) -> int:
            return 2

    action = parse_action(Once(), SPECS)
    assert action.name == "search" and action.arguments == {"query": "hi"} and len(calls) == 1


def _outcome(check: object, value: object) -> tuple[str, object]:
    try:
        return "ok", check(value)  # type: ignore[operator]
    except ActionError as error:
        return "error", str(error)


class _Text(str):
    pass


def test_the_flat_action_path_copies_like_the_general_walk() -> None:
    """Small flat objects take a short path; what it returns, and which inputs it leaves to the general walk (which
    then refuses them), match the general walk on plain, converted and refused values alike."""
    from personal_envs.core.actions import _checked_tree, _flat_copy, check_json_value
    rng = np.random.default_rng(7)
    leaves: list[object] = [None, True, False, 0, -3, 2**255, 2**300, 1.5, float("inf"), float("nan"), "click", "",
                            "caf\u00e9", "\ud800", _Text("sub"), [1, 2], {"nested": 1}, (1,), b"bytes", 7 + 0j,
                            {"bid": "12", "n": 2}, {"deep": {"er": 1}}, {"bad": float("nan")}, {3: "x"}]
    keys: list[object] = ["action_type", "bid", "text", "cl\u00e9", _Text("k"), 3, ("t",)]
    taken = 0
    for _ in range(3000):
        size = int(rng.integers(0, 6))
        value = {keys[int(rng.integers(len(keys)))]: leaves[int(rng.integers(len(leaves)))] for _ in range(size)}
        fast, general = _outcome(check_json_value, value), _outcome(_checked_tree, value)
        assert fast == general, value
        if fast[0] == "ok":
            assert type(fast[1]) is dict and all(type(key) is str for key in fast[1])
        taken += _flat_copy(value) is not None
    assert 300 < taken < 3000  # both paths ran
    assert _flat_copy({"text": "x" * (MAX_ACTION_CHARS + 1)}) is None
    assert _outcome(check_json_value, {"text": "x" * (MAX_ACTION_CHARS + 1)})[0] == "error"
    nested = {"name": "click", "arguments": {"bid": "x" * (MAX_ACTION_CHARS // 2), "text": "y" * MAX_ACTION_CHARS}}
    assert _flat_copy(nested) is None and _outcome(check_json_value, nested)[0] == "error"
    many = {f"k{i}": i for i in range(100)}
    assert _flat_copy(many) is None and check_json_value(many) == many
