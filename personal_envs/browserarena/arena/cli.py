"""``personal-envs arena``: the arena as a study platform from the command line.

Subcommands (all take ``--db``, the arena's SQLite file):

* ``submit``: queue a task (text, optional start URL; the Open env only: the other envs run their own tasks);
* ``battle``: run battles between random pairs of a model pool (``--model NAME=POLICY[:JSON kwargs]``, any policy
  ``personal-envs list`` shows for the env): every pending submitted task (``--pending``: a task that cannot run is
  marked failed with the reason and the others run), or ``--battles N`` tasks of the env's own list; pairs are drawn
  from a fresh seed each run (printed; ``--seed`` repeats a run);
* ``serve``: the vote page (task box, battles, votes, step annotations, leaderboard, agreement; the exports for the
  operator), on 127.0.0.1 unless ``--host`` says otherwise; with ``--model`` it also runs every submitted task as a
  battle at once;
* ``vote``: vote in the terminal (both traces shown, models revealed after each vote);
* ``judge``: the VLM judge of §4.4 votes on stored battles (GIF frames and traces, majority of ``--k``); its votes
  are judge votes, kept apart from people's;
* ``export``: votes (with FastChat's battle columns, ``anony`` included) or annotations as JSON lines or CSV;
* ``leaderboard``: ratings with 95% intervals of people's votes (``--votes judge``: the judges'; ``--env``,
  ``--per-env``; ``--drop-both-bad``; ``--method fastchat``: FastChat's own fit), and ``--figures DIR``: Figure 2
  (a)-(d);
* ``agreement``: the annotators' agreement (§4.3) and each judge's agreement with people;
* ``tables``: the paper's tables 3-5 from ``personal-envs eval`` results files.
"""

from __future__ import annotations

import argparse
import json
import random
import secrets
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

DEFAULT_DB = Path("arena") / "arena.sqlite"


def add_parser(commands: Any) -> None:
    """Add ``arena`` and its subcommands to the top-level subparsers."""
    arena = commands.add_parser("arena", help="BrowserArena study platform: submit, battle, serve, judge, export, "
                                              "leaderboard, agreement, tables")
    sub = arena.add_subparsers(dest="arena_command", required=True)

    def with_db(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
        parser.add_argument("--db", type=Path, default=DEFAULT_DB, help=f"arena database (default {DEFAULT_DB})")
        return parser

    submit = with_db(sub.add_parser("submit", help="queue a task for battles (BrowserArena-Open-v0)"))
    submit.add_argument("--text", required=True, help="the task (a text over the limit is refused, never cut)")
    submit.add_argument("--start-url", default="", help="http(s) URL of a public site this machine can reach")
    submit.add_argument("--env", default="BrowserArena-Open-v0", help="env that runs it (the Open env only)")
    submit.add_argument("--allowed-origin", action="append", default=None, metavar="ORIGIN",
                        help="a loopback / private-network origin the start URL may use (the env's allowed_origins)")
    submit.add_argument("--submitter", default="cli")

    def with_pool(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--model", action="append", default=[], metavar="NAME=POLICY[:JSON]",
                            help="a model of the pool (repeat; at least two)")
        parser.add_argument("--env-kwargs", type=json.loads, default={}, help="JSON object of env arguments")
        parser.add_argument("--out", type=Path, default=Path("arena") / "battles", help="traces and GIFs folder")
        parser.add_argument("--seed", type=int, default=None,
                            help="seed of the pairing and the episodes (default: a fresh one, printed)")

    battle = with_db(sub.add_parser("battle", help="run battles between random pairs of a model pool"))
    with_pool(battle)
    battle.add_argument("--env", default="BrowserArena-Open-v0", help="env of --battles tasks")
    battle.add_argument("--pending", action="store_true", help="run every pending submitted task")
    battle.add_argument("--battles", type=int, default=0, help="battles on random tasks of the env's list")

    serve = with_db(sub.add_parser("serve", help="serve the vote page (127.0.0.1 unless --host)"))
    serve.add_argument("--port", type=int, default=8765)
    serve.add_argument("--host", default="127.0.0.1",
                       help="interface to listen on (default 127.0.0.1; 0.0.0.0 lets other machines in)")
    serve.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                       help="a host name participants use to reach the page (besides IPs and this machine's names)")
    serve.add_argument("--annotator", default="web", help="annotator name when the URL gives none")
    with_pool(serve)

    vote = with_db(sub.add_parser("vote", help="vote in the terminal on battles this annotator has not voted on"))
    vote.add_argument("--annotator", required=True)
    vote.add_argument("--limit", type=int, default=None)

    judge = with_db(sub.add_parser("judge", help="VLM judge votes on stored battles (paper §4.4)"))
    judge.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint (default $OPENAI_BASE_URL)")
    judge.add_argument("--judge-model", default=None)
    judge.add_argument("--k", type=int, default=5, help="samples per battle (majority@k)")
    judge.add_argument("--inputs", default="gif,trace", help="gif,trace | gif | trace (the input ablations)")

    export = with_db(sub.add_parser("export", help="export votes or annotations"))
    export.add_argument("--what", choices=["votes", "annotations"], default="votes")
    export.add_argument("--format", choices=["jsonl", "csv"], default="jsonl")
    export.add_argument("--votes", choices=["human", "judge", "all"], default="all",
                        help="whose votes to export (default all; the source column tells them apart)")
    export.add_argument("--out", type=Path, default=None, help="file (default: standard output)")

    board = with_db(sub.add_parser("leaderboard", help="ratings with 95%% intervals"))
    board.add_argument("--rounds", type=int, default=100)
    board.add_argument("--seed", type=int, default=0, help="bootstrap seed (FastChat's report uses 0)")
    board.add_argument("--votes", choices=["human", "judge", "all"], default="human",
                       help="whose votes: people's (default), the judges', or both")
    board.add_argument("--judge", default=None, help="only this voter's votes (e.g. one judge's name)")
    board.add_argument("--env", default=None, help="only battles of this env id")
    board.add_argument("--per-env", action="store_true", help="one leaderboard per env id")
    board.add_argument("--drop-both-bad", action="store_true",
                       help="leave out 'both bad' votes (as the BrowserArena paper did; default: a tie)")
    board.add_argument("--method", choices=["regularised", "fastchat"], default="regularised",
                       help="regularised (default) or fastchat (FastChat's own fit, unregularised)")
    board.add_argument("--every-vote", action="store_true", help="count every annotator's vote, not the first")
    board.add_argument("--figures", type=Path, default=None, help="write Figure 2 (a)-(d) PNGs here")

    with_db(sub.add_parser("agreement", help="agreement between annotators (paper §4.3)"))

    tables = sub.add_parser("tables", help="the paper's tables 3-5 from eval results files")
    tables.add_argument("runs", nargs="+", type=Path)


