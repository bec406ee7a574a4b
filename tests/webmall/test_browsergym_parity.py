"""The BrowserGym-format AX tree reads line for line like BrowserGym 0.14's own observation code on WebMall.

BrowserGym's functions (``browsergym-core`` from its own virtualenv, made by ``scripts/setup_browsergym_venv.sh``)
run on the same page as the project's session, on every page type and state of the four embedded shops, the
solution page and a few generic pages; the texts must be equal with bids removed, with both AX-tree backends,
except for the differences listed in ``benchmarks/browsergym_parity.py`` (``KNOWN_DIFFERENCES``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from benchmarks.browsergym_parity import KNOWN_DIFFERENCES, run, unexpected, venv_site_packages
from personal_envs.browser.axtree import AxLine
from personal_envs.webmall.env import WebMallEnv


def _static_texts(text: str) -> list[AxLine]:
    """The StaticText lines of a BrowserGym-format text (they carry no bid)."""
    found = []
    for line in text.splitlines():
        stripped = line.lstrip("\t")
        if stripped.startswith("StaticText "):
            found.append(AxLine(len(line) - len(stripped), "", "StaticText", ast.literal_eval(stripped[11:]), ""))
    return found


@pytest.mark.skipif(venv_site_packages() is None,
                    reason="no browsergym-core virtualenv (run scripts/setup_browsergym_venv.sh)")
def test_every_page_type_reads_like_browsergym() -> None:
    results = run(None, [0, 1, 2, 3], None)
    names = {result.name for result in results}
    for shop in range(4):
        for state in ("home", "category", "search many", "search one", "search none", "product", "product added",
                      "cart", "checkout", "checkout with errors", "order received"):
            assert f"shop {shop} {state}" in names, (shop, state, sorted(names))
    assert {"solution page", "solution page filled", "generic /form", "generic /table"} <= names
    assert any(name.endswith("category after add to cart") for name in names)  # where a listing offers it
    assert all(result.lines > 20 for result in results if result.name.startswith("shop")), \
        [(r.name, r.lines) for r in results]
    differences = unexpected(results)
    assert not differences, "\n".join(f"{page} [{backend}]:\n" + "\n".join(diff[:20])
                                      for (page, backend), diff in differences.items())
    known = {(r.name, backend) for r in results for backend, diff in r.diffs.items() if diff}
    assert known == set(KNOWN_DIFFERENCES), "a known difference is gone: update KNOWN_DIFFERENCES and docs/webmall.md"


def test_product_page_shows_the_whole_description(webmall_dir: Path) -> None:
    """Nothing is clipped: the longest official description is in the observation word for word."""
    env = WebMallEnv(data_dir=webmall_dir)
    try:
        env.reset(options={"task_index": 0})
        session = env.session
        assert session is not None and session.axtree_format == "browsergym"
        product = max(env.catalog.shops[0].products, key=lambda p: len(p.description))
        assert session.goto(env.cluster.shop_origins[0] + product.path) == ""
        for backend in ("dom", "cdp"):
            session.axtree_backend = backend
            texts = [line.name for line in _static_texts(session.observe().axtree)]
            shown = " ".join(" ".join(texts).split())
            assert len(product.description) > 2000
            for paragraph in product.description.split("\n"):
                assert " ".join(paragraph.split()) in shown, (backend, paragraph[:80])
    finally:
        env.close()


@pytest.mark.skipif(venv_site_packages() is None,
                    reason="no browsergym-core virtualenv (run scripts/setup_browsergym_venv.sh)")
def test_set_of_marks_as_browsergym_draws_them() -> None:
    from benchmarks.browsergym_parity import compare_marks

    env = WebMallEnv(data_dir="shipped", observation_mode="screenshot")
    try:
        obs, _ = env.reset(options={"task_index": 0})
        assert obs["screenshot"].any()
        session = env.session
        assert session is not None
        for index in range(4):
            shop = env.catalog.shops[index]
            for path in ("/", shop.products[3].path, "/checkout/"):
                assert session.goto(env.cluster.shop_origins[index] + path) == ""
                browsergym, ours, differing = compare_marks(session)
                assert len(browsergym) > 5 and ours == browsergym, (index, path, browsergym ^ ours)
                assert differing == 0.0, (index, path, differing)
    finally:
        env.close()
