"""The compiled text mode (scripts/build_native.py): the guard that keeps a stale build from running; the build in
place (``setup.sh --dev`` makes one) walked against its own sources; and, behind the ``native`` marker (it compiles
a copy of the project for about 5 minutes), a fresh build against the sources and a source edited after it."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path
from types import ModuleType

import pytest

import personal_envs.textmode as textmode
from personal_envs.textmode import native
from personal_envs.textmode.native import COMPILED_MODULES, STAMP_NAME, choose_build, stale_sources

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIR = ROOT / "personal_envs" / "textmode"


def _package_copy(tmp_path: Path, with_build: bool) -> Path:
    """The text mode's sources in a scratch directory, with an empty file in place of each compiled module."""
    package = tmp_path / "textmode"
    package.mkdir()
    for name in COMPILED_MODULES:
        shutil.copy2(PACKAGE_DIR / f"{name}.py", package / f"{name}.py")
        if with_build:
            (package / f"{name}{importlib.machinery.EXTENSION_SUFFIXES[0]}").write_bytes(b"")
    return package


def _stamp(package: Path, digests: dict[str, str]) -> None:
    (package / STAMP_NAME).write_text(json.dumps({"python": "3", "sources": digests}))


def test_loaded_build_matches_the_decision() -> None:
    """Every compiled module is loaded from an extension module exactly when the package chose the build."""
    import personal_envs.textmode.ax as ax
    import personal_envs.textmode.layout as layout

    for module in (ax, layout):
        assert module.__spec__ is not None and module.__spec__.origin is not None
        loaded = module.__spec__.origin
        assert loaded.endswith(".py") != textmode.COMPILED, (module.__name__, loaded)


def test_a_fresh_stamp_names_no_stale_source(tmp_path: Path) -> None:
    package = _package_copy(tmp_path, with_build=True)
    _stamp(package, {name: native.source_digest(package / f"{name}.py") for name in COMPILED_MODULES})
    assert stale_sources(package) == []


def test_an_edited_source_is_stale(tmp_path: Path) -> None:
    package = _package_copy(tmp_path, with_build=True)
    _stamp(package, {name: native.source_digest(package / f"{name}.py") for name in COMPILED_MODULES})
    with (package / "layout.py").open("a") as source:
        source.write("\n# edited\n")
    assert stale_sources(package) == ["layout"]


@pytest.mark.parametrize("stamp", [None, "not json", json.dumps({"sources": {"ax": "0"}}), json.dumps([1])])
def test_a_missing_or_foreign_stamp_makes_every_module_stale(tmp_path: Path, stamp: str | None) -> None:
    package = _package_copy(tmp_path, with_build=True)
    if stamp is not None:
        (package / STAMP_NAME).write_text(stamp)
    assert stale_sources(package) == list(COMPILED_MODULES)


def test_no_build_means_the_sources_without_a_word(tmp_path: Path) -> None:
    package = _package_copy(tmp_path, with_build=False)
    finders = list(sys.meta_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert choose_build(package) is False
    assert sys.meta_path == finders


def test_a_stale_build_warns_and_routes_every_module_to_its_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                   ) -> None:
    monkeypatch.delenv(native.PURE_ENV, raising=False)
    package = _package_copy(tmp_path, with_build=True)
    _stamp(package, {name: "0" * 64 for name in COMPILED_MODULES})
    finders = list(sys.meta_path)
    try:
        with pytest.warns(RuntimeWarning, match="older than its sources"):
            assert choose_build(package) is False
        finder = sys.meta_path[0]
        assert finder not in finders
        for name in COMPILED_MODULES:
            spec = finder.find_spec(f"personal_envs.textmode.{name}")
            assert spec is not None and spec.origin == str(package / f"{name}.py")
        assert finder.find_spec("personal_envs.textmode.parity") is None  # not compiled: left alone
    finally:
        sys.meta_path[:] = finders


def test_a_fresh_build_loads_unless_told_to_run_the_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    monkeypatch.delenv(native.PURE_ENV, raising=False)
    package = _package_copy(tmp_path, with_build=True)
    _stamp(package, {name: native.source_digest(package / f"{name}.py") for name in COMPILED_MODULES})
    finders = list(sys.meta_path)
    try:
        assert choose_build(package) is True
        assert sys.meta_path == finders
        monkeypatch.setenv(native.PURE_ENV, "1")
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # asked for: no warning
            assert choose_build(package) is False
        assert sys.meta_path[0] not in finders
    finally:
        sys.meta_path[:] = finders


_WALK = """
import hashlib, json, sys
sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[1] + "/benchmarks")
import gymnasium as gym
import personal_envs, personal_envs.textmode as textmode
from text_mode import random_actor
env = gym.make("WebMall-v0", render="text")
digest = hashlib.sha256()
for seed in (3, 5):
    act = random_actor(env, seed)
    obs, _ = env.reset(seed=seed)
    for _ in range(400):
        obs, reward, terminated, truncated, _ = env.step(act(obs))
        digest.update(json.dumps([obs["axtree"], obs["url"], reward, terminated]).encode())
        if terminated or truncated:
            obs, _ = env.reset()
print(textmode.COMPILED, digest.hexdigest())
"""