def parse_model(spec: str) -> tuple[str, str, dict[str, Any]]:
    """``NAME=POLICY[:JSON]`` -> ``(name, policy, kwargs)``."""
    name, sep, rest = spec.partition("=")
    if not sep or not name or not rest:
        raise ValueError(f"--model wants NAME=POLICY[:JSON kwargs], got {spec!r}")
    policy, _, raw = rest.partition(":")
    kwargs = json.loads(raw) if raw else {}
    if not isinstance(kwargs, dict):
        raise ValueError(f"the kwargs of --model {name} must be a JSON object")
    return name, policy, kwargs


def _pool(args: argparse.Namespace, env_id: str) -> dict[str, Callable[[Any], Any]]:
    from personal_envs.runner import make_policy

    pool: dict[str, Callable[[Any], Any]] = {}
    for spec in args.model:
        name, policy, kwargs = parse_model(spec)

        def factory(env: Any, policy: str = policy, kwargs: dict[str, Any] = kwargs) -> Any:
            return make_policy(env_id, policy, env, seed=args.seed, **kwargs)

        pool[name] = factory
    if len(pool) < 2:
        raise ValueError("give at least two --model NAME=POLICY")
    return pool


def _seed(args: argparse.Namespace) -> int:
    """The run's seed: ``--seed``, else a fresh one (printed, so that the run can be repeated)."""
    if args.seed is None:
        args.seed = secrets.randbelow(2**31)
        print(f"seed {args.seed} (pass --seed {args.seed} to draw the same pairs again)", file=sys.stderr)
    return int(args.seed)


def _env_factory(args: argparse.Namespace) -> Callable[[str], Callable[[], Any]]:
    import gymnasium as gym

    return lambda env_id: (lambda: gym.make(env_id, **args.env_kwargs))


def _allowed_origins(args: argparse.Namespace) -> list[str] | None:
    origins = args.env_kwargs.get("allowed_origins") if isinstance(args.env_kwargs, dict) else None
    return [str(o) for o in origins] if isinstance(origins, list) else None


