"""The embedded task cards: the official class list and difficulties, project-written texts only, every slot filled
for every variant, missing slots named, the default personas' logs reproducible, and both task sources running on
both persona sets."""

from __future__ import annotations

import random
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from personal_envs.core.task import EpisodeTrace
from personal_envs.knowu.generate import pools, write_logs, write_photo
from personal_envs.knowu.generate.logs import STRENGTHS
from personal_envs.knowu.generate.persona import HABITS
from personal_envs.knowu.official.embedded import TASKS_DIR, EmbeddedSource, embedded_source
from personal_envs.knowu.official.registry import variant_names
from personal_envs.knowu.official.release import find_release
from personal_envs.knowu.official.routine.rules import setup_routine
from personal_envs.knowu.official.source import FAMILIES, parse_release
from personal_envs.knowu.official.template import TemplateError
from personal_envs.knowu.official.texts import PREFERENCE_RUBRIC
from personal_envs.knowu.personas import DEFAULT_DIR, default_personas, official_personas
from personal_envs.simulators.phone.phone import Phone
from tests.knowu.helpers import build_family

#: Variants per family of a persona set of four personas under the cards' supported_profiles (as officially).
COUNTS = {"general": 42, "preference": 86, "routine": 64}
WINDOW = 40
#: A format field left in a text (``{name}``, ``{a[b]}``, ``{when:%H:%M}``); JSON in the persona text does not match.
FIELD = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]+\])*(?::[^}]*)?\}")


