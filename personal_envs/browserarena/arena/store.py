"""SQLite storage of battles, votes and step-level annotations.

Tables:

* ``battles``: one row per head-to-head run (task, the two models, paths of their traces and GIFs, the first vote);
* ``votes``: every vote: several annotators may vote on the same battle (one vote per annotator; a re-vote by the
  same annotator replaces theirs), as the paper's re-annotation agreement study needs;
* ``annotations``: one row per judged step of one side of a battle and annotator (``correct`` and, if not,
  ``reason``; ``fields``: which of the step's evaluation / memory / next goal / action / result were right);
* ``tasks``: tasks submitted for battles (``pending`` until a battle ran them).

Every connection is short-lived and the database uses WAL mode, so the vote page's server threads, the arena runner
and a notebook can use the same file at the same time.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from personal_envs.browserarena.arena.leaderboard import WINNERS, Battle
from personal_envs.core.errors import InputError, MissingDataError
from personal_envs.core.schema import parse_json, validate

SCHEMA = """
CREATE TABLE IF NOT EXISTS battles (
    battle_id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    env_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    task_text TEXT NOT NULL,
    model_a TEXT NOT NULL,
    model_b TEXT NOT NULL,
    trace_a TEXT NOT NULL DEFAULT '',
    trace_b TEXT NOT NULL DEFAULT '',
    gif_a TEXT NOT NULL DEFAULT '',
    gif_b TEXT NOT NULL DEFAULT '',
    winner TEXT,
    voter TEXT,
    voted REAL,
    vote_reason TEXT NOT NULL DEFAULT '',
    extra TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS annotations (
    annotation_id INTEGER PRIMARY KEY AUTOINCREMENT,
    battle_id TEXT NOT NULL REFERENCES battles(battle_id),
    side TEXT NOT NULL CHECK (side IN ('a', 'b')),
    step INTEGER NOT NULL,
    correct INTEGER NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    annotator TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL,
    UNIQUE (battle_id, side, step, annotator)
);
CREATE TABLE IF NOT EXISTS votes (
    vote_id INTEGER PRIMARY KEY AUTOINCREMENT,
    battle_id TEXT NOT NULL REFERENCES battles(battle_id),
    winner TEXT NOT NULL,
    voter TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL,
    UNIQUE (battle_id, voter)
);
CREATE TABLE IF NOT EXISTS tasks (
    task_id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    env_id TEXT NOT NULL,
    text TEXT NOT NULL,
    start_url TEXT NOT NULL DEFAULT '',
    submitter TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT 'pending',
    battle_id TEXT NOT NULL DEFAULT ''
);
"""
#: The per-step fields an annotator judges (the paper's annotation fields, browser-use's step record).
STEP_FIELDS: tuple[str, ...] = ("evaluation", "memory", "next_goal", "action", "result")


@dataclass
class BattleRecord:
    """A stored battle."""

    battle_id: str
    env_id: str
    task_id: str
    task_text: str
    model_a: str
    model_b: str
    trace_a: str = ""
    trace_b: str = ""
    gif_a: str = ""
    gif_b: str = ""
    winner: str | None = None
    voter: str | None = None
    vote_reason: str = ""
    created: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Annotation:
    """A step-level judgement of one side of a battle; ``fields`` maps :data:`STEP_FIELDS` to right / wrong."""

    battle_id: str
    side: str
    step: int
    correct: bool
    reason: str = ""
    annotator: str = ""
    fields: dict[str, bool] = field(default_factory=dict)


@dataclass(frozen=True)
class StoredVote:
    """One annotator's vote on one battle."""

    battle_id: str
    winner: str
    voter: str
    reason: str = ""
    created: float = 0.0


@dataclass(frozen=True)
class SubmittedTask:
    """A task submitted for battles."""

    task_id: str
    env_id: str
    text: str
    start_url: str = ""
    submitter: str = ""
    status: str = "pending"
    battle_id: str = ""
    created: float = 0.0


class ArenaStore:
    """Battles and annotations in one SQLite file (``":memory:"`` is not supported: threads share the file)."""

    def __init__(self, path: str | os.PathLike[str], *, create: bool = True) -> None:
        """Open the arena database at ``path`` (created when missing, unless ``create`` is false).

        Raises:
            MissingDataError: ``create`` is false and there is no file at ``path``.
            InputError: the file is not an SQLite database, or its tables lack columns of :data:`SCHEMA` (another
                program's database).
        """
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise MissingDataError(f"{self.path}: no arena database there (it is made by 'personal-envs arena "
                                   "submit' or 'battle' with the same --db)")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            with self._connect() as db:
                db.execute("PRAGMA journal_mode=WAL")
                _check_tables(db, self.path)
                db.executescript(SCHEMA)
                columns = {row["name"] for row in db.execute("PRAGMA table_info(annotations)")}
                if "fields" not in columns:  # a database made before per-field annotations
                    db.execute("ALTER TABLE annotations ADD COLUMN fields TEXT NOT NULL DEFAULT '{}'")
                db.execute("INSERT OR IGNORE INTO votes (battle_id, winner, voter, reason, created) "
                           "SELECT battle_id, winner, COALESCE(voter, ''), vote_reason, COALESCE(voted, created) "
                           "FROM battles WHERE winner IS NOT NULL")
        except sqlite3.OperationalError:
            raise
        except sqlite3.DatabaseError as exc:  # "file is not a database", "database disk image is malformed"
            raise InputError(f"{self.path}: not an arena database ({exc})") from None

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=30)
        db.row_factory = sqlite3.Row
        try:
            with db:
                yield db
        finally:
            db.close()

    # ------------------------------------------------------------------------------------------ battles
    def add_battle(self, record: BattleRecord) -> str:
        """Insert a battle (a new id is made if ``record.battle_id`` is empty); return its id."""
        battle_id = record.battle_id or uuid.uuid4().hex[:12]
        with self._lock, self._connect() as db:
            db.execute(
                "INSERT INTO battles (battle_id, created, env_id, task_id, task_text, model_a, model_b, trace_a, "
                "trace_b, gif_a, gif_b, winner, voter, voted, vote_reason, extra) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (battle_id, record.created or time.time(), record.env_id, record.task_id, record.task_text,
                 record.model_a, record.model_b, record.trace_a, record.trace_b, record.gif_a, record.gif_b,
                 record.winner, record.voter, time.time() if record.winner else None, record.vote_reason,
                 json.dumps(record.extra, ensure_ascii=False)),
            )
        return battle_id

    def record_vote(self, battle_id: str, winner: str, voter: str, reason: str = "") -> None:
        """Store ``voter``'s vote on a battle (``winner`` in ``model_a / model_b / tie / tie (bothbad)``).

        Every annotator keeps one vote per battle (voting again replaces it); the battle row keeps the first vote,
        which is the one the leaderboard counts.
        """
        if winner not in WINNERS:
            raise ValueError(f"winner must be one of {WINNERS}, got {winner!r}")
        now = time.time()
        with self._lock, self._connect() as db:
            if db.execute("SELECT 1 FROM battles WHERE battle_id = ?", (battle_id,)).fetchone() is None:
                raise KeyError(f"no battle {battle_id!r}")
            db.execute("INSERT INTO votes (battle_id, winner, voter, reason, created) VALUES (?, ?, ?, ?, ?) "
                       "ON CONFLICT (battle_id, voter) DO UPDATE SET winner = excluded.winner, "
                       "reason = excluded.reason", (battle_id, winner, voter, reason, now))
            first = db.execute("SELECT winner, voter, reason, created FROM votes WHERE battle_id = ? "
                               "ORDER BY created, vote_id LIMIT 1", (battle_id,)).fetchone()
            db.execute("UPDATE battles SET winner = ?, voter = ?, voted = ?, vote_reason = ? WHERE battle_id = ?",
                       (first["winner"], first["voter"], first["created"], first["reason"], battle_id))

    def votes(self, battle_id: str | None = None) -> list[StoredVote]:
        """Every vote (of one battle, or all), oldest first."""
        sql = "SELECT * FROM votes" + (" WHERE battle_id = ?" if battle_id else "") + " ORDER BY created, vote_id"
        with self._connect() as db:
            rows = db.execute(sql, (battle_id,) if battle_id else ()).fetchall()
        return [StoredVote(r["battle_id"], r["winner"], r["voter"], r["reason"], r["created"]) for r in rows]

    def vote_of(self, battle_id: str, voter: str) -> StoredVote | None:
        """``voter``'s vote on the battle, if any."""
        return next((v for v in self.votes(battle_id) if v.voter == voter), None)

    # ------------------------------------------------------------------------------------------ tasks
    def submit_task(self, text: str, *, env_id: str = "BrowserArena-Open-v0", start_url: str = "",
                    submitter: str = "") -> str:
        """Queue a task for battles; returns its id."""
        text = text.strip()
        if not text:
            raise ValueError("a task needs a text")
        task_id = "task-" + uuid.uuid4().hex[:10]
        with self._lock, self._connect() as db:
            db.execute("INSERT INTO tasks (task_id, created, env_id, text, start_url, submitter) "
                       "VALUES (?, ?, ?, ?, ?, ?)", (task_id, time.time(), env_id, text[:4000], start_url, submitter))
        return task_id

    def tasks(self, status: str | None = None) -> list[SubmittedTask]:
        """Submitted tasks (``status``: ``pending``, ``running``, ``done``, ``failed``), oldest first."""
        sql = "SELECT * FROM tasks" + (" WHERE status = ?" if status else "") + " ORDER BY created"
        with self._connect() as db:
            rows = db.execute(sql, (status,) if status else ()).fetchall()
        return [SubmittedTask(r["task_id"], r["env_id"], r["text"], r["start_url"], r["submitter"], r["status"],
                              r["battle_id"], r["created"]) for r in rows]

    def set_task_status(self, task_id: str, status: str, battle_id: str = "") -> None:
        """Mark a submitted task (and the battle that ran it)."""
        with self._lock, self._connect() as db:
            db.execute("UPDATE tasks SET status = ?, battle_id = ? WHERE task_id = ?", (status, battle_id, task_id))

    def battle(self, battle_id: str) -> BattleRecord:
        """One battle by id (``KeyError`` if absent)."""
        with self._connect() as db:
            row = db.execute("SELECT * FROM battles WHERE battle_id = ?", (battle_id,)).fetchone()
        if row is None:
            raise KeyError(f"no battle {battle_id!r}")
        return self._record(row)

    def battles(self, *, voted_only: bool = False) -> list[BattleRecord]:
        """All battles, oldest first."""
        sql = "SELECT * FROM battles" + (" WHERE winner IS NOT NULL" if voted_only else "") + " ORDER BY created"
        with self._connect() as db:
            return [self._record(row) for row in db.execute(sql).fetchall()]

    def voted_battles(self, *, every_vote: bool = False) -> list[Battle]:
        """The votes as :class:`Battle` values for the leaderboard: each battle's first vote (``every_vote``: one
        :class:`Battle` per vote of every annotator)."""
        if not every_vote:
            return [Battle(r.model_a, r.model_b, r.winner) for r in self.battles(voted_only=True) if r.winner]
        by_id = {r.battle_id: r for r in self.battles()}
        return [Battle(by_id[v.battle_id].model_a, by_id[v.battle_id].model_b, v.winner) for v in self.votes()]

    # ------------------------------------------------------------------------------------------ annotations
    def annotate(self, annotation: Annotation) -> None:
        """Store (or replace) a step-level annotation."""
        if annotation.side not in ("a", "b"):
            raise ValueError("side must be 'a' or 'b'")
        self.battle(annotation.battle_id)
        with self._lock, self._connect() as db:
            db.execute(
                "INSERT OR REPLACE INTO annotations (battle_id, side, step, correct, reason, annotator, created, "
                "fields) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (annotation.battle_id, annotation.side, int(annotation.step), int(bool(annotation.correct)),
                 annotation.reason, annotation.annotator, time.time(),
                 json.dumps({k: bool(v) for k, v in annotation.fields.items() if k in STEP_FIELDS})),
            )

    def annotations(self, battle_id: str | None = None) -> list[Annotation]:
        """Annotations (of one battle, or all), in step order."""
        sql = "SELECT * FROM annotations" + (" WHERE battle_id = ?" if battle_id else "")
        sql += " ORDER BY battle_id, side, step, annotator"
        with self._connect() as db:
            rows = db.execute(sql, (battle_id,) if battle_id else ()).fetchall()
        return [Annotation(r["battle_id"], r["side"], r["step"], bool(r["correct"]), r["reason"], r["annotator"],
                           _column(r["fields"], dict[str, bool], f"{self.path}: annotation {r['annotation_id']} "
                                   "column fields")) for r in rows]

    def _record(self, row: sqlite3.Row) -> BattleRecord:
        return BattleRecord(
            battle_id=row["battle_id"], env_id=row["env_id"], task_id=row["task_id"], task_text=row["task_text"],
            model_a=row["model_a"], model_b=row["model_b"], trace_a=row["trace_a"], trace_b=row["trace_b"],
            gif_a=row["gif_a"], gif_b=row["gif_b"], winner=row["winner"], voter=row["voter"],
            vote_reason=row["vote_reason"], created=row["created"],
            extra=_column(row["extra"], dict[str, Any], f"{self.path}: battle {row['battle_id']} column extra"),
        )


def _column(text: str | None, kind: Any, where: str) -> Any:
    """A JSON column's value checked against ``kind`` (:class:`InputError` naming the row and column)."""
    return validate(kind, parse_json(text or "{}", where), where)


def _expected_columns() -> dict[str, set[str]]:
    """The columns of every table of :data:`SCHEMA` (read from an in-memory database built from it)."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(SCHEMA)
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                               "AND name NOT LIKE 'sqlite_%'")]
        return {table: {row[1] for row in db.execute(f"PRAGMA table_info({table})")} for table in tables}
    finally:
        db.close()


def _check_tables(db: sqlite3.Connection, path: Path) -> None:
    """Refuse a database whose tables of the arena's names lack the arena's columns (another program's file)."""
    for table, expected in _expected_columns().items():
        present = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        missing = sorted(expected - present - {"fields"}) if present else []
        if missing:
            raise InputError(f"{path}: table {table} lacks the column(s) {', '.join(missing)}; not an arena "
                             "database (use another --db)")
