"""One stand-in for the four official WebMall images (tests only; the official images cannot be pulled here).  The
role follows the environment the official definition gives each service: Elasticsearch answers
``/_cluster/health`` on 9200; MariaDB idles; WordPress serves ``/bitnami/wordpress`` on 8080 and answers the ``wp``
commands the deployment runs (``core is-installed`` checks ``wp-config.php``; ``search-replace`` rewrites the restored
pages and logs the call); nginx serves ``/usr/share/nginx/html`` on 80.  Installed as ``wp`` too."""

from __future__ import annotations

import functools
import os
import sys
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

WORDPRESS = "/bitnami/wordpress"


def serve(directory: str, port: int) -> None:
    ThreadingHTTPServer(("0.0.0.0", port), functools.partial(SimpleHTTPRequestHandler, directory=directory)) \
        .serve_forever()


def wp(args: list[str]) -> int:
    if args[:2] == ["core", "is-installed"]:
        return 0 if os.path.isfile(os.path.join(WORDPRESS, "wp-config.php")) else 1
    if args[:1] == ["search-replace"]:
        old, new = args[1], args[2]
        for name in os.listdir(WORDPRESS):
            if name.endswith(".html"):
                path = os.path.join(WORDPRESS, name)
                with open(path, encoding="utf-8") as handle:
                    text = handle.read()
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write(text.replace(old, new))
        with open(os.path.join(WORDPRESS, "rewrites.log"), "a", encoding="utf-8") as log:
            log.write(f"{' '.join(args)}\n")
        return 0
    return 0 if args[:2] == ["cache", "flush"] else 2


def main() -> None:
    if os.path.basename(sys.argv[0]) == "wp":
        raise SystemExit(wp(sys.argv[1:]))
    if "discovery.type" in os.environ:
        os.makedirs("/tmp/es/_cluster", exist_ok=True)
        with open("/tmp/es/_cluster/health", "w", encoding="utf-8") as handle:
            handle.write('{"cluster_name":"standin","status":"green"}')
        serve("/tmp/es", 9200)
    elif "MARIADB_ROOT_PASSWORD" in os.environ:
        while True:
            time.sleep(3600)
    elif "WORDPRESS_DATABASE_HOST" in os.environ:
        with open(os.path.join(WORDPRESS, "starts.log"), "a", encoding="utf-8") as log:
            log.write("start\n")
        serve(WORDPRESS, 8080)
    else:
        serve("/usr/share/nginx/html", 80)


if __name__ == "__main__":
    main()
