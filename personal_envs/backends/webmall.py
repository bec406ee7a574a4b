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

from collections.abc import Callable, Mapping, Sequence
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


def prepare(directory: Path | None = None, progress: Callable[[str], None] = print, *,
            backup_url: str = BACKUP_URL, shop_ports: Sequence[int] = SHOP_PORTS) -> Path:
    """Download (resumably) the backups and the official config files; write the port-specific ``wp-config.php``
    (``backup_url`` and ``shop_ports`` for tests and side-by-side deployments)."""
    directory = directory or work_dir()
    fetch_files(CONFIG_FILES, directory, progress=progress)
    for name in backup_names():
        download_resumable(f"{backup_url}/{name}", directory / "backup" / name, progress=progress)
    write_configs(directory, shop_ports)
    return directory


def write_configs(directory: Path, shop_ports: Sequence[int] = SHOP_PORTS) -> None:
    """Each shop's ``deploy/shop_N.php``: the official ``config/shop_N.php`` with its ``SHOPN_PORT_PLACEHOLDER``
    replaced by the shop's port, as ``restore_all_and_deploy_local.sh`` does."""
    (directory / "deploy").mkdir(parents=True, exist_ok=True)
    for n, port in zip((1, 2, 3, 4), shop_ports, strict=True):
        text = (directory / "config" / f"shop_{n}.php").read_text(encoding="utf-8")
        (directory / "deploy" / f"shop_{n}.php").write_text(text.replace(f"SHOP{n}_PORT_PLACEHOLDER", str(port)),
                                                            encoding="utf-8")


def spec(directory: Path | None = None, *, images: Mapping[str, str] | None = None,
         shop_ports: Sequence[int] = SHOP_PORTS, frontend_port: int = FRONTEND_PORT,
         elasticsearch_port: int = ELASTICSEARCH_PORT, name: str = NAME, prefix: str = "") -> BackendSpec:
    """The official deployment, reading its files from ``directory`` (see :func:`prepare`).

    The keywords exist for tests and side-by-side deployments: ``images`` replaces the official images by role
    (``frontend``, ``elasticsearch``, ``mariadb``, ``wordpress``, ``helper``); the ports; ``name`` labels the
    deployment; ``prefix`` goes before every container, volume and network name (the official names stay
    reachable as network aliases).  The URL rewrite and ``wp-config.php`` follow ``shop_ports``.
    """
    directory = directory or work_dir()
    image = {**IMAGES, **(images or {})}
    backup, deploy = directory / "backup", directory / "deploy"

    def named(container: str, *aliases: str) -> tuple[str, tuple[str, ...]]:
        return f"{prefix}{container}", tuple(dict.fromkeys((*aliases, *((container,) if prefix else ()))))

    frontend, frontend_aliases = named("WebMall_frontend", "webmall_frontend")
    search, search_aliases = named("WebMall_elasticsearch", "elasticsearch")
    containers = [
        ContainerSpec(frontend, image["frontend"], ports={80: frontend_port},
                      binds={str(directory / "config" / "index.html"): "/usr/share/nginx/html/index.html"},
                      aliases=frontend_aliases),
        ContainerSpec(search, image["elasticsearch"], ports={9200: elasticsearch_port},
                      environment={"discovery.type": "single-node", "xpack.security.enabled": "false",
                                   "ES_JAVA_OPTS": "-Xms512m -Xmx512m -XX:UseSVE=0", "CLI_JAVA_OPTS": "-XX:UseSVE=0"},
                      volumes={f"{prefix}esdata": "/usr/share/elasticsearch/data"}, aliases=search_aliases,
                      health=HealthCheck(http_path="/_cluster/health", http_port=9200, timeout_s=300)),
    ]
    for n, port in zip((1, 2, 3, 4), shop_ports, strict=True):
        database, database_aliases = named(f"WebMall_mariadb_shop{n}", f"mariadb_shop{n}")
        shop, shop_aliases = named(f"WebMall_wordpress_shop{n}", f"wordpress_shop{n}")
        containers.append(ContainerSpec(
            database, image["mariadb"], aliases=database_aliases,
            environment={"MARIADB_ROOT_PASSWORD": "rootpassword", "MARIADB_USER": "bn_wordpress",
                         "MARIADB_PASSWORD": "wordpress_db_password", "MARIADB_DATABASE": "bitnami_wordpress"},
            volumes={f"{prefix}woocommerce_mariadb_data_shop{n}": "/bitnami/mariadb"}))
        containers.append(ContainerSpec(
            shop, image["wordpress"], ports={8080: port}, aliases=shop_aliases,
            environment={
                "WORDPRESS_DATABASE_HOST": f"mariadb_shop{n}", "WORDPRESS_DATABASE_USER": "bn_wordpress",
                "WORDPRESS_DATABASE_PASSWORD": "wordpress_db_password",
                "WORDPRESS_DATABASE_NAME": "bitnami_wordpress", "WORDPRESS_USERNAME": "admin",
                "WORDPRESS_PASSWORD": "admin", "WORDPRESS_EMAIL": "user@example.com",
                "WORDPRESS_CONFIG_EXTRA": f"define('EP_HOST','http://WebMall_elasticsearch:9200');\n"
                                          f"define('EP_INDEX_PREFIX','shop{n}_');"},
            volumes={f"{prefix}woocommerce_wordpress_data_shop{n}": "/bitnami/wordpress"},
            health=HealthCheck(command=("wp", "core", "is-installed", f"--path={WORDPRESS_PATH}"), timeout_s=300),
            after_start=(("wp", "search-replace", f"https://webmall-{n}.informatik.uni-mannheim.de/",
                          f"http://localhost:{port}", "--all-tables", f"--path={WORDPRESS_PATH}"),
                         ("wp", "cache", "flush", f"--path={WORDPRESS_PATH}")),
            restart_after_commands=True))
    volumes = (f"{prefix}esdata", *(f"{prefix}woocommerce_{kind}_data_shop{n}" for n in (1, 2, 3, 4)
                                    for kind in ("wordpress", "mariadb")))
    restores = tuple(VolumeRestore(f"{prefix}woocommerce_{kind}_data_shop{n}", backup / f"{kind}_data_shop{n}.tar.gz")
                     for n in (1, 2, 3, 4) for kind in ("wordpress", "mariadb"))
    files = tuple((f"{prefix}woocommerce_wordpress_data_shop{n}", "wp-config.php", deploy / f"shop_{n}.php")
                  for n in (1, 2, 3, 4))
    return BackendSpec(name, tuple(containers), volumes=volumes, restores=restores, helper_image=image["helper"],
                       network=f"{prefix}webmall",
                       origins=tuple(f"{prefix}WebMall_wordpress_shop{n}" for n in (1, 2, 3, 4)), files=files)
