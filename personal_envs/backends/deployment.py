"""Start, health-check and stop a :class:`~personal_envs.backends.spec.BackendSpec` with the Docker SDK.

Everything the layer creates (containers, volumes, the network) carries the label ``personal-envs.backend=<name>``,
so :func:`remove_deployment` finds it again from any process.  A failure or Ctrl-C while a deployment comes up
removes what was created and shows the failing container's last log lines; used as a context manager, the
deployment is removed on exit whatever happened.
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

from personal_envs.backends.engine import LABEL, ORIGIN_LABEL, BackendError, connect
from personal_envs.backends.spec import BackendSpec, ContainerSpec

#: Log lines shown when a container fails.
LOG_TAIL = 30


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
        self._previous_sigterm: Any = None

    # ------------------------------------------------------------------------------------------ lifecycle
    def __enter__(self) -> Deployment:
        self._previous_sigterm = _terminate_as_interrupt()
        try:
            return self.up()
        except BaseException:
            _restore_sigterm(self._previous_sigterm)
            raise

    def __exit__(self, *exc_info: object) -> None:
        try:
            self.down()
        finally:
            _restore_sigterm(self._previous_sigterm)

    def up(self) -> Deployment:
        """Create volumes, restore backups, start the containers in order and wait until each is healthy.

        Raises:
            BackendError: an image is missing, a restore or a command failed, or a container never became healthy
                (its last log lines are in the message).  Nothing of the deployment is left behind then.
        """
        try:
            self._create()
        except BaseException:  # KeyboardInterrupt included: a half-started deployment is removed
            self.down()
            raise
        return self

    def down(self) -> list[str]:
        """Remove the deployment's containers, network and volumes; return what was removed.  Ctrl-C and SIGTERM
        wait until the removal is over (a second Ctrl-C must not leave half a deployment behind)."""
        with _signals_held():
            return remove_deployment(self.spec.name, self.client)

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
        return {LABEL: self.spec.name}

    def _create(self) -> None:
        spec = self.spec
        self.ensure_images()
        if spec.network:
            self.client.networks.create(spec.network, driver="bridge", labels=self._labels())
        for volume in spec.volumes:
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
            self._start(container)

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

    def _start(self, spec: ContainerSpec) -> None:
        self.log(f"starting {spec.name} ({spec.image})")
        volumes: dict[str, dict[str, str]] = {name: {"bind": mount, "mode": "rw"} for name, mount in spec.volumes.items()}
        volumes.update({path: {"bind": mount, "mode": "ro"} for path, mount in spec.binds.items()})
        labels = self._labels()
        if spec.name in self.spec.origins:
            labels[ORIGIN_LABEL] = str(self.spec.origins.index(spec.name))
        container = self.client.containers.create(
            spec.image, list(spec.command) if spec.command else None, name=spec.name, labels=labels,
            environment=dict(spec.environment), volumes=volumes, privileged=spec.privileged,
            devices=[f"{d}:{d}" for d in spec.devices] or None,
            ports={f"{port}/tcp": ("127.0.0.1", host or None) for port, host in spec.ports.items()},
        )
        if self.spec.network:
            self.client.networks.get(self.spec.network).connect(container, aliases=list(spec.aliases) or None)
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


def _terminate_as_interrupt() -> Any:
    """Make SIGTERM raise :class:`KeyboardInterrupt` (so ``with Deployment(...)`` cleans up when the process is
    terminated); return the previous handler (``None`` outside the main thread, where handlers cannot be set)."""
    if not _in_main_thread():
        return None

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    return signal.signal(signal.SIGTERM, interrupt)


def _restore_sigterm(previous: Any) -> None:
    if previous is not None and _in_main_thread():
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Defer SIGINT and SIGTERM for the duration of the block; a signal that came in is raised afterwards."""
    if not _in_main_thread():
        yield
        return
    received: list[int] = []
    previous = {sig: signal.signal(sig, lambda signum, frame: received.append(signum))
                for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if received:
        raise KeyboardInterrupt(f"signal {received[0]} during cleanup (the cleanup finished first)")


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


def remove_deployment(name: str, client: Any | None = None) -> list[str]:
    """Remove every container, network and volume labelled with deployment ``name``; return their names."""
    client = client if client is not None else connect()
    removed: list[str] = []
    selector = {"label": f"{LABEL}={name}"}
    for container in client.containers.list(all=True, filters=selector):
        container.remove(force=True, v=True)
        removed.append(f"container {container.name}")
    for network in client.networks.list(filters=selector):
        network.remove()
        removed.append(f"network {network.name}")
    for volume in client.volumes.list(filters=selector):
        volume.remove(force=True)
        removed.append(f"volume {volume.name}")
    return removed
