"""The commands in the README's and the docs pages' ``bash`` blocks stay true, and their relative links resolve.

Every ``personal-envs ...`` / ``python3 -m personal_envs ...`` command is parsed by the CLI's own argument parser
(``personal_envs.cli.build_parser``); a ``python3 examples/*.py`` / ``benchmarks/*.py`` command (or ``python -m
benchmarks.X``) must name a script that exists and pass only flags that script's ``add_argument`` calls declare (read
with ``ast``, not run); ``bash scripts/*.sh`` and the test files given to pytest must exist. A command that is only
illustrative is skipped when its line, or the comment line above it, says ``# not run: <why>``. Optional parts
written as ``[--flag value]`` are checked as if given; ``...`` stands for more of the same and is dropped.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from personal_envs.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SKIP_MARKER = "not run:"
OPERATORS = {"&&", "||", ";", "|", "&", "(", ")"}
# ``[...]`` around optional words, not inside quotes or a path such as '.[docker]'
OPTIONAL_GROUP = re.compile(r"(?<![\w'\".\[])\[([^\]'\"{}\[]*)\]")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


@dataclass(frozen=True)
class Command:
    """One simple command of a ``bash`` block: where it is and its words."""

    page: str
    line: int
    argv: tuple[str, ...]

    def where(self) -> str:
        return f"{self.page}:{self.line}: {shlex.join(self.argv)}"


def bash_lines(text: str) -> Iterator[tuple[int, str, bool]]:
    """(line number, logical line, skipped) for every command line of the text's ``bash`` blocks: backslash
    continuations joined, comment lines dropped; a line is skipped when it or the comment above it says
    ``# not run:``."""
    in_block = False
    pending: list[str] = []
    start = 0
    marked = False
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not in_block:
            in_block = stripped == "```bash"
            marked = False
            continue
        if stripped.startswith("```"):
            in_block = False
            continue
        if not pending:
            if not stripped:
                marked = False
                continue
            if stripped.startswith("#"):
                marked = marked or SKIP_MARKER in stripped
                continue
            start = number
        if stripped.endswith("\\"):
            pending.append(stripped[:-1])
            continue
        logical = " ".join([*pending, stripped])
        pending = []
        yield start, logical, marked or SKIP_MARKER in logical
        marked = False


def simple_commands(logical: str) -> list[list[str]]:
    """The simple commands of one shell line (split on ``&&``, ``;``, ``|``, ``&``), environment assignments
    dropped, optional ``[...]`` groups opened and ``...`` left out."""
    lexer = shlex.shlex(OPTIONAL_GROUP.sub(r"\1", logical), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    commands: list[list[str]] = [[]]
    for token in lexer:
        if token in OPERATORS:
            commands.append([])
        elif token != "...":
            commands[-1].append(token)
    result = []
    for words in commands:
        while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):
            words = words[1:]
        if words:
            result.append(words)
    return result


def commands_of(page: Path, text: str | None = None) -> tuple[list[Command], list[str]]:
    """The page's commands and the lines skipped with the marker."""
    name = page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else page.name
    found: list[Command] = []
    skipped: list[str] = []
    for number, logical, marked in bash_lines(page.read_text(encoding="utf-8") if text is None else text):
        if marked:
            skipped.append(f"{name}:{number}: {logical}")
            continue
        found.extend(Command(name, number, tuple(words)) for words in simple_commands(logical))
    return found, skipped


@cache
def script_flags(script: Path) -> frozenset[str] | None:
    """The option strings of the script's ``add_argument`` calls, or None when it declares none."""
    tree = ast.parse(script.read_text(encoding="utf-8"))
    flags = {arg.value for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument"
             for arg in node.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
             and arg.value.startswith("-")}
    return frozenset(flags) if flags else None


