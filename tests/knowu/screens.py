"""Every screen reachable by tapping through a phone's apps (the leak tests walk them)."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

from personal_envs.simulators.phone.apps.base import Route
from personal_envs.simulators.phone.phone import Phone

_ACT = re.compile(r'data-(act|long)="([^"]*)"(?:[^>]*?data-arg="([^"]*)")?')
SKIPPED_SYSTEM_TAPS = {"sys:back", "sys:home", "sys:scrim", "sys:clear", "sys:qs", "sys:clear_notifs"}


def _clone(stack: list[Route]) -> list[Route]:
    return [Route(r.app, r.screen, dict(r.params), dict(r.fields), r.uid) for r in stack]


def screens(phone: Phone, apps: list[str] | None = None, max_depth: int = 4,
            per_screen: int = 12) -> Iterator[tuple[str, str]]:
    """(screen key, HTML) of the screens reachable by tapping from the home screen and from each app (``apps``, or
    all), breadth-first.

    The walk runs on ``phone`` itself (taps may change its state; only the back stack is restored between
    branches) and shows each distinct screen once, at most ``per_screen`` instances of one screen kind per app.
    """
    seen: set[str] = set()
    kinds: dict[str, int] = {}
    phone.home()
    yield "home", phone.render()[0]
    for app_key in apps if apps is not None else list(phone.apps):
        phone.open_app(app_key)
        frontier: list[tuple[list[Any], Any, int]] = [(_clone(phone.stack), None, 0)]
        while frontier:
            stack, dialog, depth = frontier.pop(0)
            phone.stack, phone.dialog, phone.shade_open = _clone(stack), dialog, False
            route = phone.route
            kind = f"{route.app if route else 'home'}/{route.screen if route else ''}/{dialog is not None}"
            signature = f"{kind}|{sorted((route.params if route else {}).items())}|{dialog.title if dialog else ''}"
            if signature in seen or kinds.get(kind, 0) >= per_screen:
                continue
            page, key = phone.render()
            seen.add(signature)
            kinds[kind] = kinds.get(kind, 0) + 1
            yield key, page
            if depth >= max_depth:
                continue
            for _, act, arg in sorted(set(_ACT.findall(page))):
                act, arg = html.unescape(act), html.unescape(arg or "")
                if act in SKIPPED_SYSTEM_TAPS:
                    continue
                phone.stack, phone.dialog, phone.shade_open = _clone(stack), dialog, False
                phone.handle_events([{"t": "tap", "act": act, "arg": arg}])
                frontier.append((_clone(phone.stack), phone.dialog, depth + 1))
