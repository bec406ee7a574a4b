"""Throw hostile actions at every registered env id and count what escapes.

For every id: make the env, reset it, then send ``--per-id`` malformed actions from
:func:`personal_envs.core.fuzz.malformed_actions` through ``action_space.contains()`` and ``step()``, resetting
whenever an episode ends.  Counted: actions tried, exceptions out of ``step()`` or ``contains()``, disagreements
(``contains()`` false but ``step()`` took the action without an error), hangs (a step slower than ``--hang-s``),
browser recoveries (a step whose error or observation says the browser was restarted or a script stopped) and
resets.  With ``--kill-browser N`` the
shared Chromium is killed every N actions on the browser ids to count recoveries under faults.

    python -m benchmarks.fuzz                      # full run: 1,120 actions x 12 ids = 13,440 actions
    python -m benchmarks.fuzz --per-id 50 --ids WebMall-v0
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from dataclasses import asdict, dataclass, field
from typing import Any

import gymnasium as gym

import personal_envs
from personal_envs.core.fuzz import malformed_actions

BROWSER_PREFIXES = ("WebMall", "BrowserArena", "KnowU")
RECOVERY_MARKERS = ("restarted", "crashed", "new browser context", "was killed", "script was stopped",
                    "kept it busy")


@dataclass
class IdReport:
    """Figures of one env id."""

    env_id: str
    actions: int = 0
    step_exceptions: int = 0
    contains_exceptions: int = 0
    disagreements: int = 0
    hangs: int = 0
    recoveries: int = 0
    resets: int = 0
    kills: int = 0
    slowest_step_s: float = 0.0
    seconds: float = 0.0
    first_failures: list[str] = field(default_factory=list)


def fuzz_id(env_id: str, per_id: int, seed: int, hang_s: float, kill_every: int) -> IdReport:
    """Run the fuzz on one id and return its figures."""
    report = IdReport(env_id)
    started = time.monotonic()
    kwargs: dict[str, Any] = {"max_wait_s": 0.0} if env_id.startswith("BrowserArena") else {}
    env = gym.make(env_id, disable_env_checker=True, **kwargs)
    base: Any = env.unwrapped
    try:
        env.reset(seed=seed)
        for position, (category, action) in enumerate(
                malformed_actions(base.action_specs, per_id, seed=seed), start=1):
            if kill_every and env_id.startswith(BROWSER_PREFIXES) and position % kill_every == 0:
                report.kills += int(_kill_browser(base))
            report.actions += 1
            try:
                accepted = base.action_space.contains(action)
            except BaseException as exc:  # noqa: BLE001 - counted
                report.contains_exceptions += 1
                _note(report, f"contains/{category}: {type(exc).__name__}: {str(exc)[:120]}")
                accepted = None
            t0 = time.monotonic()
            try:
                obs, _reward, terminated, truncated, info = env.step(action)
            except BaseException as exc:  # noqa: BLE001 - counted
                report.step_exceptions += 1
                _note(report, f"step/{category}: {type(exc).__name__}: {str(exc)[:120]}")
                env.reset()
                report.resets += 1
                continue
            elapsed = time.monotonic() - t0
            report.slowest_step_s = max(report.slowest_step_s, elapsed)
            if elapsed > hang_s:
                report.hangs += 1
                _note(report, f"hang/{category}: {elapsed:.1f} s")
            error = str(info.get("action_error", ""))
            if accepted is False and not error:
                report.disagreements += 1
                _note(report, f"disagree/{category}: contains() false, step() took it")
            shown = f"{error} {obs.get('last_action_error', '')}" if isinstance(obs, dict) else error
            if any(marker in shown for marker in RECOVERY_MARKERS):
                report.recoveries += 1
            if terminated or truncated:
                env.reset()
                report.resets += 1
    finally:
        env.close()
    report.seconds = time.monotonic() - started
    return report


def _kill_browser(base: Any) -> bool:
    """SIGKILL the Chromium behind ``base`` (a WebMall/BrowserArena session or KnowU's phone screen)."""
    from personal_envs.browser import browser_pid, kill_browser

    owner = getattr(base, "session", None) or getattr(getattr(base, "backend", None), "screen", None)
    host = getattr(owner, "host", None)
    if host is None:
        return False
    try:
        browser_pid(host)
    except Exception:  # noqa: BLE001 - no browser to kill right now
        return False
    return kill_browser(host)


def warm_up(ids: list[str]) -> float | None:
    """Load once what a process loads once, before any step is timed: the MiniLM model PersonalWAB scores reviews
    with (tens of seconds on a loaded machine; a first review step that pays it is not a hang).  Returns the seconds
    it took, or ``None`` if nothing was loaded (no PersonalWAB id, or MiniLM not installed)."""
    if not any(env_id.startswith("PersonalWAB") for env_id in ids):
        return None
    from personal_envs.core.embedding import EmbeddingUnavailable
    from personal_envs.personalwab.similarity import review_similarity

    started = time.monotonic()
    try:
        review_similarity("warm", "up")
    except EmbeddingUnavailable as exc:
        print(f"MiniLM not loaded ({exc})", flush=True)
        return None
    return time.monotonic() - started


def _note(report: IdReport, text: str) -> None:
    if len(report.first_failures) < 5:
        report.first_failures.append(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", nargs="*", default=None, help="env ids (default: all registered)")
    parser.add_argument("--per-id", type=int, default=1120, help="malformed actions per id")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hang-s", type=float, default=30.0, help="a step slower than this counts as a hang")
    parser.add_argument("--kill-browser", type=int, default=0, metavar="N",
                        help="kill the shared Chromium every N actions on browser ids (0: never)")
    parser.add_argument("--json", default=None, help="also write the per-id figures to this file")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    ids = args.ids or personal_envs.all_env_ids()
    loaded_s = warm_up(ids)
    if loaded_s is not None:
        print(f"MiniLM loaded once in {loaded_s:.1f} s before the fuzz (a one-time load, not a step)", flush=True)
    reports = []
    for env_id in ids:
        report = fuzz_id(env_id, args.per_id, args.seed, args.hang_s, args.kill_browser)
        reports.append(report)
        print(f"{env_id:34s} actions {report.actions:5d}  step exc {report.step_exceptions:3d}  contains exc "
              f"{report.contains_exceptions:3d}  disagree {report.disagreements:3d}  hangs {report.hangs:2d}  "
              f"kills {report.kills:2d}  recoveries {report.recoveries:3d}  slowest {report.slowest_step_s:5.1f} s  "
              f"{report.seconds:6.1f} s", flush=True)
        for failure in report.first_failures:
            print(f"    {failure}", flush=True)
    total = {key: sum(getattr(r, key) for r in reports) for key in
             ("actions", "step_exceptions", "contains_exceptions", "disagreements", "hangs", "kills", "recoveries")}
    print("TOTAL " + "  ".join(f"{key} {value}" for key, value in total.items()))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"total": total, "ids": [asdict(r) for r in reports]}, out, indent=1)
    failed = total["step_exceptions"] + total["contains_exceptions"] + total["disagreements"] + total["hangs"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