def strict(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The parser and its sub-parsers without prefix matching: the CLI takes ``--episode`` for ``--episodes``, a
    page must spell the flag out."""
    parser.allow_abbrev = False
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                strict(sub)
    return parser


def check_cli(args: list[str]) -> str | None:
    """None when the CLI's parser accepts the arguments, else its message."""
    errors = io.StringIO()
    try:
        with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
            strict(build_parser()).parse_args(args)
    except SystemExit as exc:
        if exc.code not in (0, None):
            return errors.getvalue().strip().splitlines()[-1] if errors.getvalue().strip() else f"exit {exc.code}"
    return None


def check_script(script: str, args: list[str]) -> str | None:
    """None when the script exists and declares every flag the command passes."""
    path = ROOT / script
    if not path.is_file():
        return f"no such script: {script}"
    passed = {arg.split("=", 1)[0] for arg in args if arg.startswith("-") and arg != "-"}
    declared = script_flags(path)
    unknown = sorted(passed - (declared or frozenset()) - {"-h", "--help"})
    if unknown:
        return f"{script} declares no {', '.join(unknown)}" + ("" if declared else " (it has no argparse options)")
    return None


def check(command: Command) -> str | None:
    """None when the command is true (or not one this test knows), else why not."""
    argv = list(command.argv)
    while argv and argv[0] in {"sudo", "exec"}:
        argv = argv[1:]
    if not argv:
        return None
    program, rest = argv[0], argv[1:]
    if program == "personal-envs":
        return check_cli(rest)
    if program == "bash" and rest and rest[0].endswith(".sh"):
        return None if (ROOT / rest[0]).is_file() else f"no such script: {rest[0]}"
    if program not in {"python", "python3"} or not rest:
        return None
    if rest[:2] == ["-m", "personal_envs"]:
        return check_cli(rest[2:])
    if rest[:2] == ["-m", "pytest"]:
        missing = [arg for arg in rest[2:] if not arg.startswith("-") and arg.startswith("tests/")
                   and not (ROOT / arg.split("::", 1)[0]).exists()]
        return f"no such test path: {', '.join(missing)}" if missing else None
    if rest[0] == "-m" and len(rest) > 1 and rest[1].startswith(("benchmarks.", "examples.")):
        return check_script(rest[1].replace(".", "/") + ".py", rest[2:])
    if rest[0].endswith(".py"):
        return check_script(rest[0], rest[1:])
    return None


def broken_links(page: Path, text: str | None = None) -> list[str]:
    """Relative links (and images) of the page, outside code blocks, whose target does not exist."""
    body = page.read_text(encoding="utf-8") if text is None else text
    body = re.sub(r"```.*?```", "", body, flags=re.DOTALL)
    broken = []
    for target in LINK.findall(body):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        if not (page.parent / target.split("#", 1)[0]).exists():
            broken.append(f"{page.name}: {target}")
    return broken


def test_every_page_exists_and_has_commands() -> None:
    names = {page.name for page in PAGES}
    assert {"personalwab.md", "webmall.md", "knowu.md", "browserarena.md", "architecture.md", "performance.md",
            "reliability.md", "rl.md", "llm.md", "backends.md", "trajectories.md"} <= names
    all_commands = [command for page in PAGES for command in commands_of(page)[0]]
    cli = [c for c in all_commands if c.argv[0] == "personal-envs" or c.argv[1:3] == ("-m", "personal_envs")]
    scripts = [c for c in all_commands if any(w.startswith(("benchmarks/", "examples/", "benchmarks."))
                                              for w in c.argv[:3])]
    assert len(cli) >= 20 and len(scripts) >= 10, (len(cli), len(scripts))


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_the_commands_of_each_page_are_accepted(page: Path) -> None:
    commands, _ = commands_of(page)
    wrong = [f"{command.where()}\n    {reason}" for command in commands if (reason := check(command))]
    assert not wrong, "commands that the CLI or the scripts do not accept:\n" + "\n".join(wrong)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_relative_links_resolve(page: Path) -> None:
    assert broken_links(page) == []


def test_a_typo_is_caught(tmp_path: Path) -> None:
    page = tmp_path / "typo.md"
    (tmp_path / "shot.png").write_bytes(b"")
    page.write_text("text\n\n```bash\n"
                    "# 1. the CLI\n"
                    "personal-envs eval --env WebMall-v0 --epsiodes 3   # typo'd flag\n"
                    "personal-envs eval --env WebMall-v0 --episode 3    # a prefix the CLI would take\n"
                    "OPENAI_BASE_URL=http://127.0.0.1:8080/v1 python3 -m personal_envs eval --env X \\\n"
                    "    --policy llm --workers two\n"
                    "python3 -m personal_envs evaluate --env X\n"
                    "python3 -m personal_envs plot runs/a.jsonl --out plots/ [--fromat svg]\n"
                    "python3 benchmarks/webmall.py --stepz 80\n"
                    "python -m benchmarks.fuzz --kill-browser 112 --idz WebMall-v0\n"
                    "python3 examples/train_ppo_typo.py\n"
                    "bash scripts/setup.sh && bash scripts/no_such.sh\n"
                    "# not run: illustrative\n"
                    "personal-envs eval --bogus\n"
                    "personal-envs eval --bogus2   # not run: illustrative\n"
                    "```\n\n[a link](no_such_page.md) and ![an image](shot.png)\n", encoding="utf-8")
    commands, skipped = commands_of(page)
    reasons = {command.where(): check(command) for command in commands}
    wrong = {where: reason for where, reason in reasons.items() if reason}
    assert len(skipped) == 2 and all("--bogus" in line for line in skipped)
    assert len(wrong) == 9, wrong
    joined = "\n".join(f"{where} {reason}" for where, reason in wrong.items())
    for expected in ("--epsiodes", "unrecognized arguments: --episode 3", "argument --workers: must be a whole number, got 'two'", "invalid choice: 'evaluate'",
                     "--fromat", "benchmarks/webmall.py declares no --stepz", "benchmarks/fuzz.py declares no --idz",
                     "no such script: examples/train_ppo_typo.py", "no such script: scripts/no_such.sh"):
        assert expected in joined, (expected, joined)
    assert "typo.md:5:" in joined and "typo.md:7:" in joined  # the page and the line of the command
    assert broken_links(page) == ["typo.md: no_such_page.md"]


def test_the_same_commands_without_typos_pass(tmp_path: Path) -> None:
    page = tmp_path / "fine.md"
    page.write_text("```bash\n"
                    "personal-envs eval --env WebMall-v0 --episodes 3\n"
                    "python3 -m personal_envs plot runs/a.jsonl [runs/b.jsonl ...] --out plots/ [--format svg]\n"
                    "python -m benchmarks.fuzz --kill-browser 112\n"
                    "PYTHONPATH=. python benchmarks/webmall.py --steps 80 --format-cost-only\n"
                    "```\n", encoding="utf-8")
    commands, _ = commands_of(page)
    assert len(commands) == 4 and [check(command) for command in commands] == [None] * 4
    assert isinstance(build_parser(), argparse.ArgumentParser)
