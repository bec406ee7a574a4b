"""The results file of ``personal-envs eval``: the schema of one record and the one reader every command uses.

A results file holds one JSON object per line (:func:`personal_envs.runner.run_episode` writes them).
:class:`EpisodeRecord` is what a line must be: an ``env_id`` and a non-negative integer ``episode``, and, when
present, a numeric ``score`` / ``reward`` / ``runtime_s``, an integer ``steps``, ``metrics`` and ``task_info``
objects and a text ``error``; other keys (``llm``, ``judge``, ``user``...) are free.

:func:`read_records` is the documented recovery for a damaged file: a line that is not UTF-8, not JSON, nested too
deeply, not an object, or a record that breaks the schema is reported as
``warning: <file> line <n>: <problem>; line skipped`` and left out; the other lines are read.  A record with
``"score": "abc"`` is therefore never counted as a finished episode (``eval`` runs that episode again).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, StrictStr

from personal_envs.core.errors import InputError, MissingDataError
from personal_envs.core.schema import validate

#: Called with each warning line (default: printed on stderr).
Warn = Callable[[str], None]


class EpisodeRecord(BaseModel):
    """One line of a results file."""

    model_config = ConfigDict(extra="allow")

    env_id: StrictStr
    episode: Annotated[StrictInt, Field(ge=0)]
    policy: StrictStr = ""
    task_index: StrictInt | None = None
    task_id: StrictStr | StrictInt | None = None
    seed: StrictInt | None = None
    reward: StrictFloat = 0.0
    score: StrictFloat = 0.0
    steps: Annotated[StrictInt, Field(ge=0)] = 0
    metrics: dict[str, Any] = Field(default_factory=dict)
    task_info: dict[str, Any] = Field(default_factory=dict)
    runtime_s: StrictFloat = 0.0
    error: StrictStr = ""


class TableRecord(EpisodeRecord):
    """A record as the table commands read it (``knowu table``, ``arena tables``): ``env_id`` and ``episode`` may be
    missing (the tables only read the metrics), the other fields are checked as in :class:`EpisodeRecord`."""

    env_id: StrictStr = ""
    episode: Annotated[StrictInt, Field(ge=0)] | None = None  # type: ignore[assignment]


def print_warning(message: str) -> None:
    """The default :data:`Warn`: ``warning: <message>`` on stderr."""
    print(f"warning: {message}", file=sys.stderr, flush=True)


def record_problem(line: bytes, source: str, schema: type[EpisodeRecord] = EpisodeRecord
                   ) -> tuple[dict[str, Any] | None, str]:
    """The record a line holds and ``""``, or ``None`` and what is wrong with it (one line naming ``source``)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"{source}: not UTF-8 text (byte 0x{line[exc.start]:02x} at offset {exc.start})"
    try:
        value = json.loads(text)
    except RecursionError:
        return None, f"{source}: not valid JSON (nested too deeply)"
    except ValueError as exc:  # JSONDecodeError, or an integer with too many digits
        return None, f"{source}: not valid JSON ({str(exc)[:80]})"
    if not isinstance(value, dict):
        return None, f"{source}: a JSON {type(value).__name__}, expected an object (one record)"
    try:
        validate(schema, value, source)
    except InputError as exc:
        return None, str(exc)
    return value, ""


def read_records(path: str | os.PathLike[str], *, warn: Warn | None = print_warning,
                 schema: type[EpisodeRecord] = EpisodeRecord) -> list[dict[str, Any]]:
    """The valid records of a results file, in file order (each as the dict the line holds).

    Invalid lines (against ``schema``: :class:`EpisodeRecord`, or :class:`TableRecord` for the table commands) are
    skipped, each reported through ``warn`` (``None``: silently, for a second pass over a file already reported).

    Raises:
        MissingDataError: ``path`` does not exist.
        InputError: ``path`` is a folder or cannot be read.
    """
    file = Path(path)
    if not file.exists():
        raise MissingDataError(f"no results file at {file}")
    records: list[dict[str, Any]] = []
    try:
        with file.open("rb") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                record, problem = record_problem(line.strip(), f"{file} line {number}", schema)
                if record is not None:
                    records.append(record)
                elif warn is not None:
                    warn(f"{problem}; line skipped")
    except IsADirectoryError:
        raise InputError(f"{file}: is a folder, expected a results file (JSON lines)") from None
    except OSError as exc:
        raise InputError(f"{file}: cannot read the results file ({exc.strerror or type(exc).__name__})") from None
    return records
