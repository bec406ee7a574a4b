"""SQLite store of battles, votes and step annotations."""

from __future__ import annotations

from pathlib import Path

import pytest

from personal_envs.browserarena.arena.store import Annotation, ArenaStore, BattleRecord


def test_battles_votes_annotations_roundtrip(tmp_path: Path) -> None:
    store = ArenaStore(tmp_path / "arena.sqlite")
    battle_id = store.add_battle(BattleRecord("", "BrowserArena-Captcha-v0", "captcha-001", "task", "m1", "m2",
                                              extra={"score_a": 1.0}))
    assert store.voted_battles() == []
    store.record_vote(battle_id, "model_a", "tester", "left answered")
    again = ArenaStore(tmp_path / "arena.sqlite")  # a second handle (other process / thread) sees the same data
    record = again.battle(battle_id)
    assert (record.winner, record.voter, record.vote_reason, record.extra) == ("model_a", "tester", "left answered",
                                                                               {"score_a": 1.0})
    assert [(b.model_a, b.model_b, b.winner) for b in again.voted_battles()] == [("m1", "m2", "model_a")]
    store.annotate(Annotation(battle_id, "a", 1, True, "", "ann"))
    store.annotate(Annotation(battle_id, "b", 2, False, "clicked the captcha again", "ann"))
    store.annotate(Annotation(battle_id, "b", 2, False, "looped on the captcha", "ann"))  # replaces
    notes = again.annotations(battle_id)
    assert [(n.side, n.step, n.correct, n.reason) for n in notes] == [
        ("a", 1, True, ""), ("b", 2, False, "looped on the captcha")]


def test_bad_writes_are_refused(tmp_path: Path) -> None:
    store = ArenaStore(tmp_path / "arena.sqlite")
    battle_id = store.add_battle(BattleRecord("", "e", "t", "task", "m1", "m2"))
    with pytest.raises(ValueError):
        store.record_vote(battle_id, "left", "x")
    with pytest.raises(KeyError):
        store.record_vote("nope", "tie", "x")
    with pytest.raises(KeyError):
        store.annotate(Annotation("nope", "a", 1, True))
    with pytest.raises(ValueError):
        store.annotate(Annotation(battle_id, "c", 1, True))


def test_a_database_of_an_older_version_is_migrated(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:  # the schema before judge votes were kept apart
        db.executescript("""
            CREATE TABLE battles (battle_id TEXT PRIMARY KEY, created REAL NOT NULL, env_id TEXT NOT NULL,
                task_id TEXT NOT NULL, task_text TEXT NOT NULL, model_a TEXT NOT NULL, model_b TEXT NOT NULL,
                trace_a TEXT NOT NULL DEFAULT '', trace_b TEXT NOT NULL DEFAULT '', gif_a TEXT NOT NULL DEFAULT '',
                gif_b TEXT NOT NULL DEFAULT '', winner TEXT, voter TEXT, voted REAL,
                vote_reason TEXT NOT NULL DEFAULT '', extra TEXT NOT NULL DEFAULT '{}');
            CREATE TABLE votes (vote_id INTEGER PRIMARY KEY AUTOINCREMENT, battle_id TEXT NOT NULL,
                winner TEXT NOT NULL, voter TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '', created REAL NOT NULL,
                UNIQUE (battle_id, voter));
            CREATE TABLE tasks (task_id TEXT PRIMARY KEY, created REAL NOT NULL, env_id TEXT NOT NULL,
                text TEXT NOT NULL, start_url TEXT NOT NULL DEFAULT '', submitter TEXT NOT NULL DEFAULT '',
                status TEXT NOT NULL DEFAULT 'pending', battle_id TEXT NOT NULL DEFAULT '');
            INSERT INTO battles (battle_id, created, env_id, task_id, task_text, model_a, model_b, winner, voter)
                VALUES ('b1', 1.0, 'env', 't', 'task', 'm1', 'm2', 'model_b', 'vlm-judge[gif+trace]@5');
            INSERT INTO votes (battle_id, winner, voter, created) VALUES ('b1', 'model_b', 'vlm-judge[gif+trace]@5', 2.0);
            INSERT INTO votes (battle_id, winner, voter, created) VALUES ('b1', 'tie', 'ann', 3.0);
            INSERT INTO tasks (task_id, created, env_id, text) VALUES ('task-1', 1.0, 'env', 'old task');
        """)
    store = ArenaStore(path)
    assert [(v.voter, v.source, v.anony) for v in store.votes()] == [("vlm-judge[gif+trace]@5", "judge", True),
                                                                      ("ann", "human", True)]
    assert [b.winner for b in store.voted_battles()] == ["tie"]
    assert (store.battle("b1").winner, store.battle("b1").voter) == ("tie", "ann")  # was the judge's
    assert store.tasks()[0].error == "" and store.claim_annotator("ann", "s1")
    store.record_vote("b1", "model_a", "bob")
    assert store.battle("b1").winner == "tie"  # the battle's vote: the first person's, not the judge's


def test_annotator_names_belong_to_one_browser(tmp_path: Path) -> None:
    store = ArenaStore(tmp_path / "arena.sqlite")
    assert store.annotator_session("ann") is None
    assert store.claim_annotator("ann", "key-1") and store.claim_annotator("ann", "key-1")
    assert not store.claim_annotator("ann", "key-2") and store.claim_annotator("bob", "key-1")
    assert store.annotator_session("ann") == "key-1"
    with pytest.raises(ValueError, match="at most 4,000"):
        store.submit_task("x" * 4001)  # refused, never cut
