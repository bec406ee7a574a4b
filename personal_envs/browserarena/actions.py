"""The BrowserUse action set, addressed by the element indices of :mod:`personal_envs.browserarena.dom`.

An env step takes either one action (``{"action_type": "click_element_by_index", "index": 3}``) or a whole
browser-use agent output, which carries the agent's state and several actions::

    {"current_state": {"evaluation_previous_goal": "...", "memory": "...", "next_goal": "..."},
     "action": [{"input_text": {"index": 2, "text": "Paris"}}, {"click_element_by_index": {"index": 3}}]}

:func:`parse_agent_output` recognises the second form.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from personal_envs.core.actions import (
    Action,
    ActionError,
    ActionSpec,
    Param,
    guarded,
    load_action_object,
    parse_action,
)

MAX_TEXT = 10_000
MAX_WAIT_SECONDS = 60

_INDEX = Param("integer", "Index of the element in the element list, e.g. 3 for [3].", minimum=0, maximum=100_000)
_XPATH = Param("string", "Ignored (kept for browser-use compatibility).", required=False, max_length=2000)

BROWSERUSE_ACTION_SPECS: tuple[ActionSpec, ...] = (
    ActionSpec.make(
        "done", "Finish the task and report the result to the user.",
        text=Param("string", "Final answer or summary for the user.", max_length=MAX_TEXT),
        success=Param("boolean", "Whether the task was completed successfully.", required=False),
    ),
    ActionSpec.make("search_google", "Search the web for a query in the current tab.",
                    query=Param("string", "Search query.", max_length=2000)),
    ActionSpec.make("go_to_url", "Open a URL in the current tab.", url=Param("string", "URL.", max_length=8192)),
    ActionSpec.make("go_back", "Go back to the previous page."),
    ActionSpec.make("wait", "Wait for some seconds.",
                    seconds=Param("integer", "Seconds to wait (default 3).", required=False, minimum=0,
                                  maximum=MAX_WAIT_SECONDS)),
    ActionSpec.make("click_element_by_index", "Click the element with the given index.", index=_INDEX, xpath=_XPATH),
    ActionSpec.make("input_text", "Type text into the input element with the given index.", index=_INDEX,
                    text=Param("string", "Text to type.", max_length=MAX_TEXT), xpath=_XPATH),
    ActionSpec.make("switch_tab", "Switch to the tab with the given id.",
                    page_id=Param("integer", "Tab id, from 0.", minimum=0, maximum=1000)),
    ActionSpec.make("open_tab", "Open a URL in a new tab.", url=Param("string", "URL.", max_length=8192)),
    ActionSpec.make("close_tab", "Close the tab with the given id.",
                    page_id=Param("integer", "Tab id, from 0.", minimum=0, maximum=1000)),
    ActionSpec.make(
        "extract_content", "Extract the page's text content with a goal in mind (returned as the action result).",
        goal=Param("string", "What to extract.", max_length=2000),
        should_strip_link_urls=Param("boolean", "Leave link URLs out of the result.", required=False),
    ),
    ActionSpec.make("scroll_down", "Scroll down by a number of pixels (default: one page).",
                    amount=Param("integer", "Pixels.", required=False, minimum=0, maximum=100_000)),
    ActionSpec.make("scroll_up", "Scroll up by a number of pixels (default: one page).",
                    amount=Param("integer", "Pixels.", required=False, minimum=0, maximum=100_000)),
    ActionSpec.make("send_keys", "Send keys, e.g. 'Enter', 'Escape', 'Control+a'.",
                    keys=Param("string", "Playwright key name(s), with modifiers joined by '+'.", max_length=200)),
    ActionSpec.make("scroll_to_text", "Scroll to the first occurrence of a text.",
                    text=Param("string", "Text to find.", max_length=2000)),
    ActionSpec.make("get_dropdown_options", "List the options of the dropdown with the given index.", index=_INDEX),
    ActionSpec.make("select_dropdown_option", "Select the option with the given text in a dropdown.", index=_INDEX,
                    text=Param("string", "Option text.", max_length=2000)),
    ActionSpec.make(
        "drag_drop", "Drag from a source to a target, given as element indices / CSS selectors or as coordinates.",
        element_source=Param("string", "Index ('5') or CSS selector of the source.", required=False,
                             max_length=2000),
        element_target=Param("string", "Index ('7') or CSS selector of the target.", required=False,
                             max_length=2000),
        element_source_offset=Param("object", "{x, y} offset inside the source.", required=False),
        element_target_offset=Param("object", "{x, y} offset inside the target.", required=False),
        coord_source_x=Param("integer", "Source x in viewport pixels.", required=False, minimum=0, maximum=20_000),
        coord_source_y=Param("integer", "Source y in viewport pixels.", required=False, minimum=0, maximum=20_000),
        coord_target_x=Param("integer", "Target x in viewport pixels.", required=False, minimum=0, maximum=20_000),
        coord_target_y=Param("integer", "Target y in viewport pixels.", required=False, minimum=0, maximum=20_000),
        steps=Param("integer", "Intermediate mouse moves.", required=False, minimum=1, maximum=100),
        delay_ms=Param("integer", "Delay between moves in ms.", required=False, minimum=0, maximum=1000),
    ),
    ActionSpec.make("wait_for_element", "Wait until the element matching a CSS selector is visible.",
                    selector=Param("string", "CSS selector.", max_length=2000),
                    timeout=Param("integer", "Longest wait in milliseconds (default 10000).", required=False,
                                  minimum=0, maximum=60_000)),
    ActionSpec.make("click_element_by_selector", "Click the element matching a CSS selector.",
                    css_selector=Param("string", "CSS selector.", max_length=2000)),
    ActionSpec.make("click_element_by_xpath", "Click the element matching an XPath.",
                    xpath=Param("string", "XPath, e.g. //button[text()='OK'].", max_length=2000)),
    ActionSpec.make("click_element_by_text", "Click the element whose text contains a string.",
                    text=Param("string", "Text of the element.", max_length=2000),
                    element_type=Param("string", "Tag name to restrict to, e.g. 'button'.", required=False,
                                       max_length=50),
                    nth=Param("integer", "Which match to click, from 0 (default 0).", required=False, minimum=0,
                              maximum=1000)),
    ActionSpec.make("save_pdf", "Save the current page as a PDF file."),
    ActionSpec.make("save_html_to_file", "Save the current page's HTML to a file."),
)

#: The extra action of the DirectNavigation env: a search API that answers with JSON results, no page needed.
SEARCH_API_SPEC = ActionSpec.make(
    "search_api", "Query the search API; the results (title, url, snippet) come back as the action result.",
    query=Param("string", "Search query.", max_length=2000),
)

BRAIN_KEYS = ("evaluation_previous_goal", "memory", "next_goal")
MAX_ACTIONS_PER_STEP = 10


@dataclass
class AgentOutput:
    """A parsed browser-use agent output: the agent's state and its actions for this step."""

    brain: dict[str, str] = field(default_factory=dict)
    actions: list[Action] = field(default_factory=list)


