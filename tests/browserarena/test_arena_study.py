"""The arena as a study platform, in real Chromium: a task submitted on the vote page becomes a battle of a random
pair from a model pool (anonymous until the vote), two annotators vote and annotate it field by field, and the
agreement table, the exports and the CLI reflect both."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import personal_envs  # noqa: F401
from personal_envs.browser.session import BrowserSession
from personal_envs.browser.testing import LocalSite
from personal_envs.browserarena import policies as P
from personal_envs.browserarena.arena import ArenaStore, VotePage
from personal_envs.browserarena.arena.agreement import agreement_rows, agreement_table
from personal_envs.browserarena.arena.export import annotation_rows, to_csv, vote_rows
from personal_envs.browserarena.arena.pool import pick_pair, run_pending
from personal_envs.browserarena.arena.store import BattleRecord, StoredVote, VoteRefused
from personal_envs.cli import main


def test_pick_pair_is_random_in_pairs_and_sides() -> None:
    rng = random.Random(0)
    pairs = Counter(pick_pair(["m1", "m2", "m3"], rng) for _ in range(600))
    assert set(pairs) == {(a, b) for a in ("m1", "m2", "m3") for b in ("m1", "m2", "m3") if a != b}
    assert min(pairs.values()) > 60  # every ordered pair (so every side) comes up often


def test_agreement_with_and_without_ties() -> None:
    votes = [StoredVote("b1", "model_a", "ann"), StoredVote("b1", "model_a", "bob"),
             StoredVote("b2", "model_b", "ann"), StoredVote("b2", "tie", "bob"),
             StoredVote("b3", "tie", "ann"), StoredVote("b3", "tie (bothbad)", "bob"),
             StoredVote("b4", "model_a", "ann"), StoredVote("b4", "model_b", "bob"),
             StoredVote("b5", "model_a", "ann")]  # only one annotator: not compared
    row = agreement_rows(votes)[0]
    assert row.annotators == ("ann", "bob") and row.battles_with_ties == 4 and row.agree_with_ties == 50.0
    assert row.battles_without_ties == 2 and row.agree_without_ties == 50.0
    # kappa: observed 0.5, expected (2*1 + 1*1 + 1*2) / 16
    assert abs(row.kappa - (0.5 - 5 / 16) / (1 - 5 / 16)) < 1e-12
    assert "ann / bob" in agreement_table(votes)


def test_several_annotators_per_battle_and_votes_are_final(tmp_path: Path) -> None:
    store = ArenaStore(tmp_path / "a.sqlite")
    battle = store.add_battle(BattleRecord("", "env", "t", "task", "m1", "m2"))
    store.record_vote(battle, "tie (bothbad)", "vlm-judge[gif]@5", source="judge")  # a judge votes first
    assert store.battle(battle).winner is None  # ... but the battle's vote is a person's
    assert store.record_vote(battle, "model_a", "ann") is True
    store.record_vote(battle, "model_b", "bob")
    with pytest.raises(VoteRefused, match="already voted 'model_b'"):
        store.record_vote(battle, "tie", "bob")  # bob changes his mind: refused, his first vote stays
    assert store.record_vote(battle, "model_b", "bob") is False  # the same vote sent again: nothing changes
    assert [(v.voter, v.winner) for v in store.votes(battle, source="human")] == [("ann", "model_a"),
                                                                                    ("bob", "model_b")]
    assert store.battle(battle).winner == "model_a" and store.battle(battle).voter == "ann"
    assert len(store.voted_battles()) == 1 and len(store.voted_battles(every_vote=True)) == 2
    assert [b.winner for b in store.voted_battles(source="judge")] == ["tie (bothbad)"]
    assert len(store.voted_battles(source="all", every_vote=True)) == 3


def test_submit_battle_vote_annotate_agree_in_chromium(tmp_path: Path) -> None:
    store = ArenaStore(tmp_path / "arena.sqlite")
    pages = {"/": "<title>Tea shop</title><h1>Tea shop</h1><p>We sell green tea.</p>"}
    pool = {"reader-one": P.make_open_reader, "reader-two": P.make_open_reader, "reader-three": P.make_open_reader}
    with LocalSite(pages) as site:
        def make_env(env_id: str) -> Any:
            return lambda: gym.make(env_id, max_wait_s=0.0, viewport=(480, 320), allowed_origins=[site.origin],
                                    navigation_timeout_s=5.0)

        with VotePage(store, voter_name="ann", allowed_origins=[site.origin]) as server:
            session = BrowserSession(viewport=(1280, 900))
            try:
                assert session.goto(f"{server.url}/submit?annotator=ann") == ""

                def submit(page: Any) -> str:
                    page.get_by_label("Task").fill("What does the shop sell?")
                    page.get_by_label("Start URL").fill(site.url("/"))
                    page.get_by_role("button", name="Send to two anonymous agents").click()
                    page.wait_for_selector("#tasks td.status")
                    return str(page.inner_text("#tasks"))

                assert "pending" in session.call(submit)
                [task] = store.tasks("pending")
                assert task.submitter == "ann" and task.start_url == site.url("/")
                [result] = run_pending(store, pool, make_env, out_dir=tmp_path / "battles", rng=random.Random(3),
                                       allowed_origins=[site.origin])
                record = result.record
                assert {record.model_a, record.model_b} <= set(pool) and record.model_a != record.model_b
                assert store.tasks()[0].status == "done" and store.tasks()[0].battle_id == record.battle_id
                assert result.side_a.trace["task"] == "What does the shop sell?"
                battle_url = f"{server.url}/battle/{record.battle_id}"

                assert session.goto(f"{battle_url}?annotator=ann") == ""

                def vote_as_ann(page: Any) -> dict[str, str]:
                    before = page.inner_text("#side-a h2") + page.inner_text("#side-b h2")
                    assert page.locator("#side-b img").evaluate("img => img.naturalWidth") > 0  # GIF served
                    assert "Next goal" in page.inner_text("#a-step-1") and "Memory" in page.inner_text("#a-step-1")
                    page.get_by_label("Left step 1 wrong", exact=True).check()
                    page.get_by_label("Left step 1 result wrong").check()
                    page.get_by_label("Left step 1 reason").fill("the extraction said nothing useful")
                    page.get_by_label("Save Left step 1").click()
                    page.wait_for_selector("#a-step-1 .saved")
                    page.get_by_role("button", name="Left is better").click()
                    page.wait_for_selector("#vote-result")
                    return {"before": before, "after": page.inner_text("#side-a h2"),
                            "result": page.inner_text("#vote-result")}

                ann = session.call(vote_as_ann)
                assert "reader" not in ann["before"]  # anonymous until the vote
                assert record.model_a in ann["after"] and "model_a" in ann["result"]

                assert session.goto(f"{battle_url}?annotator=bob") == ""

                def vote_as_bob(page: Any) -> dict[str, str]:
                    before = page.inner_text("#side-a h2")  # ann's vote does not reveal the models to bob
                    page.get_by_role("button", name="Tie").click()
                    page.wait_for_selector("#vote-result")
                    return {"before": before, "result": page.inner_text("#vote-result")}

                bob = session.call(vote_as_bob)
                assert "reader" not in bob["before"] and "2 vote(s)" in bob["result"]
                assert session.goto(f"{server.url}/agreement") == ""
                table = session.call(lambda page: page.inner_text("#agreement"))
                assert "ann / bob" in table
                cells = [line for line in table.splitlines() if "ann / bob" in line][0].split("\t")
                assert cells[1:5] == ["1", "0.0", "0", "0.0"]  # one shared battle, votes differ, bob tied
                refused = session.call(  # not for annotators (with their cookie): it names the models
                    lambda page: page.request.get(f"{server.url}/export/votes.jsonl").status)
                assert refused == 403
                exported = session.call(  # the operator's URL downloads the file
                    lambda page: page.request.get(server.export_url("votes")).text())
            finally:
                session.close()
    votes = [json.loads(line) for line in exported.splitlines()]
    assert [(v["judge"], v["winner"]) for v in votes] == [("ann", "model_a"), ("bob", "tie")]
    assert store.battle(record.battle_id).winner == "model_a"
    [note] = annotation_rows(store)
    assert (note["annotator"], note["side"], note["correct"], note["result_correct"], note["memory_correct"]) == (
        "ann", "a", False, False, True)
    assert to_csv(vote_rows(store)).splitlines()[0].startswith("battle_id,")


def test_arena_cli(tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    db = str(tmp_path / "cli.sqlite")
    assert main(["arena", "submit", "--db", db, "--text", "Find the tea", "--submitter", "cli"]) == 0
    assert "pending" in capsys.readouterr().out
    store = ArenaStore(db)
    for i, winner in enumerate(["model_a", "model_a", "model_b", "tie"] * 3):
        battle = store.add_battle(BattleRecord("", "env", f"t{i}", "task", "m1" if i % 2 else "m2",
                                               "m2" if i % 2 else "m1"))
        store.record_vote(battle, winner, "ann")
        store.record_vote(battle, "model_a", "bob")
    assert main(["arena", "leaderboard", "--db", db, "--figures", str(tmp_path / "fig")]) == 0
    out = capsys.readouterr().out
    assert "m1" in out and "95% CI" in out
    assert sorted(p.name for p in (tmp_path / "fig").iterdir()) == [
        "fig2a_win_fraction.png", "fig2b_battle_count.png", "fig2c_bootstrap_ratings.png",
        "fig2d_average_win_rate.png"]
    assert main(["arena", "agreement", "--db", db]) == 0
    assert "ann / bob" in capsys.readouterr().out
    answers = iter(["l", "x"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert main(["arena", "vote", "--db", db, "--annotator", "cyd", "--limit", "2"]) == 0
    assert [v.winner for v in ArenaStore(db).votes() if v.voter == "cyd"] == ["model_a", "tie (bothbad)"]
    assert "2 vote(s) by cyd" in capsys.readouterr().out
    out_file = tmp_path / "votes.csv"
    assert main(["arena", "export", "--db", db, "--what", "votes", "--format", "csv", "--out", str(out_file)]) == 0
    assert len(out_file.read_text().splitlines()) == 1 + 24 + 2  # ann, bob and cyd
