"""The official WebMall v1.0 deployment (``docker_all/`` of wbsg-uni-mannheim/WebMall at 39fdac3), as a
:class:`~personal_envs.backends.spec.BackendSpec`.

Facts taken from the official files (reimplemented, not copied): four Bitnami WordPress + WooCommerce shops on
ports 8081-8084, each with its own Bitnami MariaDB, one Elasticsearch 8.10.2 (single node, no security, 512 MB heap)
that the shops' ElasticPress uses with the index prefixes ``shop1_`` .. ``shop4_``, and an nginx frontend serving
the solution page on 8085.  ``restore_all_and_deploy_local.sh`` downloads eight backup tarballs (the WordPress and
the MariaDB volume of each shop), unpacks each into its named volume with a helper container, copies the shop's
``wp-config.php`` (the official file, its port placeholder replaced), starts everything, and rewrites the shops'
URLs from ``https://webmall-N.informatik.uni-mannheim.de/`` to ``http://localhost:<port>`` with ``wp search-replace``
before restarting.  The publisher gives no checksums for the backups; :mod:`personal_envs.backends.fetch` records
the first download's.  The official ``wp-config.php`` files and ``index.html`` are fetched at the pinned commit
and verified against their Git blob ids.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from personal_envs.backends.fetch import download_resumable
from personal_envs.backends.spec import BackendSpec, ContainerSpec, HealthCheck, VolumeRestore
from personal_envs.core.download import RemoteFile, data_home, fetch_files

NAME = "webmall"
COMMIT = "39fdac3b824c175fffe15183d6682e6c3bc2e7d3"
RAW = f"https://raw.githubusercontent.com/wbsg-uni-mannheim/WebMall/{COMMIT}/docker_all"
BACKUP_URL = "https://data.dws.informatik.uni-mannheim.de/webmall/backup"
SHOP_PORTS = (8081, 8082, 8083, 8084)
FRONTEND_PORT = 8085
ELASTICSEARCH_PORT = 9200
WORDPRESS_PATH = "/opt/bitnami/wordpress"
IMAGES = {
    "frontend": "nginx:latest",
    "elasticsearch": "docker.elastic.co/elasticsearch/elasticsearch:8.10.2",
    "mariadb": "bitnami/mariadb:latest",
    "wordpress": "bitnami/wordpress:latest",
    "helper": "busybox",
}
#: Official files read at deploy time, with their Git blob ids at ``COMMIT``.
CONFIG_FILES = [
    RemoteFile(f"{RAW}/deployed_wp_config_local/shop_{n}.php", f"config/shop_{n}.php", None, blob)
    for n, blob in zip((1, 2, 3, 4), ("2eef746159bd4b7754df399c33bf1c85721205d5",
                                      "93b23e3d4fa14075745abcad1685e7e2214ce5d5",
                                      "403e769a405a8da53bd0645defe26960a84df15b",
                                      "7f8705938bd2d5ecd13da65dc6a314f9d37b6a79"), strict=True)
] + [RemoteFile(f"{RAW}/index.html", "config/index.html", None, "8bccf7a1cfb0f734e4ec26dc568b974ee23922ee")]


def backup_names() -> list[str]:
    """The eight official backup tarballs."""
    return [f"{kind}_data_shop{n}.tar.gz" for kind in ("mariadb", "wordpress") for n in (1, 2, 3, 4)]


def work_dir() -> Path:
    """Where the deployment's downloads live: ``<data home>/webmall-docker``."""
    return data_home() / "webmall-docker"


def prepare(directory: Path | None = None, progress: Callable[[str], None] = print) -> Path:
    """Download (resumably) the backups and the official config files; write the port-specific ``wp-config.php``."""
    directory = directory or work_dir()
    fetch_files(CONFIG_FILES, directory, progress=progress)
    for name in backup_names():
        download_resumable(f"{BACKUP_URL}/{name}", directory / "backup" / name, progress=progress)
    for n, port in zip((1, 2, 3, 4), SHOP_PORTS, strict=True):
        text = (directory / "config" / f"shop_{n}.php").read_text(encoding="utf-8")
        (directory / "deploy").mkdir(exist_ok=True)
        (directory / "deploy" / f"shop_{n}.php").write_text(text.replace(f"SHOP{n}_PORT_PLACEHOLDER", str(port)),
                                                            encoding="utf-8")
    return directory