def _strings(node: Any, keys: bool = True) -> Iterator[str]:
    """Every text of a YAML document (the top-level keys, official class names, left out when ``keys`` is False)."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            if keys:
                yield str(key)
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _card_files() -> list[Path]:
    return [*sorted(TASKS_DIR.glob("*.yaml")), *sorted((DEFAULT_DIR / "user_profile").glob("*.yaml"))]


def test_every_family_has_its_cards_and_every_variant_builds() -> None:
    source, personas = embedded_source(), default_personas()
    assert personas.ids() == ["designer", "engineer", "researcher", "retiree"]
    for family in FAMILIES:
        names = variant_names(source, personas, family)
        assert len(names) == COUNTS[family], family
        tasks = build_family(family, source, personas)
        assert [t.task_id for t in tasks] == names
        assert {t.task_set for t in tasks} == {"personal-envs KnowU tasks (embedded)"}


def test_every_slot_fills_for_every_variant() -> None:
    """The goals, user prompts, user contexts and rubrics of all 192 variants (the rubric through a scored episode
    on the untouched phone)."""
    source, personas = embedded_source(), default_personas()
    for task in build_family("general", source, personas):
        assert task.instruction and not FIELD.search(task.user_prompt) and task.today  # type: ignore[attr-defined]
    for task in build_family("preference", source, personas):
        any_task: Any = task
        assert not FIELD.search(any_task.relevant_information) and any_task.instruction
        assert any_task.persona in any_task.relevant_information
        phone = Phone(now=any_task.start)
        task.prepare(phone)
        evaluation = task.verify(phone, EpisodeTrace())
        assert "verifier error" not in evaluation.reason, (task.task_id, evaluation.reason)
    for task in build_family("routine", source, personas):
        any_task = task
        assert not FIELD.search(task.instruction + any_task.user_prompt) and "<decision>" in any_task.user_prompt
        assert any_task.profile["identity"]["full_name"] in any_task.user_prompt


def test_a_missing_value_names_the_card_and_the_slot(tmp_path: Path) -> None:
    folder = tmp_path / "tasks"
    shutil.copytree(TASKS_DIR, folder)
    cards = yaml.safe_load((folder / "preference.yaml").read_text(encoding="utf-8"))
    cards["BuyColaPreferenceTask"]["rubric"] = "Judge {nothing_of_the_kind}."
    (folder / "preference.yaml").write_text(yaml.safe_dump(cards, allow_unicode=True), encoding="utf-8")
    with pytest.raises(TemplateError, match=r"card BuyColaPreferenceTask, slot preference\.rubric.*nothing_of_the_kind"):
        EmbeddedSource(folder).text("BuyColaPreferenceTask", PREFERENCE_RUBRIC, {})


def test_card_values_are_texts_and_numbers_not_yaml_booleans() -> None:
    """``yes`` / ``no`` / ``on`` unquoted in YAML are booleans: a keyword list must not hold one."""
    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, f"{where}.{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                assert not isinstance(value, bool), f"{where}[{index}]"
                walk(value, f"{where}[{index}]")

    for path in _card_files():
        walk(yaml.safe_load(path.read_text(encoding="utf-8")), path.name)


def write_default_logs(home: Path, seed: int = 29) -> None:
    """(Re)write the logs and photos of the default personas under ``home`` (``user_profile/`` beside
    ``user_logs/``) from their profiles, at the pinned ``seed``: each applying habit's strength drawn from the three,
    decoys at the default rate, the photo from the profile's ``share.photos`` subject.  The recipe of the shipped
    default logs (``DEFAULT_DIR``): run it on a copy of their profiles after changing one."""
    (home / "user_logs").mkdir(parents=True, exist_ok=True)
    subjects = {p["subject"]: p["color"] for p in pools()["photo_subjects"]}
    for path in sorted((home / "user_profile").glob("*.yaml")):
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        user = document["user_profile"]
        rng = random.Random(f"default:{seed}:{path.stem}")
        strengths = {key: rng.choice(sorted(STRENGTHS)) for key in HABITS if key in user["habits"]}
        decoys = [key for key in HABITS if key not in user["habits"] and rng.random() < 0.2]
        write_logs(home, path.stem, document, rng, strengths, decoys)
        subject = user["preferences"]["social"]["share"]["photos"]
        write_photo(home, document, {"subject": subject, "color": subjects[subject]})


def test_the_default_logs_and_photos_regenerate_byte_for_byte(tmp_path: Path) -> None:
    shutil.copytree(DEFAULT_DIR / "user_profile", tmp_path / "user_profile")
    write_default_logs(tmp_path)
    shipped = sorted(p.relative_to(DEFAULT_DIR) for p in DEFAULT_DIR.rglob("*") if p.is_file()
                     and p.parts[len(DEFAULT_DIR.parts)] != "user_profile")
    made = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file()
                  and p.parts[len(tmp_path.parts)] != "user_profile")
    assert shipped == made and len(shipped) == 8 + 16
    assert all((DEFAULT_DIR / p).read_bytes() == (tmp_path / p).read_bytes() for p in shipped)


def test_each_routine_habit_applies_to_some_default_persona_and_not_to_another() -> None:
    personas = default_personas()
    from personal_envs.knowu.official.routine.rules import ROUTINES
    from personal_envs.knowu.personas import user_profile_of

    profiles = [user_profile_of(personas.profile(pid)) for pid in personas.ids()]
    for cls in ROUTINES:
        acts = {setup_routine(cls, profile).should_act for profile in profiles}
        assert acts == {True, False}, cls


# ------------------------------------------------------------------------------------------ with the release
@pytest.fixture(scope="module")
def release(official_dir: Path) -> Any:
    found = find_release(official_dir)
    assert found is not None
    return found


def test_the_cards_are_the_official_classes_with_their_difficulties_and_apps(release: Any) -> None:
    official, cards = parse_release(release), embedded_source()
    for family in FAMILIES:
        theirs = {c.name: c for c in official.tasks(family)}
        ours = {c.name: c for c in cards.tasks(family)}
        assert set(ours) == set(theirs), family
        for name, cls in ours.items():
            assert cls.difficulty == theirs[name].difficulty and cls.app_names == theirs[name].app_names, name
            restricted = theirs[name].attributes.get("supported_profiles")
            assert (restricted is None) == (cls.attributes.get("supported_profiles") is None), name
    general = cards.tasks("general")
    assert sum(c.difficulty == "easy" for c in general) == 18 and sum(c.difficulty == "hard" for c in general) == 24


def test_no_40_character_run_of_a_card_or_default_persona_occurs_in_the_release(release: Any) -> None:
    windows: dict[str, str] = {}
    for path in _card_files():
        for text in _strings(yaml.safe_load(path.read_text(encoding="utf-8")), keys=False):
            squashed = _squash(text)
            for start in range(len(squashed) - WINDOW + 1):
                windows.setdefault(squashed[start:start + WINDOW], f"{path.name}: {text[:60]!r}")
    package = release.root / "src" / "knowu_bench"
    corpus = [p for p in package.rglob("*") if p.suffix in (".py", ".yaml", ".yml", ".json", ".txt", ".md")]
    assert len(corpus) > 100
    shared = []
    for path in corpus:
        text = _squash(path.read_text(encoding="utf-8", errors="replace"))
        shared += [(windows[text[i:i + WINDOW]], path.name) for i in range(len(text) - WINDOW + 1)
                   if text[i:i + WINDOW] in windows]
    assert not shared, sorted(set(shared))


def test_the_cards_run_on_the_official_roles_and_the_release_on_the_default_personas(release: Any) -> None:
    official, roles = parse_release(release), official_personas(release.root)
    cards, defaults = embedded_source(), default_personas()
    for family in ("preference", "routine"):
        # the cards restrict 14 preference classes to default ids: the official roles get the other 12 (+ routines)
        on_roles = build_family(family, cards, roles)
        assert len(on_roles) == {"preference": 12 * 4, "routine": 64}[family]
        on_defaults = build_family(family, official, defaults)
        assert len(on_defaults) == {"preference": 12 * 4, "routine": 64}[family]
        assert {t.task_set for t in on_defaults} == {official.label}


def test_every_statement_of_a_card_is_something_the_user_can_say() -> None:
    """Each 'Task facts' line, each reply rule and each spelled-out topic of the cards' user contexts becomes a fact
    of the deterministic user, on every embedded variant."""
    from personal_envs.knowu.official.preference.user import stated_facts

    for task in build_family("preference", embedded_source(), default_personas()):
        any_task: Any = task
        text = any_task.relevant_information.replace(any_task.persona, "")
        stated = stated_facts(any_task.relevant_information, any_task.persona)
        lines = re.findall(r"Task facts?:", text) + re.findall(r"(?:reply with|answer):|say no and ask for", text)
        assert len(stated.facts) == len(lines), (task.task_id, lines)
        if "Destination: " in text:
            assert stated.topics["address"].startswith("From ") and stated.situation or "fine" in text, task.task_id
        if "usual shoe size is" in text:
            assert {"size", "color"} <= set(stated.topics), task.task_id
        if "Favorite ringtone" in text:
            assert {"time", "ringtone"} <= set(stated.topics), task.task_id