def looks_like_agent_output(raw: Any) -> bool:
    """True for a dict (or JSON text of one) with an ``action`` list or a ``current_state`` (never raises)."""
    try:
        obj = _maybe_json(raw)
        return isinstance(obj, Mapping) and (isinstance(obj.get("action"), list) or "current_state" in obj)
    except Exception:  # noqa: BLE001 - a hostile object is simply not the agent-output form
        return False


def decode_step(raw: Any, specs: Mapping[str, ActionSpec]) -> AgentOutput:
    """Decode one env step: a browser-use agent output or a single action (any form :func:`parse_action` takes).

    Total: any object or text gives an :class:`AgentOutput` or raises :class:`ActionError`.
    """
    if looks_like_agent_output(raw):
        return parse_agent_output(raw, specs)
    return AgentOutput({}, [parse_action(raw, specs)])


def parse_agent_output(raw: Any, specs: Mapping[str, ActionSpec],
                       max_actions: int = MAX_ACTIONS_PER_STEP) -> AgentOutput:
    """Parse the browser-use output form; raises :class:`ActionError` (and nothing else) for any input."""
    return guarded(lambda: _parse_agent_output(raw, specs, max_actions))


def _parse_agent_output(raw: Any, specs: Mapping[str, ActionSpec], max_actions: int) -> AgentOutput:
    obj = load_action_object(raw)
    if not isinstance(obj, Mapping):
        raise ActionError("agent output must be a JSON object with 'current_state' and 'action'")
    state = obj.get("current_state") or {}
    if not isinstance(state, Mapping):
        raise ActionError("'current_state' must be an object with evaluation_previous_goal, memory and next_goal")
    brain = {key: str(state.get(key, ""))[:MAX_TEXT] for key in BRAIN_KEYS}
    items = obj.get("action")
    if not isinstance(items, list) or not items:
        raise ActionError("'action' must be a non-empty list such as [{\"go_to_url\": {\"url\": \"...\"}}]")
    if len(items) > max_actions:
        raise ActionError(f"at most {max_actions} actions per step, got {len(items)}")
    actions = []
    for position, item in enumerate(items, start=1):
        if isinstance(item, Mapping) and len(item) == 1 and not ({"action_type", "name", "function"} & set(item)):
            (name, arguments), = item.items()
            if arguments is None:
                arguments = {}
            if not isinstance(arguments, Mapping):
                raise ActionError(f"action {position}: arguments of {name[:60]!r} must be an object")
            item = {"action_type": name, **{k: v for k, v in arguments.items() if v is not None}}
        try:
            actions.append(parse_action(item, specs))
        except ActionError as exc:
            raise ActionError(f"action {position}: {exc}") from None
    return AgentOutput(brain, actions)


def _maybe_json(raw: Any) -> Any:
    if isinstance(raw, (str, bytes)):
        try:
            return load_action_object(raw)
        except ActionError:
            return None
    return raw
