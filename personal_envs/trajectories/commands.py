"""The ``view`` and ``plot`` commands of ``personal-envs`` and the size report the ``eval`` command prints."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

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

    try:
        runs = load_runs(args.runs)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not runs:
        print("error: the results files hold no episodes", file=sys.stderr)
        return 2
    if args.export is not None:
        target = ViewerSite(runs).export(args.export)
        print(f"exported {sum(len(r.records) for r in runs)} episodes to {target / 'index.html'}")
        return 0
    server = serve(runs, host=args.host, port=args.port)
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
        print("error: give results files, --curves CSV files, or both", file=sys.stderr)
        return 2
    try:
        files = plot_runs(load_runs(args.runs), args.out, args.format) if args.runs else []
        if args.curves:
            files.append(plot_learning_curve(args.curves, args.out / f"learning_curves.{args.format}"))
    except (FileNotFoundError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for file in files:
        print(file)
    return 0