def spec(directory: Path | None = None) -> BackendSpec:
    """The official deployment, reading its files from ``directory`` (see :func:`prepare`)."""
    directory = directory or work_dir()
    backup, deploy = directory / "backup", directory / "deploy"
    containers = [
        ContainerSpec("WebMall_frontend", IMAGES["frontend"], ports={80: FRONTEND_PORT},
                      binds={str(directory / "config" / "index.html"): "/usr/share/nginx/html/index.html"},
                      aliases=("webmall_frontend",)),
        ContainerSpec("WebMall_elasticsearch", IMAGES["elasticsearch"], ports={9200: ELASTICSEARCH_PORT},
                      environment={"discovery.type": "single-node", "xpack.security.enabled": "false",
                                   "ES_JAVA_OPTS": "-Xms512m -Xmx512m -XX:UseSVE=0", "CLI_JAVA_OPTS": "-XX:UseSVE=0"},
                      volumes={"esdata": "/usr/share/elasticsearch/data"}, aliases=("elasticsearch",),
                      health=HealthCheck(http_path="/_cluster/health", http_port=9200, timeout_s=300)),
    ]
    for n, port in zip((1, 2, 3, 4), SHOP_PORTS, strict=True):
        containers.append(ContainerSpec(
            f"WebMall_mariadb_shop{n}", IMAGES["mariadb"], aliases=(f"mariadb_shop{n}",),
            environment={"MARIADB_ROOT_PASSWORD": "rootpassword", "MARIADB_USER": "bn_wordpress",
                         "MARIADB_PASSWORD": "wordpress_db_password", "MARIADB_DATABASE": "bitnami_wordpress"},
            volumes={f"woocommerce_mariadb_data_shop{n}": "/bitnami/mariadb"}))
        containers.append(ContainerSpec(
            f"WebMall_wordpress_shop{n}", IMAGES["wordpress"], ports={8080: port}, aliases=(f"wordpress_shop{n}",),
            environment={
                "WORDPRESS_DATABASE_HOST": f"mariadb_shop{n}", "WORDPRESS_DATABASE_USER": "bn_wordpress",
                "WORDPRESS_DATABASE_PASSWORD": "wordpress_db_password",
                "WORDPRESS_DATABASE_NAME": "bitnami_wordpress", "WORDPRESS_USERNAME": "admin",
                "WORDPRESS_PASSWORD": "admin", "WORDPRESS_EMAIL": "user@example.com",
                "WORDPRESS_CONFIG_EXTRA": f"define('EP_HOST','http://WebMall_elasticsearch:9200');\n"
                                          f"define('EP_INDEX_PREFIX','shop{n}_');"},
            volumes={f"woocommerce_wordpress_data_shop{n}": "/bitnami/wordpress"},
            health=HealthCheck(command=("wp", "core", "is-installed", f"--path={WORDPRESS_PATH}"), timeout_s=300),
            after_start=(("wp", "search-replace", f"https://webmall-{n}.informatik.uni-mannheim.de/",
                          f"http://localhost:{port}", "--all-tables", f"--path={WORDPRESS_PATH}"),
                         ("wp", "cache", "flush", f"--path={WORDPRESS_PATH}")),
            restart_after_commands=True))
    volumes = ("esdata", *(f"woocommerce_{kind}_data_shop{n}" for n in (1, 2, 3, 4)
                           for kind in ("wordpress", "mariadb")))
    restores = tuple(VolumeRestore(f"woocommerce_{kind}_data_shop{n}", backup / f"{kind}_data_shop{n}.tar.gz")
                     for n in (1, 2, 3, 4) for kind in ("wordpress", "mariadb"))
    files = tuple((f"woocommerce_wordpress_data_shop{n}", "wp-config.php", deploy / f"shop_{n}.php")
                  for n in (1, 2, 3, 4))
    return BackendSpec(NAME, tuple(containers), volumes=volumes, restores=restores, helper_image=IMAGES["helper"],
                       network="webmall", origins=tuple(f"WebMall_wordpress_shop{n}" for n in (1, 2, 3, 4)),
                       files=files)
