"""Start, health-check and stop a :class:`~personal_envs.backends.spec.BackendSpec` with the Docker SDK.

Everything the layer creates (containers, volumes, the network) carries the label ``personal-envs.backend=<name>``,
so :func:`remove_deployment` finds it again from any process, and ``personal-envs.owner=<host/pid/start>`` of the
process that created it.  Before anything is created, :meth:`Deployment.claim` takes the deployment's lock and
looks at the engine: a deployment that is up, or that another process is bringing up, is refused in one line and
left alone; what a killed process left half made is removed.  A failure, Ctrl-C, SIGTERM or SIGHUP while a
deployment comes up removes what this process created and shows the failing container's last log lines; used as a
context manager, the deployment is removed on exit whatever happened.
"""

from __future__ import annotations

import contextlib
import importlib
import signal
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from personal_envs.backends.claim import DeploymentLock, current_owner, owner_alive, owner_pid
from personal_envs.backends.engine import LABEL, ORIGIN_LABEL, OWNER_LABEL, BackendError, connect
from personal_envs.backends.spec import BackendSpec, ContainerSpec

#: Log lines shown when a container fails.
LOG_TAIL = 30
#: Label of the marker volume created when ``up`` has finished (``<name>.up``): without it, what is on the engine
#: is what an interrupted ``up`` left.
READY_LABEL = "personal-envs.ready"


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived while a deployment came up (raised like Ctrl-C so the same cleanup runs)."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"signal {signum}")
        self.signum = signum


@dataclass(frozen=True)
class ContainerStatus:
    """One running (or stopped) container of a deployment, as the engine reports it."""

    name: str
    status: str
    ports: dict[int, int]  # container port -> host port on 127.0.0.1


