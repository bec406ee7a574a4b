"""Side-by-side check of the BrowserGym-format AX tree against BrowserGym 0.14's own observation code.

    bash scripts/setup_browsergym_venv.sh            # once: browsergym-core in ~/.cache/personal-envs/browsergym-0.14
    python benchmarks/browsergym_parity.py [--venv ~/.cache/personal-envs/browsergym-0.14] [--shops 0,1,2,3] [--show 20]

Every WebMall page type and state (home, category, search with 0 / 1 / many results, adding to the cart from a
listing, product, cart, checkout with errors, order received, solution page) and a few generic pages are opened once in this project's session; on each,
the project's text (``axtree_format="browsergym"``, both the ``cdp`` and the ``dom`` backend) is taken, then
BrowserGym's own functions run on the same page (``_pre_extract``, ``extract_merged_axtree``,
``extract_dom_snapshot``, ``extract_dom_extra_properties``, ``flatten_axtree_to_str`` with AgentLab's WebMall flags
``with_visible=True, with_clickable=True``, ``_post_extract``).  BrowserGym's package is imported from its
virtualenv; its functions drive the project's Playwright page (same DOM, same Chromium, same moment), so any
difference is in the text, not in the page.

Lines are compared with their bids removed (BrowserGym numbers every element from 0; the project keeps its own
ids).  ``InlineTextBox`` lines are dropped from BrowserGym's text: the Chromium here (Debian's) adds them to
``Accessibility.getFullAXTree``; the Chromium of the paper's runs did not (the official prompts show none).
Prints one row per page and the differing lines; exit code 1 if any page differs.
"""

from __future__ import annotations

import argparse
import difflib
import glob
import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from personal_envs.browser import BrowserSession  # noqa: E402
from personal_envs.browser.testing import LocalSite  # noqa: E402

DEFAULT_VENV = str(Path.home() / ".cache" / "personal-envs" / "browsergym-0.14")
_BID = re.compile(r"^(\t*)\[[^\]]+\] ")


def venv_site_packages(venv: str | None = None) -> str | None:
    """The site-packages folder of BrowserGym's virtualenv, or None when it is not there."""
    root = venv or os.environ.get("PERSONAL_ENVS_BGYM_VENV") or DEFAULT_VENV
    found = sorted(glob.glob(os.path.join(root, "lib", "python3*", "site-packages")))
    for path in found:
        if os.path.isdir(os.path.join(path, "browsergym", "core")):
            return path
    return None


def load_browsergym(venv: str | None = None) -> Callable[[Any], str]:
    """``page -> text``: BrowserGym's observation of a Playwright page, flattened as AgentLab's WebMall agents read it.

    Raises:
        ModuleNotFoundError: if the virtualenv (or browsergym-core in it) is missing.
    """
    site = venv_site_packages(venv)
    if site is None:
        raise ModuleNotFoundError("no browsergym-core virtualenv: run scripts/setup_browsergym_venv.sh")
    if site not in sys.path:
        sys.path.append(site)  # after the project's own packages: its Playwright stays the one in use
    from browsergym.core import observation as bg_obs  # type: ignore[import-not-found]
    from browsergym.utils.obs import flatten_axtree_to_str  # type: ignore[import-not-found]

    def observe(page: Any) -> str:
        bg_obs._pre_extract(page, lenient=True)  # noqa: SLF001 - BrowserGym's own marking step
        try:
            axtree = bg_obs.extract_merged_axtree(page)
            snapshot = bg_obs.extract_dom_snapshot(page)
            try:
                extra = bg_obs.extract_dom_extra_properties(snapshot, 1.0)
            except TypeError:  # 0.14.0 has no scale factor
                extra = bg_obs.extract_dom_extra_properties(snapshot)
        finally:
            bg_obs._post_extract(page)  # noqa: SLF001
        return str(flatten_axtree_to_str(axtree, extra_properties=extra, with_visible=True, with_clickable=True))

    return observe


