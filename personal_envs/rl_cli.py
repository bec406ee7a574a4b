"""Command line of the LLM-RL tools: ``personal-envs rollout`` (batched async rollouts of a chat environment),
``personal-envs export`` (results and trajectories as a dataset) and ``personal-envs openenv serve``."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any


def _at_least_one(text: str) -> int:
    from personal_envs.cli import _at_least_one as check

    return check(text)


def _json_object(text: str) -> dict[str, Any]:
    from personal_envs.cli import _json_object as check

    return check(text)


def add_parsers(commands: Any) -> None:
    """Add ``rollout``, ``export`` and ``openenv`` to the subcommands of ``personal-envs``."""
    rollout = commands.add_parser("rollout", help="play N episodes of a chat env against an OpenAI-compatible "
                                                  "endpoint, concurrently (results resumable)")
    rollout.add_argument("--env", required=True, help="env id (see 'personal-envs list')")
    rollout.add_argument("--episodes", type=_at_least_one, required=True)
    rollout.add_argument("--concurrency", type=_at_least_one, default=8, help="envs and requests in flight")
    rollout.add_argument("--base-url", default=None, help="endpoint (default: $OPENAI_BASE_URL)")
    rollout.add_argument("--model", default=None, help="model name (default: the server's)")
    rollout.add_argument("--seed", type=int, default=0, help="episode i uses seed + i")
    rollout.add_argument("--out", type=Path, required=True, help="rollouts JSON-lines file (resumes if it exists)")
    rollout.add_argument("--temperature", type=float, default=0.0)
    rollout.add_argument("--max-tokens", type=_at_least_one, default=512)
    rollout.add_argument("--max-turns", type=_at_least_one, default=64)
    rollout.add_argument("--tool-mode", choices=["native", "text"], default="native")
    rollout.add_argument("--env-kwargs", type=_json_object, default={}, help="JSON object of env arguments")

    export = commands.add_parser("export", help="results and trajectories (eval or rollout) as a dataset: one row "
                                                "per episode (Parquet file or Hugging Face dataset folder)")
    export.add_argument("results", nargs="+", help="results JSON-lines files of 'eval' or 'rollout'")
    export.add_argument("--format", choices=["parquet", "hf"], default="parquet")
    export.add_argument("--out", type=Path, required=True, help="the Parquet file or the dataset folder to write")

    openenv = commands.add_parser("openenv", help="OpenEnv (openenv-core) serving of any env id")
    openenv_commands = openenv.add_subparsers(dest="openenv_command", required=True)
    serve = openenv_commands.add_parser("serve", help="serve an env id as an OpenEnv chat environment")
    serve.add_argument("--env", required=True, help="env id (see 'personal-envs list')")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0 in a container)")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--max-sessions", type=_at_least_one, default=4, help="concurrent sessions (envs) at most")
    serve.add_argument("--env-kwargs", type=_json_object, default={}, help="JSON object of env arguments")


def run(args: argparse.Namespace) -> int:
    """Run the ``rollout``, ``export`` or ``openenv`` command ``args`` names."""
    if args.command == "rollout":
        return _rollout(args)
    if args.command == "export":
        from personal_envs.export import export

        rows = export(args.results, args.out, args.format)
        print(f"{rows} episode(s) written to {args.out} ({args.format})")
        return 0
    if args.command == "openenv":
        from personal_envs.openenv_server import serve

        return serve(args.env, host=args.host, port=args.port, env_kwargs=args.env_kwargs,
                     max_sessions=args.max_sessions)
    raise AssertionError(f"not an LLM-RL command: {args.command}")


def _rollout(args: argparse.Namespace) -> int:
    from personal_envs.rollout import RolloutConfig, rollout

    config = RolloutConfig(args.env, args.episodes, base_url=args.base_url, model=args.model,
                           concurrency=args.concurrency, seed=args.seed, env_kwargs=args.env_kwargs,
                           chat_kwargs={"tool_mode": args.tool_mode}, temperature=args.temperature,
                           max_tokens=args.max_tokens, max_turns=args.max_turns, out=args.out)
    started = time.perf_counter()
    records = rollout(config)
    seconds = time.perf_counter() - started
    print(json.dumps(summary(records, seconds)))
    return 1 if any(record.get("error") for record in records) else 0


def summary(records: list[dict[str, Any]], seconds: float) -> dict[str, Any]:
    """Episodes, errors, mean reward and score, tokens and throughput of a rollout's records."""
    done = [record for record in records if not record.get("error")]
    scores = [record["score"] for record in done if isinstance(record.get("score"), (int, float))]
    return {
        "episodes": len(records), "errors": len(records) - len(done),
        "mean_reward": round(sum(record.get("reward", 0.0) for record in done) / max(1, len(done)), 4),
        "mean_score": round(sum(scores) / len(scores), 4) if scores else None,
        "prompt_tokens": sum(int(record.get("prompt_tokens") or 0) for record in records),
        "completion_tokens": sum(int(record.get("completion_tokens") or 0) for record in records),
        "seconds": round(seconds, 2), "episodes_per_min": round(60.0 * len(records) / max(seconds, 1e-9), 1),
    }
