"""The Docker layer on the real engine: a stand-in WooCommerce shop image restored from backup tarballs the test
writes, brought up, health-checked and removed by :mod:`personal_envs.backends`, and ``WebMall-v0`` in external
mode scoring carts and checkouts on classic and block-cart markup.

Run with ``PERSONAL_ENVS_DOCKER=1 python3 -m pytest -q -m docker`` (the base image comes from
``scripts/docker_test_base.sh``).
"""

from __future__ import annotations

import io
import json
import signal
import subprocess
import sys
import tarfile
import textwrap
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from personal_envs.backends import (
    BackendError,
    BackendSpec,
    ContainerSpec,
    Deployment,
    HealthCheck,
    VolumeRestore,
)
from personal_envs.backends.deployment import deployment_status, running_origins
from personal_envs.backends.engine import LABEL
from tests.backends.images import build_on_base
from tests.conftest import docker_client_or_skip

pytestmark = pytest.mark.docker

CLIENT = docker_client_or_skip()
STANDIN = "personal-envs-test/webmall-standin:2"
HERE = Path(__file__).parent


def leftovers(name: str) -> list[str]:
    """Everything on the engine that still carries deployment ``name``'s label."""
    selector = {"label": f"{LABEL}={name}"}
    return ([f"container {c.name}" for c in CLIENT.containers.list(all=True, filters=selector)]
            + [f"volume {v.name}" for v in CLIENT.volumes.list(filters=selector)]
            + [f"network {n.name}" for n in CLIENT.networks.list(filters=selector)])


def build_standin_image() -> str:
    """The stand-in shop image: Debian's python3 and the shop script; its content comes from a volume."""
    dockerfile = textwrap.dedent("""\
        FROM {BASE}
        RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends python3 >/dev/null \\
            && rm -rf /var/lib/apt/lists/*
        COPY standin_shop.py /opt/standin_shop.py
        CMD ["python3", "/opt/standin_shop.py", "/srv/shop/shop.json"]
    """)
    return build_on_base(CLIENT, STANDIN, dockerfile, {"standin_shop.py": (HERE / "standin_shop.py").read_bytes()})


@pytest.fixture(scope="module")
def standin_image() -> str:
    """The stand-in shop image (:func:`build_standin_image`)."""
    return build_standin_image()


