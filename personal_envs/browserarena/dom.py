"""The browser-use style element index: numbered interactive elements, page text, and labelled screenshots.

:data:`INDEX_ELEMENTS_JS` walks the DOM in document order and

* gives every visible interactive element (links, buttons, inputs, selects, textareas, elements with an
  interactive ARIA role, ``onclick``, ``contenteditable`` or ``tabindex >= 0``) that lies within the viewport plus
  ``expansion`` pixels, and that is not covered by another element (hit-tested at its centre when on screen), the
  next index, stored in the ``data-arena-index`` attribute;
* keeps the visible text between those elements, so the list reads like the page;
* reports whether the page shows a captcha or a consent banner / modal (heuristics that also work on real sites).

:func:`render_items` turns the result into the text an agent sees (``[3]<button>Accept all</button>``), and
:func:`label_screenshot` draws the indices on the screenshot.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from personal_envs.browser.marks import draw_set_of_marks
from personal_envs.browser.observation import ElementInfo
from personal_envs.browser.page_scripts import load_script

INDEX_ATTRIBUTE = "data-arena-index"
_PACKAGE = "personal_envs.browserarena"

#: Numbers the interactive elements and collects the text between them (``js/index_elements.js``).
INDEX_ELEMENTS_JS = load_script("index_elements.js", _PACKAGE)
#: The page's visible text, cut at a limit.
PAGE_TEXT_JS = load_script("page_text.js", _PACKAGE)
#: Scrolls the first text node containing a string into view; true when found.
SCROLL_TO_TEXT_JS = load_script("scroll_to_text.js", _PACKAGE)
#: The options of a ``<select>`` element (null for any other element).
DROPDOWN_OPTIONS_JS = load_script("dropdown_options.js", _PACKAGE)


@dataclass(frozen=True)
class IndexedElement:
    """One numbered element of the page."""

    index: int
    tag: str
    text: str
    attrs: dict[str, str]
    bbox: tuple[float, float, float, float]
    in_viewport: bool

    def describe(self) -> str:
        """``<tag attr=...>text</tag>`` as in the element list."""
        shown = " ".join(f'{k}="{v}"' for k, v in self.attrs.items() if k not in ("alt",))
        opening = f"<{self.tag}{' ' + shown if shown else ''}>"
        return f"{opening}{self.text}</{self.tag}>"


@dataclass
class PageIndex:
    """The result of one indexing pass."""

    url: str = ""
    title: str = ""
    elements: dict[int, IndexedElement] | None = None
    text_lines: list[str] | None = None
    rendered: str = ""
    captcha: bool = False
    banner: bool = False
    scroll_y: float = 0.0
    page_height: float = 0.0
    viewport: tuple[float, float] = (1280.0, 720.0)

    @property
    def element_map(self) -> dict[int, IndexedElement]:
        """Elements by index (empty when the page could not be read)."""
        return self.elements or {}


def parse_index(raw: dict[str, Any], *, max_chars: int) -> PageIndex:
    """Build a :class:`PageIndex` from the JS result and render its text (cut at ``max_chars``)."""
    elements: dict[int, IndexedElement] = {}
    lines: list[str] = []
    text_lines: list[str] = []
    for item in raw.get("items", []):
        if item.get("kind") == "element":
            bbox = tuple(float(v) for v in item.get("bbox", (0, 0, 0, 0)))
            element = IndexedElement(int(item["index"]), str(item.get("tag", "")), str(item.get("text", "")),
                                     {str(k): str(v) for k, v in (item.get("attrs") or {}).items()},
                                     (bbox[0], bbox[1], bbox[2], bbox[3]), bool(item.get("inViewport")))
            elements[element.index] = element
            lines.append(f"[{element.index}]{element.describe()}")
        else:
            text = str(item.get("text", ""))
            text_lines.append(text)
            lines.append(text)
    viewport = raw.get("viewport") or (1280, 720)
    scroll_y, height = float(raw.get("scrollY") or 0), float(raw.get("pageHeight") or 0)
    above = scroll_y
    below = max(0.0, height - scroll_y - float(viewport[1]))
    header = f"... {above:.0f} pixels above - scroll up to see more ..." if above > 0 else "[Start of page]"
    footer = f"... {below:.0f} pixels below - scroll down to see more ..." if below > 0 else "[End of page]"
    body = "\n".join(lines) or "(no interactive elements or text visible)"
    if raw.get("truncated"):
        body += "\n... (element list truncated)"
    rendered = f"{header}\n{body}\n{footer}"
    if len(rendered) > max_chars:
        rendered = rendered[: max_chars - 40] + "\n... (element list cut)\n" + footer
    return PageIndex(
        url=str(raw.get("url", "")), title=str(raw.get("title", "")), elements=elements, text_lines=text_lines,
        rendered=rendered, captcha=bool(raw.get("captcha")), banner=bool(raw.get("banner")), scroll_y=scroll_y,
        page_height=height, viewport=(float(viewport[0]), float(viewport[1])),
    )


def label_screenshot(screenshot: np.ndarray, index: PageIndex) -> np.ndarray:
    """The screenshot with a box and the index number on every numbered element in the viewport."""
    infos = [ElementInfo(str(e.index), e.tag, e.text, "", e.bbox, True) for e in index.element_map.values()]
    return draw_set_of_marks(screenshot, infos, index.viewport)
