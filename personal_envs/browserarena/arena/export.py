"""Export of the arena's votes and step annotations (JSON lines or CSV), one row per vote / annotation.

Vote rows carry the battle's task and both model names in FastChat's battle format (``model_a``, ``model_b``,
``winner``, ``judge``, ``tstamp`` and ``anony``, the column FastChat's report keeps only true rows of), so the
export feeds FastChat's own analysis scripts as well as ours; ``source`` says whether a person or a judge voted.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from personal_envs.browserarena.arena.store import STEP_FIELDS, ArenaStore


def vote_rows(store: ArenaStore, source: str | None = None) -> list[dict[str, Any]]:
    """Every vote (or those of one ``source``: ``"human"`` / ``"judge"``) with its battle's task and models."""
    battles = {b.battle_id: b for b in store.battles()}
    rows = []
    for vote in store.votes(source=source):
        battle = battles[vote.battle_id]
        rows.append({"battle_id": vote.battle_id, "env_id": battle.env_id, "task_id": battle.task_id,
                     "task": battle.task_text, "model_a": battle.model_a, "model_b": battle.model_b,
                     "winner": vote.winner, "judge": vote.voter, "reason": vote.reason, "tstamp": vote.created,
                     "anony": vote.anony, "source": vote.source})
    return rows


def annotation_rows(store: ArenaStore) -> list[dict[str, Any]]:
    """Every step annotation with the model it judges and its per-field verdicts."""
    battles = {b.battle_id: b for b in store.battles()}
    rows = []
    for note in store.annotations():
        battle = battles[note.battle_id]
        row: dict[str, Any] = {"battle_id": note.battle_id, "side": note.side,
                               "model": battle.model_a if note.side == "a" else battle.model_b, "step": note.step,
                               "annotator": note.annotator, "correct": note.correct, "reason": note.reason}
        for name in STEP_FIELDS:
            row[f"{name}_correct"] = note.fields.get(name)
        rows.append(row)
    return rows


def to_jsonl(rows: list[dict[str, Any]]) -> str:
    """Rows as JSON lines."""
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def to_csv(rows: list[dict[str, Any]]) -> str:
    """Rows as CSV with a header (empty string when there are no rows)."""
    if not rows:
        return ""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def votes_jsonl(store: ArenaStore) -> str:
    """All votes as JSON lines."""
    return to_jsonl(vote_rows(store))


def annotations_jsonl(store: ArenaStore) -> str:
    """All step annotations as JSON lines."""
    return to_jsonl(annotation_rows(store))