def write_backup(directory: Path, name: str, shop: dict[str, Any]) -> Path:
    """A backup tarball holding one shop's content, as the official backups hold a shop's WordPress volume."""
    path = directory / f"{name}.tar.gz"
    data = json.dumps(shop).encode()
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("shop.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return path


def shop_spec(name: str, image: str, backups: list[Path], health_timeout_s: float = 60.0) -> BackendSpec:
    containers, volumes, restores = [], [], []
    for index, backup in enumerate(backups, start=1):
        volume = f"{name}-shop{index}"
        volumes.append(volume)
        restores.append(VolumeRestore(volume, backup))
        containers.append(ContainerSpec(f"{name}-shop{index}", image, ports={8080: 0}, volumes={volume: "/srv/shop"},
                                        health=HealthCheck(http_path="/", http_port=8080, timeout_s=health_timeout_s)))
    return BackendSpec(name, tuple(containers), volumes=tuple(volumes), restores=tuple(restores), helper_image=image,
                       network=f"{name}-net", origins=tuple(c.name for c in containers))


def unique(prefix: str) -> str:
    return f"pe-test-{prefix}-{uuid.uuid4().hex[:6]}"


def test_up_restores_backups_health_checks_and_down_leaves_nothing(standin_image: str, tmp_path: Path) -> None:
    import urllib.request

    name = unique("life")
    products = [{"id": 1, "slug": "blue-kettle", "name": "Blue Kettle 1.7 l", "price": 19.5}]
    backup = write_backup(tmp_path, "shop", {"title": "Kettle World", "cart": "classic", "products": products})
    with Deployment(shop_spec(name, standin_image, [backup])) as deployment:
        [origin] = running_origins(name, CLIENT)
        assert origin == deployment.origins()[0]
        page = urllib.request.urlopen(f"{origin}/product/blue-kettle/", timeout=10).read().decode()
        assert "Blue Kettle 1.7 l" in page and "Kettle World" in page  # content from the restored tarball
        [status] = deployment_status(name, CLIENT)
        assert status.status == "running" and list(status.ports) == [8080]
        assert sorted(leftovers(name)) == sorted([f"container {name}-shop1", f"volume {name}-shop1",
                                                  f"network {name}-net", f"volume {name}.up"])  # up's mark
    assert leftovers(name) == []


def test_a_container_that_dies_while_starting_shows_its_log_and_leaves_nothing(standin_image: str,
                                                                               tmp_path: Path) -> None:
    name = unique("fail")
    dying = ContainerSpec(f"{name}-dying", standin_image, command=("sh", "-c", "echo database is corrupt; exit 3"),
                          ports={8080: 0}, health=HealthCheck(http_path="/", http_port=8080, timeout_s=30))
    spec = BackendSpec(name, (dying,), volumes=(f"{name}-data",))
    with pytest.raises(BackendError, match="database is corrupt"):
        Deployment(spec, CLIENT).up()
    assert leftovers(name) == []


def test_a_missing_backup_and_a_missing_image_fail_in_one_line_and_leave_nothing(standin_image: str,
                                                                                 tmp_path: Path) -> None:
    name = unique("missing")
    spec = shop_spec(name, standin_image, [tmp_path / "absent.tar.gz"])
    with pytest.raises(BackendError, match="absent.tar.gz is missing"):
        Deployment(spec, CLIENT).up()
    assert leftovers(name) == []
    ghost = BackendSpec(name, (ContainerSpec(f"{name}-x", "personal-envs-test/no-such-image:0"),))
    with pytest.raises(BackendError) as error:
        Deployment(ghost, CLIENT).up()
    assert "no-such-image" in str(error.value) and "\n" not in str(error.value)
    assert leftovers(name) == []


def interrupted_deployment(name: str, image: str, backup: Path, ending: str) -> subprocess.Popen[str]:
    """A process bringing up a two-container deployment whose second container never gets healthy, then
    running ``ending`` (Python)."""
    script = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(HERE.parents[1])!r})
        from pathlib import Path
        from personal_envs.backends import BackendSpec, ContainerSpec, Deployment, HealthCheck, VolumeRestore
        ok = ContainerSpec("{name}-ok", "{image}", ports={{8080: 0}}, volumes={{"{name}-v": "/srv/shop"}},
                           health=HealthCheck(http_path="/", http_port=8080))
        never = ContainerSpec("{name}-never", "{image}", command=("sleep", "600"), ports={{8080: 0}},
                              health=HealthCheck(http_path="/", http_port=8080, timeout_s=600))
        spec = BackendSpec("{name}", (ok, never), volumes=("{name}-v",),
                           restores=(VolumeRestore("{name}-v", Path({str(backup)!r})),), helper_image="{image}")
    """) + textwrap.dedent(ending)
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_container(process: subprocess.Popen[str], container: str) -> None:
    deadline = time.monotonic() + 120
    while not any(c.name == container and c.status == "running" for c in CLIENT.containers.list(
            filters={"name": container})):
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        assert time.monotonic() < deadline, f"{container} never ran"
        time.sleep(0.5)


@pytest.mark.parametrize("presses", [1, 4])
def test_ctrl_c_while_coming_up_leaves_nothing(standin_image: str, tmp_path: Path, presses: int) -> None:
    name = unique("sigint")
    backup = write_backup(tmp_path, "shop", {"title": "S", "cart": "classic", "products": []})
    process = interrupted_deployment(name, standin_image, backup, "Deployment(spec).up()\n")
    try:
        wait_for_container(process, f"{name}-never")
        for _ in range(presses):  # a second Ctrl-C arrives while the cleanup runs: the cleanup finishes anyway
            process.send_signal(signal.SIGINT)
            time.sleep(0.15)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode != 0 and "KeyboardInterrupt" in (process.stderr.read() if process.stderr else "")
    assert leftovers(name) == []


def test_sigterm_inside_the_context_manager_leaves_nothing(standin_image: str, tmp_path: Path) -> None:
    name = unique("sigterm")
    backup = write_backup(tmp_path, "shop", {"title": "S", "cart": "classic", "products": []})
    ok_only = """
        spec = BackendSpec(spec.name, (ok,), volumes=spec.volumes, restores=spec.restores, helper_image=spec.helper_image)
        with Deployment(spec):
            print("up", flush=True)
            time.sleep(600)
    """
    process = interrupted_deployment(name, standin_image, backup, ok_only)
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "up"
        assert leftovers(name) != []
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode != 0 and leftovers(name) == []


# ------------------------------------------------------------------------------------------------ WebMall external


@pytest.fixture(scope="module", params=["classic", "block"])
def webmall_shops(request: pytest.FixtureRequest, standin_image: str,
                  tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, list[str]]]:
    """The four WebMall shops as stand-in containers with ``classic`` or ``block`` cart markup, each holding the
    products of the project's shipped catalogue, restored from a tarball per shop."""
    from personal_envs.webmall.shipped_catalog import shipped_products

    directory = tmp_path_factory.mktemp("webmall-backups")
    backups = []
    for index, products in enumerate(shipped_products(), start=1):
        shop = {"title": f"Shop {index}", "cart": request.param,
                "products": [{"id": n, "slug": p.slug, "name": p.name, "price": p.price}
                             for n, p in enumerate(products, start=1)]}
        backups.append(write_backup(directory, f"wordpress_data_shop{index}", shop))
    spec = shop_spec(unique("webmall"), standin_image, backups)
    with Deployment(spec, CLIENT) as deployment:
        yield request.param, spec.name, deployment.origins()


