"""Runs BrowserUse actions on a :class:`~personal_envs.browser.session.BrowserSession`.

:class:`UseDriverBase` holds what does not touch a page (navigation, history, tabs, keys, waiting);
:class:`BrowserUseDriver` reads and acts on Chromium's page, the text mode's
:class:`~personal_envs.browserarena.text_driver.TextUseDriver` on the text session's.

Navigation, history and tabs go through the session's own actions (so blocked origins, crashed pages and hung
browsers are handled there); element actions run in the page through :meth:`BrowserSession.call` on the elements
numbered by :data:`~personal_envs.browserarena.dom.INDEX_ELEMENTS_JS`.  Every method returns text for the agent
and never raises for anything the page or the agent does.
"""

from __future__ import annotations

import contextlib
import re
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import quote_plus, urlsplit

import numpy as np

from personal_envs.browser.host import BrowserDied, BrowserError
from personal_envs.browser.session import BrowserSession
from personal_envs.browserarena.dom import (
    DROPDOWN_OPTIONS_JS,
    INDEX_ATTRIBUTE,
    INDEX_ELEMENTS_JS,
    PAGE_TEXT_JS,
    SCROLL_TO_TEXT_JS,
    PageIndex,
    label_screenshot,
    parse_index,
)
from personal_envs.browserarena.extraction import raw_extraction
from personal_envs.browserarena.web_access import NO_WEB_NOTICE, UNREACHABLE
from personal_envs.core.actions import Action

EXTRACT_LIMIT = 12_000
#: How long ``send_keys`` with Enter waits for the form submission it may have started to begin navigating.
ENTER_NAVIGATION_GRACE_MS = 500


@dataclass
class ActionOutcome:
    """What one action did: an error ("" if none), a result for the agent, and whether the episode ends."""

    error: str = ""
    result: str = ""
    done: bool = False
    target: str = ""  # description of the element acted on


class DriverSession(Protocol):
    """What the drivers need of a session: the browser action set and the latest action's error."""

    last_error: str

    @property
    def url(self) -> str: ...

    def execute(self, action: Action) -> str: ...

    def take_notice(self) -> str: ...


