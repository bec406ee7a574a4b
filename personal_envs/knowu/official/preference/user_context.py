"""What the official preference user simulator is told, rendered from the release for one class and profile.

Officially (``BasePrefrenceTask``), each class's ``initialize_task_hook`` sets ``self.relevant_information``: the
persona text plus the class's own context, task facts and instructions (mostly through
``_build_relevant_information(current_context=..., task_specific_detail=..., extra_instruction=...)``), and
``_set_user_sys_prompt`` makes the user model's system prompt ``"Context: <relevant information>. Only answer based on
this info."``.  The user model then gets that prompt, the whole dialogue and the new question, sampled as
``tasks/utils.user_agent_answer_question`` samples it.

Here the class's hook and the base's builders are walked with :class:`~personal_envs.knowu.official.template.
TextSource` (never imported or executed); the values they read come from the project: the official profile document,
the persona text of :func:`~personal_envs.knowu.official.preference.persona.persona_text`, the role, and the few
helpers that read files or loop (Mom's contact, the user's photo and its description, the Files sort option).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from personal_envs.knowu.official.preference.official_values import PREFERENCE_DIR, ClassSource, post_hint
from personal_envs.knowu.official.template import Record, TemplateError, TextSource, text_source

#: The official base class whose ``_set_user_sys_prompt`` wraps the relevant information.
BASE_CLASS = "BasePrefrenceTask"


class UserContextError(ValueError):
    """The release's hook for a class did not yield its relevant information (the message says why)."""


def preference_text_source(root: str | Path) -> TextSource:
    """The parsed preference definitions of a release (cached)."""
    return text_source(str(Path(root).resolve() / PREFERENCE_DIR))


def _description(images: list[Path]) -> str:
    """The ``description.txt`` beside the user's share photos, as the official ``_load_share_description`` reads it."""
    if not images:
        return ""
    path = images[0].parent / "description.txt"
    try:
        return path.read_text(encoding="utf-8").strip() if path.exists() else ""
    except OSError:
        return ""


def hook_values(root: str | Path, source: ClassSource, role: str, doc: Mapping[str, Any], persona: str,
                values: Mapping[str, Any]) -> dict[str, Any]:
    """The ``self`` attributes and helper results the official hook of ``source`` reads, computed by the project.

    Args:
        root: The release directory.
        source: The official class.
        role: The role id (``Path(profile_path).stem`` officially).
        doc: The ``user_profile`` mapping.
        persona: The official persona text of the profile.
        values: The variant's values (``mom_name`` / ``mom_phone``, ``topic``...) from ``build_variant``.
    """
    from personal_envs.knowu.official.preference.variants import (
        SHARE_DIRS,
        mom_contact,
        profile_sort,
        share_images,
    )

    images = share_images(Path(root), source.name, doc) if source.name in SHARE_DIRS else []
    found: dict[str, Any] = {
        "user_profile": dict(doc),
        "persona_text": persona,
        "params": {},
        "_get_profile_id": lambda: role,
        "_get_mom_info": lambda: dict(mom_contact(doc)),
        "_resolve_email_share_images": lambda: list(images),
        "_resolve_mastodon_share_images": lambda: list(images),
        "_load_share_description": lambda: _description(images),
        "_infer_sort_from_profile": lambda: profile_sort(doc, source),
        "_topic": values.get("topic") or post_hint(source, role)[0],
    }
    return found


def relevant_information(root: str | Path, source: ClassSource, role: str, doc: Mapping[str, Any], persona: str,
                         values: Mapping[str, Any]) -> str:
    """``self.relevant_information`` as the official ``initialize_task_hook`` of ``source`` sets it.

    Raises:
        UserContextError: the hook sets none, or its expression needs a value the project did not provide.
    """
    text_source = preference_text_source(root)
    given = hook_values(root, source, role, doc, persona, values)
    try:
        walked = text_source.run(source.name, "initialize_task_hook", given, [Record()])
    except TemplateError as exc:
        raise UserContextError(f"{source.name}@{role}: {exc}") from exc
    info = walked.attributes.get("relevant_information")
    if not isinstance(info, str):
        raise UserContextError(f"{source.name}@{role}: the official hook set no relevant_information "
                               f"(skipped: {'; '.join(walked.skipped[-3:])})")
    return info


def user_system_prompt(root: str | Path, relevant: str) -> str:
    """The user model's system prompt, as the official ``_set_user_sys_prompt`` wraps the relevant information."""
    text_source = preference_text_source(root)
    controller = Record()
    text_source.run(BASE_CLASS, "_set_user_sys_prompt", {"relevant_information": relevant}, [controller])
    prompt = getattr(controller, "user_sys_prompt", None)
    if not isinstance(prompt, str):
        raise UserContextError(f"{BASE_CLASS}._set_user_sys_prompt set no user_sys_prompt")
    return prompt
