"""Runs BrowserUse actions on a :class:`~personal_envs.textmode.session.TextSession` (BrowserArena's text mode).

The element list is :func:`~personal_envs.textmode.arena_index.index_page`'s (the rules of the browser mode's
indexing script, on the text mode's layout), printed by the same :func:`~personal_envs.browserarena.dom.parse_index`;
element actions address the elements it numbered.  Navigation, history, tabs and keys are the session's own actions
(:class:`~personal_envs.browserarena.driver.UseDriverBase`), so every request lands on the same site objects the
browser mode's proxy serves.  The pages' scripts are :mod:`personal_envs.browserarena.text_scripts`.

What differs from the browser mode, on purpose: ``wait`` returns at once (nothing on these pages changes with time);
``save_pdf`` and ``click_element_by_xpath`` are refused (no renderer, no XPath engine); ``drag_drop`` resolves its
points and does nothing else (no page here reacts to a drag); ``extract_content`` reads the text mode's ``innerText``
estimate.  See docs/browserarena.md ("Text mode").
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from personal_envs.browserarena.dom import PageIndex, parse_index
from personal_envs.browserarena.driver import EXTRACT_LIMIT, ActionOutcome, UseDriverBase
from personal_envs.browserarena.extraction import raw_extraction
from personal_envs.core.actions import Action
from personal_envs.textmode.arena_index import index_page, inner_text, receives_click
from personal_envs.textmode.css import parse_selector
from personal_envs.textmode.dom import Element, Text
from personal_envs.textmode.session import TextPage, TextSession

_FILLABLE_EXCLUDED = frozenset({"button", "checkbox", "radio", "submit", "reset", "file", "image", "hidden", "range",
                                "color"})
_MAX_SCROLL = 100_000
#: Playwright's click timeout in the browser mode's driver (its error names it).
CLICK_TIMEOUT_MS = 5000
#: Inputs whose value has a format: Playwright's ``fill`` refuses other text ("Malformed value") and keys typed
#: into them instead do not become their value.
_FORMATTED = {"date": re.compile(r"^\d{4}-\d{2}-\d{2}$"), "time": re.compile(r"^\d{2}:\d{2}(:\d{2}(\.\d+)?)?$"),
              "datetime-local": re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$"),
              "month": re.compile(r"^\d{4}-\d{2}$"), "week": re.compile(r"^\d{4}-W\d{2}$")}


class TextUseDriver(UseDriverBase):
    """BrowserUse actions and element-index observations over a text session (arguments: :class:`UseDriverBase`)."""

    session: TextSession

    def __init__(self, session: TextSession, **options: Any) -> None:
        super().__init__(session, **options)
        self._numbered: dict[int, Element] = {}
        self._numbered_page: TextPage | None = None
        self._seen: tuple[TextPage, int, float] | None = None

    # ------------------------------------------------------------------------------------------ observe
    def observe(self, *, screenshot: bool) -> tuple[PageIndex, np.ndarray | None, tuple[str, ...], int, str]:
        """Number the elements of the active page (no screenshot exists in this mode)."""
        page_obs = self.session.observe(axtree=False)
        page = self.session.page
        if page is None:
            self.index = PageIndex(rendered="(the page could not be read)")
            return self.index, None, page_obs.tabs, page_obs.active_tab, page_obs.error
        key = (page, page.version, page.scroll_y)
        seen = self._seen
        if seen is None or seen[0] is not page or seen[1:] != key[1:]:
            viewport = self.session.viewport
            raw, numbered = index_page(page.document, page.styles, page.layout(viewport), url=page.url,
                                       scroll_y=page.scroll_y, viewport=viewport, expansion=self.expansion,
                                       max_items=self.max_items)
            self.index = parse_index(raw, max_chars=self.max_list_chars)
            self._numbered, self._numbered_page = numbered, page
            self._seen = (page, page.version, page.scroll_y)
        notice = page_obs.error
        last = self.session.last_error
        if last and notice.startswith(last):
            notice = notice[len(last):].lstrip("; ")
        return self.index, None, page_obs.tabs, page_obs.active_tab, notice

    def tab_count(self) -> int:
        return len(self.session.observe(axtree=False).tabs)

    # ------------------------------------------------------------------------------------------ elements
    def _page(self) -> TextPage:
        page = self.session.page
        if page is None:
            raise RuntimeError("the session is closed")
        return page

    def _numbered_element(self, index: int) -> tuple[Element | None, str, str]:
        """``(element, description, error)`` of a number of the latest element list."""
        target, error = self._element(index)
        if error:
            return None, "", error
        element = self._numbered.get(index)
        if element is None or self._numbered_page is not self.session.page:
            return None, target, f"Element with index {index} is gone - the page changed; observe again"
        return element, target, ""

    def _visible(self, page: TextPage, element: Element) -> bool:
        styles = page.styles
        if not styles.rendered(element) or styles.style(element).get("visibility") in ("hidden", "collapse"):
            return False
        box = page.layout(self.session.viewport).boxes.get(id(element))
        return box is not None and box[2] > 0 and box[3] > 0

    def _click(self, page: TextPage, element: Element) -> str:
        """Playwright's click: scrolled into view, then clicked at its centre; where another element would receive
        the click (an overlay), Playwright retries until its timeout, and so fails here at once."""
        if not self._visible(page, element) or element.disabled:  # Playwright waits for it until its timeout
            raise TimeoutError(f"Locator.click: Timeout {CLICK_TIMEOUT_MS}ms exceeded.")
        viewport = self.session.viewport
        self.session.scroll_into_view(page, element)
        if not receives_click(page.document, page.styles, page.layout(viewport), element, scroll_y=page.scroll_y,
                              viewport=viewport):
            raise TimeoutError(f"Locator.click: Timeout {CLICK_TIMEOUT_MS}ms exceeded.")
        return self.session.click_element(page, element)

    def _do_click_element_by_index(self, index: int, xpath: str = "") -> ActionOutcome:
        element, target, error = self._numbered_element(index)
        if element is None:
            return ActionOutcome(error=error, target=target)
        error = self._click(self._page(), element)
        return ActionOutcome(error=error, result="" if error else f"Clicked element {index}: {target}",
                             target=target)

    def _do_input_text(self, index: int, text: str, xpath: str = "") -> ActionOutcome:
        element, target, error = self._numbered_element(index)
        if element is None:
            return ActionOutcome(error=error, target=target)
        page = self._page()
        fillable = element.tag == "textarea" or (element.tag == "input" and element.input_type not in
                                                 _FILLABLE_EXCLUDED)
        formatted = _FORMATTED.get(element.input_type) if element.tag == "input" else None
        if formatted is not None and text and not formatted.match(text):
            fillable = False
        error = self.session.execute(Action("fill", {"bid": element.bid, "value": text})) if fillable and \
            element.bid else "not fillable"
        if error:  # the browser mode clicks the element and types instead
            error = self._click(page, element)
            if not error and formatted is not None and text:
                element.value = ""  # keys typed into a date field leave it incomplete: its value is empty
                page.changed()
            elif not error:
                for key in text:
                    self.session.execute(Action("press", {"key_comb": "Space" if key == " " else key}))
        return ActionOutcome(error=error, result="" if error else f"Input {text!r} into index {index}", target=target)

    def _do_get_dropdown_options(self, index: int) -> ActionOutcome:
        element, target, error = self._numbered_element(index)
        if element is None:
            return ActionOutcome(error=error)
        if element.tag != "select":
            return ActionOutcome(error=f"Element {index} {target} is not a dropdown (<select>)")
        listing = "\n".join(f"{i}: text={_option_text(o)!r}" for i, o in enumerate(element.options))
        return ActionOutcome(result=f"Options of dropdown {index}:\n{listing}\nUse the exact text in "
                                    "select_dropdown_option", target=target)

    def _do_select_dropdown_option(self, index: int, text: str) -> ActionOutcome:
        element, target, error = self._numbered_element(index)
        if element is None:
            return ActionOutcome(error=error)
        if element.tag != "select":
            return ActionOutcome(error=f"Element {index} {target} is not a dropdown (<select>)", target=target)
        options = element.options
        chosen = next((o for o in options if o.option_label() == text), None) or next(
            (o for o in options if _option_text(o) == text or o.option_value() == text), None)
        if chosen is None:
            labels = ", ".join(repr(_option_text(o)) for o in options[:30])
            return ActionOutcome(error=f"No option {text!r} in dropdown {index}; options: {labels}", target=target)
        error = self.session.execute(Action("select_option", {"bid": element.bid,
                                                               "options": [chosen.option_value()]}))
        return ActionOutcome(error=error, result="" if error else f"Selected option {text!r} in dropdown {index}",
                             target=target)

    # ------------------------------------------------------------------------------------------ by locator
    def _matching(self, selector: str) -> list[Element] | str:
        parsed = parse_selector(selector)
        if parsed is None:
            return f"{selector!r} is not a CSS selector the text mode reads (simple selectors, ' ' and '>')"
        return self._page().document.find_all(lambda e: parsed.matches(e))

    def _click_first(self, describe: str, found: list[Element] | str, nth: int = 0) -> ActionOutcome:
        if isinstance(found, str):
            return ActionOutcome(error=found, target=describe)
        if len(found) <= nth:
            return ActionOutcome(error=f"No element matches {describe}", target=describe)
        error = self._click(self._page(), found[nth])
        return ActionOutcome(error=error, result="" if error else f"Clicked the element matching {describe}",
                             target=describe)

    def _do_click_element_by_selector(self, css_selector: str) -> ActionOutcome:
        return self._click_first(f"CSS selector {css_selector!r}", self._matching(css_selector))

    def _do_click_element_by_xpath(self, xpath: str) -> ActionOutcome:
        return ActionOutcome(error="click_element_by_xpath needs a browser: the text mode has no XPath engine "
                                   "(use click_element_by_index or click_element_by_selector)")

    def _do_click_element_by_text(self, text: str, element_type: str | None = None, nth: int = 0) -> ActionOutcome:
        describe = f"text {text!r}" + (f" ({element_type})" if element_type else "") + (f" #{nth}" if nth else "")
        needle = " ".join(text.split()).lower()
        page = self._page()
        body = page.document.body
        if body is None:
            return ActionOutcome(error=f"No element matches {describe}", target=describe)
        if element_type:
            candidates = self._matching(element_type)
            if isinstance(candidates, str):
                return ActionOutcome(error=candidates, target=describe)
            found = [e for e in candidates if needle in _normal(e.text_content)]
        else:  # Playwright's get_by_text: the innermost elements whose text contains it
            found = [e for e in body.iter() if e.tag not in ("script", "style") and needle in _normal(e.text_content)
                     and not any(needle in _normal(c.text_content) for c in e.element_children)]
        return self._click_first(describe, found, max(0, int(nth)))

    def _do_wait_for_element(self, selector: str, timeout: int = 10_000) -> ActionOutcome:
        wait_ms = max(250, min(int(timeout), int(self.max_wait_s * 1000)))
        found = self._matching(selector)
        if isinstance(found, str):
            return ActionOutcome(error=found)
        page = self._page()
        if not found or not self._visible(page, found[0]):
            return ActionOutcome(error=f"Element {selector!r} did not become visible within {wait_ms} ms "
                                       f"({'it is hidden' if found else 'no element matches'})")
        return ActionOutcome(result=f"Element {selector!r} is visible")

    # ------------------------------------------------------------------------------------------ page
    def _do_extract_content(self, goal: str, should_strip_link_urls: bool = True) -> ActionOutcome:
        page = self._page()
        body = page.document.body
        text = inner_text(body, page.styles).strip()[:EXTRACT_LIMIT] if body is not None else ""
        if self.extractor is None:
            return ActionOutcome(result=raw_extraction(goal, text))
        return ActionOutcome(result=self.extractor(goal, text))

    def _do_wait(self, seconds: int = 3) -> ActionOutcome:
        return ActionOutcome(result=f"Waited for {seconds} seconds")

    def _scroll(self, amount: int | None, sign: int) -> str:
        pixels = amount if amount is not None else self.session.viewport[1]
        delta = max(-_MAX_SCROLL, min(_MAX_SCROLL, sign * int(pixels)))
        self.session.execute(Action("scroll", {"delta_x": 0, "delta_y": delta}))
        return f"Scrolled {'down' if sign > 0 else 'up'} by {amount if amount is not None else 'one page'}"

    def _do_scroll_to_text(self, text: str) -> ActionOutcome:
        page = self._page()
        body = page.document.body
        needle = text.lower()
        node = _first_text(body, needle) if body is not None else None
        if node is None or node.parent is None:
            return ActionOutcome(error=f"Text {text!r} not found on the page")
        layout = page.layout(self.session.viewport)
        box = layout.boxes.get(id(node.parent))
        if box is not None and box[2] > 0 and box[3] > 0:  # scrollIntoView({block: 'center'})
            height = self.session.viewport[1]
            page.scroll_y = max(0.0, min(box[1] + box[3] / 2 - height / 2, max(0.0, layout.height - height)))
        return ActionOutcome(result=f"Scrolled to text: {text}")

    def _do_save_pdf(self) -> ActionOutcome:
        return ActionOutcome(error="save_pdf needs a browser: the text mode renders no pages (render='browser' "
                                   "prints them)")

    def _do_save_html_to_file(self) -> ActionOutcome:
        page = self._page()
        path = self._file_path(page.url, ".html")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(page.html())
        return ActionOutcome(result=f"Saved the HTML of {self.index.url} to {path}")

    def _do_drag_drop(self, element_source: str | None = None, element_target: str | None = None,
                      element_source_offset: dict[str, Any] | None = None,
                      element_target_offset: dict[str, Any] | None = None, coord_source_x: int | None = None,
                      coord_source_y: int | None = None, coord_target_x: int | None = None,
                      coord_target_y: int | None = None, steps: int = 10, delay_ms: int = 5) -> ActionOutcome:
        for ref, x, y in ((element_source, coord_source_x, coord_source_y),
                          (element_target, coord_target_x, coord_target_y)):
            if ref:
                ref = ref.strip()
                found = ([self._numbered[int(ref)]] if int(ref) in self._numbered else []) if ref.isdigit() \
                    else self._matching(ref)
                if isinstance(found, str):
                    return ActionOutcome(error=found)
                if not found or not self._visible(self._page(), found[0]):
                    return ActionOutcome(error=f"drag_drop: {ref!r} has no box on the page")
            elif x is None or y is None:
                return ActionOutcome(error="drag_drop needs element_source/element_target or all four coordinates")
        return ActionOutcome(result="Dragged and dropped")


def _normal(text: str) -> str:
    return " ".join(text.split()).lower()


def _option_text(option: Element) -> str:
    """``HTMLOptionElement.text``: the option's text, whitespace collapsed."""
    return " ".join(option.text_content.split())


def _first_text(root: Element, needle: str) -> Text | None:
    """The first text node under ``root`` whose text contains ``needle`` (lower case), scripts included, as the
    browser's ``TreeWalker`` finds it."""
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, Text):
            if needle in node.data.lower():
                return node
        elif isinstance(node, Element):
            stack.extend(reversed(node.children))
    return None