class Deployment:
    """A deployment on the engine: :meth:`up` creates it, :meth:`down` removes every trace of it."""

    def __init__(self, spec: BackendSpec, client: Any | None = None,
                 log: Callable[[str], None] = lambda message: None) -> None:
        self.spec = spec
        self.client = client if client is not None else connect()
        self.log = log
        #: The owner label of everything this deployment object creates.
        self.owner = current_owner()
        self._lock = DeploymentLock(spec.name)
        self._claims = 0
        self._termination: contextlib.ExitStack | None = None

    # ------------------------------------------------------------------------------------------ lifecycle
    def __enter__(self) -> Deployment:
        stack = contextlib.ExitStack()
        stack.enter_context(terminations_interrupt())
        with stack:
            self.up()
            self._termination = stack.pop_all()  # SIGTERM keeps raising until __exit__ removed the deployment
        return self

    def __exit__(self, *exc_info: object) -> None:
        try:
            self.down()
        finally:
            if self._termination is not None:
                self._termination.close()
                self._termination = None

    @contextlib.contextmanager
    def claimed(self) -> Iterator[Deployment]:
        """Hold the deployment's claim (:meth:`claim`) for the block (re-entrant), e.g. across downloads and
        :meth:`up`."""
        self.claim()
        try:
            yield self
        finally:
            self._claims -= 1
            if self._claims == 0:
                self._lock.release()

    def claim(self) -> None:
        """Take the deployment's lock and check the engine before anything is created; release it with the block
        of :meth:`claimed` (``up`` does both by itself).

        Raises:
            BackendError: in one line, with nothing changed: another process is bringing the deployment up or
                owns it; the deployment is already up (or stopped) on the engine; a container, volume or network
                of the same name exists that is not part of this deployment.  What a killed process left half
                made is removed instead (and logged).
        """
        if self._claims == 0:
            self._lock.acquire()
            try:
                self._check_engine()
            except BaseException:
                self._lock.release()
                raise
        self._claims += 1

    def up(self) -> Deployment:
        """Claim the deployment, create volumes, restore backups, start the containers in order and wait until each
        is healthy.  SIGTERM and SIGHUP act as Ctrl-C meanwhile.

        Raises:
            BackendError: the deployment is up already or being brought up (nothing changed), an image is missing,
                a restore or a command failed, the engine refused a request, or a container never became healthy
                (its last log lines are in the message).  Nothing this call created is left behind then.
        """
        with terminations_interrupt(), self.claimed():
            try:
                self._create()
            except BaseException as exc:  # KeyboardInterrupt included: a half-started deployment is removed
                self._remove_own()
                if _is_engine_error(exc):
                    raise BackendError(f"the Docker engine refused a request while {self.spec.name} came up: "
                                       f"{_one_line(exc)}") from None
                raise
        return self

    def down(self) -> list[str]:
        """Remove the deployment's containers, network and volumes (whoever created them); return what was
        removed.  Ctrl-C and SIGTERM wait until the removal is over (a second Ctrl-C must not leave half a
        deployment behind)."""
        with _signals_held():
            return remove_deployment(self.spec.name, self.client)

    def _remove_own(self) -> list[str]:
        """Remove what this object created (its owner label), with signals held until it is done."""
        with _signals_held():
            return remove_deployment(self.spec.name, self.client, owner=self.owner)

    def status(self) -> list[ContainerStatus]:
        """The deployment's containers as the engine sees them now."""
        return deployment_status(self.spec.name, self.client)

    def origins(self) -> list[str]:
        """``http://localhost:<port>`` of the first published port of each container named in ``spec.origins``."""
        by_name = {status.name: status for status in self.status()}
        origins = []
        for name in self.spec.origins:
            status = by_name.get(name)
            if status is None or not status.ports:
                raise BackendError(f"{name} is not running: start it with `personal-envs backend up {self.spec.name}`")
            first = self.spec.container(name).ports
            port = status.ports.get(next(iter(first))) if first else next(iter(status.ports.values()))
            origins.append(f"http://localhost:{port}")
        return origins

    # ------------------------------------------------------------------------------------------ steps
    def _labels(self) -> dict[str, str]:
        return {LABEL: self.spec.name, OWNER_LABEL: self.owner}

    def _check_engine(self) -> None:
        """What is on the engine under this deployment's name and object names decides whether ``up`` may go on
        (see :meth:`claim`)."""
        name = self.spec.name
        self._refuse_foreign_names()
        found = _labelled(name, self.client)
        if not found.objects:
            return
        owners = {owner for owner in found.owners if owner != self.owner}
        running = [owner for owner in owners if owner_alive(owner)]
        if running:
            raise BackendError(f"{name} belongs to a running process (pid {owner_pid(running[0])}); nothing was "
                               "changed: wait for it to finish, or stop it and run the command again")
        containers = {c.name: c.status for c in found.containers}
        wanted = [c.name for c in self.spec.containers]
        if found.finished:
            if all(containers.get(c) == "running" for c in wanted):
                raise BackendError(f"{name} is already up ({len(wanted)} containers running); nothing was changed: "
                                   f"use it, or remove it first with `personal-envs backend down {name}`")
            broken = sum(containers.get(c) != "running" for c in wanted)
            raise BackendError(f"{name} is on the engine with {broken} of {len(wanted)} containers stopped or "
                               f"missing; nothing was changed: remove it with `personal-envs backend down {name}`, "
                               "then run the command again")
        elsewhere = [owner for owner in owners if owner_alive(owner) is None]
        if elsewhere:
            raise BackendError(f"part of {name} is on the engine, made by a process on {elsewhere[0].split('/')[0]};"
                               f" nothing was changed: remove it with `personal-envs backend down {name}` if that "
                               "process is gone")
        self.log(f"removing what an interrupted `up` of {name} left on the engine: {found.summary()}")
        with _signals_held():
            remove_deployment(name, self.client)

    def _refuse_foreign_names(self) -> None:
        """Containers, volumes or a network with this deployment's names that the deployment did not create
        (restoring a backup into someone's volume would destroy it)."""
        errors = importlib.import_module("docker.errors")
        spec = self.spec
        wanted = ([("container", c.name, self.client.containers) for c in spec.containers]
                  + [("volume", v, self.client.volumes) for v in spec.volumes])
        for kind, object_name, collection in wanted:
            try:
                found = collection.get(object_name)
            except errors.NotFound:
                continue
            labels = (found.attrs.get("Labels") if kind == "volume" else found.labels) or {}
            if labels.get(LABEL) != spec.name:
                raise BackendError(f"a {kind} named {object_name} exists that is not part of {spec.name}; nothing "
                                   f"was changed: remove or rename it (docker {kind} rm {object_name}) first")
        if spec.network:
            for network in self.client.networks.list(names=[spec.network]):
                if network.name == spec.network and (network.attrs.get("Labels") or {}).get(LABEL) != spec.name:
                    raise BackendError(f"a network named {spec.network} exists that is not part of {spec.name}; "
                                       f"nothing was changed: remove it (docker network rm {spec.network}) first")

    def _create(self) -> None:
        spec = self.spec
        self.ensure_images()
        network = None
        if spec.network:
            with _signals_held():  # an object the engine made is labelled before Ctrl-C can strike
                network = self.client.networks.create(spec.network, driver="bridge", labels=self._labels(),
                                                      check_duplicate=True)
        for volume in spec.volumes:
            with _signals_held():
                self.client.volumes.create(name=volume, labels=self._labels())
        for restore in spec.restores:
            if not restore.tarball.is_file():
                raise BackendError(f"backup {restore.tarball} is missing: run `personal-envs backend up {spec.name}` "
                                   "to download it")
            self.log(f"restoring {restore.tarball.name} into volume {restore.volume}")
            flags = "xzf" if restore.tarball.name.endswith(("gz", "tgz")) else "xf"
            self._helper(f"tar {flags} /backup/{restore.tarball.name} -C /volume", restore.volume,
                         str(restore.tarball.parent))
        for volume, path, local in spec.files:
            self.log(f"copying {local.name} to {volume}:{path}")
            self._helper(f"cp /backup/{local.name} /volume/{path}", volume, str(local.parent))
        for container in spec.containers:
            self._start(container, network)
        with _signals_held():  # the mark of a finished `up`
            self.client.volumes.create(name=f"{spec.name}.up", labels={**self._labels(), READY_LABEL: "1"})

    def ensure_images(self) -> None:
        """Make sure every image of the deployment is on the machine (pulling what is missing).

        Raises:
            BackendError: an image is missing and could not be pulled (one line naming it).
        """
        images = [c.image for c in self.spec.containers]
        if self.spec.restores or self.spec.files:
            images.append(self.spec.helper_image)
        for image in dict.fromkeys(images):
            self._ensure_image(image)

    def _ensure_image(self, image: str) -> None:
        errors = importlib.import_module("docker.errors")
        try:
            self.client.images.get(image)
            return
        except errors.ImageNotFound:
            pass
        self.log(f"pulling {image}")
        try:
            self.client.images.pull(image)
        except Exception as exc:  # noqa: BLE001 - one line, whatever the registry said
            raise BackendError(f"image {image} is not on this machine and could not be pulled "
                               f"({str(exc).splitlines()[0][:160]}); pull or build it first") from None

    def _helper(self, shell: str, volume: str, backup_dir: str) -> None:
        """Run ``shell`` in a throw-away helper container with ``volume`` at /volume and ``backup_dir`` at /backup."""
        with _signals_held():
            container = self.client.containers.create(
                self.spec.helper_image, ["sh", "-c", shell], labels=self._labels(),
                volumes={volume: {"bind": "/volume", "mode": "rw"}, backup_dir: {"bind": "/backup", "mode": "ro"}})
        try:
            container.start()
            result = container.wait(timeout=600)
            if int(result.get("StatusCode", 1)) != 0:
                raise BackendError(f"`{shell}` failed in {self.spec.helper_image}: {self._tail(container)}")
        finally:
            container.remove(force=True)

    def _start(self, spec: ContainerSpec, network: Any = None) -> None:
        self.log(f"starting {spec.name} ({spec.image})")
        volumes: dict[str, dict[str, str]] = {name: {"bind": mount, "mode": "rw"} for name, mount in spec.volumes.items()}
        volumes.update({path: {"bind": mount, "mode": "ro"} for path, mount in spec.binds.items()})
        labels = self._labels()
        if spec.name in self.spec.origins:
            labels[ORIGIN_LABEL] = str(self.spec.origins.index(spec.name))
        with _signals_held():
            container = self.client.containers.create(
                spec.image, list(spec.command) if spec.command else None, name=spec.name, labels=labels,
                environment=dict(spec.environment), volumes=volumes, privileged=spec.privileged,
                devices=[f"{d}:{d}" for d in spec.devices] or None,
                ports={f"{port}/tcp": ("127.0.0.1", host or None) for port, host in spec.ports.items()},
            )
        if network is not None:  # the network this deployment created, by id: never one of the same name
            network.connect(container, aliases=list(spec.aliases) or None)
        container.start()
        self._wait_healthy(spec, container)
        for command in spec.after_start:
            code, output = container.exec_run(list(command))
            if code != 0:
                text = output.decode("utf-8", "replace").strip().splitlines()[-3:] if output else []
                raise BackendError(f"{' '.join(command)!r} failed in {spec.name} (exit {code}): {' | '.join(text)}")
        if spec.after_start and spec.restart_after_commands:
            container.restart()
            self._wait_healthy(spec, container)

    def _wait_healthy(self, spec: ContainerSpec, container: Any) -> None:
        check = spec.health
        if check is None:
            return
        deadline = time.monotonic() + check.timeout_s
        while True:
            container.reload()
            if container.status in ("exited", "dead"):
                raise BackendError(f"{spec.name} exited while starting: {self._tail(container)}")
            if self._healthy(check, container):
                return
            if time.monotonic() > deadline:
                raise BackendError(f"{spec.name} was not healthy after {check.timeout_s:.0f} s: {self._tail(container)}")
            time.sleep(check.interval_s)

    @staticmethod
    def _healthy(check: Any, container: Any) -> bool:
        if check.command:
            code, _ = container.exec_run(list(check.command))
            if code != 0:
                return False
        if check.http_path is not None:
            ports = _published(container)
            port = ports.get(check.http_port) if check.http_port else next(iter(ports.values()), None)
            if port is None:
                return False
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{check.http_path}", timeout=5) as response:
                    return int(response.status) < 500
            except urllib.error.HTTPError as exc:
                return exc.code < 500
            except (OSError, ValueError):
                return False
        return True

    @staticmethod
    def _tail(container: Any) -> str:
        try:
            text = container.logs(tail=LOG_TAIL).decode("utf-8", "replace").strip()
        except Exception:  # noqa: BLE001 - logs are best effort
            text = ""
        return f"last log lines:\n{text}" if text else "no log output"


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


