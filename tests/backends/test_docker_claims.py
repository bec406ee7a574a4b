"""``backend up`` against what is already on the real engine: SIGTERM or SIGHUP while it comes up, a second ``up``
while one runs or after one finished, an ``up`` after a killed one, and objects of the same names that are not the
deployment's.  Each ``up`` is a process running :func:`personal_envs.backends.cli.bring_up`, the function behind
``personal-envs backend up`` (the command itself starts the official images, which cannot be pulled here).

``PERSONAL_ENVS_DOCKER=1 python3 -m pytest -q -m docker`` (base image: ``scripts/docker_test_base.sh``).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from personal_envs.backends.engine import LABEL, OWNER_LABEL
from tests.backends.test_docker_webmall import CLIENT, build_standin_image, leftovers, unique, write_backup

pytestmark = pytest.mark.docker

ROOT = Path(__file__).resolve().parents[2]


def start_up(name: str, image: str, backup: Path, *, second: str, prepare: str = "None") -> subprocess.Popen[str]:
    """A process bringing up deployment ``name``: a shop restored from ``backup`` and a second container running
    ``second`` (shell) that is healthy once it serves HTTP on 8080."""
    script = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(ROOT)!r})
        from pathlib import Path
        from personal_envs.backends import BackendSpec, ContainerSpec, Deployment, HealthCheck, VolumeRestore
        from personal_envs.backends.cli import bring_up
        shop = ContainerSpec("{name}-shop", "{image}", ports={{8080: 0}}, volumes={{"{name}-v": "/srv/shop"}},
                             health=HealthCheck(http_path="/", http_port=8080))
        second = ContainerSpec("{name}-second", "{image}", command=("sh", "-c", {second!r}), ports={{8080: 0}},
                               health=HealthCheck(http_path="/", http_port=8080, timeout_s=600))
        spec = BackendSpec("{name}", (shop, second), volumes=("{name}-v",), network="{name}-net",
                           restores=(VolumeRestore("{name}-v", Path({str(backup)!r})),), helper_image="{image}",
                           origins=("{name}-shop",))
        def prepare():
            print("preparing", flush=True)
            {prepare}
        sys.exit(bring_up(Deployment(spec, log=lambda line: print(line, flush=True)), prepare,
                          lambda deployment: print("up", flush=True)))
    """)
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


#: The stand-in shop with an empty catalogue of its own.
SERVE = ("echo '{\"title\": \"T\", \"cart\": \"classic\", \"products\": []}' > /tmp/shop.json; "
         "exec python3 /opt/standin_shop.py /tmp/shop.json")
NEVER = "sleep 600"


def running(container: str) -> bool:
    return any(c.name == container and c.status == "running"
               for c in CLIENT.containers.list(filters={"name": container}))


