"""Feed the project bad input and print what a user sees: a table of cases and outcomes.

Every case of :mod:`benchmarks.bad_input_cases` runs in its own subprocess (its own process group, killed with its
children at the time limit) with an empty ``$PERSONAL_ENVS_DATA``.  Outcomes:

* ``clear``: the promised outcome: one ``error: ...`` line naming the culprit and exit status 2, or, where the
  project documents a recovery, a ``warning: ...`` line and the command going on (exit 0);
* ``traceback``: a Python traceback reached the user;
* ``silent``: exit 0 with no word about the bad input (the input was used, ignored or guessed at);
* ``unclear``: it failed, but not with one ``error:`` line, exit 2 and the culprit named;
* ``hang``: still running at the case's time limit, or memory growing without bound;
* ``ok`` / ``broken``: control cases on valid input (they must pass, or the fixtures are wrong);
* ``skipped``: the case needs the official KnowU release of ``../shared/anchors``, which is absent.

    python -m benchmarks.bad_input                  # every case, two at a time
    python -m benchmarks.bad_input --cases ku-alias-bomb arg-view-port --jobs 1
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from benchmarks.bad_input_cases import KNOWU_RELEASE, REPO_ROOT, Case, build_cases, busy_port

#: What wraps an API snippet: a project exception that escapes it is printed the way the CLI prints one.
API_WRAPPER = """
import sys
sys.path.insert(0, {root!r})

def _case():
{body}

try:
    _case()
except Exception as exc:
    message = str(exc)
    if type(exc).__module__.startswith("personal_envs") and message and "\\n" not in message:
        print(f"error: {{message}}", file=sys.stderr)
        sys.exit(2)
    raise
"""

OUTCOMES: tuple[str, ...] = ("clear", "traceback", "silent", "unclear", "hang", "ok", "broken", "skipped")


@dataclass(frozen=True)
class Result:
    """What one case did."""

    case: Case
    outcome: str
    returncode: int | None
    seconds: float
    message: str


def command_of(case: Case, work: Path, port: int) -> tuple[list[str] | str, bool]:
    """The command line (or shell text) of ``case`` in ``work``."""

    def fill(text: str) -> str:
        return text.replace("{w}", str(work)).replace("{busy_port}", str(port)).replace("{python}", sys.executable)

    if case.shell:
        return fill(case.shell), True
    if case.code:
        script = API_WRAPPER.format(root=str(REPO_ROOT), body=textwrap.indent(fill(case.code).strip(), "    "))
        return [sys.executable, "-c", script], False
    return [sys.executable, "-m", "personal_envs", *(fill(a) for a in case.argv)], False


def classify(case: Case, returncode: int | None, stdout: str, stderr: str) -> tuple[str, str]:
    """The outcome of a finished (or timed-out: ``returncode`` None) case, and the line that shows it."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    last = lines[-1] if lines else (stdout.strip().splitlines() or [""])[-1]
    if returncode is None or returncode == 124:
        return "hang", last
    if "Traceback (most recent call last)" in stdout + stderr:
        return "traceback", next((line for line in reversed(lines) if not line.startswith(" ")), last)
    errors = [line for line in lines if line.startswith("error:") or " error: " in line]
    marker = case.marker.lower()
    if case.expect == "ok":
        return ("ok" if returncode == 0 and not errors else "broken"), last
    if case.expect == "error":
        if returncode == 2 and len(errors) == 1 and errors[0] == lines[-1] and marker in errors[0].lower():
            return "clear", errors[0]
        if returncode == 0 and not errors:
            warned = [line for line in lines if line.startswith("warning:")]
            return "silent", (warned[0] if warned else last)
        return "unclear", (errors[0] if errors else last)
    warnings = [line for line in lines if line.startswith("warning:") and marker in line.lower()]
    if returncode == 0 and warnings and not errors:
        return "clear", warnings[0]
    if returncode == 0 and not errors:
        return "silent", last
    return "unclear", (errors[0] if errors else last)


def run_case(case: Case, root: Path, progress: bool = False) -> Result:
    """Run one case in a fresh folder under ``root``."""
    if "knowu_release" in case.needs and not KNOWU_RELEASE.is_dir():
        return Result(case, "skipped", None, 0.0, f"no official KnowU release at {KNOWU_RELEASE}")
    work = root / case.name
    work.mkdir(parents=True, exist_ok=True)
    data_home = work / "data-home"
    data_home.mkdir()
    env = {**os.environ, "PERSONAL_ENVS_DATA": str(data_home), "PYTHONPATH": str(REPO_ROOT),
           "PYTHONWARNINGS": "ignore", "TQDM_DISABLE": "1"}
    if case.setup is not None:
        try:
            case.setup(work)
        except Exception as exc:  # noqa: BLE001 - a broken fixture is reported as such, the other cases go on
            return Result(case, "broken", None, 0.0, f"setup failed: {type(exc).__name__}: {exc}")
    port_holder = busy_port()
    command, shell = command_of(case, work, port_holder.getsockname()[1])
    started = time.monotonic()
    process = subprocess.Popen(command, shell=shell, cwd=work, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, errors="replace", start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=case.timeout_s)
        returncode: int | None = process.returncode
    except subprocess.TimeoutExpired:
        returncode = None
    finally:
        with contextlib.suppress(ProcessLookupError):  # the case and whatever it left behind (Chromium)
            os.killpg(process.pid, signal.SIGKILL)
        if returncode is None:
            stdout, stderr = process.communicate()
        port_holder.close()
    seconds = time.monotonic() - started
    outcome, message = classify(case, returncode, stdout, stderr)
    result = Result(case, outcome, returncode, seconds, message.strip()[:200])
    if progress:
        print(f"  {case.name}: {outcome} ({seconds:.1f} s)", file=sys.stderr, flush=True)
    return result


def run_all(cases: list[Case], jobs: int = 2, progress: bool = False) -> list[Result]:
    """Run ``cases`` (``jobs`` at a time) in a temporary folder; results in case order."""
    with tempfile.TemporaryDirectory(prefix="bad-input-") as tmp, ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(lambda case: run_case(case, Path(tmp), progress), cases))


def table(results: list[Result]) -> str:
    """The table of cases and outcomes, then the counts."""
    lines = [f"{'case':30s} {'expect':8s} {'outcome':10s} {'exit':>4s} {'s':>6s}  what the user saw"]
    for r in results:
        code = "-" if r.returncode is None else str(r.returncode)
        lines.append(f"{r.case.name:30s} {r.case.expect:8s} {r.outcome:10s} {code:>4s} {r.seconds:6.1f}  "
                     f"{r.message[:120]}")
    counts = Counter(r.outcome for r in results)
    lines.append("")
    lines.append("cases " + str(len(results)) + ": " + ", ".join(f"{name} {counts[name]}" for name in OUTCOMES
                                                                  if counts[name]))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="*", default=None, help="case names (default: all)")
    parser.add_argument("--groups", nargs="*", default=None, help="case groups: control data args results api")
    parser.add_argument("--jobs", type=int, default=2, help="cases run at the same time")
    args = parser.parse_args(argv)
    cases = build_cases()
    if args.cases:
        unknown = sorted(set(args.cases) - {c.name for c in cases})
        if unknown:
            parser.error(f"unknown case(s) {unknown}")
        cases = [c for c in cases if c.name in args.cases]
    if args.groups:
        cases = [c for c in cases if c.group in args.groups]
    results = run_all(cases, jobs=args.jobs, progress=True)
    print(table(results))
    bad = [r for r in results if r.outcome not in ("clear", "ok", "skipped")]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
