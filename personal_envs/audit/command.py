"""``personal-envs audit shortcuts``: audit one or more ids and print their tables."""

from __future__ import annotations

import argparse
import sys

from personal_envs.audit.report import AuditReport, render
from personal_envs.audit.shortcuts import DEFAULT_BEAM, DEFAULT_BUDGET, DEFAULT_MAX_PROGRAMS, audit_shortcuts
from personal_envs.core.errors import InputError
from personal_envs.core.recorder import write_json_atomic


def shortcuts_command(args: argparse.Namespace) -> int:
    """Run the audit for ``args.env`` (ids or ``all``); 0 when no undocumented shortcut was flagged, 1 when one
    was.  An unknown id is an :class:`InputError` (the CLI prints it and exits 2)."""
    from personal_envs.core.registration import all_env_ids

    env_ids = [e for name in args.env for e in (all_env_ids() if name == "all" else [name])]
    unknown = [e for e in env_ids if e not in all_env_ids()]
    if unknown:
        raise InputError(f"unknown env id {unknown[0]!r}; known ids: {', '.join(all_env_ids())}")
    budget = DEFAULT_BUDGET if args.budget is None else args.budget
    reports: list[AuditReport] = []
    for env_id in env_ids:
        report = audit_shortcuts(env_id, budget, beam=args.beam or DEFAULT_BEAM,
                                 max_programs=DEFAULT_MAX_PROGRAMS if args.programs is None else args.programs,
                                 seed=args.seed, env_kwargs=args.env_kwargs)
        reports.append(report)
        print(render(report, args.top), flush=True)
        print(flush=True)
    if args.json is not None:
        write_json_atomic(args.json, [r.to_dict() for r in reports], indent=1)
    flagged = [f"{r.env_id}: {row.name}" for r in reports for row in r.flagged]
    if flagged:
        print(f"{len(flagged)} undocumented shortcut(s): {'; '.join(flagged)}", file=sys.stderr)
        return 1
    return 0

