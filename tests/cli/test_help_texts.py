"""Every ``--help`` of ``personal-envs`` renders: argparse formats help texts with ``%``, so an unescaped ``%`` in
any of them (``95% intervals``) crashes that command's help with a ``TypeError``."""

from __future__ import annotations

import argparse
import subprocess
import sys

from personal_envs.cli import build_parser


def _parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...],
                                                                                        argparse.ArgumentParser]]:
    found = [(path, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                found += _parsers(child, (*path, name))
    return found


def test_every_help_text_renders() -> None:
    parsers = _parsers(build_parser())
    assert len(parsers) > 20 and ("arena", "leaderboard") in [path for path, _ in parsers]
    for path, parser in parsers:
        text = parser.format_help()  # raises TypeError on a bare '%'
        assert text.startswith("usage: personal-envs"), path


def test_arena_help_from_the_shell() -> None:
    done = subprocess.run([sys.executable, "-m", "personal_envs", "arena", "--help"], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "leaderboard" in done.stdout and "Traceback" not in done.stderr