class UseDriverBase:
    """What the BrowserUse drivers share: navigation, history, tabs, waiting, keys and the saved-files folder, over
    a session that takes the browser action set (:meth:`DriverSession.execute`).  Subclasses read the page
    (:meth:`observe`) and act on its elements.

    Args:
        session: The session (one isolated context).
        search_url: Template of the search engine used by ``search_google`` (``{query}`` is URL-encoded).
        local_hosts_http: Rewrite ``https://`` to ``http://`` for ``.test`` hosts (the local web speaks HTTP only).
        max_wait_s: Cap of one ``wait`` or ``wait_for_element`` action, in seconds.
        expansion: Pixels below the viewport whose elements are still numbered.
        max_items: Most items (elements and text chunks) in one element list.
        extractor: ``extract_content``'s model, ``(goal, page text) -> result`` (``None``: the raw text, labelled).
        files_dir: Folder of ``save_pdf`` / ``save_html_to_file`` (default: a new temporary folder).
    """

    session: DriverSession

    def __init__(self, session: DriverSession, *, search_url: str, local_hosts_http: bool = False,
                 max_wait_s: float = 3.0, expansion: int = 500, max_items: int = 400,
                 max_list_chars: int = 30_000, extractor: Callable[[str, str], str] | None = None,
                 files_dir: str | None = None) -> None:
        self.session = session
        self.extractor = extractor
        self._files_dir = files_dir
        self._temporary_dir: str | None = None
        self.search_url = search_url
        self.local_hosts_http = local_hosts_http
        self.max_wait_s = max_wait_s
        self.expansion = expansion
        self.max_items = max_items
        self.max_list_chars = max_list_chars
        self.index = PageIndex()

    def observe(self, *, screenshot: bool) -> tuple[PageIndex, np.ndarray | None, tuple[str, ...], int, str]:
        """Number the elements (and take the labelled screenshot where one exists): ``(index, image, tabs,
        active_tab, error)``."""
        raise NotImplementedError

    def tab_count(self) -> int:
        """How many tabs are open (raises when the session cannot tell)."""
        raise NotImplementedError

    # ------------------------------------------------------------------------------------------ act
    def execute(self, action: Action) -> ActionOutcome:
        """Apply one BrowserUse action."""
        handler = getattr(self, f"_do_{action.name}", None)
        if handler is None:
            return ActionOutcome(error=f"action {action.name} is not available in this environment")
        try:
            outcome: ActionOutcome = handler(**action.arguments)
            return outcome
        except BrowserDied as exc:
            notice = self.session.take_notice() or _short(exc)
            return ActionOutcome(error=f"{action.name} was not carried out: {notice}")
        except BrowserError as exc:
            return ActionOutcome(error=f"{action.name}: the browser failed ({_short(exc)})")
        except Exception as exc:
            return ActionOutcome(error=f"{action.name} failed: {_short(exc)}")

    def normalise_url(self, url: str) -> str:
        """Trim the URL, add ``http://`` when the scheme is missing, and use HTTP for local ``.test`` hosts."""
        url = url.strip()
        if url and "://" not in url and not url.startswith(("about:", "data:")):
            url = "http://" + url
        if self.local_hosts_http and url.startswith("https://"):
            host = (urlsplit(url).hostname or "").lower()
            if host.endswith(".test"):
                url = "http://" + url[len("https://"):]
        return url

    def navigate(self, url: str) -> str:
        """Open ``url`` in the active tab; "" or an error that says whether the site is unreachable."""
        url = self.normalise_url(url)
        error = self.session.execute(Action("goto", {"url": url}))
        return _explain_navigation(url, error)

    def _do_done(self, text: str, success: bool = True) -> ActionOutcome:
        return ActionOutcome(result=text, done=True)

    def _do_search_google(self, query: str) -> ActionOutcome:
        error = self.navigate(self.search_url.format(query=quote_plus(query)))
        return ActionOutcome(error=error, result="" if error else f'Searched for "{query}"')

    def _do_go_to_url(self, url: str) -> ActionOutcome:
        error = self.navigate(url)
        return ActionOutcome(error=error, result="" if error else f"Navigated to {self.normalise_url(url)}")

    def _do_go_back(self) -> ActionOutcome:
        error = self.session.execute(Action("go_back", {}))
        return ActionOutcome(error=error, result="" if error else "Navigated back")

    def _do_wait(self, seconds: int = 3) -> ActionOutcome:
        time.sleep(max(0.0, min(float(seconds), self.max_wait_s)))
        return ActionOutcome(result=f"Waited for {seconds} seconds")

    def _element(self, index: int) -> tuple[str, str]:
        element = self.index.element_map.get(index)
        if element is None:
            return "", (f"Element with index {index} does not exist in the current element list - use an index "
                        "from the latest observation")
        return element.describe(), ""

    def _do_switch_tab(self, page_id: int) -> ActionOutcome:
        error = self.session.execute(Action("tab_focus", {"index": page_id}))
        return ActionOutcome(error=error, result="" if error else f"Switched to tab {page_id}")

    def _do_open_tab(self, url: str) -> ActionOutcome:
        error = self.session.execute(Action("new_tab", {}))
        if not error:
            error = self.navigate(url)
        return ActionOutcome(error=error, result="" if error else f"Opened new tab with {self.normalise_url(url)}")

    def _do_close_tab(self, page_id: int) -> ActionOutcome:
        error = self.session.execute(Action("tab_focus", {"index": page_id}))
        if not error:
            error = self.session.execute(Action("tab_close", {}))
        return ActionOutcome(error=error, result="" if error else f"Closed tab {page_id}")

    def files_dir(self) -> str:
        """Folder that ``save_pdf`` and ``save_html_to_file`` write to (created on first use)."""
        if self._files_dir is None:
            self._files_dir = self._temporary_dir = tempfile.mkdtemp(prefix="browserarena-files-")
        return self._files_dir

    def remove_temporary_files(self) -> None:
        """Delete the temporary folder of saved files, if the driver made one (not a ``files_dir`` it was given)."""
        import shutil

        if self._temporary_dir is not None:
            shutil.rmtree(self._temporary_dir, ignore_errors=True)
            self._files_dir = self._temporary_dir = None

    def _file_path(self, url: str, suffix: str) -> str:
        import os

        slug = re.sub(r"[^A-Za-z0-9]+", "-", re.sub(r"^https?://", "", url)).strip("-")[:80] or "page"
        return os.path.join(self.files_dir(), f"{slug}{suffix}")

    def _do_scroll_down(self, amount: int | None = None) -> ActionOutcome:
        return ActionOutcome(result=self._scroll(amount, 1))

    def _do_scroll_up(self, amount: int | None = None) -> ActionOutcome:
        return ActionOutcome(result=self._scroll(amount, -1))

    def _do_send_keys(self, keys: str) -> ActionOutcome:
        if not keys.strip():
            return ActionOutcome(error="send_keys needs keys, e.g. 'Enter'")
        error = self.session.execute(Action("press", {"key_comb": keys.strip()}))
        # Enter in a form submits it a moment after the key press returns: give that navigation time to start.
        self._settle(expect_navigation_ms=ENTER_NAVIGATION_GRACE_MS if "enter" in keys.lower() else 0)
        return ActionOutcome(error=error, result="" if error else f"Sent keys: {keys}")

    def _scroll(self, amount: int | None, sign: int) -> str:
        raise NotImplementedError

    def _settle(self, expect_navigation_ms: int = 0) -> None:
        """Wait for a navigation the last action may have started (nothing to wait for by default)."""


