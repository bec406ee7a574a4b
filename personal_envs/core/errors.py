"""Errors whose message is the whole report: the CLI prints them as ``error: <message>``, and IPython (Jupyter)
shows them the same way, as one line without a traceback, while still stopping a "run all"."""

from __future__ import annotations


class ReportedError(RuntimeError):
    """A failure the user must act on, explained in one line by its message (no traceback needed)."""

    def _render_traceback_(self) -> list[str]:
        """IPython's hook for how an exception is shown: the one line the CLI prints."""
        return [f"error: {self}"]
