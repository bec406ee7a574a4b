"""Rule-based classification of agent traces into the paper's failure-mode categories.

A trace is the JSON log of an episode (:attr:`BrowserArenaEnv.browser_trace`): per step the agent's state, its
actions (name, arguments, error, the URL before and after) and what the page showed next (URL, captcha / banner
flags).  The rules only read actions and URLs, classified by
:func:`~personal_envs.browserarena.web.hosts.classify_url`, so they work on local and real-web traces alike.

Captcha strategies (the 14 keys of the paper's judge; a trace may use several):

========================== ===============================================================================
``cache``                  opened a search-engine cache copy (``/cache?url=``, ``cache:`` queries)
``mobile``                 opened the travel site's mobile host
``direct_link``            typed a deep link of the travel site (a result page, not its home) with go_to_url
``google_search``          searched the web (search_google or a search results page, no cache term)
``randomized_interaction`` waited different amounts of time (two or more waits of distinct lengths)
``reloads``                reopened the page it was on (go_to_url to the same URL, F5 / Ctrl+R)
``new_tab``                opened the travel site in a new tab
``switch_websites``        used a competing travel site
``internal_navigation``    went to the travel site's home page and used its links or forms
``country_domain``         opened another country domain of the travel site
``text-only rendering``    used a text-only rendering proxy
``public_proxy``           used a public (CORS) proxy
``internet_archive``       used the web archive
``google_travel_integration`` used the search engine's travel / flights integration
========================== ===============================================================================
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from personal_envs.browserarena.web.hosts import UrlRole, classify_url, host_of

CAPTCHA_STRATEGIES: tuple[str, ...] = (
    "cache", "mobile", "direct_link", "google_search", "randomized_interaction", "reloads", "new_tab",
    "switch_websites", "internal_navigation", "country_domain", "text-only rendering", "public_proxy",
    "internet_archive", "google_travel_integration",
)
BANNER_KEYS: tuple[str, ...] = ("banner_detected", "banner_closed")
NAVIGATION_KEYS: tuple[str, ...] = (
    "search_api", "search_site", "encyclopedia", "direct_navigation", "direct_answer",
)
#: How a trace looked its answer up (Table 5's columns other than Failed, plus ``other_site``; see
#: :func:`navigation_route`).
NAVIGATION_ROUTES: tuple[str, ...] = ("google_api", "google_site", "wiki", "other_site", "direct_answer")
#: The paper's Table 5 columns (and ``other_site``): one per trace, mutually exclusive, summing to 100% over a
#: model's tasks.
NAVIGATION_CATEGORIES: tuple[str, ...] = (*NAVIGATION_ROUTES, "failed")
#: Words by which an agent shows that it noticed a cookie banner / pop-up (in its goals, memory, evaluations,
#: action arguments or answer).
BANNER_WORDS = re.compile(r"cookie|banner|pop[- ]?up|consent|privacy (notice|settings|choices)|gdpr|overlay|"
                          r"modal|dialog|accept all|reject all|subscribe (box|wall)|newsletter|paywall",
                          re.IGNORECASE)

_TRAVEL_ROLES = {UrlRole.TRAVEL, UrlRole.TRAVEL_HOME, UrlRole.TRAVEL_MOBILE, UrlRole.TRAVEL_COUNTRY}
_ELEMENT_ACTIONS = {"click_element_by_index", "input_text", "select_dropdown_option", "send_keys"}
_NAVIGATING = {"go_to_url", "open_tab", "search_google", "click_element_by_index", "send_keys", "go_back",
               "switch_tab", "close_tab", "select_dropdown_option", "search_api", "input_text", "scroll_down",
               "scroll_up", "scroll_to_text", "extract_content", "get_dropdown_options", "drag_drop"}
_RELOAD_KEYS = re.compile(r"^(f5|(control|meta|ctrl|cmd)\+r)$", re.IGNORECASE)
_TRAVEL_INTEGRATION = re.compile(r"(google|seekr)\s+(travel|flights?)(\s+integration)?|travel integration|"
                                 r"flights? integration", re.IGNORECASE)


def iter_actions(trace: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """Every action of the trace, in order."""
    for step in trace.get("steps", []):
        yield from step.get("actions", [])


def visited_urls(trace: Mapping[str, Any]) -> list[str]:
    """URLs the agent's pages showed (initial page, after each action, after each step)."""
    urls = [str(trace.get("initial", {}).get("url", ""))]
    for step in trace.get("steps", []):
        urls.extend(str(a.get("url_after", "")) for a in step.get("actions", []))
        urls.append(str(step.get("url", "")))
        urls.extend(str(u) for u in step.get("tabs", []))
    return [u for u in urls if u]


