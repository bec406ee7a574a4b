"""Text listings of the KnowU task sets for ``personal-envs list`` and ``personal-envs tasks``."""

from __future__ import annotations

import os

from personal_envs.knowu.official.registry import FAMILY_SPLIT, builder_for, variant_names
from personal_envs.knowu.official.release import PROJECT_LABEL, find_release
from personal_envs.knowu.official.source import parse_release
from personal_envs.knowu.personas import official_personas

SPLIT_OF_ENV: dict[str, str] = {
    "KnowU-General-v0": "general",
    "KnowU-Personalized-v0": "personalized",
    "KnowU-Proactive-v0": "proactive",
}


def task_set_summary(env_id: str, data_dir: str | os.PathLike[str] | None = None) -> str:
    """One line: which task set ``env_id`` runs here and how many variants."""
    split = SPLIT_OF_ENV.get(env_id)
    if split is None:
        return ""
    release = find_release(data_dir)
    if release is None:
        return f"task set: {PROJECT_LABEL} (no official release; 'personal-envs data fetch knowu')"
    family = {v: k for k, v in FAMILY_SPLIT.items()}[split]
    names = variant_names(parse_release(release), official_personas(release.root), family)
    return f"task set: {release.label}, {len(names)} official variants ({release.root})"


def task_lines(env_id: str, data_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """The task ids of ``env_id``: official variant names (with ``[no builder]`` where one is missing) when a release
    is found, else the project's ids."""
    split = SPLIT_OF_ENV[env_id]
    release = find_release(data_dir)
    lines = [f"# {env_id}: {task_set_summary(env_id, data_dir)}"]
    if release is not None:
        family = {v: k for k, v in FAMILY_SPLIT.items()}[split]
        for name in variant_names(parse_release(release), official_personas(release.root), family):
            missing = "" if builder_for(name.partition("@")[0]) else "  [no builder]"
            lines.append(f"{name}{missing}")
        return lines
    from personal_envs.knowu.env import load_split

    lines += [t.task_id for t in load_split(split)]
    return lines
