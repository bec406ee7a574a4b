"""Persona sets: folders in the official layout (flat or under src/knowu_bench), their ids, profiles, logs and media;
the generated set made once in the data cache; loaders that name the bad file and field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from personal_envs.core.errors import InputError, MissingDataError
from personal_envs.knowu.generate import generate_release
from personal_envs.knowu.personas import (
    PACKAGE,
    PersonaSet,
    as_persona_set,
    generated_personas,
    hidden_values,
    load_profile,
    profile_field,
    user_slug,
)


def test_both_layouts_give_the_same_personas(tmp_path: Path) -> None:
    release = generate_release(3, 2, tmp_path / "nested")
    nested = PersonaSet.from_dir(release, "mine")
    flat_dir = tmp_path / "flat"
    shutil.copytree(release / PACKAGE, flat_dir)
    flat = PersonaSet.from_dir(flat_dir)
    assert nested.ids() == flat.ids() == ["g2-0", "g2-1", "g2-2"] and nested.label == "mine"
    assert nested.profile("g2-1") == flat.profile("g2-1")
    assert nested.logs("g2-1", "noise") == flat.logs("g2-1", "noise")
    profile = flat.profile("g2-0")
    assert (flat.media_dir / user_slug(profile) / "email_share").is_dir()
    with pytest.raises(MissingDataError, match="personas: g2-0, g2-1, g2-2"):
        flat.profile_path("g2-9")
    with pytest.raises(InputError, match="'clean' or 'noise'"):
        flat.logs_path("g2-0", "dirty")
    with pytest.raises(MissingDataError, match="holds no personas"):
        PersonaSet.from_dir(tmp_path)
    # what personas= accepts: a folder (either layout), "default", or a set
    assert as_persona_set(str(release)).ids() == nested.ids() and as_persona_set(flat) is flat
    assert as_persona_set("default").ids() == ["designer", "engineer", "researcher", "retiree"]


def test_loaders_name_the_bad_field_and_hidden_values_cover_identity(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("user_profile:\n  habits: [wake up early]\n", encoding="utf-8")
    with pytest.raises(InputError, match="habits"):
        load_profile(bad)
    release = generate_release(1, 4, tmp_path / "one")
    profile = PersonaSet.from_dir(release).profile("g4-0")
    identity = profile["user_profile"]["identity"]
    hidden = hidden_values(profile)
    assert identity["full_name"] in hidden and identity["contact_info"]["phone"] in hidden
    assert identity["auth_documents"]["passport"] in hidden
    assert profile_field(profile, "identity.full_name") == identity["full_name"]


def test_the_generated_set_is_made_once_and_reused(tmp_path: Path) -> None:
    home = str(tmp_path / "cache")
    first = generated_personas(2, 9, home)
    stamp = first.profile_path("g9-0").stat().st_mtime_ns
    generated_personas.cache_clear()
    again = generated_personas(2, 9, home)
    assert again.ids() == ["g9-0", "g9-1"] and again.profile_path("g9-0").stat().st_mtime_ns == stamp
    assert first.label == "generated s9-n2"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary folder left behind


def test_a_remembered_profile_is_a_fresh_copy_and_follows_the_file(tmp_path: Path) -> None:
    release = generate_release(1, 5, tmp_path / "one")
    path = PersonaSet.from_dir(release).profile_path("g5-0")
    first = load_profile(path)
    name = first["user_profile"]["identity"]["full_name"]
    first["user_profile"]["identity"]["full_name"] = "changed by a caller"
    assert load_profile(path)["user_profile"]["identity"]["full_name"] == name  # the caller's edit did not leak
    text = path.read_text(encoding="utf-8").replace(name, "Someone Else")
    path.write_text(text + "\n", encoding="utf-8")  # another size: another version of the file
    assert load_profile(path)["user_profile"]["identity"]["full_name"] == "Someone Else"
    path.unlink()
    with pytest.raises(MissingDataError, match="no such profile file"):
        load_profile(path)
