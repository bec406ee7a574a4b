"""What an agent sees of a page: the AX tree text, the screenshot, tabs, focus and the elements behind the bids."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class ElementInfo:
    """An element shown in the AX tree.

    Attributes:
        bid: Its stable id (the ``data-pe-bid`` attribute); actions address the element with it.
        role: ARIA role as Chromium computes it (``button``, ``link``, ``textbox``, ...).
        name: Accessible name (truncated to a few hundred characters).
        value: Current value of inputs, comboboxes, sliders ("" when none).
        bbox: ``(x, y, width, height)`` in CSS pixels relative to the viewport's top-left corner (negative or beyond
            the viewport when scrolled out of view); ``None`` when the element has no layout box.
        interactive: The agent can act on it (clickable, editable or focusable role, not disabled).
    """

    bid: str
    role: str
    name: str
    value: str
    bbox: tuple[float, float, float, float] | None
    interactive: bool

    def in_viewport(self, width: float, height: float) -> bool:
        """True if some part of the element's box lies inside a viewport of the given size."""
        if self.bbox is None:
            return False
        x, y, w, h = self.bbox
        return w > 0 and h > 0 and x < width and y < height and x + w > 0 and y + h > 0


@dataclass
class PageObservation:
    """One observation of the active tab.

    Attributes:
        url: URL of the active tab.
        title: Document title of the active tab.
        axtree: BrowserGym-style text, one node a line, indented by depth with tabs: ``[bid] role 'name' props``.
        screenshot: ``H x W x 3`` uint8 RGB array of the viewport (with set-of-marks boxes if asked), or ``None``.
        tabs: URL of every open tab, in opening order.
        active_tab: Index of the active tab in ``tabs``.
        focused_bid: bid of the focused element ("" when the document itself has focus).
        elements: Every element shown in ``axtree`` that has a bid, by bid.
        error: The latest action's error text and/or what went wrong while observing; "" when all went well.
    """

    url: str
    title: str
    axtree: str
    screenshot: np.ndarray | None
    tabs: tuple[str, ...]
    active_tab: int
    focused_bid: str
    elements: Mapping[str, ElementInfo] = field(default_factory=dict)
    error: str = ""

    @classmethod
    def empty(cls, error: str, url: str = "", tabs: tuple[str, ...] = ()) -> PageObservation:
        """An observation with no page content, used when the page could not be read."""
        return cls(url=url, title="", axtree="", screenshot=None, tabs=tabs, active_tab=0, focused_bid="",
                   elements={}, error=error)
