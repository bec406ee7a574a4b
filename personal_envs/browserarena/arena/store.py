"""SQLite storage of battles, votes and step-level annotations.

Tables:

* ``battles``: one row per head-to-head run (task, the two models, paths of their traces and GIFs, the first vote);
* ``votes``: every vote: several annotators may vote on the same battle, as the paper's re-annotation agreement
  study needs.  A vote is final: the models are revealed to an annotator after their vote, so a second, different
  vote by the same annotator on the same battle would no longer be blind and is refused (:class:`VoteRefused`; the
  same vote again is a no-op).  ``source`` keeps people's votes (``human``) apart from judges' (``judge``: the VLM
  judge, the LLM judge, the score fallback); ``anony`` says the voter did not know the models (FastChat's column);
  ``session`` is the key of the browser session a web vote came from;
* ``annotators``: the browser session each web annotator name belongs to (a name is claimed by the first browser
  that votes or annotates under it; another browser cannot vote, annotate or see revealed models under it);
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
from personal_envs.browserarena.tasks import MAX_TASK_CHARS
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
CREATE TABLE IF NOT EXISTS annotators (
    name TEXT PRIMARY KEY,
    session TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS tasks (
    task_id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    env_id TEXT NOT NULL,
    text TEXT NOT NULL,
    start_url TEXT NOT NULL DEFAULT '',
    submitter TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT 'pending',
    battle_id TEXT NOT NULL DEFAULT '',
    error TEXT NOT NULL DEFAULT ''
);
"""
#: The per-step fields an annotator judges (the paper's annotation fields, browser-use's step record).
STEP_FIELDS: tuple[str, ...] = ("evaluation", "memory", "next_goal", "action", "result")
#: Where votes come from: people (terminal, notebook, vote page) or judges (models, the score fallback).
VOTE_SOURCES: tuple[str, ...] = ("human", "judge")
#: Columns added to ``votes`` after the first release (old databases get them, their votes counted as human).
_VOTE_COLUMNS = {"source": "TEXT NOT NULL DEFAULT 'human'", "anony": "INTEGER NOT NULL DEFAULT 1",
                 "session": "TEXT NOT NULL DEFAULT ''"}
#: Voter names the project's judges use, for votes stored before ``source`` existed.
_JUDGE_NAME_PREFIXES = ("vlm-judge", "llm-judge", "score-fallback")

#: Sets every battle's vote columns to its first person's vote (after judge votes were told apart).
_FIRST_HUMAN_VOTE = "UPDATE battles SET " + ", ".join(
    f"{column} = (SELECT {value} FROM votes v WHERE v.battle_id = battles.battle_id AND v.source = 'human' "
    "ORDER BY v.created, v.vote_id LIMIT 1)"
    for column, value in (("winner", "winner"), ("voter", "voter"), ("voted", "created"))
) + (", vote_reason = COALESCE((SELECT reason FROM votes v WHERE v.battle_id = battles.battle_id AND "
     "v.source = 'human' ORDER BY v.created, v.vote_id LIMIT 1), '')")