class BrowserUseDriver(UseDriverBase):
    """BrowserUse actions and element-index observations over a browser session (arguments: :class:`UseDriverBase`).
    """

    session: BrowserSession

    def tab_count(self) -> int:
        return int(self.session.call(lambda page: len(page.context.pages), timeout=10.0))

    # ------------------------------------------------------------------------------------------ observe

    def observe(self, *, screenshot: bool) -> tuple[PageIndex, np.ndarray | None, tuple[str, ...], int, str]:
        """Number the elements and take the labelled screenshot: ``(index, image, tabs, active_tab, error)``."""
        error = ""
        for attempt in range(2):
            try:
                raw = self.session.call(self._index_page, timeout=30.0)
                self.index = parse_index(raw, max_chars=self.max_list_chars)
                break
            except BrowserDied:  # the session recovered (session.observe below reports it): read the fresh page
                if attempt == 0:
                    continue
                self.index = PageIndex(rendered="(the page could not be read)")
            except Exception as exc:  # page gone mid-navigation, ...
                self.index = PageIndex(rendered="(the page could not be read)")
                error = _join(error, f"could not read the page: {_short(exc)}")
                break
        page_obs = self.session.observe(axtree=False, screenshot=screenshot)
        image = page_obs.screenshot
        if image is not None:
            image = label_screenshot(image, self.index)
        if not self.index.url:
            self.index.url = page_obs.url
            self.index.title = page_obs.title
        notice = page_obs.error
        last = self.session.last_error
        if last and notice.startswith(last):  # the latest action's own error, already reported by that step
            notice = notice[len(last):].lstrip("; ")
        return self.index, image, page_obs.tabs, page_obs.active_tab, _join(error, notice)

    def _index_page(self, page: Any) -> dict[str, Any]:
        args = {"expansion": self.expansion, "maxItems": self.max_items}
        for attempt in range(3):
            try:
                page.wait_for_load_state("domcontentloaded", timeout=5000)
                result = page.evaluate(INDEX_ELEMENTS_JS, args)
                return result if isinstance(result, dict) else {}
            except Exception as exc:
                if attempt == 2 or "context" not in str(exc).lower() and "navigat" not in str(exc).lower():
                    raise
                page.wait_for_timeout(200)
        return {}

    # ------------------------------------------------------------------------------------------ act

    def _do_click_element_by_index(self, index: int, xpath: str = "") -> ActionOutcome:
        target, error = self._element(index)
        if error:
            return ActionOutcome(error=error)

        def click(page: Any) -> str:
            locator = page.locator(f'[{INDEX_ATTRIBUTE}="{index}"]')
            if locator.count() == 0:
                return f"Element with index {index} is gone - the page changed; observe again"
            locator.first.click(timeout=5000)
            page.wait_for_timeout(150)
            return ""

        error = self.session.call(click, timeout=30.0)
        self._settle()
        return ActionOutcome(error=error, result="" if error else f"Clicked element {index}: {target}",
                             target=target)

    def _do_input_text(self, index: int, text: str, xpath: str = "") -> ActionOutcome:
        target, error = self._element(index)
        if error:
            return ActionOutcome(error=error)

        def fill(page: Any) -> str:
            locator = page.locator(f'[{INDEX_ATTRIBUTE}="{index}"]')
            if locator.count() == 0:
                return f"Element with index {index} is gone - the page changed; observe again"
            try:
                locator.first.fill(text, timeout=5000)
            except Exception:
                locator.first.click(timeout=5000)
                page.keyboard.type(text)
            return ""

        error = self.session.call(fill, timeout=30.0)
        return ActionOutcome(error=error, result="" if error else f"Input {text!r} into index {index}", target=target)

    def _do_extract_content(self, goal: str, should_strip_link_urls: bool = True) -> ActionOutcome:
        text = self.session.call(lambda page: page.evaluate(PAGE_TEXT_JS, EXTRACT_LIMIT), timeout=30.0)
        if self.extractor is None:
            return ActionOutcome(result=raw_extraction(goal, str(text)))
        return ActionOutcome(result=self.extractor(goal, str(text)))

    def _click_locator(self, describe: str, locate: Callable[[Any], Any]) -> ActionOutcome:
        def click(page: Any) -> str:
            locator = locate(page)
            if locator.count() == 0:
                return f"No element matches {describe}"
            locator.first.click(timeout=5000)
            page.wait_for_timeout(150)
            return ""

        error = self.session.call(click, timeout=30.0)
        self._settle()
        return ActionOutcome(error=error, result="" if error else f"Clicked the element matching {describe}",
                             target=describe)

    def _do_wait_for_element(self, selector: str, timeout: int = 10_000) -> ActionOutcome:
        wait_ms = max(250, min(int(timeout), int(self.max_wait_s * 1000)))  # capped like ``wait`` (0: one short look)

        def wait(page: Any) -> str:
            try:
                page.locator(selector).first.wait_for(state="visible", timeout=wait_ms)
            except Exception as exc:
                return f"Element {selector!r} did not become visible within {wait_ms} ms ({_short(exc)[:200]})"
            return ""

        error = self.session.call(wait, timeout=wait_ms / 1000 + 30.0)
        return ActionOutcome(error=error, result="" if error else f"Element {selector!r} is visible")

    def _do_click_element_by_selector(self, css_selector: str) -> ActionOutcome:
        return self._click_locator(f"CSS selector {css_selector!r}", lambda page: page.locator(css_selector))

    def _do_click_element_by_xpath(self, xpath: str) -> ActionOutcome:
        return self._click_locator(f"XPath {xpath!r}", lambda page: page.locator(f"xpath={xpath}"))

    def _do_click_element_by_text(self, text: str, element_type: str | None = None, nth: int = 0) -> ActionOutcome:
        describe = f"text {text!r}" + (f" ({element_type})" if element_type else "") + (f" #{nth}" if nth else "")
        return self._click_locator(describe, lambda page: (page.locator(element_type or "*").filter(has_text=text)
                                                           if element_type else page.get_by_text(text)).nth(nth))

    def _do_save_pdf(self) -> ActionOutcome:
        def save(page: Any) -> str:
            path = self._file_path(page.url, ".pdf")
            page.emulate_media(media="screen")
            page.pdf(path=path, format="A4", print_background=False)
            return path

        path = self.session.call(save, timeout=60.0)
        return ActionOutcome(result=f"Saved page {self.index.url} as PDF to {path}")

    def _do_save_html_to_file(self) -> ActionOutcome:
        def save(page: Any) -> str:
            path = self._file_path(page.url, ".html")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(page.content())
            return path

        path = self.session.call(save, timeout=60.0)
        return ActionOutcome(result=f"Saved the HTML of {self.index.url} to {path}")

    def _scroll(self, amount: int | None, sign: int) -> str:
        def scroll(page: Any) -> None:
            pixels = amount if amount is not None else page.evaluate("() => window.innerHeight")
            page.evaluate("(dy) => window.scrollBy(0, dy)", sign * int(pixels))

        self.session.call(scroll, timeout=30.0)
        return f"Scrolled {'down' if sign > 0 else 'up'} by {amount if amount is not None else 'one page'}"

    def _do_scroll_to_text(self, text: str) -> ActionOutcome:
        found = self.session.call(lambda page: page.evaluate(SCROLL_TO_TEXT_JS, text), timeout=30.0)
        if not found:
            return ActionOutcome(error=f"Text {text!r} not found on the page")
        return ActionOutcome(result=f"Scrolled to text: {text}")

    def _do_get_dropdown_options(self, index: int) -> ActionOutcome:
        target, error = self._element(index)
        if error:
            return ActionOutcome(error=error)
        options = self.session.call(
            lambda page: page.locator(f'[{INDEX_ATTRIBUTE}="{index}"]').first.evaluate(DROPDOWN_OPTIONS_JS),
            timeout=30.0)
        if options is None:
            return ActionOutcome(error=f"Element {index} {target} is not a dropdown (<select>)")
        listing = "\n".join(f"{o['i']}: text={o['text']!r}" for o in options)
        return ActionOutcome(result=f"Options of dropdown {index}:\n{listing}\nUse the exact text in "
                                    "select_dropdown_option", target=target)

    def _do_select_dropdown_option(self, index: int, text: str) -> ActionOutcome:
        target, error = self._element(index)
        if error:
            return ActionOutcome(error=error)

        def select(page: Any) -> str:
            locator = page.locator(f'[{INDEX_ATTRIBUTE}="{index}"]').first
            options = locator.evaluate(DROPDOWN_OPTIONS_JS)
            if options is None:
                return f"Element {index} {target} is not a dropdown (<select>)"
            if not any(o["text"] == text or o["value"] == text for o in options):
                labels = ", ".join(repr(o["text"]) for o in options[:30])
                return f"No option {text!r} in dropdown {index}; options: {labels}"
            try:
                locator.select_option(label=text, timeout=5000)
            except Exception:
                locator.select_option(value=text, timeout=5000)
            return ""

        error = self.session.call(select, timeout=30.0)
        return ActionOutcome(error=error, result="" if error else f"Selected option {text!r} in dropdown {index}",
                             target=target)

    def _do_drag_drop(self, element_source: str | None = None, element_target: str | None = None,
                      element_source_offset: dict[str, Any] | None = None,
                      element_target_offset: dict[str, Any] | None = None, coord_source_x: int | None = None,
                      coord_source_y: int | None = None, coord_target_x: int | None = None,
                      coord_target_y: int | None = None, steps: int = 10, delay_ms: int = 5) -> ActionOutcome:
        def point(page: Any, ref: str | None, offset: dict[str, Any] | None, x: int | None,
                  y: int | None) -> tuple[float, float] | str:
            if ref:
                selector = f'[{INDEX_ATTRIBUTE}="{ref.strip()}"]' if ref.strip().isdigit() else ref
                box = page.locator(selector).first.bounding_box(timeout=5000)
                if box is None:
                    return f"drag_drop: {ref!r} has no box on the page"
                dx = float((offset or {}).get("x", box["width"] / 2))
                dy = float((offset or {}).get("y", box["height"] / 2))
                return box["x"] + dx, box["y"] + dy
            if x is not None and y is not None:
                return float(x), float(y)
            return "drag_drop needs element_source/element_target or all four coordinates"

        def drag(page: Any) -> str:
            start = point(page, element_source, element_source_offset, coord_source_x, coord_source_y)
            end = point(page, element_target, element_target_offset, coord_target_x, coord_target_y)
            if isinstance(start, str):
                return start
            if isinstance(end, str):
                return end
            page.mouse.move(*start)
            page.mouse.down()
            for k in range(1, max(1, steps) + 1):
                page.mouse.move(start[0] + (end[0] - start[0]) * k / steps, start[1] + (end[1] - start[1]) * k / steps)
                if delay_ms:
                    page.wait_for_timeout(delay_ms)
            page.mouse.up()
            return ""

        error = self.session.call(drag, timeout=60.0)
        return ActionOutcome(error=error, result="" if error else "Dragged and dropped")

    def _settle(self, expect_navigation_ms: int = 0) -> None:
        """Wait for a navigation the last action may have started (best effort); with ``expect_navigation_ms``,
        first wait that long for one to begin (it may already have: then the wait only costs that time)."""
        def wait(page: Any) -> None:
            if expect_navigation_ms:
                with contextlib.suppress(Exception):
                    page.wait_for_event("framenavigated", timeout=expect_navigation_ms)
            try:
                page.wait_for_load_state("domcontentloaded", timeout=10_000)
                page.wait_for_load_state("load", timeout=2_000)
            except Exception:  # noqa: S110 - a page that keeps loading is observed as it is
                pass

        with contextlib.suppress(Exception):
            self.session.call(wait, timeout=20.0)


def _explain_navigation(url: str, error: str) -> str:
    if error and UNREACHABLE.search(error):
        return f"{NO_WEB_NOTICE.format(url=url[:200])} ({error})"
    return error


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:500]


def _join(*parts: str) -> str:
    return "; ".join(part for part in parts if part)
