"""Several DevTools commands to one tab in flight at once.

Playwright's sync ``CDPSession.send`` waits for each reply before the next command leaves, so an observation that
needs the AX tree, a DOM snapshot and a screenshot pays three round trips in a row, and the screenshot (made in the
browser and GPU processes) never overlaps the tree (made in the renderer).  :func:`send_concurrently` sends them
together through Playwright's own async layer and waits for all replies; it falls back to one-by-one sends when
that layer is not what it expects (a Playwright release that changed its internals).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Sequence
from typing import Any

from playwright.sync_api import CDPSession

#: ``(method, params)`` of one DevTools command.
Command = tuple[str, dict[str, Any] | None]


def send_concurrently(session: CDPSession, commands: Sequence[Command], *,
                      timeout_ms: float | None = None) -> list[Any]:
    """Send ``commands`` over ``session`` without waiting between them; their results in order.

    Must run on the thread that owns ``session`` (the browser thread).  The first failing command's Playwright
    error propagates, as it would from ``session.send``; with ``timeout_ms`` a command without a reply by then
    fails with Playwright's ``TimeoutError`` (a page busy in a script never replies).
    """
    send_async = _async_send(session, timeout_ms)
    if len(commands) < 2 or send_async is None:
        if timeout_ms is None:
            return [session.send(method, params) for method, params in commands]
        return [session.send(method, params, timeout=timeout_ms) for method, params in commands]

    async def send_all() -> list[Any]:
        return list(await asyncio.gather(*(send_async(method, params) for method, params in commands)))

    run = session._sync  # noqa: SLF001 - Playwright's bridge from its sync API into its event loop
    return list(run(send_all()))


def _async_send(session: CDPSession, timeout_ms: float | None = None) -> Any:
    """``(method, params) -> awaitable`` on Playwright's async CDP session, or None if not available."""
    impl: Any = getattr(session, "_impl_obj", None)
    send = getattr(impl, "send", None)
    if send is None or not callable(getattr(session, "_sync", None)):
        return None
    impl_class: type = type(impl)
    takes_timeout = _send_takes_timeout(impl_class)
    if takes_timeout is None:
        return None
    if takes_timeout:
        return lambda method, params: send(method, params, timeout_ms)
    if timeout_ms is not None:
        return None
    return lambda method, params: send(method, params)


@functools.cache
def _send_takes_timeout(impl_class: type) -> bool | None:
    """Whether this Playwright release's async ``CDPSession.send`` has a ``timeout`` parameter (None: not a
    coroutine function we understand).  Looked up once per class: observations call this on every step."""
    send = getattr(impl_class, "send", None)
    if send is None or not inspect.iscoroutinefunction(send):
        return None
    try:
        return "timeout" in inspect.signature(send).parameters
    except (TypeError, ValueError):
        return None
