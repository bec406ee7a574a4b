"""eval under faults: a bad --out fails before any episode, malformed result lines are skipped with their line
number, and workers exit when the eval process is killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from personal_envs.browser.process import process_alive
from personal_envs.cli import main
from personal_envs.core.embedding_service import EmbeddingClient, ServiceError
from tests.browser.test_release import _descendants


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _listening_service(pids: list[int]) -> bool:
    """Whether the service on the user's socket answers and is one of ``pids`` (the test's connection closes)."""
    client = EmbeddingClient(start=False)
    try:
        return int(client.ping().get("pid", -1)) in pids
    except ServiceError:
        return False
    finally:
        client.close()


REPO = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def _eval(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "personal_envs", "eval", "--no-progress", *args],
                          capture_output=True, text=True, timeout=timeout, cwd=REPO, env=ENV)


def test_unwritable_out_fails_with_one_line_before_any_episode(tmp_path: Path) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    for out in ("/proc/personal-envs-test/results.jsonl", str(blocker / "results.jsonl"), str(tmp_path)):
        result = _eval("--env", "PersonalWAB-SingleTurn-v0", "--policy", "random", "--episodes", "1", "--out", out)
        assert result.returncode != 0
        assert "Traceback" not in result.stderr
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: cannot write the results file"), result.stderr
        assert "episodes" not in result.stdout  # no table: nothing ran


def test_malformed_lines_are_reported_with_their_number_and_skipped(tmp_path: Path, capsys) -> None:
    out = tmp_path / "results.jsonl"
    assert main(["eval", "--env", "PersonalWAB-SingleTurn-v0", "--policy", "random", "--episodes", "1",
                 "--out", str(out), "--no-progress"]) == 0
    good = out.read_text().splitlines()[0]
    null_episode = json.loads(good) | {"episode": None}
    out.write_text("\n".join([good, json.dumps(null_episode), "{broken", "[1, 2]", "9" * 5000, ""]))
    capsys.readouterr()
    assert main(["eval", "--env", "PersonalWAB-SingleTurn-v0", "--policy", "random", "--episodes", "2",
                 "--out", str(out), "--no-progress"]) == 0
    captured = capsys.readouterr()
    for number, what in ((2, "field episode: expected an integer, got None"), (3, "not valid JSON"),
                         (4, "a JSON list, expected an object"), (5, "not valid")):
        assert f"line {number}: {what}" in captured.err, captured.err
    episodes = [json.loads(line).get("episode") for line in out.read_text().splitlines()[5:]]
    assert episodes == [1]  # episode 0 was resumed from line 1, not run again


def test_workers_exit_within_ten_seconds_of_the_parent_being_killed(tmp_path: Path) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-m", "personal_envs", "eval", "--no-progress", "--env", "PersonalWAB-MultiTurn-v0",
         "--policy", "random", "--episodes", "100000", "--workers", "2", "--out", str(tmp_path / "r.jsonl")],
        cwd=REPO, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # until both workers have written episodes
            if (tmp_path / "r.jsonl").exists() and len((tmp_path / "r.jsonl").read_text().splitlines()) >= 4:
                break
            time.sleep(0.5)
        # the shared MiniLM service a worker started is no worker: it serves every process of the user and stops
        # by itself once no client has been connected for its idle time (20 s). A worker may start it after the
        # first episodes (they need no embedding); wait until it listens, so its idle clock is what is measured
        # below and not also the time it takes to load the model
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            started = _descendants(parent.pid)
            services = [pid for pid in started if "personal_envs.core.embedding_service" in _cmdline(pid)]
            if not services or _listening_service(services):
                break
            time.sleep(0.5)
        workers = [pid for pid in started if pid not in services]
        assert len(workers) >= 2
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(process_alive(pid) for pid in workers):
            time.sleep(0.2)
        assert not [pid for pid in workers if process_alive(pid)]
        deadline = time.monotonic() + 20 + 30  # its idle time, and a margin for a loaded machine
        while time.monotonic() < deadline and any(process_alive(pid) for pid in services):
            time.sleep(0.5)
        assert not [pid for pid in services if process_alive(pid)]  # nothing is left behind
    finally:
        if parent.poll() is None:
            parent.kill()