def run_oracle(env: Any, task_index: int) -> tuple[float, dict[str, Any]]:
    from personal_envs.webmall.oracle import WebMallOracle

    obs, info = env.reset(seed=0, options={"task_index": task_index})
    policy = WebMallOracle(env)
    policy.reset(obs, info)
    reward, terminated, truncated = 0.0, False, False
    while not (terminated or truncated):
        obs, reward, terminated, truncated, info = env.step(policy.act(obs, info))
    assert policy.failures == []
    return float(reward), info


def find_task(env: Any, kind: str, shops: set[int]) -> int:
    """A task of ``kind`` ("cart" / "checkout") whose expected offers lie in exactly the shops ``shops``."""
    shops_of = env.cluster.shop_origins
    for index, task in enumerate(env.tasks):
        wanted = task.requires_checkout if kind == "checkout" else (task.requires_cart and not task.requires_checkout)
        urls = task.expected_urls(env.origins)
        owners = {shops_of.index(url.split("/product/")[0]) + 1 for url in urls}
        if wanted and urls and owners == shops:
            return index
    pytest.skip(f"no {kind} task with offers in shops {shops}")


def test_webmall_external_scores_a_cart_and_a_checkout(webmall_shops: tuple[str, str, list[str]]) -> None:
    from personal_envs.webmall.env import WebMallEnv
    from personal_envs.webmall.evaluator import normalize_url
    from personal_envs.webmall.world import cart_item_paths

    markup, deployment, origins = webmall_shops
    env = WebMallEnv(data_dir="shipped", tasks="generated", shop_urls=f"docker:{deployment}")  # origins read from the engine
    try:
        assert env.cluster.shop_origins == origins
        cart_task = find_task(env, "cart", {1, 3})  # offers in two shops: two carts to read
        reward, info = run_oracle(env, cart_task)
        assert reward == 1.0, info["metrics"]
        assert env.world.carted_urls() == {normalize_url(u) for u in env.expected_urls}
        # the cart page's raw HTML, fetched with the episode's cookies: a block cart names no item in it (a script
        # fills it from the Store API), so only the rendered page gives the cart; the classic cart has its rows
        raw = env.session.call(lambda page: page.context.request.get(f"{origins[0]}/cart/").text())
        assert bool(cart_item_paths(raw)) == (markup == "classic") and "/product/" in raw  # cross-sells are links
        checkout_task = find_task(env, "checkout", {3})
        reward, info = run_oracle(env, checkout_task)
        assert reward == 1.0, info["metrics"]
        assert env.world.ordered_urls(env.task.user_details) == {normalize_url(u) for u in env.expected_urls}
        # a near miss: the right offer in the cart of the wrong shop is not the expected cart
        env.reset(seed=0, options={"task_index": cart_task})
        wrong = f"{origins[1]}/product/{env.expected_urls[0].split('/product/')[1]}"
        env.step({"action_type": "goto", "url": wrong})
        assert normalize_url(wrong) not in env.world.carted_urls()
    finally:
        env.close()