def _walk_digest(tmp_path: Path, project: Path, pure: bool) -> list[str]:
    """``[COMPILED, digest]`` of the fixed WebMall text walk, run in a fresh interpreter on ``project``."""
    walk = tmp_path / "walk.py"
    walk.write_text(_WALK)
    environment = {key: value for key, value in os.environ.items() if key != native.PURE_ENV}
    if pure:
        environment[native.PURE_ENV] = "1"
    return subprocess.run([sys.executable, str(walk), str(project)], capture_output=True, text=True, cwd=project,
                          env=environment, check=True).stdout.split()


def test_the_build_in_place_gives_the_sources_observations(tmp_path: Path) -> None:
    """The compiled modules this checkout runs (``setup.sh --dev`` builds them) walk WebMall's text mode to the same
    observations and rewards as their own sources."""
    if not textmode.COMPILED:
        pytest.skip("no compiled text mode in this checkout (bash scripts/setup.sh --native builds it)")
    compiled = _walk_digest(tmp_path, ROOT, pure=False)
    pure = _walk_digest(tmp_path, ROOT, pure=True)
    assert compiled[0] == "True" and pure[0] == "False"
    assert compiled[1] == pure[1]


@pytest.mark.native
def test_compiled_and_pure_builds_give_the_same_observations(tmp_path: Path) -> None:
    """Build a copy of the project, walk WebMall's text mode compiled and pure: the same observations and rewards;
    then edit a source: the copy runs the sources again, with the warning."""
    if os.environ.get("PERSONAL_ENVS_NATIVE") != "1":
        pytest.skip("compiles for about 5 minutes: PERSONAL_ENVS_NATIVE=1 python3 -m pytest -m native")
    pytest.importorskip("mypyc")
    copy = tmp_path / "project"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(".git", "*.so", STAMP_NAME, "__pycache__", "results",
                                                              ".mypy_cache", ".ruff_cache", ".pytest_cache"))
    built = subprocess.run([sys.executable, str(copy / "scripts" / "build_native.py")], capture_output=True,
                           text=True, cwd=copy)
    assert built.returncode == 0, built.stderr[-2000:]
    compiled = _walk_digest(tmp_path, copy, pure=False)
    pure = _walk_digest(tmp_path, copy, pure=True)
    assert compiled[0] == "True" and pure[0] == "False"
    assert compiled[1] == pure[1]
    environment = {key: value for key, value in os.environ.items() if key != native.PURE_ENV}
    with (copy / "personal_envs" / "textmode" / "css.py").open("a") as source:
        source.write("\n# edited after the build\n")
    stale = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(copy)!r}); "
                            "import personal_envs.textmode as t; print(t.COMPILED)"],
                           capture_output=True, text=True, cwd=copy, env=environment, check=True)
    assert stale.stdout.split() == ["False"] and "older than its sources (css)" in stale.stderr


def _load_build_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_native", ROOT / "scripts" / "build_native.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_compilers_output_goes_to_the_log_not_the_terminal(tmp_path: Path) -> None:
    """What the build's child processes (the C compiler) and the script itself print lands in the log; the terminal
    shows only what comes after."""
    log = tmp_path / "logs" / "native.log"
    script = (f"import os, sys; sys.path.insert(0, {str(ROOT / 'scripts')!r}); import build_native as b\n"
              f"with b.output_to(__import__('pathlib').Path({str(log)!r})):\n"
              "    print('from the script'); os.system('echo from a child; echo to stderr >&2')\n"
              "print('after the build')\n")
    shown = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert shown.stdout.split("\n")[0] == "after the build" and shown.stderr == ""
    assert set(log.read_text().splitlines()) == {"from the script", "from a child", "to stderr"}
    assert _load_build_script().tail(log, 2).splitlines() == log.read_text().splitlines()[-2:]


@pytest.mark.native
def test_a_failed_build_shows_the_end_of_its_log(tmp_path: Path) -> None:
    """A source mypyc rejects: the build fails, prints the error from its log, and leaves no build behind (about 3
    minutes: mypy checks what the modules import before it finds the error)."""
    if os.environ.get("PERSONAL_ENVS_NATIVE") != "1":
        pytest.skip("type-checks for about 3 minutes: PERSONAL_ENVS_NATIVE=1 python3 -m pytest -m native")
    pytest.importorskip("mypyc")
    copy = tmp_path / "project"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(".git", "*.so", STAMP_NAME, "__pycache__", "results",
                                                              ".mypy_cache", ".ruff_cache", ".pytest_cache", "tests",
                                                              "docs", "benchmarks", "examples", "docker"))
    with (copy / "personal_envs" / "textmode" / "fonts.py").open("a") as source:
        source.write("\nBROKEN_ON_PURPOSE: int = 'not a number'\n")
    built = subprocess.run([sys.executable, str(copy / "scripts" / "build_native.py")], capture_output=True,
                           text=True, cwd=copy)
    assert built.returncode == 1
    assert "BROKEN_ON_PURPOSE" in built.stderr or "fonts.py" in built.stderr
    assert "the build failed" in built.stderr and "Python sources run" in built.stderr
    assert "output in" in built.stdout and "gcc" not in built.stdout
    assert "fonts.py" in (copy / "build" / "native.log").read_text()
    assert not list((copy / "personal_envs" / "textmode").glob("*.so"))
