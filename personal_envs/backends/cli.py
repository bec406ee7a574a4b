"""``personal-envs backend up|down|status NAME``: the real backends on a Docker engine."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from personal_envs.backends.deployment import (
    Deployment,
    Terminated,
    deployment_status,
    remove_deployment,
    terminations_interrupt,
)
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
        print(f"interrupted: {args.name} {args.action} did not finish", file=sys.stderr)
        return 130


def bring_up(deployment: Deployment, prepare: Callable[[], None] | None = None,
             announce: Callable[[Deployment], None] | None = None) -> int:
    """What ``personal-envs backend up`` does once it knows what to start; returns the exit status.

    Under the deployment's claim (refused in one line, nothing changed, if it is up or being brought up; what a
    killed ``up`` left is removed first): the images are checked before ``prepare`` (the downloads) runs, then the
    deployment comes up and ``announce`` tells the user how to use it.  Ctrl-C, SIGTERM or SIGHUP at any point
    leave nothing this call created on the engine (exit status 128 + the signal); errors are one ``error:`` line
    on stderr and exit status 1.
    """
    name = deployment.spec.name
    try:
        with terminations_interrupt(), deployment.claimed():
            deployment.ensure_images()  # before gigabytes of downloads
            if prepare is not None:
                prepare()
            deployment.up()
            if announce is not None:
                announce(deployment)
    except BackendError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:
        signum = exc.signum if isinstance(exc, Terminated) else signal.SIGINT
        print(f"interrupted by {signal.Signals(signum).name}: {name} was not brought up; nothing this command "
              "created is left on the engine (downloads resume next time)", file=sys.stderr)
        return 128 + int(signum)
    return 0


def _up(args: argparse.Namespace, client: Any) -> int:
    if args.name == "knowu":
        return _up_knowu(client)
    from personal_envs.backends import webmall

    directory = args.dir or webmall.work_dir()

    def prepare() -> None:
        try:
            webmall.prepare(directory)
        except DownloadError as exc:
            raise BackendError(str(exc)) from None

    def announce(deployment: Deployment) -> None:
        print(f"{args.name} is up; shops: {' '.join(deployment.origins())}")
        print(f"use it with gym.make('WebMall-v0', shop_urls='docker'); stop it with "
              f"`personal-envs backend down {args.name}`")

    return bring_up(Deployment(webmall.spec(directory), client, log=print), prepare, announce)


def _up_knowu(client: Any) -> int:
    from personal_envs.backends import knowu

    knowu.require_kvm()

    def announce(deployment: Deployment) -> None:
        [origin] = deployment.origins()
        print(f"knowu is up: {origin}; use it with gym.make('KnowU-General-v0', backend='official', "
              f"server_url='{origin}')")

    return bring_up(Deployment(knowu.spec(), client, log=print), announce=announce)
