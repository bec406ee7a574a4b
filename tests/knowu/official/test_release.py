"""Locating an official release, its label, and the file list of ``personal-envs data fetch knowu``."""

from __future__ import annotations

from pathlib import Path

import pytest

from personal_envs.core.download import sha256_of
from personal_envs.knowu import download
from personal_envs.knowu.official.release import (
    FILES,
    OFFICIAL_LABEL,
    PINNED_COMMIT,
    PROJECT_LABEL,
    find_release,
    require_release,
    task_set_line,
)


def test_found_by_data_dir_and_its_parents(official_dir: Path) -> None:
    assert find_release(official_dir) is not None
    via_parent = find_release(official_dir.parent)  # a folder holding it as official/
    assert via_parent is not None and via_parent.root == official_dir.resolve()
    assert via_parent.label == OFFICIAL_LABEL == "KnowU-Bench 0dd7989"


def test_found_by_environment_variable(official_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PERSONAL_ENVS_DATA", str(official_dir))
    assert find_release() is not None


def test_missing_release_says_how_to_get_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PERSONAL_ENVS_DATA", str(tmp_path))
    assert find_release(tmp_path) is None
    with pytest.raises(FileNotFoundError, match="personal-envs data fetch knowu"):
        require_release(tmp_path)


def test_file_list_matches_the_pinned_commit(official_dir: Path) -> None:
    """The checksums are those of the anchors subset, which is the pinned commit; every file the project reads is
    listed, and every listed file is present."""
    assert len(FILES) == 166
    for relpath, sha in FILES:
        assert sha256_of(official_dir / relpath) == sha, relpath
    listed = {rel for rel, _ in FILES}
    on_disk = {p.relative_to(official_dir).as_posix() for p in official_dir.rglob("*") if p.is_file()}
    assert on_disk - listed == {"SOURCES.md"}
    assert all(PINNED_COMMIT in f.url and f.url.endswith(f.relpath) for f in download.FILES)
    assert len(download.FILES) == len(FILES)


def test_task_set_line_names_every_set() -> None:
    assert task_set_line([]) == f"task set: {PROJECT_LABEL}"
    records = [{"metrics": {"task_set": OFFICIAL_LABEL}}, {"metrics": {}}]
    assert task_set_line(records) == f"task set: {OFFICIAL_LABEL} + {PROJECT_LABEL}"


def test_fetch_lands_a_release_with_checked_files(official_dir: Path, tmp_path: Path) -> None:
    """The fetch list, served from the anchors through file:// URLs, lands a release the envs find; a corrupted
    source file is refused by its checksum."""
    from personal_envs.core.download import DownloadError, RemoteFile, fetch_files

    files = [RemoteFile((official_dir / rel).as_uri(), rel, sha) for rel, sha in FILES]
    target = tmp_path / "knowu"
    fetch_files(files, target, progress=lambda _: None)
    release = find_release(tmp_path)
    assert release is not None and release.missing_files() == []
    bad = tmp_path / "bad.py"
    bad.write_text("changed", encoding="utf-8")
    with pytest.raises(DownloadError, match="checksum mismatch"):
        fetch_files([RemoteFile(bad.as_uri(), FILES[0][0], FILES[0][1])], tmp_path / "other", progress=lambda _: None)