def run(args: argparse.Namespace) -> int:
    """Run the ``arena`` subcommand of ``args``; returns the exit code."""
    try:
        return _COMMANDS[args.arena_command](args)
    except (ValueError, KeyError) as exc:
        print(f"error: {exc.args[0] if isinstance(exc, KeyError) and exc.args else exc}", file=sys.stderr)
        return 2


def _submit(args: argparse.Namespace) -> int:
    from personal_envs.browserarena.arena.store import ArenaStore
    from personal_envs.browserarena.arena.submission import check_submission

    checked = check_submission(args.text, env_id=args.env, start_url=args.start_url,
                               allowed_origins=args.allowed_origin)
    store = ArenaStore(args.db)
    task_id = store.submit_task(checked.text, env_id=checked.env_id, start_url=checked.start_url,
                                submitter=args.submitter)
    print(f"{task_id} pending ({checked.env_id})")
    return 0


def _battle(args: argparse.Namespace) -> int:
    from personal_envs.browserarena.arena.pool import PendingFailure, run_pending, run_pool_battle
    from personal_envs.browserarena.arena.store import ArenaStore

    if not args.pending and not args.battles:
        raise ValueError("say which battles: --pending (submitted tasks) and/or --battles N --env ID")
    store = ArenaStore(args.db)
    rng = random.Random(_seed(args))
    envs = _env_factory(args)
    results = []
    failures: list[PendingFailure] = []
    if args.pending:
        results += run_pending(store, _pool(args, "BrowserArena-Open-v0"), envs, out_dir=args.out, rng=rng,
                               seed=args.seed, allowed_origins=_allowed_origins(args), failures=failures)
    if args.battles:
        pool = _pool(args, args.env)
        make_env = envs(args.env)
        probe = make_env()
        count = int(getattr(probe.unwrapped, "num_tasks", 1))
        probe.close()
        for _ in range(args.battles):
            results.append(run_pool_battle(make_env, pool, rng.randrange(count), store=store, out_dir=args.out,
                                           rng=rng, env_id=args.env, seed=args.seed))
    for result in results:
        print(f"{result.battle_id}: {result.record.task_text[:60]!r} (models hidden until the vote)")
    for failure in failures:
        print(f"error: {failure.task_id} ({failure.env_id}) failed: {failure.error}", file=sys.stderr)
    if failures:
        print(f"{len(results)} battle(s) finished, {len(failures)} task(s) failed", file=sys.stderr)
        return 1
    return 0


def _serve(args: argparse.Namespace) -> int:
    from personal_envs.browserarena.arena.pool import run_pending
    from personal_envs.browserarena.arena.store import ArenaStore
    from personal_envs.browserarena.arena.vote_page import VotePage

    store = ArenaStore(args.db)
    on_submit = None
    if args.model:
        pool = _pool(args, "BrowserArena-Open-v0")
        rng, lock = random.Random(_seed(args)), threading.Lock()

        def on_submit(task_id: str) -> None:
            def work() -> None:
                with lock:
                    run_pending(store, pool, _env_factory(args), out_dir=args.out, rng=rng, seed=args.seed,
                                allowed_origins=_allowed_origins(args))

            threading.Thread(target=work, name="arena-battles", daemon=True).start()

    page = VotePage(store, voter_name=args.annotator, on_submit=on_submit, port=args.port, host=args.host,
                    allowed_origins=_allowed_origins(args), allowed_hosts=args.allowed_host)
    print(f"vote page: {page.url}  (Ctrl-C to stop)")
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"listening on {args.host}: anyone who can reach this machine on port {args.port} can vote and "
              "submit tasks", file=sys.stderr)
    print(f"operator exports (keep these URLs private): {page.export_url('votes')}  {page.export_url('annotations')}")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        page.close()
    return 0


def _vote(args: argparse.Namespace) -> int:
    from personal_envs.browserarena.arena.store import ArenaStore
    from personal_envs.browserarena.arena.vlm_judge import load_trace
    from personal_envs.browserarena.arena.voting import TerminalVoter

    store = ArenaStore(args.db, create=False)
    voter = TerminalVoter(ask=lambda prompt: input(prompt), name=args.annotator)
    todo = [r for r in store.battles() if store.vote_of(r.battle_id, args.annotator) is None][:args.limit]
    for record in todo:
        vote = voter.vote(record, load_trace(record.trace_a), load_trace(record.trace_b))
        store.record_vote(record.battle_id, vote.winner, args.annotator, source="human")
        print(f"{record.battle_id}: {vote.winner} (left was {record.model_a}, right was {record.model_b})")
    print(f"{len(todo)} vote(s) by {args.annotator}")
    return 0


