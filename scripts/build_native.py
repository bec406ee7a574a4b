"""Compile the text mode's hot modules with mypyc, in place, for RL speed (about 1.4-1.8x on WebMall's text mode).

    python3 scripts/build_native.py            # build (needs mypy, from the `native` extra, and a C compiler)
    python3 scripts/build_native.py --clean    # remove the build: the Python sources run again

The modules of :data:`personal_envs.textmode.native.COMPILED_MODULES` become extension modules beside their
sources, sharing one library (``personal_envs/textmode/_native__mypyc*.so``), and ``_native.json`` records the
SHA-256 of each source compiled: an edited source makes the package run all the sources again, with a warning,
until the next build (:func:`personal_envs.textmode.native.choose_build`).  ``PERSONAL_ENVS_PURE_PYTHON=1`` runs
the sources without removing the build.  About 4.5-5 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from personal_envs.core.recorder import write_json_atomic  # noqa: E402
from personal_envs.textmode.native import (  # noqa: E402
    COMPILED_MODULES,
    PACKAGE,
    STAMP_NAME,
    compiled_files,
    source_digest,
)

PACKAGE_DIR = ROOT / "personal_envs" / "textmode"
GROUP = f"{PACKAGE}._native"


def built_files() -> list[Path]:
    """Every file a build leaves in the package: the modules, the shared library and the stamp."""
    files = compiled_files(PACKAGE_DIR)
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        shared = PACKAGE_DIR / f"_native__mypyc{suffix}"
        if shared.exists():
            files.append(shared)
    if (PACKAGE_DIR / STAMP_NAME).exists():
        files.append(PACKAGE_DIR / STAMP_NAME)
    return files


def clean() -> None:
    """Remove the build."""
    for path in built_files():
        path.unlink()


def build() -> int:
    """Compile in a scratch directory and copy the extension modules in; 0 on success."""
    try:
        from mypyc.build import mypycify
        from setuptools import setup
    except ImportError:
        print("mypyc is not installed: `pip install -e .[native]` (or `bash scripts/setup.sh --native`)",
              file=sys.stderr)
        return 1
    clean()
    digests = {name: source_digest(PACKAGE_DIR / f"{name}.py") for name in COMPILED_MODULES}
    sources = [str(Path("personal_envs") / "textmode" / f"{name}.py") for name in COMPILED_MODULES]
    with tempfile.TemporaryDirectory(prefix="personal-envs-native-") as scratch:
        cwd = Path.cwd()
        os.chdir(ROOT)
        try:
            extensions = mypycify(sources, opt_level="3", group_name=GROUP, target_dir=str(Path(scratch) / "c"))
            setup(name="personal-envs-native", ext_modules=extensions,
                  script_args=["build_ext", "--build-lib", str(Path(scratch) / "lib"),
                               "--build-temp", str(Path(scratch) / "tmp"), "--parallel", str(os.cpu_count() or 1)])
        except (SystemExit, Exception) as exc:  # noqa: BLE001 - no compiler, a mypyc error: the sources still run
            print(f"the build failed ({exc}); the Python sources run", file=sys.stderr)
            return 1
        finally:
            os.chdir(cwd)
        for built in (Path(scratch) / "lib" / "personal_envs" / "textmode").iterdir():
            # a new file put in place, never the old one rewritten: a running process may have it mapped
            temporary = PACKAGE_DIR / f".{built.name}.tmp"
            shutil.copy2(built, temporary)
            temporary.replace(PACKAGE_DIR / built.name)
    if any(source_digest(PACKAGE_DIR / f"{name}.py") != digest for name, digest in digests.items()):
        clean()
        print("a source changed during the build; run it again", file=sys.stderr)
        return 1
    write_json_atomic(PACKAGE_DIR / STAMP_NAME, {"python": sys.version.split()[0], "sources": digests}, indent=1)
    print(f"compiled {len(COMPILED_MODULES)} modules of {PACKAGE}: " + ", ".join(COMPILED_MODULES))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clean", action="store_true", help="remove the build (the Python sources run again)")
    args = parser.parse_args()
    if args.clean:
        clean()
        print("removed the compiled text mode")
        return 0
    return build()


if __name__ == "__main__":
    sys.exit(main())
