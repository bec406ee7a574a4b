"""The claim on a deployment without an engine: the lock between processes and the owner of what a process makes."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from personal_envs.backends import BackendError
from personal_envs.backends.claim import DeploymentLock, current_owner, owner_alive, owner_pid

ROOT = Path(__file__).resolve().parents[2]


def holder(directory: Path) -> subprocess.Popen[str]:
    """A process that takes the lock of deployment ``demo`` in ``directory`` and keeps it."""
    script = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(ROOT)!r})
        from pathlib import Path
        from personal_envs.backends.claim import DeploymentLock
        lock = DeploymentLock("demo", Path({str(directory)!r}))
        lock.acquire()
        print("held", flush=True)
        time.sleep(600)
    """)
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)


def test_a_second_process_cannot_take_the_lock_until_the_first_dies(tmp_path: Path) -> None:
    process = holder(tmp_path)
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "held"
        lock = DeploymentLock("demo", tmp_path)
        with pytest.raises(BackendError) as error:
            lock.acquire()
        assert str(error.value).startswith(f"demo is being brought up by another process (pid {process.pid})")
        assert "\n" not in str(error.value) and not lock.held
        process.send_signal(signal.SIGKILL)  # no cleanup: the kernel releases the lock
        process.wait(timeout=30)
        lock.acquire()
        assert lock.held
        lock.release()
        assert not lock.held
    finally:
        if process.poll() is None:
            process.kill()


def test_the_owner_label_tells_a_live_process_from_a_gone_one() -> None:
    me = current_owner()
    assert owner_alive(me) is True and owner_pid(me) is not None
    done = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                           "from personal_envs.backends.claim import current_owner; print(current_owner())",
                           str(ROOT)], capture_output=True, text=True, timeout=60, check=True)
    gone = done.stdout.strip()
    assert owner_pid(gone) is not None and owner_alive(gone) is False  # the process has exited
    host, pid, _start = me.split("/")
    assert owner_alive(f"{host}/{pid}/1") is False  # the same pid with another start time: a reused pid
    assert owner_alive(f"elsewhere-{host}/{pid}/1") is None  # another machine's process: cannot tell
    assert owner_alive("") is False and owner_pid("garbage") is None
