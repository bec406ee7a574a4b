"""Build official routine variants from plain inputs: a release directory, a class, a role's profile and logs.

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
from pathlib import Path
from typing import Any

from personal_envs.knowu.official.routine.rules import ROUTINES, setup_routine
from personal_envs.knowu.official.routine.task import OfficialRoutineTask
from personal_envs.knowu.official.routine.texts import NO_LOGS, goal, user_system_prompt
from personal_envs.knowu.official.template import TextSource, text_source

ROUTINE_SUBDIR = Path("src/knowu_bench/tasks/definitions/routine")


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


def build_routine(release_root: str | Path, cls: str, role: str, profile_document: Mapping[str, Any],
                  logs: Sequence[Mapping[str, Any]] | None, *, memory: str = "all", top_k: int = 10,
                  user: str = "profile", task_set: str = "", persona_text: str | None = None,
                  log_source: str = "clean") -> OfficialRoutineTask:
    """The official variant ``cls@role``: setup, goal and user prompt rendered from the release, scored by rules."""
    if cls not in ROUTINES:
        raise KeyError(f"{cls!r} is not an official routine class; known: {', '.join(sorted(ROUTINES))}")
    profile = user_profile_of(profile_document)
    if not isinstance(profile.get("habits", {}), Mapping):
        raise MissingRoutineField(f"{cls}@{role}: the profile's 'user_profile.habits' must be a mapping")
    source: TextSource = text_source(str(Path(release_root) / ROUTINE_SUBDIR))
    setup = setup_routine(cls, profile)
    setup.values.setdefault("user_profile", profile)
    instruction = source.literal("BaseRoutineTask", "GOAL_INSTRUCTION")
    context = log_context(logs, memory, top_k, instruction) or NO_LOGS
    text = goal(source, setup, context)
    persona = persona_text if persona_text is not None else official_persona(profile, release_root)
    prompt = user_system_prompt(source, setup, persona)
    tags = source.literal(cls, "task_tags")
    difficulty = "hard" if "hard" in tags else "easy"
    apps = tuple(sorted(source.literal(cls, "app_names")))
    task = OfficialRoutineTask(f"{cls}@{role}", setup, text, profile, prompt, difficulty, apps, task_set, user,
                               hidden_values(profile))
    task.settings = {"memory": memory, "log_source": log_source, "top_k": top_k if memory == "rag" else None}
    return task


PROMPT_BUILDER = Path("src/knowu_bench/runtime/utils/prompt_builder.py")


def persona_strings(release_root: str | Path) -> tuple[list[Any], list[str]]:
    """The official persona builder's texts, read from the release: the opening lines (expressions over
    ``self.identity``) and, in source order, every non-empty literal it appends (section headers and sentences)."""
    import ast

    tree = ast.parse((Path(release_root) / PROMPT_BUILDER).read_text(encoding="utf-8"))
    method = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "build_system_prompt")
    opening = next(n.value.elts for n in ast.walk(method) if isinstance(n, ast.Assign)
                   and isinstance(n.value, ast.List))
    appended = sorted((n.lineno, n.args[0].value) for n in ast.walk(method) if isinstance(n, ast.Call)
                      and isinstance(n.func, ast.Attribute) and n.func.attr == "append" and n.args
                      and isinstance(n.args[0], ast.Constant) and n.args[0].value)
    return list(opening), [str(v) for _, v in appended]


def official_persona(profile: Mapping[str, Any], release_root: str | Path) -> str:
    """The persona text the official ``PersonaPromptBuilder`` builds (its strings read from the release)."""
    import json

    from personal_envs.knowu.official.template import TextSource, _evaluate, _Self

    opening, texts = persona_strings(release_root)
    (contact_h, docs_h, other_h, places_h, digital_h, habits_h, prefs_h, social_h, decision_h, decision_line,
     extra_h, situation_h, situation_line) = texts[:13]
    identity = profile.get("identity") or {}
    this = _Self({"identity": identity, "profile": profile}, TextSource.__new__(TextSource), "")
    lines = [str(_evaluate(node, {}, this)) for node in opening]
    skip = {"full_name", "age", "occupation", "employer"}
    for key, title in (("contact_info", contact_h), ("auth_documents", docs_h)):
        if key in identity:
            lines.append(title)
            lines += [f"- {k.replace('_', ' ').title()}: {v}" for k, v in identity[key].items()]
            skip.add(key)
    other = {k: v for k, v in identity.items() if k not in skip}
    if other:
        lines.append(other_h)
        lines += [f"- {k.replace('_', ' ').title()}: {v}" for k, v in other.items()]
    lines.append("")

    def dumps(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    locations = profile.get("locations") or {}
    if locations:
        lines.append(places_h)
        for key, val in locations.items():
            if isinstance(val, Mapping):
                extra = f" (Instruction: {val.get('instructions')})" if val.get("instructions") else ""
                lines.append(f"- {key.capitalize()}: {val.get('address', 'Unknown')}{extra}")
            else:
                lines.append(f"- {key.capitalize()}: {val}")
        lines.append("")
    for key, title in (("digital_context", digital_h), ("habits", habits_h), ("preferences", prefs_h)):
        section = profile.get(key) or {}
        if section:
            lines.append(title)
            lines += [f"- {k.replace('_', ' ').title()}: {dumps(v)}" for k, v in section.items()]
            lines.append("")
    social = profile.get("social_graph") or {}
    if social:
        lines.append(social_h)
        for group, people in social.items():
            lines.append(f"[{group.replace('_', ' ').title()} Contacts]:")
            for person in people if isinstance(people, list) else []:
                if isinstance(person, Mapping):
                    text = (f"  - Name: {person.get('name', 'Unknown')} | Role: {person.get('role', 'N/A')} | "
                            f"Strategy: {person.get('instruction', 'N/A')}")
                    extras = {k: v for k, v in person.items() if k not in ("name", "role", "instruction")}
                    lines.append(text + (f" | Info: {dumps(extras)}" if extras else ""))
                else:
                    lines.append(f"  - {person}")
        lines.append("")
    criteria = profile.get("decision_criteria") or {}
    if criteria:
        lines += [decision_h, decision_line]
        for key, items in criteria.items():
            shown = ", ".join(str(i) for i in items) if isinstance(items, list) else dumps(items)
            lines.append(f"- {key.replace('_', ' ').title()}: {shown}")
        lines.append("")
    known = {"identity", "locations", "digital_context", "habits", "preferences", "social_graph", "decision_criteria"}
    unknown = {k: v for k, v in profile.items() if k not in known}
    if unknown:
        lines.append(extra_h)
        lines += [f"- {k.replace('_', ' ').title()}: {dumps(v)}" for k, v in unknown.items()]
        lines.append("")
    lines += [situation_h, situation_line]
    return "\n".join(lines)
