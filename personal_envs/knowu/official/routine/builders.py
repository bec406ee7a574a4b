"""Registry builders of the 16 official routine classes (``KnowU-Proactive-v0`` with a release)."""

from __future__ import annotations

from personal_envs.knowu.official.registry import BuildContext, official_task
from personal_envs.knowu.official.routine.build import build_routine
from personal_envs.knowu.official.routine.rules import ROUTINES
from personal_envs.knowu.official.routine.task import OfficialRoutineTask


def check_log_source(ctx: BuildContext) -> None:
    """``log_source`` applies to ``logs=`` too: a clean log file with ``log_source="noise"`` (or the reverse) is an
    error rather than a silent mismatch (the official noisy logs are ``<role>_noise_25pct.json``)."""
    if ctx.logs_file is None:
        return
    noisy = "noise" in ctx.logs_file.stem
    if (ctx.log_source == "noise") != noisy:
        raise ValueError(f"log_source={ctx.log_source!r} but logs={str(ctx.logs_file)!r} is a "
                         f"{'noisy' if noisy else 'clean'} log file; pass the matching log file or log_source")


@official_task(*ROUTINES)
def build(ctx: BuildContext) -> OfficialRoutineTask:
    """An official routine variant for ``ctx.role``'s profile and logs."""
    check_log_source(ctx)
    options = ctx.options
    return build_routine(ctx.source, ctx.cls.name, str(ctx.role), ctx.profile or {}, ctx.logs,
                         memory=str(options.get("memory", "all")), top_k=int(options.get("top_k", 10)),
                         user=str(options.get("user", "profile")), log_source=ctx.log_source)