#: Signals that end a process the way Ctrl-C does while a deployment comes up (``kill``, a closed terminal).
TERMINATIONS = (signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def terminations_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise :class:`Terminated` (a ``KeyboardInterrupt``), so the cleanup
    that Ctrl-C runs also runs when the process is terminated; the previous handlers come back afterwards.  Outside
    the main thread (where handlers cannot be set) it does nothing."""
    if not _in_main_thread():
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise Terminated(signum)

    previous = {sig: signal.signal(sig, interrupt) for sig in TERMINATIONS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Defer SIGINT and SIGTERM for the duration of the block; a signal that came in is raised afterwards."""
    if not _in_main_thread():
        yield
        return
    received: list[int] = []
    previous = {sig: signal.signal(sig, lambda signum, frame: received.append(signum))
                for sig in (signal.SIGINT, *TERMINATIONS)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if received:
        if received[0] == signal.SIGINT:
            raise KeyboardInterrupt(f"signal {received[0]} while the engine was busy (the request finished first)")
        raise Terminated(received[0])


def _published(container: Any) -> dict[int, int]:
    """Container port -> host port of a container's published TCP ports."""
    ports: dict[int, int] = {}
    for key, bindings in (container.attrs.get("NetworkSettings", {}).get("Ports") or {}).items():
        if bindings and key.endswith("/tcp"):
            ports[int(key.split("/")[0])] = int(bindings[0]["HostPort"])
    return ports


def running_origins(name: str, client: Any | None = None) -> list[str]:
    """``http://localhost:<port>`` of deployment ``name``'s origin containers, in their order (the four WebMall
    shops, say), read from the engine: works from any process once ``personal-envs backend up NAME`` ran.

    Raises:
        BackendError: the deployment is not running.
    """
    client = client if client is not None else connect()
    containers = client.containers.list(filters={"label": [f"{LABEL}={name}", ORIGIN_LABEL]})
    ordered = sorted(containers, key=lambda c: int(c.labels.get(ORIGIN_LABEL, "0")))
    origins = []
    for container in ordered:
        ports = _published(container)
        if ports:
            origins.append(f"http://localhost:{ports[min(ports)]}")
    if not origins:
        raise BackendError(f"no running {name} deployment: start it with `personal-envs backend up {name}`")
    return origins


def running_container_origin(name: str, container: str, client: Any | None = None) -> str | None:
    """``http://localhost:<port>`` of the running container of deployment ``name`` whose name ends with
    ``container`` (its lowest published port), or None (say, the WebMall deployment's solution page,
    ``WebMall_frontend``)."""
    client = client if client is not None else connect()
    for found in client.containers.list(filters={"label": f"{LABEL}={name}"}):
        ports = _published(found)
        if found.name.endswith(container) and ports:
            return f"http://localhost:{ports[min(ports)]}"
    return None


def deployment_status(name: str, client: Any | None = None) -> list[ContainerStatus]:
    """The containers labelled with deployment ``name``, sorted by name."""
    client = client if client is not None else connect()
    containers = client.containers.list(all=True, filters={"label": f"{LABEL}={name}"})
    return sorted((ContainerStatus(c.name, c.status, _published(c)) for c in containers), key=lambda s: s.name)


@dataclass
class _Found:
    """The objects on the engine labelled with one deployment's name."""

    containers: list[Any]
    networks: list[Any]
    volumes: list[Any]

    @property
    def objects(self) -> list[Any]:
        return [*self.containers, *self.networks, *self.volumes]

    def _labels(self) -> list[dict[str, str]]:
        return [c.labels for c in self.containers] + [o.attrs.get("Labels") or {} for o in
                                                      (*self.networks, *self.volumes)]

    @property
    def owners(self) -> set[str]:
        return {str(label.get(OWNER_LABEL, "")) for label in self._labels()}

    @property
    def finished(self) -> bool:
        """True if an ``up`` finished: its marker volume is there, or the objects are older than owner labels
        (made by a release that had no marker, and taken as finished)."""
        return any(READY_LABEL in label or OWNER_LABEL not in label for label in self._labels())

    def summary(self) -> str:
        counts = [(len(self.containers), "container"), (len(self.networks), "network"),
                  (len(self.volumes), "volume")]
        return ", ".join(f"{n} {kind}{'s' if n != 1 else ''}" for n, kind in counts if n)


def _labelled(name: str, client: Any, owner: str | None = None) -> _Found:
    labels = [f"{LABEL}={name}"] + ([f"{OWNER_LABEL}={owner}"] if owner is not None else [])
    selector = {"label": labels}
    return _Found(client.containers.list(all=True, filters=selector), client.networks.list(filters=selector),
                  client.volumes.list(filters=selector))


def remove_deployment(name: str, client: Any | None = None, owner: str | None = None) -> list[str]:
    """Remove every container, network and volume labelled with deployment ``name`` (only those created by
    ``owner``, a :func:`~personal_envs.backends.claim.current_owner` value, if given); return their names."""
    client = client if client is not None else connect()
    errors = importlib.import_module("docker.errors")
    found = _labelled(name, client, owner)
    removed: list[str] = []
    for kind, items in (("container", found.containers), ("network", found.networks), ("volume", found.volumes)):
        for item in items:
            try:
                if kind == "container":
                    item.remove(force=True, v=True)
                elif kind == "volume":
                    item.remove(force=True)
                else:
                    item.remove()
            except errors.NotFound:  # removed meanwhile (by a `down` in another process, say)
                continue
            removed.append(f"{kind} {item.name}")
    return removed


def _is_engine_error(exc: BaseException) -> bool:
    """True for an error of the Docker SDK or of its HTTP layer (the engine refused a request or went away)."""
    errors = importlib.import_module("docker.errors")
    requests = importlib.import_module("requests")
    return isinstance(exc, errors.DockerException | requests.RequestException)


def _one_line(exc: BaseException) -> str:
    explanation = getattr(exc, "explanation", None) or str(exc)
    text = " ".join(str(explanation).split())
    return text[:300]