def wait_until(condition: Callable[[], bool], process: subprocess.Popen[str], what: str,
               timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert process.poll() is None, f"{what}: the process ended: {process.communicate()}"
        assert time.monotonic() < deadline, f"{what} never happened"
        time.sleep(0.3)


def finish(process: subprocess.Popen[str], timeout_s: float = 120) -> tuple[int, str, str]:
    try:
        out, err = process.communicate(timeout=timeout_s)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    return process.returncode, out, err


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


@pytest.fixture(scope="module")
def standin_image() -> str:
    return build_standin_image()


@pytest.fixture
def backup(tmp_path: Path) -> Path:
    return write_backup(tmp_path, "shop", {"title": "S", "cart": "classic", "products": []})


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_termination_while_up_comes_up_leaves_nothing(standin_image: str, backup: Path, signum: int) -> None:
    name = unique("term")
    process = start_up(name, standin_image, backup, second=NEVER)
    try:
        wait_until(lambda: running(f"{name}-second"), process, "the second container")
        assert sorted(leftovers(name)) == sorted([f"container {name}-shop", f"container {name}-second",
                                                  f"volume {name}-v", f"network {name}-net"])
        process.send_signal(signum)
        code, _out, err = finish(process, 60)
    finally:
        if process.poll() is None:
            process.kill()
    assert code == 128 + signum
    line = one_line(err)
    assert line.startswith(f"interrupted by {signal.Signals(signum).name}: {name} was not brought up"), line
    assert leftovers(name) == []


def test_a_termination_during_the_downloads_leaves_nothing_and_frees_the_claim(standin_image: str,
                                                                                backup: Path) -> None:
    name = unique("dl")
    process = start_up(name, standin_image, backup, second=SERVE, prepare="time.sleep(600)")
    assert process.stdout is not None and process.stdout.readline().strip() == "preparing"
    process.send_signal(signal.SIGTERM)
    code, _out, err = finish(process, 60)
    assert code == 128 + signal.SIGTERM and "was not brought up" in one_line(err)
    assert leftovers(name) == []
    again = start_up(name, standin_image, backup, second=SERVE)  # the claim was released with the process
    code, out, err = finish(again)
    try:
        assert code == 0 and out.splitlines()[-1] == "up", (out, err)
    finally:
        from personal_envs.backends.deployment import remove_deployment

        remove_deployment(name, CLIENT)


def test_a_second_up_while_one_comes_up_is_refused_and_destroys_nothing(standin_image: str, backup: Path) -> None:
    name = unique("second")
    first = start_up(name, standin_image, backup, second=f"sleep 8; {SERVE}")  # healthy after 8 s
    try:
        wait_until(lambda: running(f"{name}-second"), first, "the second container")
        before = {c.name: c.id for c in CLIENT.containers.list(filters={"label": f"{LABEL}={name}"})}
        code, _out, err = finish(start_up(name, standin_image, backup, second=SERVE))
        assert code == 1
        line = one_line(err)
        assert line.startswith(f"error: {name} is being brought up by another process (pid {first.pid})"), line
        assert "nothing was changed" in line
        code, out, err = finish(first)
        assert code == 0 and out.splitlines()[-1] == "up", (out, err)
        after = {c.name: c.id for c in CLIENT.containers.list(filters={"label": f"{LABEL}={name}"})}
        assert after == before and all(running(container) for container in after)
    finally:
        if first.poll() is None:
            first.kill()
        from personal_envs.backends.deployment import remove_deployment

        remove_deployment(name, CLIENT)
    assert leftovers(name) == []


def test_a_second_up_of_a_deployment_that_is_up_is_refused_and_restores_nothing(standin_image: str,
                                                                                 backup: Path) -> None:
    from personal_envs.backends.deployment import remove_deployment

    name = unique("again")
    try:
        code, out, err = finish(start_up(name, standin_image, backup, second=SERVE))
        assert code == 0 and out.splitlines()[-1] == "up", (out, err)
        shop = CLIENT.containers.get(f"{name}-shop")
        assert shop.exec_run(["sh", "-c", "echo live > /srv/shop/marker"]).exit_code == 0  # state of the live run
        ids = {c.name: c.id for c in CLIENT.containers.list(filters={"label": f"{LABEL}={name}"})}
        code, out, err = finish(start_up(name, standin_image, backup, second=SERVE))
        assert code == 1 and "restoring" not in out
        line = one_line(err)
        assert line == (f"error: {name} is already up (2 containers running); nothing was changed: use it, or "
                        f"remove it first with `personal-envs backend down {name}`")
        assert {c.name: c.id for c in CLIENT.containers.list(filters={"label": f"{LABEL}={name}"})} == ids
        assert shop.exec_run(["cat", "/srv/shop/marker"]).output == b"live\n"  # the volume was not restored again
    finally:
        remove_deployment(name, CLIENT)
    assert leftovers(name) == []


def test_an_up_after_a_killed_one_removes_its_leftovers_and_comes_up(standin_image: str, backup: Path) -> None:
    from personal_envs.backends.deployment import remove_deployment

    name = unique("killed")
    killed = start_up(name, standin_image, backup, second=NEVER)
    try:
        wait_until(lambda: running(f"{name}-second"), killed, "the second container")
        killed.kill()  # SIGKILL: no cleanup at all
        killed.communicate()
        half = leftovers(name)
        assert f"network {name}-net" in half and f"volume {name}-v" in half
        # what older versions could leave as well: a second network of the same name
        CLIENT.networks.create(f"{name}-net", labels={LABEL: name, OWNER_LABEL: f"{killed.pid}-gone"})
        assert len(CLIENT.networks.list(names=[f"{name}-net"])) == 2
        code, out, err = finish(start_up(name, standin_image, backup, second=SERVE))
        assert code == 0 and "Traceback" not in err, (out, err)
        assert out.splitlines()[0].startswith(f"removing what an interrupted `up` of {name} left on the engine: "
                                              "2 containers, 2 networks, 1 volume"), out
        assert out.splitlines()[-1] == "up"
        assert [n.name for n in CLIENT.networks.list(names=[f"{name}-net"])] == [f"{name}-net"]
        assert running(f"{name}-shop") and running(f"{name}-second")
    finally:
        if killed.poll() is None:
            killed.kill()
        remove_deployment(name, CLIENT)
    assert leftovers(name) == []


def test_objects_of_the_same_names_that_are_not_the_deployments_are_left_alone(standin_image: str,
                                                                               backup: Path) -> None:
    name = unique("foreign")
    volume = CLIENT.volumes.create(name=f"{name}-v")  # someone's own volume, no label
    try:
        CLIENT.containers.run(standin_image, ["sh", "-c", "echo mine > /data/file"], remove=True,
                              volumes={volume.name: {"bind": "/data", "mode": "rw"}})
        code, out, err = finish(start_up(name, standin_image, backup, second=SERVE))
        assert code == 1 and "restoring" not in out
        line = one_line(err)
        assert line.startswith(f"error: a volume named {name}-v exists that is not part of {name}; nothing was "
                               "changed"), line
        assert leftovers(name) == []
        content = CLIENT.containers.run(standin_image, ["cat", "/data/file"], remove=True,
                                        volumes={volume.name: {"bind": "/data", "mode": "ro"}})
        assert content == b"mine\n"
    finally:
        volume.remove(force=True)
