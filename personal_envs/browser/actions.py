"""The browser action set, BrowserGym-style: elements are addressed by the ``bid`` shown in the AX tree.

Clicking has two actions: ``click`` takes a ``bid`` and ``click_xy`` takes viewport coordinates in CSS pixels
(the coordinate system of the screenshot at device scale factor 1).  ``send_msg_to_user`` and
``report_infeasible`` do not touch the page; :class:`~personal_envs.browser.session.BrowserSession` records them in
``messages`` and ``infeasible_reasons`` for the env to read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from personal_envs.core.actions import Action, ActionError, ActionSpec, Param, parse_action

#: Longest text ``fill`` accepts (characters); larger values are refused with a clear error.
MAX_FILL_CHARS = 2_000_000

#: Longest explicit wait ``noop`` may ask for.
MAX_WAIT_MS = 10_000

_BID = Param("string", "Element id: the number in brackets in the AX tree, e.g. '12'.")

BROWSER_ACTION_SPECS: tuple[ActionSpec, ...] = (
    ActionSpec.make("click", "Click the element with the given bid.", bid=_BID),
    ActionSpec.make(
        "click_xy",
        "Click at viewport coordinates (CSS pixels from the top-left corner of the screenshot).",
        x=Param("number", "Horizontal position in pixels.", minimum=0),
        y=Param("number", "Vertical position in pixels.", minimum=0),
    ),
    ActionSpec.make(
        "fill",
        "Replace the text of an input, textarea or editable element with the given value.",
        bid=_BID,
        value=Param("string", "Text to put into the field.", max_length=MAX_FILL_CHARS),
    ),
    ActionSpec.make(
        "select_option",
        "Select option(s) of a <select> element, matched by visible label or by value.",
        bid=_BID,
        options=Param("array", "Labels or values of the options to select.", items="string", max_items=50),
    ),
    ActionSpec.make(
        "press",
        "Press a key or key combination (e.g. 'Enter', 'Control+a', 'ArrowDown'), on an element or on the page.",
        key_comb=Param("string", "Playwright key name, with modifiers joined by '+'.", max_length=100),
        bid=Param("string", "Element to focus first; omit to press on the focused element.", required=False),
    ),
    ActionSpec.make(
        "scroll",
        "Scroll with the mouse wheel by the given pixel amounts (positive delta_y scrolls down).",
        delta_x=Param("number", "Horizontal scroll in pixels.", minimum=-100_000, maximum=100_000),
        delta_y=Param("number", "Vertical scroll in pixels.", minimum=-100_000, maximum=100_000),
    ),
    ActionSpec.make("hover", "Move the mouse over the element with the given bid.", bid=_BID),
    ActionSpec.make("goto", "Open a URL in the active tab.", url=Param("string", "Absolute URL.", max_length=8192)),
    ActionSpec.make("go_back", "Go back to the previous page of the active tab."),
    ActionSpec.make("go_forward", "Go forward in the active tab's history."),
    ActionSpec.make("new_tab", "Open a new blank tab and make it active."),
    ActionSpec.make(
        "tab_focus", "Make the tab with the given index active.", index=Param("integer", "Tab index, from 0.", minimum=0)
    ),
    ActionSpec.make("tab_close", "Close the active tab."),
    ActionSpec.make(
        "send_msg_to_user",
        "Send a message (for example the answer) to the user.",
        text=Param("string", "The message.", max_length=100_000),
    ),
    ActionSpec.make(
        "report_infeasible",
        "Declare that the task cannot be done, with the reason.",
        reason=Param("string", "Why the task is infeasible.", max_length=100_000),
    ),
    ActionSpec.make(
        "noop",
        "Do nothing, optionally waiting for the page (e.g. for something to load).",
        wait_ms=Param("integer", "Milliseconds to wait.", required=False, minimum=0, maximum=MAX_WAIT_MS),
    ),
)

#: Specs by name.
BROWSER_ACTIONS: dict[str, ActionSpec] = {spec.name: spec for spec in BROWSER_ACTION_SPECS}


def read_browser_action(raw: Action | Mapping[str, Any] | str) -> tuple[Action, dict[str, Any]] | str:
    """An action of the browser set and its validated arguments, or the error text an agent sees (both the Chromium
    and the text-mode session read their actions with it)."""
    try:
        action = raw if isinstance(raw, Action) else parse_action(raw, BROWSER_ACTIONS)
        spec = BROWSER_ACTIONS.get(action.name)
        if spec is None:
            raise ActionError(f"unknown action '{action.name}'; available actions: {', '.join(BROWSER_ACTIONS)}")
        return action, spec.validate(action.arguments)
    except ActionError as exc:
        return str(exc)