def comparable(text: str, *, browsergym: bool = False) -> list[str]:
    """The lines of an AX-tree text with bids removed (and, for BrowserGym's text, no ``InlineTextBox`` lines)."""
    lines = []
    for line in text.splitlines():
        if browsergym and line.lstrip("\t").startswith("InlineTextBox"):
            continue
        lines.append(_BID.sub(r"\1", line))
    return lines


@dataclass
class PageResult:
    """One page's comparison: the differing lines (unified diff) per backend."""

    name: str
    url: str
    lines: int
    diffs: dict[str, list[str]] = field(default_factory=dict)

    @property
    def same(self) -> bool:
        return not any(self.diffs.values())


def compare_page(session: BrowserSession, name: str, browsergym: Callable[[Any], str]) -> PageResult:
    """Observe the session's page with both backends and with BrowserGym; return the differences."""
    saved = session.axtree_backend, session.axtree_format
    texts: dict[str, list[str]] = {}
    try:
        session.axtree_format = "browsergym"
        for backend in ("cdp", "dom"):
            session.axtree_backend = backend  # type: ignore[assignment]
            texts[backend] = comparable(session.observe().axtree)
    finally:
        session.axtree_backend, session.axtree_format = saved
    reference = comparable(session.call(browsergym), browsergym=True)
    result = PageResult(name, session.url, len(reference))
    for backend, lines in texts.items():
        result.diffs[backend] = [line for line in difflib.unified_diff(reference, lines, "browsergym", backend,
                                                                         lineterm="", n=0)
                                 if not line.startswith(("---", "+++", "@@"))]
    return result


CHECKOUT_VALUES = {"email": "ada@example.com", "card number": "4111 1111 1111 1111", "expiry": "12/30",
                   "card code": "123", "zip": "10115", "postcode": "10115", "phone": "0301234567"}

GENERIC_PAGES = {
    "/form": """<html><head><title>Form</title></head><body><main><h1>Sign up</h1>
<form><label>Name <input name=n required value="Ada"></label><label for=e>Email</label><input id=e type=email>
<select aria-label="Country"><option>Germany</option><option selected>France</option></select>
<textarea aria-label="Note">two
lines</textarea><input type=checkbox id=c checked><label for=c>Agree</label>
<input type=number aria-label=Qty value=2 min=1 max=9><button>Send</button></form></main></body></html>""",
    "/table": """<html><head><title>Table</title></head><body><table><thead><tr><th>Item</th><th>Price</th></tr>
</thead><tbody><tr><td><a href="/x">Lamp</a></td><td>12,99&nbsp;€</td></tr></tbody></table>
<table><tr><td>a</td><td>b</td></tr></table><ol><li>first</li><li>second</li></ol>
<ul class=x><li><a href="/a">A</a> <span>(3)</span></li></ul><div role=alert>Oops</div>
<p>Some <b>bold</b> and <i>italic</i> text.</p><details><summary>More</summary>hidden</details>
<img alt="" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width=20 height=20><div role=presentation>p</div>
<img alt="Logo" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width=20 height=20></body></html>""",
    "/long": "<html><head><title>Long</title></head><body><h2>Description</h2><p>" + " ".join(
        f"Word{i}" for i in range(400)) + "</p><div style='height:2000px'></div><a href='/'>Far link</a></body></html>",
}


def webmall_pages(env: Any, shops: list[int]) -> Iterator[str]:
    """Drive ``env.session`` through every WebMall page type and state; yields a name when a page is ready."""
    session = env.session
    yield from _shop_pages(env, session, shops)
    assert session.goto(env.cluster.solution_origin + "/") == ""
    yield "solution page"
    obs = session.observe()
    field_bid = next(b for b, e in obs.elements.items() if e.role == "textbox")
    session.execute({"action_type": "fill", "bid": field_bid, "value": env.cluster.shop_origins[0] + "/product/x"})
    yield "solution page filled"


def _bid(session: BrowserSession, role: str, start: str) -> str | None:
    obs = session.observe()
    return next((e.bid for e in obs.elements.values() if e.role == role and e.name.startswith(start)), None)


