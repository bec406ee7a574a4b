"""BrowserArena in both modes side by side: seeded random BrowserUse actions and what differs between observations.

:func:`random_arena_action` draws one action from what an observation shows (its numbered elements and text) and a
fixed list of the local sites' pages (:func:`walk_urls`: every site, result pages behind the captcha, their cache,
archive, text-only and proxy copies, searches, articles); :func:`compare_observations` sorts what differs between
the browser mode's observation and the text mode's into kinds.  The parity walk is
``tests/browserarena/test_text_mode.py``; ``benchmarks/text_mode.py`` times the same actions.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import numpy as np

from personal_envs.browserarena.policies import elements
from personal_envs.browserarena.web import hosts
from personal_envs.browserarena.web.world import CITIES

#: Observation keys the walk compares (the screenshot exists in the browser mode only).
COMPARED_KEYS = ("url", "title", "tabs", "elements", "action_result", "last_action_error")
_PIXELS = re.compile(r"^\.\.\. \d+ pixels (above|below)")
_QUERIES = ("flights to paris", "SkyRoute cars Berlin", "Openpedia", "daily herald politics", "lighthouse",
            "cheapest hotel London", "", "Main Page")
_SELECTORS = ("button", "a", "#press-hold", "#not-robot", ".consent-button", "input[type=checkbox]", "select",
              "header a", "main > h1", "p.note")
_TEXTS = ("Search", "Sports", "Press", "robot", "Home", "Next", "Accept all", "Close", "Openpedia", "Results")


def walk_urls() -> list[str]:
    """Pages of every local site the walk may type (some behind the captcha, some missing)."""
    deep = f"http://{hosts.TRAVEL_HOST}/flights?from=PAR&to=LON&date=2025-08-01"
    encoded = quote(deep, safe="")
    return [
        f"http://{hosts.NEWS_HOST}/", f"http://{hosts.NEWS_HOST}/section/politics",
        f"http://{hosts.TRAVEL_HOST}/", deep, f"http://{hosts.TRAVEL_HOST}/hotels?city=Berlin&date=2025-07-20",
        f"http://{hosts.TRAVEL_MOBILE_HOST}/flights?from=PAR&to=LON&date=2025-08-01",
        f"http://{hosts.TRAVEL_COUNTRY_HOST}/cars?city=Paris&date=2025-08-17",
        f"http://{hosts.COMPETITOR_HOST}/flights?from=BER&to=ROM&date=2025-07-09",
        f"http://{hosts.SEARCH_HOST}/", f"http://{hosts.SEARCH_HOST}/search?q=flights+to+paris",
        f"http://{hosts.SEARCH_HOST}/cache?url={encoded}", f"http://{hosts.ARCHIVE_HOST}/web/2025/{deep}",
        f"http://{hosts.TEXT_PROXY_HOST}/?url={encoded}", f"http://{hosts.PUBLIC_PROXY_HOST}/raw?url={encoded}",
        f"http://{hosts.SEARCH_HOST}/travel?from=PAR&to=LON&date=2025-08-01",
        f"http://{hosts.WIKI_HOST}/wiki/Main_Page", f"http://{hosts.WIKI_HOST}/wiki/No_such_article",
        f"https://{hosts.NEWS_HOST}/section/sports", f"{hosts.WIKI_HOST}/wiki/Eiffel_Tower",
    ]


def random_arena_action(obs: dict[str, Any], rng: np.random.Generator, urls: list[str]) -> dict[str, Any]:
    """One seeded random BrowserUse action (``{"action_type": ..., **arguments}``) for what ``obs`` shows."""
    listed = elements(obs)
    fields = [e for e in listed if e[1] in ("input", "textarea") and 'type="checkbox"' not in e[2]]
    selects = [e for e in listed if e[1] == "select"]
    tabs = max(1, len(str(obs.get("tabs", "")).splitlines()))
    draw = float(rng.random())
    if listed and draw < 0.36:
        return {"action_type": "click_element_by_index", "index": int(rng.choice([e[0] for e in listed]))}
    if fields and draw < 0.46:
        index = fields[int(rng.integers(len(fields)))][0]
        return {"action_type": "input_text", "index": index, "text": str(rng.choice(_QUERIES))}
    if selects and draw < 0.52:
        index = selects[int(rng.integers(len(selects)))][0]
        if rng.random() < 0.3:
            return {"action_type": "get_dropdown_options", "index": index}
        code = str(rng.choice(list(CITIES)))
        text = f"{CITIES[code]} ({code})" if rng.random() < 0.8 else CITIES[code]
        return {"action_type": "select_dropdown_option", "index": index, "text": text}
    if draw < 0.62:
        return {"action_type": "scroll_down" if rng.random() < 0.7 else "scroll_up",
                **({"amount": int(rng.choice([200, 350, 1000]))} if rng.random() < 0.4 else {})}
    if draw < 0.69:
        return {"action_type": "go_back"}
    if draw < 0.79:
        return {"action_type": "go_to_url", "url": str(rng.choice(urls))}
    if draw < 0.82:
        return {"action_type": "search_google", "query": str(rng.choice(_QUERIES[:-2]))}
    if draw < 0.85:
        return {"action_type": "send_keys", "keys": str(rng.choice(["Enter", "Enter", "Tab", "a"]))}
    if draw < 0.87:
        return {"action_type": "open_tab", "url": str(rng.choice(urls))}
    if draw < 0.89:
        return {"action_type": "switch_tab", "page_id": int(rng.integers(tabs + 1))}
    if draw < 0.90:
        return {"action_type": "close_tab", "page_id": int(rng.integers(tabs))}
    if draw < 0.92:
        return {"action_type": "scroll_to_text", "text": str(rng.choice(_TEXTS))}
    if draw < 0.94:
        return {"action_type": "click_element_by_text", "text": str(rng.choice(_TEXTS))}
    if draw < 0.96:
        return {"action_type": "click_element_by_selector", "css_selector": str(rng.choice(_SELECTORS))}
    if draw < 0.975:
        return {"action_type": "wait", "seconds": 1}
    if draw < 0.99:
        return {"action_type": "get_dropdown_options", "index": int(rng.integers(0, 5))}
    return {"action_type": "done", "text": "Finished the walk.", "success": False}


#: The kind of an action result that differs because the element lists before the step differed.
AFTER_UNEQUAL_LISTS = "action_result: after unequal element lists"


@dataclass
class ObservationDiff:
    """What differs between the two modes' observations over a walk, by kind, with one example each."""

    states: int = 0
    identical: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    examples: dict[str, tuple[str, str]] = field(default_factory=dict)

    def add(self, browser: dict[str, Any], text: dict[str, Any], *, lists_differed: bool = False) -> list[str]:
        """Compare one pair of observations; returns the kinds found (none: identical).

        ``lists_differed``: the element lists of the state before this step were not equal (kind ``"elements"``), so
        an action by index may have hit a different element in each mode; an unequal action result is then counted
        as :data:`AFTER_UNEQUAL_LISTS`, a consequence rather than a difference of its own.
        """
        self.states += 1
        found = []
        for key in COMPARED_KEYS:
            left, right = str(browser.get(key, "")), str(text.get(key, ""))
            if left == right:
                continue
            kind = key
            if key == "elements" and _masked(left) == _masked(right):
                kind = "elements: scroll distance only"
            elif key == "action_result" and lists_differed:
                kind = AFTER_UNEQUAL_LISTS
            found.append(kind)
            self.kinds[kind] += 1
            self.examples.setdefault(kind, (left[:600], right[:600]))
        if not found:
            self.identical += 1
        return found


def _masked(listing: str) -> list[str]:
    return [_PIXELS.sub(r"... N pixels \1", line) for line in listing.splitlines()]
