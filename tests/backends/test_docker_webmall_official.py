"""The official WebMall deployment's flow, end to end on the real engine, with stand-ins only where this machine
cannot reach the originals: the eight backups come from a local HTTP server (downloaded resumably), the four
official images are replaced by one stand-in (``standin_roles.py``), and the official ``wp-config.php`` files by
test-written ones in their format.  Everything else is what ``personal-envs backend up webmall`` runs: restores into
the official volumes, each shop's ``wp-config.php`` with its port, Elasticsearch health, ``wp core is-installed``,
the URL rewrite, the restart, the frontend, and the origins ``shop_urls="docker:<name>"`` reads."""

from __future__ import annotations

import functools
import io
import socket
import tarfile
import textwrap
import threading
import urllib.request
import uuid
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from personal_envs.backends import Deployment, webmall
from personal_envs.backends.deployment import running_container_origin, running_origins
from tests.backends.images import build_on_base
from tests.backends.test_docker_webmall import leftovers
from tests.conftest import docker_client_or_skip

pytestmark = pytest.mark.docker

CLIENT = docker_client_or_skip()
ROLES = "personal-envs-test/webmall-roles:1"
HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def roles_image() -> str:
    dockerfile = textwrap.dedent("""\
        FROM {BASE}
        RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends python3 >/dev/null \\
            && rm -rf /var/lib/apt/lists/*
        COPY standin_roles.py /opt/standin_roles.py
        RUN sed -i '1i #!/usr/bin/python3' /opt/standin_roles.py && chmod +x /opt/standin_roles.py \\
            && ln -s /opt/standin_roles.py /usr/local/bin/wp
        CMD ["python3", "/opt/standin_roles.py"]
    """)
    return build_on_base(CLIENT, ROLES, dockerfile, {"standin_roles.py": (HERE / "standin_roles.py").read_bytes()})


def write_tar(path: Path, files: dict[str, str]) -> None:
    with tarfile.open(path, "w:gz") as archive:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return str(response.read().decode())


def test_the_official_flow_restores_configures_rewrites_and_restarts(roles_image: str, tmp_path: Path) -> None:
    published = tmp_path / "published"  # what data.dws.informatik.uni-mannheim.de serves
    published.mkdir()
    for n in (1, 2, 3, 4):
        deployed = f"https://webmall-{n}.informatik.uni-mannheim.de/"
        write_tar(published / f"wordpress_data_shop{n}.tar.gz",
                  {"index.html": f"<a href='{deployed}product/offer-{n}/'>offer</a>", "wp-content/up.txt": "upload"})
        write_tar(published / f"mariadb_data_shop{n}.tar.gz", {"data/marker": f"db of shop {n}"})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(SimpleHTTPRequestHandler, directory=str(published)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    directory = tmp_path / "webmall-docker"
    (directory / "config").mkdir(parents=True)
    for n in (1, 2, 3, 4):  # the official files' format: DB host by service name, URLs with the port placeholder
        (directory / "config" / f"shop_{n}.php").write_text(
            f"<?php\ndefine( 'DB_HOST', 'mariadb_shop{n}:3306' );\n"
            f"define( 'WP_HOME', 'http://localhost:SHOP{n}_PORT_PLACEHOLDER' );\n")
    (directory / "config" / "index.html").write_text("<h1>Submit Final Result</h1>")
    shop_ports = [free_port() for _ in range(4)]
    try:
        for name in webmall.backup_names():
            from personal_envs.backends.fetch import download_resumable

            download_resumable(f"http://127.0.0.1:{httpd.server_address[1]}/{name}", directory / "backup" / name,
                               progress=lambda _: None)
    finally:
        httpd.shutdown()
        httpd.server_close()
    webmall.write_configs(directory, shop_ports)
    name = f"pe-test-official-{uuid.uuid4().hex[:6]}"
    frontend, search = free_port(), free_port()
    spec = webmall.spec(directory, images=dict.fromkeys(("frontend", "elasticsearch", "mariadb", "wordpress",
                                                         "helper"), roles_image),
                        shop_ports=shop_ports, frontend_port=frontend, elasticsearch_port=search, name=name,
                        prefix=f"{name}-")
    with Deployment(spec, CLIENT) as deployment:
        origins = [f"http://localhost:{port}" for port in shop_ports]
        assert deployment.origins() == origins == running_origins(name, CLIENT)
        assert "Submit Final Result" in get(f"http://127.0.0.1:{frontend}/")
        # the env's solution page with shop_urls="docker:<name>": the deployment's own frontend
        assert running_container_origin(name, "WebMall_frontend", CLIENT) == f"http://localhost:{frontend}"
        assert '"status":"green"' in get(f"http://127.0.0.1:{search}/_cluster/health")
        for n, (port, origin) in enumerate(zip(shop_ports, origins, strict=True), start=1):
            page = get(f"http://127.0.0.1:{port}/index.html")
            assert f"href='{origin}product/offer-{n}/'" in page and "uni-mannheim" not in page  # URL rewrite
            assert get(f"http://127.0.0.1:{port}/wp-content/up.txt") == "upload"  # the WordPress volume restored
            config = get(f"http://127.0.0.1:{port}/wp-config.php")
            assert f"define( 'WP_HOME', 'http://localhost:{port}' );" in config and "PLACEHOLDER" not in config
            assert get(f"http://127.0.0.1:{port}/starts.log").count("start") == 2  # restarted after the rewrite
            assert "--all-tables" in get(f"http://127.0.0.1:{port}/rewrites.log")
            database = CLIENT.containers.get(f"{name}-WebMall_mariadb_shop{n}")
            code, out = database.exec_run(["cat", "/bitnami/mariadb/data/marker"])
            assert code == 0 and out.decode() == f"db of shop {n}"  # the MariaDB volume restored
            shop = CLIENT.containers.get(f"{name}-WebMall_wordpress_shop{n}")
            probe = ("import socket; [socket.gethostbyname(h) for h in "
                     f"('mariadb_shop{n}', 'WebMall_elasticsearch')]")  # the names the official config uses
            assert shop.exec_run(["python3", "-c", probe])[0] == 0
    assert leftovers(name) == []
