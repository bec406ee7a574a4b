"""The project's exception for bad input, which the command line turns into one ``error: ...`` line and exit 2.

:class:`InputError` covers everything a user hands the project: a data folder or file (official releases, results
files, configuration sidecars, trajectories, databases), an env or policy argument, a command-line option.  Its
message is one line that names the culprit (the file, the field, the argument) and says what was expected.  Env
constructors and loaders raise it (or a subclass: each benchmark's data error derives from it), the CLI catches it
(``personal_envs.cli.main``), and it is a ``ValueError`` so code that guarded against ``ValueError`` keeps working.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class InputError(ValueError):
    """Bad input from the user: a file, folder, argument or setting.  The message is one line naming the culprit
    and what was expected."""

    def __init__(self, message: str, *args: Any) -> None:
        super().__init__(one_line(message), *args)

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""

    def _render_traceback_(self) -> list[str]:
        """IPython's hook for how an exception is shown: the one line the CLI prints."""
        return [f"error: {self}"]


class MissingDataError(InputError, FileNotFoundError):
    """A file or folder the user named, or the project needs, is not there (also a ``FileNotFoundError``, as
    callers caught before)."""


class UnknownNameError(InputError, KeyError):
    """An env id, policy or task name that does not exist (also a ``KeyError``, as lookups raised before)."""


def one_line(text: str, limit: int = 2000) -> str:
    """``text`` on one line (line breaks and runs of spaces collapsed), at most ``limit`` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@contextmanager
def reraise_as(error_type: type[InputError]) -> Iterator[None]:
    """Re-raise an :class:`InputError` from inside the block as ``error_type`` (a benchmark's own subclass, such as
    ``DataError``), with the same message."""
    try:
        yield
    except error_type:
        raise
    except InputError as exc:
        raise error_type(str(exc)) from None



class ReportedError(RuntimeError):
    """A failure the user must act on (not bad input: a dead endpoint, a run that failed), explained in one line by
    its message; the CLI prints it as ``error: <message>``, and IPython (Jupyter) shows it the same way, as one line
    without a traceback, while still stopping a "run all"."""

    def _render_traceback_(self) -> list[str]:
        """IPython's hook for how an exception is shown: the one line the CLI prints."""
        return [f"error: {self}"]
