"""The shared readers and the one-line validation messages of :mod:`personal_envs.core.schema`."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import NotRequired

import pytest
from pydantic import StrictInt, StrictStr
from typing_extensions import TypedDict

from personal_envs.core.errors import InputError, MissingDataError
from personal_envs.core.schema import existing_dir, parse_yaml, read_json, read_text, read_yaml, validate

BOMB = "\n".join(
    ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    + [f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 9) + "]" for i in range(8)]
)


class Entry(TypedDict):
    name: StrictStr
    count: StrictInt
    note: NotRequired[StrictStr]


def test_unreadable_files_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(MissingDataError, match=r"nope\.json: no such"):
        read_json(tmp_path / "nope.json")
    with pytest.raises(InputError, match="is a folder"):
        read_json(tmp_path)
    (tmp_path / "latin1.txt").write_bytes("café".encode("latin-1"))
    with pytest.raises(InputError, match=r"latin1\.txt: not UTF-8 text \(byte 0xe9 at offset 3\)"):
        read_text(tmp_path / "latin1.txt")
    (tmp_path / "cut.json").write_text('{"a": [1, 2', encoding="utf-8")
    with pytest.raises(InputError, match=r"cut\.json: not valid JSON \(.* at line 1 column 12\)"):
        read_json(tmp_path / "cut.json")
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(InputError, match="nested too deeply"):
        read_json(tmp_path / "deep.json")
    (tmp_path / "bom.json").write_bytes(b'\xef\xbb\xbf{"a": 1}')
    assert read_json(tmp_path / "bom.json") == {"a": 1}


def test_yaml_errors_give_the_line(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("a: 1\nb: [unclosed\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.yaml: not valid YAML \(.* at line 3 column 1\)"):
        read_yaml(tmp_path / "bad.yaml")
    assert parse_yaml("", "empty") is None
    assert parse_yaml("x: &v [1, 2]\ny: *v\n", "ok") == {"x": [1, 2], "y": [1, 2]}  # ordinary aliases still work


def test_an_alias_bomb_is_refused_at_once() -> None:
    result: list[BaseException] = []

    def load() -> None:
        try:
            parse_yaml(BOMB, "bomb.yaml")
        except InputError as exc:
            result.append(exc)

    started = time.monotonic()
    worker = threading.Thread(target=load, daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive(), "the alias bomb was expanded"
    assert result and "bomb.yaml: YAML expands to more than 200,000 values" in str(result[0])
    assert len(BOMB) < 1000 and time.monotonic() - started < 30


def test_a_recursive_alias_is_refused() -> None:
    with pytest.raises(InputError, match="refers to the value that contains it"):
        parse_yaml("a: &a [1, *a]\n", "loop.yaml")


def test_validation_names_the_source_the_field_and_what_was_expected() -> None:
    assert validate(list[Entry], [{"name": "x", "count": 1, "extra": True}], "f") == [{"name": "x", "count": 1}]
    with pytest.raises(InputError) as raised:
        validate(list[Entry], [{"name": "x", "count": 1}, {"name": "y", "count": "two"}], "data.json")
    assert str(raised.value) == "data.json: field [1].count: expected an integer, got 'two'"
    with pytest.raises(InputError) as raised:
        validate(list[Entry], [{"count": 1, "note": 5}], "data.json")
    assert str(raised.value) == "data.json: field [0].name: required, but missing (and 1 more problem)"
    with pytest.raises(InputError) as raised:
        validate(dict[str, Entry], [], "top.json")
    assert str(raised.value) == "top.json: expected an object (mapping), got []"
    with pytest.raises(InputError) as raised:
        validate(StrictStr | list[StrictInt], {"k": 1}, "union")
    assert str(raised.value) == "union: expected a string (text) or a list, got an object with 1 key"
    with pytest.raises(InputError) as raised:
        validate(StrictStr | list[StrictInt], [1, "x"], "union")
    assert str(raised.value) == "union: field [1]: expected an integer, got 'x'"


def test_a_named_folder_must_exist(tmp_path: Path) -> None:
    assert existing_dir(str(tmp_path)) == tmp_path
    with pytest.raises(MissingDataError, match=r"data_dir .*/nope does not exist"):
        existing_dir(tmp_path / "nope")
    (tmp_path / "file").write_text("x")
    with pytest.raises(MissingDataError, match="is a file, not a folder"):
        existing_dir(tmp_path / "file")
    with pytest.raises(InputError, match="must be a folder path"):
        existing_dir(5)
