"""The documentation's code snippets run as written: the README's Use snippet prints a real, non-zero reward for an
action that fits its task, and the vector-env snippet of docs/rl.md runs as a script (with its ``__main__`` guard) and
fails without it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def snippet(name: str, page: str = "README.md") -> str:
    """The Python block that follows ``<!-- snippet: NAME ... -->`` in the page (README by default), dedented."""
    text = (ROOT / page).read_text(encoding="utf-8")
    match = re.search(r"<!-- snippet: " + name + r"\b[^>]*-->\s*\n(?P<indent>[ ]*)```python\n(?P<code>.*?)\n[ ]*```",
                      text, re.DOTALL)
    assert match, f"{page} has no '{name}' snippet"
    indent = len(match.group("indent"))
    return "\n".join(line[indent:] for line in match.group("code").splitlines()) + "\n"


def run_script(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "snippet.py"
    script.write_text(code, encoding="utf-8")
    return subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_the_use_snippet_prints_a_real_reward(tmp_path: Path) -> None:
    done = run_script(snippet("use"), tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    instruction, result = done.stdout.splitlines()[:2]
    assert "cushioned athletic socks" in instruction
    reward = float(result.split()[0])
    assert reward > 0 and f"'result_accuracy': {reward}" in result and "'function_accuracy': 1.0" in result
    assert f"# {reward} " in snippet("use")  # the comment states the reward the snippet prints


def test_the_vector_snippet_runs_as_a_script_and_needs_its_guard(tmp_path: Path) -> None:
    code = snippet("vector", "docs/rl.md")
    done = run_script(code, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "[0.9 0.9]"
    # the same code without the guard: every spawned sub-env starts the vector env again
    body = code.split('if __name__ == "__main__":', 1)[1].split("\n", 1)[1]
    unguarded = code.split("if __name__", 1)[0] + "\n".join(line[4:] for line in body.splitlines()) + "\n"
    failed = run_script(unguarded, tmp_path)
    assert failed.returncode != 0 and "bootstrapping phase" in failed.stderr


def test_the_pool_snippet_runs_and_every_env_answers(tmp_path: Path) -> None:
    done = run_script(snippet("pool"), tmp_path)  # an env left waiting for ever would time this out
    assert done.returncode == 0, done.stderr[-3000:]
    answers, url = done.stdout.split("] ")
    assert min(int(count) for count in answers.strip("[").split(",")) == 3
    assert url.strip() == "http://solution.webmall.localhost/"