def _shop_pages(env: Any, session: BrowserSession, shops: list[int]) -> Iterator[str]:
    for index in shops:
        origin, shop = env.cluster.shop_origins[index], env.catalog.shops[index]
        product = shop.products[5]
        category = next(iter(shop.root.children.values()))
        unique = " ".join(product.name.split()[:6])
        for what, path in [("home", "/"), ("category", category.url_path), ("search many", "/?s=" + product.name.split()[0]),
                           ("search one", "/?s=" + unique), ("search none", "/?s=zzzqqq"),
                           ("product", product.path), ("empty cart", "/cart/")]:
            assert session.goto(origin + path) == "", (what, path)
            yield f"shop {index} {what}"
        session.goto(origin + category.url_path)
        add = _bid(session, "link", "Add to") or _bid(session, "button", "Add to")
        if add:
            session.execute({"action_type": "click", "bid": add})  # WooCommerce adds in place, with "View cart"
            session.execute({"action_type": "noop", "wait_ms": 500})  # BrowserGym waits 0.5 s after an action
            yield f"shop {index} category after add to cart"
        session.goto(origin + product.path)
        add = _bid(session, "button", "Add to")
        if add:
            session.execute({"action_type": "click", "bid": add})
            yield f"shop {index} product added"
        for what, path in [("cart", "/cart/"), ("checkout", "/checkout/")]:
            session.goto(origin + path)
            yield f"shop {index} {what}"
        place = _bid(session, "button", "Place order")
        if place is None:
            continue
        session.execute({"action_type": "click", "bid": place})
        yield f"shop {index} checkout with errors"
        obs = session.observe()
        for element in list(obs.elements.values()):
            if element.role == "textbox" and "(optional)" not in element.name:
                value = next((v for k, v in CHECKOUT_VALUES.items() if k.lower() in element.name.lower()), "Test")
                session.execute({"action_type": "fill", "bid": element.bid, "value": value})
        country = _bid(session, "combobox", "Country")
        if country:
            session.execute({"action_type": "select_option", "bid": country, "options": ["Germany"]})
        place = _bid(session, "button", "Place order")
        if place:
            session.execute({"action_type": "click", "bid": place})
            yield f"shop {index} order received" if "order-received" in session.url else f"shop {index} order refused"


def compare_marks(session: BrowserSession, venv: str | None = None) -> tuple[set[str], set[str], float]:
    """The set-of-marks flags of BrowserGym and of the project on the session's page, and the share of pixels that
    differ between BrowserGym's ``overlay_som`` (its flags and boxes) and the project's overlay (its own flags and
    boxes) drawn on one screenshot (the project's own screenshots are JPEG, BrowserGym's PNG).

    Returns:
        ``(browsergym_flags, project_flags, differing_pixel_share)``, flags as the project's bids.
    """
    import numpy as np

    load_browsergym(venv)
    from browsergym.core import observation as bg_obs
    from browsergym.utils.obs import overlay_som

    saved = session.axtree_format
    session.axtree_format = "browsergym"
    try:
        ours = session.observe(screenshot=True, set_of_marks=True)
        plain = session.observe(screenshot=True)
    finally:
        session.axtree_format = saved

    def browsergym_side(page: Any) -> tuple[dict[str, Any], dict[str, str]]:
        bg_obs._pre_extract(page, lenient=True)  # noqa: SLF001
        try:
            extra = bg_obs.extract_dom_extra_properties(bg_obs.extract_dom_snapshot(page), 1.0)
        finally:
            bg_obs._post_extract(page)  # noqa: SLF001
        ids = page.evaluate("() => Object.fromEntries(Array.from(document.querySelectorAll('[bid][data-pe-bid]'), "
                            "el => [el.getAttribute('bid'), el.getAttribute('data-pe-bid')]))")
        return extra, ids

    extra, ids = session.call(browsergym_side)
    renamed = {ids[bid]: props for bid, props in extra.items() if bid in ids}
    bg_flags = {bid for bid, props in renamed.items() if props["set_of_marks"] and props["bbox"]}
    assert plain.screenshot is not None and ours.screenshot is not None
    reference = overlay_som(plain.screenshot, extra_properties=renamed)
    from personal_envs.browser.bgym_format import index_snapshot
    from personal_envs.browser.bgym_marks import draw_browsergym_marks

    snapshot = session.call(lambda page: page.context.new_cdp_session(page).send(
        "DOMSnapshot.captureSnapshot", {"computedStyles": []}))
    boxes = index_snapshot(snapshot).boxes  # the project's own boxes, drawn with the project's flags
    project_flags = _project_flags(session)
    drawn = draw_browsergym_marks(plain.screenshot, boxes, project_flags)
    share = float(np.mean(np.any(reference != drawn, axis=2)))
    return bg_flags, set(project_flags), share


