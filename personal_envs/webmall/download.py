"""Where the official WebMall files are published, for ``personal-envs data fetch webmall``.

* ``task_sets.json``: the 91 tasks, from the WebMall fork of BrowserGym (wbsg-uni-mannheim/BrowserGym, commit
  1aaef63, ``browsergym/webmall/src/browsergym/webmall/task_sets.json``, declared Apache 2.0).
* ``product_data/webmall_{1..4}.csv``: the four shops' WooCommerce product exports, from wbsg-uni-mannheim/WebMall
  (commit 39fdac3, ``product_data/``).
* ``docker_all/index.html``: the solution page the official frontend serves (same commit); the env shows its words.

Checksums are those of the files at these commits.  The files land in ``data_home()/webmall`` where
:class:`~personal_envs.webmall.env.WebMallEnv` finds them by default.
"""

from __future__ import annotations

from personal_envs.core.download import RemoteFile

BROWSERGYM_COMMIT = "1aaef63d737308144f13b32e37ab5dbc3688d070"
WEBMALL_COMMIT = "39fdac3"
TASKS_URL = (f"https://raw.githubusercontent.com/wbsg-uni-mannheim/BrowserGym/{BROWSERGYM_COMMIT}/"
             "browsergym/webmall/src/browsergym/webmall/task_sets.json")
PRODUCTS_BASE = f"https://raw.githubusercontent.com/wbsg-uni-mannheim/WebMall/{WEBMALL_COMMIT}/product_data"

SHA256: dict[str, str] = {
    "task_sets.json": "e1d7af45db32293a0c508317ec756c845c6724105189ac96eca8223db49146ce",
    "product_data/webmall_1.csv": "0de565d5fd1cbbce02d5ef28065b7e3202f3edda50c0a8a51abe253150687d6e",
    "product_data/webmall_2.csv": "b59b967c10522b1babdc76aa4d27831910bf1cdf1a6e495b96c42cb08bf3971b",
    "product_data/webmall_3.csv": "e2bc21f222752745b6682d394b6a53cf8be58e1ae79abf45009bfff24237330e",
    "product_data/webmall_4.csv": "8153de8cc117af5f0de25a4df0d04af54a5f94b68fdfff335e182d90f2f3d8c8",
    "docker_all/index.html": "93eb6e8e8313f12f6b5f9949612c59a9ed6cc81de1c3e4bf6508cdfd36e474b6",
}

FILES: list[RemoteFile] = [
    RemoteFile(TASKS_URL, "task_sets.json", SHA256["task_sets.json"]),
    *(
        RemoteFile(f"{PRODUCTS_BASE}/webmall_{i}.csv", f"product_data/webmall_{i}.csv",
                   SHA256[f"product_data/webmall_{i}.csv"])
        for i in range(1, 5)
    ),
    RemoteFile(f"https://raw.githubusercontent.com/wbsg-uni-mannheim/WebMall/{WEBMALL_COMMIT}/docker_all/index.html",
               "docker_all/index.html", SHA256["docker_all/index.html"]),
]
