"""``personal-envs arena`` as a study runs it, through the real command line (subprocesses): what a submission may
be, ``battle --pending`` surviving a bad task, fresh pairing seeds, judge votes apart from people's, votes that are
final, ``serve --host``, per-env leaderboards and the vote filters."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from personal_envs.browser.testing import LocalSite
from personal_envs.browserarena.arena.store import ArenaStore, BattleRecord
from personal_envs.llm.testing import ScriptedChatServer


def arena(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "personal_envs", "arena", *args], capture_output=True, text=True,
                          timeout=timeout, check=False, stdin=subprocess.DEVNULL)


def one_line_error(done: subprocess.CompletedProcess[str], reason: str) -> None:
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and done.stderr.startswith("error: ") and reason in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_submissions_that_cannot_run_are_refused(tmp_path: Path) -> None:
    db = str(tmp_path / "a.sqlite")
    cases = [
        (["--env", "BrowserArena-Captcha-v0"], "runs its own tasks, not submitted ones"),
        (["--env", "BrowserArena-Nope-v0"], "unknown env id"),
        (["--start-url", "javascript:alert(1)"], "http:// or https://"),
        (["--start-url", "http://169.254.169.254/latest/meta-data/"], "cloud metadata"),
        (["--start-url", "http://127.0.0.1:9/"], "loopback or private-network"),
    ]
    for extra, reason in cases:
        one_line_error(arena("submit", "--db", db, "--text", "What is the weather in Paris today?", *extra), reason)
    one_line_error(arena("submit", "--db", db, "--text", "x" * 10_000), "10,000 characters long; at most 4,000")
    assert ArenaStore(db).tasks() == []


def test_battle_pending_survives_bad_tasks_and_reports_the_finished_ones(tmp_path: Path) -> None:
    db = str(tmp_path / "a.sqlite")
    with LocalSite({"/": "<title>Tea shop</title><h1>Tea shop</h1><p>We sell green tea.</p>"}) as site:
        done = arena("submit", "--db", db, "--text", "What does the shop sell?", "--start-url", site.url("/"),
                     "--allowed-origin", site.origin)
        assert done.returncode == 0, done.stderr
        store = ArenaStore(db)
        store.submit_task("Find the cheapest flight", env_id="BrowserArena-Nope-v0")  # e.g. an older version's
        store.submit_task("What is the weather in Paris today?", env_id="BrowserArena-PopupBanner-v0")
        kwargs = {"allowed_origins": [site.origin], "max_wait_s": 0.0, "viewport": [480, 320],
                  "navigation_timeout_s": 5.0}
        done = arena("battle", "--db", db, "--pending", "--model", "r1=open_reader", "--model", "r2=open_reader",
                     "--env-kwargs", json.dumps(kwargs), "--out", str(tmp_path / "battles"), "--seed", "3")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    [finished] = re.findall(r"^(\w+): 'What does the shop sell\?' \(models hidden until the vote\)$", done.stdout,
                            re.MULTILINE)
    assert "unknown env id 'BrowserArena-Nope-v0'" in done.stderr
    assert "BrowserArena-PopupBanner-v0 runs its own tasks" in done.stderr
    assert "1 battle(s) finished, 2 task(s) failed" in done.stderr
    statuses = {t.env_id: (t.status, t.battle_id, t.error) for t in ArenaStore(db).tasks()}
    assert statuses["BrowserArena-Open-v0"] == ("done", finished, "")
    assert statuses["BrowserArena-Nope-v0"][0] == "failed" and "unknown env" in statuses["BrowserArena-Nope-v0"][2]
    record = ArenaStore(db).battle(finished)
    assert record.task_text == "What does the shop sell?" and record.env_id == "BrowserArena-Open-v0"


def test_pairs_come_from_a_fresh_seed_each_run(tmp_path: Path) -> None:
    db = str(tmp_path / "a.sqlite")
    seeds = []
    for _ in range(3):
        done = arena("battle", "--db", db, "--pending", "--model", "a=open_reader", "--model", "b=open_reader")
        assert done.returncode == 0, done.stderr
        seeds.append(int(re.search(r"^seed (\d+) \(pass --seed \1 to draw the same pairs again\)$", done.stderr,
                                   re.MULTILINE)[1]))  # type: ignore[index]
    assert len(set(seeds)) == 3
    done = arena("battle", "--db", db, "--pending", "--model", "a=open_reader", "--model", "b=open_reader",
                 "--seed", "7")
    assert done.returncode == 0 and "seed" not in done.stderr


def _battles(tmp_path: Path, db: str) -> list[str]:
    store = ArenaStore(db)
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps({"task": "t", "steps": [{"step": 1, "brain": {"next_goal": "look"}, "actions": []}],
                                 "final": {"finished": True, "answer": "tea"}}), encoding="utf-8")
    ids = []
    for i, (env, a, b) in enumerate([("BrowserArena-Open-v0", "m1", "m2"), ("BrowserArena-Open-v0", "m2", "m3"),
                                     ("BrowserArena-PopupBanner-v0", "m1", "m3"),
                                     ("BrowserArena-PopupBanner-v0", "m4", "m1")]):
        ids.append(store.add_battle(BattleRecord(f"b{i}", env, f"t{i}", "task", a, b, str(trace), str(trace))))
    return ids


def test_judge_votes_are_kept_apart_from_peoples(tmp_path: Path) -> None:
    db = str(tmp_path / "a.sqlite")
    ids = _battles(tmp_path, db)
    with ScriptedChatServer(lambda body: '{"winner": "left", "reason": "it answered"}') as chat:
        done = arena("judge", "--db", db, "--base-url", chat.base_url, "--judge-model", "scripted", "--k", "1",
                     "--inputs", "trace")
        assert done.returncode == 0, done.stderr
        again = arena("judge", "--db", db, "--base-url", chat.base_url, "--judge-model", "scripted", "--k", "1",
                      "--inputs", "trace")
    assert "4 judge vote(s) by vlm-judge[trace]@1" in done.stdout and "0 judge vote(s)" in again.stdout
    store = ArenaStore(db)
    assert all(store.battle(i).winner is None for i in ids)  # no battle got its first vote from the judge
    board = arena("leaderboard", "--db", db)
    assert board.returncode == 0 and "no votes yet" in board.stdout
    assert "4 judge vote(s) are not counted here" in board.stdout
    judged = arena("leaderboard", "--db", db, "--votes", "judge", "--rounds", "10")
    assert "judges' votes" in judged.stdout and "(4 battles, 10 bootstrap rounds)" in judged.stdout
    store.record_vote(ids[0], "model_a", "ann")
    store.record_vote(ids[1], "model_b", "ann")
    people = arena("leaderboard", "--db", db, "--rounds", "10")
    assert "people's votes" in people.stdout and "(2 battles, 10 bootstrap rounds)" in people.stdout
    agreement = arena("agreement", "--db", db)
    row = next(line for line in agreement.stdout.splitlines() if "people / vlm-judge[trace]@1" in line)
    assert row.split()[3:5] == ["2", "50.0"]  # 2 battles, the judge agrees with ann on one
    exported = arena("export", "--db", db, "--votes", "human")
    assert [json.loads(line)["source"] for line in exported.stdout.splitlines()] == ["human", "human"]


def test_terminal_votes_are_final(tmp_path: Path) -> None:
    db = str(tmp_path / "a.sqlite")
    _battles(tmp_path, db)
    first = subprocess.run([sys.executable, "-m", "personal_envs", "arena", "vote", "--db", db, "--annotator", "ann",
                            "--limit", "1"], input="l\n", capture_output=True, text=True, timeout=120, check=False)
    assert first.returncode == 0 and "1 vote(s) by ann" in first.stdout, first.stderr
    second = subprocess.run([sys.executable, "-m", "personal_envs", "arena", "vote", "--db", db, "--annotator",
                             "ann", "--limit", "1"], input="r\n", capture_output=True, text=True, timeout=120,
                            check=False)
    assert second.returncode == 0, second.stderr
    votes = ArenaStore(db).votes()
    assert [(v.voter, v.winner) for v in votes] == [("ann", "model_a"), ("ann", "model_b")]
    assert len({v.battle_id for v in votes}) == 2  # the second run voted on the next battle, not again


def test_leaderboard_per_env_and_filters(tmp_path: Path) -> None:
    db = str(tmp_path / "a.sqlite")
    ids = _battles(tmp_path, db)
    store = ArenaStore(db)
    for battle, winner in zip(ids, ["model_a", "tie (bothbad)", "model_b", "tie (bothbad)"], strict=True):
        store.record_vote(battle, winner, "ann")
    per_env = arena("leaderboard", "--db", db, "--per-env", "--rounds", "5")
    assert per_env.returncode == 0, per_env.stderr
    sections = per_env.stdout.split("BrowserArena-PopupBanner-v0, people's votes")
    assert "BrowserArena-Open-v0, people's votes" in sections[0] and "m4" not in sections[0]
    assert "m4" in sections[1] and "m2" not in sections[1]
    only = arena("leaderboard", "--db", db, "--env", "BrowserArena-Open-v0", "--rounds", "5")
    assert "(2 battles," in only.stdout and "m4" not in only.stdout
    dropped = arena("leaderboard", "--db", db, "--drop-both-bad", "--rounds", "5")
    assert "'both bad' left out" in dropped.stdout and "(2 battles," in dropped.stdout and "m4" not in dropped.stdout
    fastchat = arena("leaderboard", "--db", db, "--method", "fastchat", "--rounds", "5")
    assert fastchat.returncode == 0 and "[FastChat's fit: no regularisation]" in fastchat.stdout
    csv = arena("export", "--db", db, "--format", "csv")
    assert csv.stdout.splitlines()[0].endswith(",tstamp,anony,source")


def _first_ipv4_not_loopback() -> str | None:
    try:
        out = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=10, check=False).stdout
    except OSError:
        return None
    return next((a for a in out.split() if "." in a and not a.startswith("127.")), None)


def _serve(db: str, *extra: str) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen([sys.executable, "-m", "personal_envs", "arena", "serve", "--db", db, "--port", "0",
                                *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert process.stdout is not None
    line = process.stdout.readline()
    match = re.match(r"vote page: (http://\S+)", line)
    assert match, line + (process.stderr.read() if process.stderr else "")
    return process, match[1]


def _status(url: str) -> int | str:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError as exc:
        return type(exc).__name__


def test_serve_listens_on_loopback_unless_told_otherwise(tmp_path: Path) -> None:
    db = str(tmp_path / "a.sqlite")
    address = _first_ipv4_not_loopback()
    process, url = _serve(db)
    try:
        port = url.rsplit(":", 1)[1]
        assert url.startswith("http://127.0.0.1:") and _status(url + "/") == 200
        if address:
            assert _status(f"http://{address}:{port}/") != 200  # not reachable from other machines
    finally:
        process.terminate()
        process.wait(timeout=30)
    if not address:
        pytest.skip("this machine has no non-loopback IPv4 address to reach the page from")
    process, url = _serve(db, "--host", "0.0.0.0")
    try:
        port = url.rsplit(":", 1)[1]
        time.sleep(0.2)
        assert _status(f"http://{address}:{port}/") == 200 and _status(f"http://{address}:{port}/submit") == 200
        assert _status(f"http://{address}:{port}/export/votes.jsonl") == 403
    finally:
        process.terminate()
        _, err = process.communicate(timeout=30)
    assert "anyone who can reach this machine" in err
