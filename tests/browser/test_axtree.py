"""Parsing the AX text back into lines (:mod:`personal_envs.browser.axtree`): names come back as the text that was
quoted, with and without escapes, in both quoting styles."""

from __future__ import annotations

import ast

import pytest

from personal_envs.browser.axtree import parse_line

NAMES = ["Add to cart", "", "It's 5 \" wide", 'say "hi"', "back\\slash", "tab\there", "new\nline", "“quoted” €",
         "'", '"', "\\", "a\\'b"]


@pytest.mark.parametrize("name", NAMES)
def test_a_repr_quoted_name_comes_back_as_written(name: str) -> None:
    """BrowserGym writes names with Python's ``repr``: the parsed name is the string, and what follows is kept."""
    line = parse_line(f"\t[a12] link {name!r}, clickable")
    assert line is not None
    assert (line.depth, line.bid, line.role, line.name, line.rest) == (1, "a12", "link", name, ", clickable")


@pytest.mark.parametrize("token", ["'plain'", '"plain"', "'it\\'s'", '"a \\"b\\""', "'x\\\\y'", "'é\\n'"])
def test_the_name_equals_the_literal_it_spells(token: str) -> None:
    """With or without escapes, a quoted name parses to the value of the Python literal it spells."""
    line = parse_line(f"[7] button {token}")
    assert line is not None and line.name == ast.literal_eval(token)


def test_own_quoting_that_is_not_a_python_literal_is_unescaped() -> None:
    """A quoted name that is no Python literal (a bare ``\\x``) loses its backslashes."""
    line = parse_line("[7] button 'a\\x\\'b'")
    assert line is not None and line.name == "ax'b"


def test_lines_without_a_bid_do_not_parse() -> None:
    assert parse_line("RootWebArea 'Shop'") is None
    assert parse_line("\tStaticText 'x'") is None