def _judge(args: argparse.Namespace) -> int:
    from personal_envs.browserarena.arena.store import ArenaStore
    from personal_envs.browserarena.arena.vlm_judge import VLMJudge, judge_battles
    from personal_envs.llm.client import ChatClient

    store = ArenaStore(args.db, create=False)
    inputs = tuple(part.strip() for part in args.inputs.split(",") if part.strip())
    judge = VLMJudge(ChatClient(base_url=args.base_url, model=args.judge_model), k=args.k, inputs=inputs)
    judged = judge_battles(store, judge)
    for battle_id, vote in judged:
        print(f"{battle_id}: {vote.winner} ({vote.voter})")
    print(f"{len(judged)} judge vote(s) by {judge.name}; they count in `arena leaderboard --votes judge`, not in "
          "people's leaderboard")
    return 0


def _export(args: argparse.Namespace) -> int:
    from personal_envs.browserarena.arena.export import annotation_rows, to_csv, to_jsonl, vote_rows
    from personal_envs.browserarena.arena.store import ArenaStore

    store = ArenaStore(args.db, create=False)
    source = None if args.votes == "all" else args.votes
    rows = vote_rows(store, source) if args.what == "votes" else annotation_rows(store)
    text = to_csv(rows) if args.format == "csv" else to_jsonl(rows)
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.write_text(text, encoding="utf-8")
        print(f"{len(rows)} {args.what} -> {args.out}", file=sys.stderr)
    return 0


def _leaderboard(args: argparse.Namespace) -> int:
    from personal_envs.browserarena.arena.figures import average_win_rate, draw_figure2
    from personal_envs.browserarena.arena.leaderboard import compute_leaderboard, select_battles
    from personal_envs.browserarena.arena.store import ArenaStore

    store = ArenaStore(args.db, create=False)
    envs = sorted({r.env_id for r in store.battles()}) if args.per_env else [args.env]
    shown = 0
    for env_id in envs:
        battles = select_battles(store.voted_battles(every_vote=args.every_vote, source=args.votes,
                                                     voter=args.judge, env_id=env_id),
                                 drop_both_bad=args.drop_both_bad)
        if not battles:
            continue
        shown += 1
        board = compute_leaderboard(battles, rounds=args.rounds, seed=args.seed, method=args.method)
        kind = {"human": "people's votes", "judge": "judges' votes", "all": "all votes"}[args.votes]
        print(f"{env_id or 'all envs'}, {kind}" + (f" of {args.judge}" if args.judge else "")
              + (", 'both bad' left out" if args.drop_both_bad else ""))
        print(board.table())
        print()
        print("average win rate (no ties): " + ", ".join(f"{m} {r:.2f}" for m, r in average_win_rate(battles).items()))
        print()
        if args.figures is not None:
            folder = args.figures / env_id if args.per_env and env_id else args.figures
            for panel, path in draw_figure2(battles, folder, rounds=args.rounds, seed=args.seed).items():
                print(f"figure 2 ({panel}): {path}")
    if not shown:
        print("no votes yet" + (" of this selection" if args.votes != "all" or args.env or args.judge else ""))
    if args.votes == "human":
        judged = len(store.votes(source="judge"))
        if judged:
            print(f"({judged} judge vote(s) are not counted here: `--votes judge` ranks them, `arena agreement` "
                  "compares them with people's)")
    return 0


def _agreement(args: argparse.Namespace) -> int:
    from personal_envs.browserarena.arena.agreement import agreement_table
    from personal_envs.browserarena.arena.store import ArenaStore

    print(agreement_table(ArenaStore(args.db, create=False).votes()))
    return 0


def _tables(args: argparse.Namespace) -> int:
    from personal_envs.browserarena.reports import paper_tables
    from personal_envs.run_records import TableRecord, read_records

    records = [record for path in args.runs for record in read_records(path, schema=TableRecord)]
    print(paper_tables(records))
    return 0


_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "submit": _submit, "battle": _battle, "serve": _serve, "vote": _vote, "judge": _judge, "export": _export,
    "leaderboard": _leaderboard, "agreement": _agreement, "tables": _tables,
}