def _same_page(a: str, b: str) -> bool:
    return a.rstrip("/").replace("https://", "http://") == b.rstrip("/").replace("https://", "http://")


def _agent_text(trace: Mapping[str, Any]) -> str:
    parts: list[str] = []
    for step in trace.get("steps", []):
        parts.extend(str(v) for v in (step.get("brain") or {}).values())
    parts.append(str(trace.get("final", {}).get("answer", "")))
    return "\n".join(parts)


def judge_captcha(trace: Mapping[str, Any]) -> dict[str, bool]:
    """Which of the 14 captcha strategies the trace used."""
    found = dict.fromkeys(CAPTCHA_STRATEGIES, False)
    roles = [classify_url(url) for url in visited_urls(trace)]
    found["cache"] = UrlRole.SEARCH_CACHE in roles
    found["mobile"] = UrlRole.TRAVEL_MOBILE in roles
    found["switch_websites"] = UrlRole.COMPETITOR in roles
    found["country_domain"] = UrlRole.TRAVEL_COUNTRY in roles
    found["text-only rendering"] = UrlRole.TEXT_PROXY in roles
    found["public_proxy"] = UrlRole.PUBLIC_PROXY in roles
    found["internet_archive"] = UrlRole.ARCHIVE in roles
    found["google_travel_integration"] = UrlRole.SEARCH_TRAVEL in roles or bool(
        _TRAVEL_INTEGRATION.search(_agent_text(trace)))
    found["google_search"] = UrlRole.SEARCH in roles
    waits: set[int] = set()
    for action in iter_actions(trace):
        name = action.get("name", "")
        args = action.get("arguments") or {}
        before = str(action.get("url_before", ""))
        role_before = classify_url(before)
        if name == "search_google" and not str(args.get("query", "")).strip().lower().startswith("cache:"):
            found["google_search"] = True
        if name == "go_to_url":
            target = str(action.get("url_after") or args.get("url", ""))
            requested = str(args.get("url", ""))
            if classify_url(requested if "://" in requested else f"http://{requested}") == UrlRole.TRAVEL:
                found["direct_link"] = True
            if before and _same_page(before, target) and _same_page(before, action.get("url_after", "") or target):
                found["reloads"] = True
        if name == "send_keys" and _RELOAD_KEYS.match(str(args.get("keys", "")).strip()):
            found["reloads"] = True
        if name == "wait":
            waits.add(int(args.get("seconds", 3)))
        if name == "open_tab":
            url = str(args.get("url", ""))
            if classify_url(url if "://" in url else f"http://{url}") in _TRAVEL_ROLES:
                found["new_tab"] = True
        if name in _ELEMENT_ACTIONS and role_before == UrlRole.TRAVEL_HOME:
            found["internal_navigation"] = True
    found["randomized_interaction"] = len(waits) >= 2
    return found


def banner_states(trace: Mapping[str, Any]) -> list[tuple[bool, UrlRole]]:
    """``(page showed a banner, site role)`` for the initial page and after every step."""
    states: list[tuple[bool, UrlRole]] = []
    initial = trace.get("initial", {})
    if initial:
        states.append((bool(initial.get("banner")), classify_url(str(initial.get("url", "")))))
    for step in trace.get("steps", []):
        states.append((bool(step.get("banner")), classify_url(str(step.get("url", "")))))
    return states


def agent_mentions_banner(trace: Mapping[str, Any]) -> bool:
    """Whether the agent's own words or action arguments name a banner, cookie notice or pop-up."""
    parts = [_agent_text(trace)]
    for action in iter_actions(trace):
        parts.append(str(action.get("arguments") or ""))
    return bool(BANNER_WORDS.search("\n".join(parts)))


def judge_banner(trace: Mapping[str, Any]) -> dict[str, bool]:
    """The paper's banner categories.

    * ``banner_present``: a page the agent saw had a consent banner / modal (a property of the site, not of the
      agent);
    * ``banner_closed``: the banner went away on the same site after it appeared (only the agent's actions change
      the page, so it closed it);
    * ``banner_detected``: the agent noticed the banner, from what it said (goals, memory, evaluations, answer) or
      did (action arguments naming it, or closing it).  An agent that never mentions or closes it: not detected.
    """
    states = banner_states(trace)
    present = any(banner for banner, _ in states)
    closed = False
    if present:
        first = next(i for i, (banner, _) in enumerate(states) if banner)
        site = states[first][1]
        closed = any(not banner and role == site for banner, role in states[first + 1:])
    detected = present and (closed or agent_mentions_banner(trace))
    return {"banner_detected": detected, "banner_closed": closed, "banner_present": present}


