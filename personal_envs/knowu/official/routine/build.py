"""Build official routine variants from plain inputs: a task source, a class, a role's profile and logs.

:func:`build_routine` is what the registry's builders call (one per official class); :func:`log_context` renders
the user's logs as the official ``UserLogContextBuilder`` does in its ``all`` mode (every entry, sorted by time,
``- [YYYY-MM-DD HH:MM] (first / last location part) action``); ``memory="rag"`` keeps the ``top_k`` entries most
similar to the official instruction, in time order, with the official TF-IDF settings (word unigrams and
bigrams, ``\\b\\w+\\b`` tokens, CJK characters split, all entries when there are at most ``top_k``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from personal_envs.knowu.official.routine.rules import ROUTINES, setup_routine
from personal_envs.knowu.official.routine.task import OfficialRoutineTask
from personal_envs.knowu.official.texts import (
    PERSONA,
    ROUTINE_CONTEXT,
    ROUTINE_GOAL,
    ROUTINE_INSTRUCTION,
    USER_SYSTEM_PROMPT,
    TaskSource,
)


class MissingRoutineField(KeyError):
    """A profile cannot build a routine variant (names the missing field)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "missing profile field"


def user_profile_of(document: Mapping[str, Any]) -> dict[str, Any]:
    """The ``user_profile`` part of an official profile YAML document (or the document itself)."""
    inner = document.get("user_profile")
    return dict(inner) if isinstance(inner, Mapping) else dict(document)


def _time(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        return None


def _location(value: Any, limit: int = 80) -> str:
    parts = [p.strip() for p in str(value or "").split("|") if p.strip()]
    if not parts:
        return "Unknown location"
    short = f"{parts[0]} / {parts[-1]}" if len(parts) >= 2 else parts[0]
    return short if len(short) <= limit else short[: limit - 3] + "..."


def _line(entry: Mapping[str, Any]) -> str:
    when = _time(entry.get("time"))
    stamp = when.strftime("%Y-%m-%d %H:%M") if when else str(entry.get("time") or "Unknown time")
    return f"- [{stamp}] ({_location(entry.get('location'))}) {entry.get('action', '')}"


def _sorted(entries: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    times = [_time(e.get("time")) for e in entries]
    if all(t is not None for t in times):
        return [e for _, _, e in sorted(zip(times, range(len(entries)), entries, strict=True),
                                        key=lambda item: (item[0], item[1]))]
    return list(entries)


def log_context(logs: Sequence[Mapping[str, Any]] | None, memory: str = "all", top_k: int = 10,
                query: str = "") -> str:
    """The user-log block of the official goal (``all``: every entry; ``rag``: TF-IDF top-k for ``query``)."""
    entries = _sorted([e for e in logs or [] if isinstance(e, Mapping)])
    if not entries:
        return ""
    if memory == "rag" and query and len(entries) > top_k:
        import numpy as np
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.metrics.pairwise import cosine_similarity

        def spaced(text: str) -> str:  # CJK characters become separate tokens, as officially
            return re.sub(r"([\u4e00-\u9fff])", r" \1 ", text)

        docs = [spaced(str(e.get("action", ""))) for e in entries]
        vectorizer = TfidfVectorizer(analyzer="word", token_pattern=r"(?u)\b\w+\b", ngram_range=(1, 2))
        matrix = vectorizer.fit_transform([*docs, spaced(query)])
        scores = cosine_similarity(matrix[:-1], matrix[-1]).flatten()
        entries = [entries[int(i)] for i in sorted(np.argsort(scores)[-top_k:])]
    return "\n".join(_line(e) for e in entries)


def hidden_values(profile: Mapping[str, Any]) -> list[str]:
    """Distinctive profile strings the agent must never observe: the name, contact details, documents."""
    identity = profile.get("identity") or {}
    values: list[str] = []
    if isinstance(identity, Mapping):
        values.append(str(identity.get("full_name") or ""))
        for block in ("contact_info", "auth_documents"):
            section = identity.get(block)
            if isinstance(section, Mapping):
                values += [str(v) for v in section.values() if isinstance(v, str | int)]
    return [v for v in values if len(v) >= 5]


def build_routine(source: TaskSource, cls: str, role: str, profile_document: Mapping[str, Any],
                  logs: Sequence[Mapping[str, Any]] | None, *, memory: str = "all", top_k: int = 10,
                  user: str = "profile", log_source: str = "clean") -> OfficialRoutineTask:
    """The variant ``cls@role`` of ``source``: setup by the official rules, goal and user prompt rendered by the
    source, scored by rules."""
    if cls not in ROUTINES:
        raise KeyError(f"{cls!r} is not an official routine class; known: {', '.join(sorted(ROUTINES))}")
    profile = user_profile_of(profile_document)
    if not isinstance(profile.get("habits", {}), Mapping):
        raise MissingRoutineField(f"{cls}@{role}: the profile's 'user_profile.habits' must be a mapping")
    setup = setup_routine(cls, profile)
    setup.values.setdefault("user_profile", profile)
    values = {**setup.values, "should_act": setup.should_act}
    instruction = str(source.text(cls, ROUTINE_INSTRUCTION, {}))
    text = str(source.text(cls, ROUTINE_GOAL, {**values, "user_log_context": log_context(logs, memory, top_k,
                                                                                           instruction)}))
    persona = str(source.text(cls, PERSONA, {"profile": profile}))
    info = source.text(cls, ROUTINE_CONTEXT, {**values, "persona_text": persona, "user_profile": profile})
    prompt = str(source.text(cls, USER_SYSTEM_PROMPT, {"family": "routine", "relevant_information": info}))
    official = source.get(cls)
    task = OfficialRoutineTask(f"{cls}@{role}", setup, text, profile, prompt, official.difficulty,
                               official.app_names, source.label, user, hidden_values(profile))
    task.settings = {"memory": memory, "log_source": log_source, "top_k": top_k if memory == "rag" else None}
    return task
