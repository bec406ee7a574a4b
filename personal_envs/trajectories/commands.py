"""The ``view`` and ``plot`` commands of ``personal-envs`` and the size report the ``eval`` command prints."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from personal_envs.core.errors import InputError
from personal_envs.trajectories.recorder import recorder_for


def print_size_report(config: Any) -> dict[str, Any] | None:
    """Write and print the size of a run's trajectories (``size.json`` in the trajectories directory)."""
    recorder = recorder_for(config)
    if recorder is None:
        return None
    report = recorder.write_size_report()
    print(f"trajectories: {report['directory']} ({report['episodes']} episodes, {report['images']} images, "
          f"{report['bytes'] / 1e6:.2f} MB, {report['bytes_per_episode'] / 1e3:.1f} kB per episode)")
    return report


def view_command(args: argparse.Namespace) -> int:
    """``personal-envs view RUN... [--export DIR]``."""
    from personal_envs.trajectories.store import load_runs
    from personal_envs.trajectories.viewer import ViewerSite, serve

    runs = load_runs(args.runs)
    if not runs:
        raise InputError(f"{', '.join(str(p) for p in args.runs)}: no valid episode records to show")
    if args.export is not None:
        try:
            target = ViewerSite(runs).export(args.export)
        except OSError as exc:
            raise InputError(f"cannot write the export to {args.export}: {exc.strerror or type(exc).__name__}") \
                from None
        print(f"exported {sum(len(r.records) for r in runs)} episodes to {target / 'index.html'}")
        return 0
    try:
        server = serve(runs, host=args.host, port=args.port)
    except OSError as exc:
        raise InputError(f"cannot listen on {args.host}:{args.port} ({exc.strerror or type(exc).__name__}); pick "
                         "another --port (0: any free port)") from None
    print(f"viewer on {server.origin}/ (Ctrl-C to stop)", flush=True)
    try:
        while server.running:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0


def plot_command(args: argparse.Namespace) -> int:
    """``personal-envs plot RUN... --out DIR [--format png|svg]``."""
    from personal_envs.trajectories.plots import plot_learning_curve, plot_runs
    from personal_envs.trajectories.store import load_runs

    if not args.runs and not args.curves:
        raise InputError("give results files, --curves CSV files, or both")
    try:
        files = plot_runs(load_runs(args.runs), args.out, args.format) if args.runs else []
        if args.curves:
            files.append(plot_learning_curve(args.curves, args.out / f"learning_curves.{args.format}"))
    except InputError:
        raise
    except RuntimeError as exc:  # matplotlib missing, nothing to draw
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for file in files:
        print(file)
    return 0
