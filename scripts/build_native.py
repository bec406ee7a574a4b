"""Compile the text mode's hot modules with mypyc, in place, for RL speed (about 1.4-1.8x on WebMall's text mode).

    python3 scripts/build_native.py            # build (needs mypy, from the `native` extra, and a C compiler)
    python3 scripts/build_native.py --clean    # remove the build: the Python sources run again

The compiler's output goes to ``build/native.log`` (``--log``; ``--verbose`` shows it as it runs); a failed build
prints the log's last lines.

The modules of :data:`personal_envs.textmode.native.COMPILED_MODULES` become extension modules beside their
sources, sharing one library (``personal_envs/textmode/_native__mypyc*.so``), and ``_native.json`` records the
SHA-256 of each source compiled: an edited source makes the package run all the sources again, with a warning,
until the next build (:func:`personal_envs.textmode.native.choose_build`).  ``PERSONAL_ENVS_PURE_PYTHON=1`` runs
the sources without removing the build.  About 4.5-5 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.machinery
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
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
#: Where the compiler's output goes unless ``--verbose``.
DEFAULT_LOG = ROOT / "build" / "native.log"
#: Lines of the log printed when the build fails.
TAIL_LINES = 40


@contextlib.contextmanager
def output_to(log: Path | None) -> Iterator[None]:
    """Send this process's stdout and stderr, and its child processes' (the C compiler's), to ``log`` (left
    alone when None)."""
    if log is None:
        yield
        return
    log.parent.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(log, "w") as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def tail(log: Path, lines: int = TAIL_LINES) -> str:
    """The last ``lines`` lines of ``log``."""
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


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


def build(log: Path | None = DEFAULT_LOG) -> int:
    """Compile in a scratch directory and copy the extension modules in; 0 on success.  The compiler's output goes
    to ``log`` (to this terminal when None)."""
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
    if log is not None:
        print(f"compiling the text mode ({len(COMPILED_MODULES)} modules, about 5 minutes; output in {log})",
              flush=True)
    with tempfile.TemporaryDirectory(prefix="personal-envs-native-") as scratch:
        cwd = Path.cwd()
        os.chdir(ROOT)
        failure = ""
        try:
            with output_to(log):
                try:
                    extensions = mypycify(sources, opt_level="3", group_name=GROUP,
                                          target_dir=str(Path(scratch) / "c"))
                    setup(name="personal-envs-native", ext_modules=extensions,
                          script_args=["build_ext", "--build-lib", str(Path(scratch) / "lib"),
                                       "--build-temp", str(Path(scratch) / "tmp"),
                                       "--parallel", str(os.cpu_count() or 1)])
                except (SystemExit, Exception) as exc:  # noqa: BLE001 - no compiler, a mypyc error: sources run
                    failure = str(exc) or type(exc).__name__
        finally:
            os.chdir(cwd)
        if failure:
            if log is not None:
                print(tail(log), file=sys.stderr)
            print(f"the build failed ({failure}); the Python sources run", file=sys.stderr)
            return 1
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
    parser.add_argument("--log", type=Path, default=DEFAULT_LOG, help=f"the compiler's output (default {DEFAULT_LOG})")
    parser.add_argument("--verbose", action="store_true", help="show the compiler's output instead of logging it")
    args = parser.parse_args()
    if args.clean:
        clean()
        print("removed the compiled text mode")
        return 0
    return build(None if args.verbose else args.log)


if __name__ == "__main__":
    sys.exit(main())
