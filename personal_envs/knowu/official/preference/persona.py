"""The persona text the official judge (and user simulator) reads, built as the official prompt builder builds it.

One builder serves every family: :func:`personal_envs.knowu.official.routine.build.official_persona` (the official
``PersonaPromptBuilder.build_system_prompt`` of the pinned release, its headings and sentences read from the release).
This module only accepts the whole official profile document as well as its ``user_profile`` mapping.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any


def user_profile_of(profile: Mapping[str, Any]) -> Mapping[str, Any]:
    """The ``user_profile`` part of an official profile document (the mapping itself if it has none)."""
    inner = profile.get("user_profile")
    return inner if isinstance(inner, Mapping) else profile


def persona_text(profile: Mapping[str, Any], release_root: str | Path) -> str:
    """The official persona prompt of ``profile`` (an official profile document or its ``user_profile``)."""
    from personal_envs.knowu.official.routine.build import official_persona

    return official_persona(user_profile_of(profile), release_root)
