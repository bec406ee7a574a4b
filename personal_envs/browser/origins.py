"""Which URLs a session may load: its allowed origins plus ``about:blank`` and ``data:``."""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

#: Schemes a page may always load whatever the allowed origins (they reach no server).
ALWAYS_ALLOWED_SCHEMES = frozenset({"about", "data", "blob"})

#: Schemes an agent may ask ``goto`` to open.
NAVIGABLE_SCHEMES = frozenset({"http", "https", "about", "data"})

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def origin_of(url: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of an http(s)/ws(s) URL with the default port filled in, or ``None``."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    return scheme, parts.hostname.lower(), port if port is not None else _DEFAULT_PORTS[scheme]


def format_origin(origin: tuple[str, str, int]) -> str:
    """``scheme://host:port`` text of an origin tuple."""
    scheme, host, port = origin
    host_text = f"[{host}]" if ":" in host else host
    return f"{scheme}://{host_text}:{port}"


class AllowedOrigins:
    """A set of ``scheme://host:port`` origins (default ports may be omitted).

    Raises:
        ValueError: if an entry is not an http(s) origin.
    """

    def __init__(self, origins: Iterable[str]) -> None:
        parsed: list[tuple[str, str, int]] = []
        for text in origins:
            origin = origin_of(text)
            if origin is None:
                raise ValueError(f"allowed origin must look like scheme://host:port, got {text!r}")
            if origin[0] in ("ws", "wss"):
                continue
            parsed.append(origin)
            # A page on http(s)://host:port may open web sockets to the same host and port.
            parsed.append(("ws" if origin[0] == "http" else "wss", origin[1], origin[2]))
        self._origins = frozenset(parsed)
        self.texts = tuple(format_origin(origin) for origin in parsed if origin[0] in ("http", "https"))

    def allows(self, url: str) -> bool:
        """True if ``url`` may be loaded."""
        scheme = url.split(":", 1)[0].lower() if ":" in url else ""
        if scheme in ALWAYS_ALLOWED_SCHEMES:
            return True
        origin = origin_of(url)
        return origin is not None and origin in self._origins

    def outside_pattern(self) -> re.Pattern[str]:
        """A regular expression matching the URLs this set does *not* allow, in syntax JavaScript shares.

        Playwright evaluates a route's regular expression in its driver, so routing only this pattern keeps the
        allowed requests (nearly all of them) off the Python side; :meth:`allows` stays the reference and the
        route handler re-checks with it.
        """
        alternatives = []
        for scheme, host, port in sorted(self._origins):
            host_text = re.escape(f"[{host}]" if ":" in host else host)
            port_text = f"(?::{port})?" if _DEFAULT_PORTS.get(scheme) == port else f":{port}"
            alternatives.append(f"{scheme}://{host_text}{port_text}")
        schemes = "|".join(sorted(ALWAYS_ALLOWED_SCHEMES))
        allowed = f"(?:{'|'.join(alternatives)})(?:[/?#]|$)" if alternatives else "(?!)"
        return re.compile(f"^(?!(?:{schemes}):)(?!{allowed})", re.IGNORECASE)

    def describe(self) -> str:
        """The allowed origins as comma-separated text."""
        return ", ".join(self.texts) if self.texts else "(none)"
