"""``personal-envs backend up|down|status NAME``: the real backends on a Docker engine."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from personal_envs.backends.deployment import Deployment, deployment_status, remove_deployment
from personal_envs.backends.engine import BackendError, connect
from personal_envs.core.download import DownloadError

#: Backends this command knows.
NAMES = ("webmall", "knowu")


def add_parser(commands: Any) -> None:
    """Add the ``backend`` command to the top-level subparsers."""
    backend = commands.add_parser("backend", help="start, stop or inspect a real backend on a Docker engine")
    backend.add_argument("action", choices=["up", "down", "status"])
    backend.add_argument("name", choices=NAMES)
    backend.add_argument("--dir", type=Path, default=None,
                         help="where downloads live (default: <data home>/webmall-docker)")


def run(args: argparse.Namespace) -> int:
    """Carry out ``args.action`` on backend ``args.name``; errors are one line on stderr and a non-zero exit."""
    try:
        client = connect()
        if args.action == "status":
            statuses = deployment_status(args.name, client)
            for status in statuses:
                ports = ", ".join(f"127.0.0.1:{host}->{port}" for port, host in sorted(status.ports.items()))
                print(f"{status.name:28s} {status.status:10s} {ports}")
            if not statuses:
                print(f"{args.name}: not running")
            return 0
        if args.action == "down":
            removed = remove_deployment(args.name, client)
            print("\n".join(f"removed {item}" for item in removed) or f"{args.name}: nothing to remove")
            return 0
        return _up(args, client)
    except BackendError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"interrupted: {args.name} was removed", file=sys.stderr)
        return 130


def _up(args: argparse.Namespace, client: Any) -> int:
    if args.name == "knowu":
        return _up_knowu(client)
    from personal_envs.backends import webmall

    directory = args.dir or webmall.work_dir()
    deployment = Deployment(webmall.spec(directory), client, log=print)
    deployment.ensure_images()  # before gigabytes of downloads
    try:
        webmall.prepare(directory)
    except DownloadError as exc:
        raise BackendError(str(exc)) from None
    deployment.up()
    print(f"{args.name} is up; shops: {' '.join(deployment.origins())}")
    print(f"use it with gym.make('WebMall-v0', shop_urls='docker'); stop it with `personal-envs backend down {args.name}`")
    return 0


def _up_knowu(client: Any) -> int:
    from personal_envs.backends import knowu

    knowu.require_kvm()
    deployment = Deployment(knowu.spec(), client, log=print)
    deployment.up()
    [origin] = deployment.origins()
    print(f"knowu is up: {origin}; use it with gym.make('KnowU-General-v0', backend='official', server_url='{origin}')")
    return 0
