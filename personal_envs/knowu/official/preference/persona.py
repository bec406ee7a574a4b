"""The persona text the official judge (and user simulator) reads, built as the official prompt builder builds it.

Reimplements ``runtime/utils/prompt_builder.py`` (``PersonaPromptBuilder.build_system_prompt``) of the pinned
release: identity line, contact details, documents, other identity traits, then one section per profile part
(locations, digital context, habits, preferences, social graph, decision criteria, any other section) with values
rendered as JSON (non-ASCII kept), and the closing "current situation" paragraph.  Input: the ``user_profile``
mapping of an official profile YAML (or the whole YAML; its ``user_profile`` is taken).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

KNOWN_SECTIONS = ("identity", "locations", "digital_context", "habits", "preferences", "social_graph",
                  "decision_criteria")
_SITUATION = ("You have just unlocked your phone. Review your environment state (unread messages, calendar events, "
              "active notifications) and proceed based on your identity and habits.")


def _title(key: str) -> str:
    return key.replace("_", " ").title()


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def user_profile_of(profile: Mapping[str, Any]) -> Mapping[str, Any]:
    """The ``user_profile`` part of an official profile document (the mapping itself if it has none)."""
    inner = profile.get("user_profile")
    return inner if isinstance(inner, Mapping) else profile


def persona_text(profile: Mapping[str, Any]) -> str:
    """The official persona prompt of ``profile`` (an official profile document or its ``user_profile``)."""
    prof = user_profile_of(profile)
    identity = prof.get("identity", {}) or {}
    lines = [f"You are {identity.get('full_name', 'User')}.",
             f"You are a {identity.get('age')} year old {identity.get('occupation')} working at "
             f"{identity.get('employer')}.",
             "Your goal is to simulate this user's behavior realistically on a mobile device."]
    exclude = {"full_name", "age", "occupation", "employer"}
    for key, heading in (("contact_info", "[Contact Details]"), ("auth_documents", "[Documents]")):
        if key in identity:
            lines.append("\n" + heading)
            lines += [f"- {_title(k)}: {v}" for k, v in (identity[key] or {}).items()]
            exclude.add(key)
    other = {k: v for k, v in identity.items() if k not in exclude}
    if other:
        lines.append("\n[Other Identity Traits]")
        lines += [f"- {_title(k)}: {v}" for k, v in other.items()]
    lines.append("")

    locations = prof.get("locations", {}) or {}
    if locations:
        lines.append("### PHYSICAL LOCATIONS")
        for key, val in locations.items():
            if isinstance(val, Mapping):
                instr = f" (Instruction: {val.get('instructions')})" if val.get("instructions") else ""
                lines.append(f"- {str(key).capitalize()}: {val.get('address', 'Unknown')}{instr}")
            else:
                lines.append(f"- {str(key).capitalize()}: {val}")
        lines.append("")
    for key, heading in (("digital_context", "### DIGITAL CONTEXT"), ("habits", "### BEHAVIORAL HABITS"),
                         ("preferences", "### PREFERENCES & LIFESTYLE")):
        section = prof.get(key, {}) or {}
        if section:
            lines.append(heading)
            lines += [f"- {_title(k)}: {_dumps(v)}" for k, v in section.items()]
            lines.append("")

    social = prof.get("social_graph", {}) or {}
    if social:
        lines.append("### SOCIAL GRAPH")
        for group, people in social.items():
            lines.append(f"[{_title(group)} Contacts]:")
            if isinstance(people, list):
                for person in people:
                    if isinstance(person, Mapping):
                        text = (f"  - Name: {person.get('name', 'Unknown')} | Role: {person.get('role', 'N/A')} | "
                                f"Strategy: {person.get('instruction', 'N/A')}")
                        extras = {k: v for k, v in person.items() if k not in ("name", "role", "instruction")}
                        if extras:
                            text += f" | Info: {_dumps(extras)}"
                        lines.append(text)
                    else:
                        lines.append(f"  - {person}")
        lines.append("")

    criteria = prof.get("decision_criteria", {}) or {}
    if criteria:
        lines.append("### DECISION MAKING LOGIC")
        lines.append("When faced with choices, strictly adhere to the following values:")
        for key, items in criteria.items():
            shown = ", ".join(str(i) for i in items) if isinstance(items, list) else _dumps(items)
            lines.append(f"- {_title(key)}: {shown}")
        lines.append("")

    unknown = {k: v for k, v in prof.items() if k not in KNOWN_SECTIONS}
    if unknown:
        lines.append("### ADDITIONAL INFORMATION")
        lines += [f"- {_title(k)}: {_dumps(v)}" for k, v in unknown.items()]
        lines.append("")
    lines.append("### CURRENT SITUATION")
    lines.append(_SITUATION)
    return "\n".join(lines)