def _project_flags(session: BrowserSession) -> list[str]:
    from personal_envs.browser.page_scripts import SOM_FLAGS_JS

    flags = session.call(lambda page: page.evaluate(SOM_FLAGS_JS))
    return [str(bid) for bid in flags]


#: Differences known to remain: (page, backend) -> the differing diff lines.  An ``<img alt="">`` is left out of
#: Chromium's own tree (not even an ignored node); BrowserGym's ARIA marks bring it in as an ``image ''`` line.  The
#: DOM walk shows it; the CDP backend cannot.  The embedded shops have no such image.
KNOWN_DIFFERENCES: dict[tuple[str, str], list[str]] = {
    ("generic /table", "cdp"): ["-\timage '', visible, url='data:image/gif;base64,R0lGODlhAQABAAAAACw='"],
}


def unexpected(results: list[PageResult]) -> dict[tuple[str, str], list[str]]:
    """The differences not listed in :data:`KNOWN_DIFFERENCES`."""
    found = {}
    for result in results:
        for backend, diff in result.diffs.items():
            if diff and diff != KNOWN_DIFFERENCES.get((result.name, backend)):
                found[(result.name, backend)] = diff
    return found


def run(venv: str | None, shops: list[int], data_dir: str | None) -> list[PageResult]:
    """Compare every page; the results in visiting order."""
    from personal_envs.webmall.env import WebMallEnv

    browsergym = load_browsergym(venv)
    results: list[PageResult] = []
    env = WebMallEnv(data_dir=data_dir or "shipped")
    try:
        env.reset(seed=0, options={"task_index": 0})
        session = env.session
        assert session is not None
        for name in webmall_pages(env, shops):
            results.append(compare_page(session, name, browsergym))
        with LocalSite(GENERIC_PAGES) as site, BrowserSession() as free:
            for path in GENERIC_PAGES:
                free.goto(site.url(path))
                results.append(compare_page(free, "generic " + path, browsergym))
    finally:
        env.close()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--venv", default=None, help=f"BrowserGym's virtualenv (default {DEFAULT_VENV})")
    parser.add_argument("--shops", default="0,1,2,3", help="shop indices to visit")
    parser.add_argument("--data-dir", default=None, help="official WebMall data (default: the shipped catalog)")
    parser.add_argument("--show", type=int, default=12, help="differing lines shown per page and backend")
    args = parser.parse_args()
    shops = [int(s) for s in args.shops.split(",") if s]
    results = run(args.venv, shops, args.data_dir)
    print(f"{'page':36} {'lines':>6} {'cdp diff':>9} {'dom diff':>9}")
    for result in results:
        print(f"{result.name:36} {result.lines:6d} {len(result.diffs['cdp']):9d} {len(result.diffs['dom']):9d}")
    for result in results:
        for backend, diff in result.diffs.items():
            if diff:
                print(f"\n== {result.name} [{backend}] {result.url}")
                print("\n".join(line[:240] for line in diff[: args.show]))
    same = sum(result.same for result in results)
    print(f"\n{same}/{len(results)} pages identical to BrowserGym's text (bids aside) with both backends; "
          f"{len(unexpected(results))} page/backend pairs with differences not known before")
    return 0 if not unexpected(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