class VoteRefused(ValueError):
    """A vote that must not be stored (a second, different vote by the same voter on a battle)."""


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
    """One annotator's (or judge's) vote on one battle."""

    battle_id: str
    winner: str
    voter: str
    reason: str = ""
    created: float = 0.0
    source: str = "human"
    anony: bool = True
    session: str = ""


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
    error: str = ""


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
                if "error" not in {row["name"] for row in db.execute("PRAGMA table_info(tasks)")}:
                    db.execute("ALTER TABLE tasks ADD COLUMN error TEXT NOT NULL DEFAULT ''")
                if "fields" not in columns:  # a database made before per-field annotations
                    db.execute("ALTER TABLE annotations ADD COLUMN fields TEXT NOT NULL DEFAULT '{}'")
                db.execute("INSERT OR IGNORE INTO votes (battle_id, winner, voter, reason, created) "
                           "SELECT battle_id, winner, COALESCE(voter, ''), vote_reason, COALESCE(voted, created) "
                           "FROM battles WHERE winner IS NOT NULL")
                vote_columns = {row["name"] for row in db.execute("PRAGMA table_info(votes)")}
                for name, kind in _VOTE_COLUMNS.items():
                    if name not in vote_columns:  # a database made before judge votes were kept apart
                        db.execute(f"ALTER TABLE votes ADD COLUMN {name} {kind}")
                        if name == "source":
                            for prefix in _JUDGE_NAME_PREFIXES:
                                db.execute("UPDATE votes SET source = 'judge' WHERE voter LIKE ?", (prefix + "%",))
                            db.execute(_FIRST_HUMAN_VOTE)
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

    def record_vote(self, battle_id: str, winner: str, voter: str, reason: str = "", *, source: str = "human",
                    anony: bool = True, session: str = "") -> bool:
        """Store ``voter``'s vote on a battle (``winner`` in ``model_a / model_b / tie / tie (bothbad)``).

        Returns True when stored, False when the voter had already cast this very vote (a form sent twice).

        Raises:
            VoteRefused: the voter already voted differently on this battle (votes are final: see the module).
            ValueError: an unknown winner or source.
            KeyError: no such battle.
        """
        if winner not in WINNERS:
            raise ValueError(f"winner must be one of {WINNERS}, got {winner!r}")
        if source not in VOTE_SOURCES:
            raise ValueError(f"source must be one of {VOTE_SOURCES}, got {source!r}")
        now = time.time()
        with self._lock, self._connect() as db:
            if db.execute("SELECT 1 FROM battles WHERE battle_id = ?", (battle_id,)).fetchone() is None:
                raise KeyError(f"no battle {battle_id!r}")
            earlier = db.execute("SELECT winner FROM votes WHERE battle_id = ? AND voter = ?",
                                 (battle_id, voter)).fetchone()
            if earlier is not None:
                if earlier["winner"] == winner:
                    return False
                raise VoteRefused(f"{voter} already voted {earlier['winner']!r} on battle {battle_id}; a vote is "
                                  "final (the models are shown after it)")
            db.execute("INSERT INTO votes (battle_id, winner, voter, reason, created, source, anony, session) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       (battle_id, winner, voter, reason, now, source, int(anony), session))
            first = db.execute("SELECT winner, voter, reason, created FROM votes WHERE battle_id = ? AND "
                               "source = 'human' ORDER BY created, vote_id LIMIT 1", (battle_id,)).fetchone()
            if first is not None:
                db.execute("UPDATE battles SET winner = ?, voter = ?, voted = ?, vote_reason = ? "
                           "WHERE battle_id = ?", (first["winner"], first["voter"], first["created"],
                                                   first["reason"], battle_id))
        return True

    def votes(self, battle_id: str | None = None, *, source: str | None = None) -> list[StoredVote]:
        """Every vote (of one battle, or all; of one source, or all), oldest first."""
        clauses, values = [], []
        if battle_id:
            clauses.append("battle_id = ?")
            values.append(battle_id)
        if source:
            clauses.append("source = ?")
            values.append(source)
        sql = "SELECT * FROM votes" + (" WHERE " + " AND ".join(clauses) if clauses else "")
        with self._connect() as db:
            rows = db.execute(sql + " ORDER BY created, vote_id", values).fetchall()
        return [StoredVote(r["battle_id"], r["winner"], r["voter"], r["reason"], r["created"], r["source"],
                           bool(r["anony"]), r["session"]) for r in rows]

    def vote_of(self, battle_id: str, voter: str) -> StoredVote | None:
        """``voter``'s vote on the battle, if any."""
        return next((v for v in self.votes(battle_id) if v.voter == voter), None)

    # ------------------------------------------------------------------------------------------ annotators
    def claim_annotator(self, name: str, session: str) -> bool:
        """Bind a web annotator ``name`` to a browser ``session`` key if it is free; True if it is (now) that
        session's, False if another browser holds it."""
        with self._lock, self._connect() as db:
            db.execute("INSERT OR IGNORE INTO annotators (name, session, created) VALUES (?, ?, ?)",
                       (name, session, time.time()))
            row = db.execute("SELECT session FROM annotators WHERE name = ?", (name,)).fetchone()
        return row is not None and row["session"] == session

    def annotator_session(self, name: str) -> str | None:
        """The session key that holds a web annotator name (``None`` if no browser claimed it)."""
        with self._connect() as db:
            row = db.execute("SELECT session FROM annotators WHERE name = ?", (name,)).fetchone()
        return None if row is None else str(row["session"])

    # ------------------------------------------------------------------------------------------ tasks
    def submit_task(self, text: str, *, env_id: str = "BrowserArena-Open-v0", start_url: str = "",
                    submitter: str = "") -> str:
        """Queue a task for battles; returns its id.  Storage only: check a submission first with
        :func:`~personal_envs.browserarena.arena.submission.check_submission` (env, start URL)."""
        text = text.strip()
        if not text:
            raise ValueError("a task needs a text")
        if len(text) > MAX_TASK_CHARS:
            raise ValueError(f"the task is {len(text):,} characters long; at most {MAX_TASK_CHARS:,} (it is not cut)")
        task_id = "task-" + uuid.uuid4().hex[:10]
        with self._lock, self._connect() as db:
            db.execute("INSERT INTO tasks (task_id, created, env_id, text, start_url, submitter) "
                       "VALUES (?, ?, ?, ?, ?, ?)", (task_id, time.time(), env_id, text, start_url, submitter))
        return task_id

    def tasks(self, status: str | None = None) -> list[SubmittedTask]:
        """Submitted tasks (``status``: ``pending``, ``running``, ``done``, ``failed``), oldest first."""
        sql = "SELECT * FROM tasks" + (" WHERE status = ?" if status else "") + " ORDER BY created"
        with self._connect() as db:
            rows = db.execute(sql, (status,) if status else ()).fetchall()
        return [SubmittedTask(r["task_id"], r["env_id"], r["text"], r["start_url"], r["submitter"], r["status"],
                              r["battle_id"], r["created"], r["error"]) for r in rows]

    def set_task_status(self, task_id: str, status: str, battle_id: str = "", error: str = "") -> None:
        """Mark a submitted task (and the battle that ran it, or why it failed)."""
        with self._lock, self._connect() as db:
            db.execute("UPDATE tasks SET status = ?, battle_id = ?, error = ? WHERE task_id = ?",
                       (status, battle_id, error[:2000], task_id))

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

    def voted_battles(self, *, every_vote: bool = False, source: str = "human", voter: str | None = None,
                      env_id: str | None = None) -> list[Battle]:
        """The votes as :class:`Battle` values for the leaderboard, in the order they were cast (as FastChat's
        report sorts its battles by ``tstamp``).

        Args:
            every_vote: One :class:`Battle` per vote; else each battle's first vote of the selection.
            source: ``"human"`` (people's votes, the default), ``"judge"`` or ``"all"``.
            voter: Only this voter's votes (e.g. one judge).
            env_id: Only battles of this env.
        """
        if source not in (*VOTE_SOURCES, "all"):
            raise ValueError(f"source must be one of {(*VOTE_SOURCES, 'all')}, got {source!r}")
        by_id = {r.battle_id: r for r in self.battles()}
        seen: set[str] = set()
        out = []
        for vote in self.votes(source=None if source == "all" else source):
            record = by_id.get(vote.battle_id)
            if record is None or (voter is not None and vote.voter != voter) or (env_id and record.env_id != env_id):
                continue
            if not every_vote and vote.battle_id in seen:
                continue
            seen.add(vote.battle_id)
            out.append(Battle(record.model_a, record.model_b, vote.winner, tstamp=vote.created, anony=vote.anony,
                              voter=vote.voter))
        return out

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


#: Columns that older arena databases lack and :class:`ArenaStore` adds when it opens them.
_MIGRATED_COLUMNS = {"fields", "error", *_VOTE_COLUMNS}


def _check_tables(db: sqlite3.Connection, path: Path) -> None:
    """Refuse a database whose tables of the arena's names lack the arena's columns (another program's file)."""
    for table, expected in _expected_columns().items():
        present = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        missing = sorted(expected - present - _MIGRATED_COLUMNS) if present else []
        if missing:
            raise InputError(f"{path}: table {table} lacks the column(s) {', '.join(missing)}; not an arena "
                             "database (use another --db)")
