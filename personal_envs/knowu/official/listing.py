"""Text listings of the KnowU task sets for ``personal-envs list`` and ``personal-envs tasks``."""

from __future__ import annotations

import os

from personal_envs.knowu.official.registry import FAMILY_SPLIT, builder_for, variant_names
from personal_envs.knowu.official.release import find_release
from personal_envs.knowu.official.source import parse_release
from personal_envs.knowu.official.texts import TaskSource
from personal_envs.knowu.personas import PersonaSet, default_personas, official_personas

SPLIT_OF_ENV: dict[str, str] = {
    "KnowU-General-v0": "general",
    "KnowU-Personalized-v0": "personalized",
    "KnowU-Proactive-v0": "proactive",
}


def _task_set(data_dir: str | os.PathLike[str] | None) -> tuple[TaskSource, PersonaSet, str]:
    """The task source, persona set and where they come from: the release found, else the embedded release."""
    release = find_release(data_dir)
    if release is None:
        from personal_envs.knowu.official.embedded import embedded_source

        source = embedded_source()
        return source, default_personas(), (f"{source.label} on the default personas (no official release; "
                                            "'personal-envs data fetch knowu'): not comparable with the paper")
    return parse_release(release), official_personas(release.root), f"{release.label} ({release.root})"


def task_set_summary(env_id: str, data_dir: str | os.PathLike[str] | None = None) -> str:
    """One line: which task set ``env_id`` runs here and how many variants."""
    split = SPLIT_OF_ENV.get(env_id)
    if split is None:
        return ""
    source, personas, where = _task_set(data_dir)
    family = {v: k for k, v in FAMILY_SPLIT.items()}[split]
    return f"task set: {where}, {len(variant_names(source, personas, family))} variants"


def task_lines(env_id: str, data_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """The task ids of ``env_id``: the variant names of the release found (``[no builder]`` where one is missing),
    else of the embedded release."""
    source, personas, _ = _task_set(data_dir)
    family = {v: k for k, v in FAMILY_SPLIT.items()}[SPLIT_OF_ENV[env_id]]
    lines = [f"# {env_id}: {task_set_summary(env_id, data_dir)}"]
    for name in variant_names(source, personas, family):
        missing = "" if builder_for(name.partition("@")[0]) else "  [no builder]"
        lines.append(f"{name}{missing}")
    return lines