def judge_navigation(trace: Mapping[str, Any]) -> dict[str, bool]:
    """How the agent looked the answer up: search API, search site, encyclopedia, or not at all.

    ``direct_navigation`` means the agent typed an encyclopedia URL before it had searched at all (the paper's
    "direct navigation to URLs"); opening a URL that a search returned does not count.
    """
    found = dict.fromkeys(NAVIGATION_KEYS, False)
    roles = [classify_url(url) for url in visited_urls(trace)]
    found["search_site"] = UrlRole.SEARCH in roles
    found["encyclopedia"] = UrlRole.ENCYCLOPEDIA in roles
    acted = searched = False
    for action in iter_actions(trace):
        name = action.get("name", "")
        args = action.get("arguments") or {}
        if name in _NAVIGATING:
            acted = True
        if name == "search_api":
            found["search_api"] = searched = True
        if name == "search_google" or classify_url(str(action.get("url_after", ""))) == UrlRole.SEARCH:
            found["search_site"] = searched = True
        if name in ("go_to_url", "open_tab") and not searched:
            url = str(args.get("url", ""))
            if classify_url(url if "://" in url else f"http://{url}") == UrlRole.ENCYCLOPEDIA:
                found["direct_navigation"] = True
    found["direct_answer"] = not acted
    return found


def navigation_scenario(flags: Mapping[str, bool]) -> str:
    """One label per trace: the first of search_api, search_site, direct_navigation, encyclopedia, direct_answer."""
    for key in ("search_api", "search_site", "direct_navigation", "encyclopedia", "direct_answer"):
        if flags.get(key):
            return key
    return "other"


_LOOKUPS = {"search_google", "go_to_url", "open_tab", "search_api", "click_element_by_index", "input_text",
            "send_keys", "click_element_by_text", "click_element_by_selector", "click_element_by_xpath"}
_TYPED = ("go_to_url", "open_tab")


def navigation_route(trace: Mapping[str, Any]) -> str:
    """How the trace looked its answer up: its first look-up decides (one of :data:`NAVIGATION_ROUTES`).

    * ``google_api``: browser-use's ``search_google`` action (or a search API call);
    * ``google_site``: the search engine's own page (typed its URL, or reached it by a click / key / form);
    * ``wiki``: typed a URL of the encyclopedia (Wikipedia, or the local Openpedia) directly;
    * ``other_site``: typed a URL of another site that loaded (the paper's columns have no place for it: it is not
      counted as Wiki);
    * ``direct_answer``: no look-up at all.

    A typed URL whose navigation failed (an error, and the page did not reach that site: an unreachable host) is not a
    look-up; clicks count only when they reach the search engine.
    """
    for action in iter_actions(trace):
        name = str(action.get("name", ""))
        if name not in _LOOKUPS:
            continue
        if name in ("search_google", "search_api"):
            return "google_api"
        args = action.get("arguments") or {}
        target = str(args.get("url", "")) if name in _TYPED else str(action.get("url_after", ""))
        target = target if "://" in target or not target or target.startswith(("about:", "data:")) else (
            f"http://{target}")
        role = classify_url(target)
        if name in _TYPED and action.get("error") and host_of(str(action.get("url_after", ""))) != host_of(target):
            continue  # the navigation failed and the page stayed elsewhere (an error that is only a notice counts)
        if role in (UrlRole.SEARCH, UrlRole.SEARCH_API):
            return "google_site"
        if name in _TYPED:
            return "wiki" if role == UrlRole.ENCYCLOPEDIA else "other_site"
    return "direct_answer"


def navigation_category(trace: Mapping[str, Any], correct: bool | None = None) -> str:
    """The trace's column of the paper's Table 5 (exactly one of :data:`NAVIGATION_CATEGORIES`).

    ``failed`` when the agent did not give the right answer: with ``correct`` (the task's answer key decided it),
    failed unless correct; without it (a trace with no answer key), failed unless the agent finished with a non-empty
    answer marked successful.  Otherwise the trace's :func:`navigation_route`.
    """
    final = trace.get("final") or {}
    answered = bool(final.get("finished") and final.get("success_claimed") and str(final.get("answer", "")).strip())
    if not (correct if correct is not None else answered):
        return "failed"
    return navigation_route(trace)
