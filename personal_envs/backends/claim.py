"""Who may bring a deployment up: a lock per deployment name, and the owner label of what a process creates.

``backend up`` must never touch a deployment that another process is bringing up or that is already up, and must
recover from one that a killed process left half made.  Two facts decide it:

* :class:`DeploymentLock`, an exclusive ``flock`` on ``<data home>/backends/<name>.lock`` held while a process
  brings the deployment up; the kernel releases it when the process dies, however it dies.
* :func:`current_owner`, the ``host/pid/start`` of the process, which every object it creates carries in its
  ``personal-envs.owner`` label; :func:`owner_alive` tells whether that process still runs (on this host; a pid
  reused by another process has another start time).
"""

from __future__ import annotations

import fcntl
import os
import socket
from pathlib import Path
from typing import IO

from personal_envs.backends.engine import BackendError
from personal_envs.core.download import data_home


def _start_ticks(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot, from ``/proc``), or ``None`` if it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()  # the command name in parentheses may hold spaces
    return fields[19] if len(fields) > 19 else None


def current_owner() -> str:
    """``host/pid/start`` of this process (the value of the owner label of what it creates)."""
    pid = os.getpid()
    return f"{socket.gethostname()}/{pid}/{_start_ticks(pid) or 0}"


def owner_pid(owner: str) -> int | None:
    """The pid of an owner label, or ``None`` if it is not one."""
    parts = owner.split("/")
    return int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else None


def owner_alive(owner: str) -> bool | None:
    """True if the owner process still runs, False if it is gone (or the label is not an owner), ``None`` if it
    ran on another host (this process cannot tell)."""
    parts = owner.split("/")
    if len(parts) != 3 or not parts[1].isdigit():
        return False
    host, pid, start = parts
    if host != socket.gethostname():
        return None
    return _start_ticks(int(pid)) == start


class DeploymentLock:
    """An exclusive lock on deployment ``name`` for this process (not re-entrant across instances).

    Raises from :meth:`acquire`:
        BackendError: another process holds it (the message names its pid).
    """

    def __init__(self, name: str, directory: Path | None = None) -> None:
        self.name = name
        self.path = (directory or data_home() / "backends") / f"{name}.lock"
        self._handle: IO[str] | None = None

    @property
    def held(self) -> bool:
        """True while this instance holds the lock."""
        return self._handle is not None

    def acquire(self) -> None:
        """Take the lock without waiting."""
        if self._handle is not None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = self.path.open("a+", encoding="utf-8")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            handle.close()
            raise BackendError(f"{self.name} is being brought up by another process (pid {holder}); nothing was "
                               f"changed: wait for it to finish, or stop it and run the command again") from None
        except BaseException:
            handle.close()
            raise
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._handle = handle

    def release(self) -> None:
        """Give the lock back (idempotent)."""
        handle, self._handle = self._handle, None
        if handle is not None:
            handle.close()  # closing the last descriptor releases the flock
