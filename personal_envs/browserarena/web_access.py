"""Whether a page the agent was on had loaded, and whether an open-web episode ever reached the web.

On a machine without internet, ``BrowserArena-Open-v0`` must say so rather than let an agent claim success on a
blank or error page.  Each step record gets ``page`` = :func:`page_state` (``"loaded"``, ``"blank"`` or
``"unreachable"``); :func:`web_access_metrics` turns a finished log into the episode's ``web_access``
(``"reached"``, ``"unreachable"`` or ``"not tried"``), the state of the page the ``done`` claim was made on, and
``success_claimed_valid`` (a success claim made on a loaded page; a claim on a blank or unreachable page never
counts).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

#: Network errors that mean the site (or the whole web) cannot be reached from this machine.
UNREACHABLE = re.compile(r"ERR_(NAME_NOT_RESOLVED|INTERNET_DISCONNECTED|CONNECTION_REFUSED|ADDRESS_UNREACHABLE|"
                         r"CONNECTION_TIMED_OUT|TIMED_OUT|NETWORK_CHANGED|PROXY_CONNECTION_FAILED|"
                         r"TUNNEL_CONNECTION_FAILED|CONNECTION_RESET|NAME_RESOLUTION_FAILED)|timed out|"
                         r"could not be reached")
NO_WEB_NOTICE = ("No web access: {url} could not be reached. This machine may have no access to the open web; "
                 "use a local URL, an allowed site, or run where the internet is available.")


def page_state(url: str, errors: Iterable[str] = ()) -> str:
    """``"unreachable"`` (an error page, or the latest navigation failed as unreachable), ``"blank"``
    (``about:blank`` / no URL) or ``"loaded"``."""
    last = [e for e in errors if e]
    if url.startswith("chrome-error://") or (last and UNREACHABLE.search(last[-1])):
        return "unreachable"
    if not url or url == "about:blank":
        return "blank"
    return "loaded"


def web_access_metrics(log: Mapping[str, Any]) -> dict[str, Any]:
    """``web_access``, ``unreachable_steps``, ``claim_page`` and ``success_claimed_valid`` of a finished log."""
    states = [str(log.get("initial", {}).get("page", "blank"))]
    claim_page = ""
    for step in log.get("steps", []):
        errors: list[str] = []
        for action in step.get("actions", []):
            if action.get("name") == "done" and not claim_page:
                claim_page = (states[-1] if action is step["actions"][0]
                              else page_state(str(action.get("url_before", "")), errors))
            errors.append(str(action.get("error", "")))
        states.append(str(step.get("page") or page_state(str(step.get("url", "")), errors)))
    if "loaded" in states:
        access = "reached"
    elif "unreachable" in states:
        access = "unreachable"
    else:
        access = "not tried"
    claimed = bool((log.get("final") or {}).get("success_claimed"))
    return {"web_access": access, "unreachable_steps": states.count("unreachable"), "claim_page": claim_page,
            "success_claimed_valid": claimed and claim_page == "loaded"}


def step_errors(actions: Iterable[Mapping[str, Any]]) -> list[str]:
    """The errors of a step's recorded actions, in order."""
    return [str(a.get("error", "")) for a in actions]
