"""Who may use the project's local servers, and who may change their state.

A page on any web site the user's browser visits can send requests to ``http://127.0.0.1:<port>``: a form or a
``fetch`` with a ``text/plain`` body needs no permission (a "simple" cross-origin request), and a site whose name
resolves to 127.0.0.1 (DNS rebinding) can even read the answers.  The servers therefore check:

* :func:`host_allowed`: the ``Host`` header names this machine (an IP address, ``localhost``, the machine's own
  names, or a name the operator allowed), never a foreign domain that was made to resolve here;
* :func:`cross_origin_refusal`: a state-changing request comes from the server's own pages (its ``Origin``, else
  its ``Referer``, has the server's own host and port), optionally only with a JSON body, which a browser sends
  cross-origin only after a CORS preflight that these servers never grant;
* :class:`FormTokens`: forms carry a token bound to the browser's session cookie by a secret only the server knows.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import ipaddress
import secrets
import socket
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}


def header(headers: Mapping[str, str], name: str) -> str:
    """A header's value from a plain mapping, whatever the case of its name ("" when absent)."""
    wanted = name.lower()
    for key, value in headers.items():
        if key.lower() == wanted:
            return str(value)
    return ""


@functools.lru_cache(maxsize=1)
def machine_names() -> frozenset[str]:
    """Names of this machine a ``Host`` header may use: ``localhost`` and the machine's host names."""
    names = {"localhost"}
    for name in (socket.gethostname(), socket.getfqdn()):
        if name:
            names.add(name.lower().rstrip("."))
    return frozenset(names)


def _split_host(value: str) -> tuple[str, int | None] | None:
    """``(host, port)`` of a ``Host`` header or of an origin's network location; ``None`` if malformed."""
    try:
        parts = urlsplit("//" + value.strip())
        return (parts.hostname or "").lower().rstrip("."), parts.port
    except ValueError:
        return None


def host_allowed(host_header: str, extra_names: Iterable[str] = ()) -> bool:
    """True if ``host_header`` names this machine: an IP address, ``localhost`` (or a subdomain of it), one of
    the machine's names, or one of ``extra_names``.  A foreign domain name (DNS rebinding) is refused."""
    split = _split_host(host_header)
    if split is None or not split[0]:
        return False
    host = split[0]
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        pass
    allowed = machine_names() | {name.lower().rstrip(".") for name in extra_names}
    return host in allowed or host.endswith(".localhost")


def _netloc(scheme: str, host: str, port: int | None) -> tuple[str, int]:
    return host, port if port is not None else _DEFAULT_PORTS.get(scheme, 80)


def request_origin(headers: Mapping[str, str]) -> str | None:
    """Where a request says it comes from: its ``Origin`` header, else the origin of its ``Referer``; ``None``
    when it sends neither (a client that is not a browser, or a browser told to hide the referrer)."""
    origin = header(headers, "Origin").strip()
    if origin:
        return origin
    referer = header(headers, "Referer").strip()
    if referer:
        try:
            parts = urlsplit(referer)
        except ValueError:
            return "null"
        return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else "null"
    return None


def same_origin(origin: str, host_header: str) -> bool:
    """True if ``origin`` (``scheme://host[:port]``) names the same host and port as the ``Host`` header."""
    try:
        parts = urlsplit(origin)
        origin_port = parts.port
    except ValueError:
        return False
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        return False
    own = _split_host(host_header)
    if own is None:
        return False
    return (_netloc(parts.scheme, parts.hostname.lower().rstrip("."), origin_port)
            == _netloc(parts.scheme, own[0], own[1]))


def cross_origin_refusal(headers: Mapping[str, str], *, require_origin: bool = False,
                         require_json: bool = False) -> str:
    """Why a state-changing request must be refused ("" when it may go on).

    Args:
        headers: The request's headers.
        require_origin: Refuse a request that names no origin at all (for servers only browsers use).
        require_json: Refuse a body that is not ``application/json`` (for API servers: a browser cannot send JSON
            to another origin without a CORS preflight, which is never granted).
    """
    origin = request_origin(headers)
    host = header(headers, "Host")
    if origin is None:
        if require_origin:
            return "the request names no origin: send it from this server's own page"
    elif not same_origin(origin, host):
        return f"cross-origin request refused (from {origin[:200]!r}, this server is {host[:200]!r})"
    if require_json:
        content_type = header(headers, "Content-Type").split(";", 1)[0].strip().lower()
        has_body = header(headers, "Content-Length").strip() not in ("", "0")
        if content_type != "application/json" and (has_body or origin is not None):
            return f"the body must be sent as application/json, got {content_type or 'no content type'!r}"
    return ""


def write_refusal(headers: Mapping[str, str], *, host_names: Iterable[str] = (), require_origin: bool = False,
                  require_json: bool = False) -> str:
    """Why a state-changing request must be refused ("" when it may go on): a ``Host`` that is not this machine
    (:func:`host_allowed`: a rebound domain is "same-origin" with itself), then :func:`cross_origin_refusal`."""
    host = header(headers, "Host")
    if not host_allowed(host, host_names):
        return f"host {host[:200]!r} is not this machine"
    return cross_origin_refusal(headers, require_origin=require_origin, require_json=require_json)


class FormTokens:
    """Session cookies and the anti-forgery tokens of a server's forms.

    A browser's first page sets a random session cookie (``HttpOnly``, ``SameSite=Strict``); every form carries
    ``HMAC(secret, session)``.  A page of another origin can neither read the token nor compute it (it does not know
    the secret), even if it manages to set a cookie for the same host.

    Args:
        cookie_name: Name of the session cookie (give each server its own: cookies are shared across ports).
    """

    def __init__(self, cookie_name: str) -> None:
        self.cookie_name = cookie_name
        self._secret = secrets.token_bytes(32)

    @staticmethod
    def new_session() -> str:
        """A fresh random session id."""
        return secrets.token_urlsafe(24)

    def token(self, session: str) -> str:
        """The form token of ``session``."""
        return hmac.new(self._secret, session.encode("utf-8"), hashlib.sha256).hexdigest()

    def valid(self, session: str, token: str) -> bool:
        """True if ``token`` is ``session``'s token (constant-time comparison)."""
        return bool(session) and hmac.compare_digest(self.token(session), token or "")

    def cookie_header(self, session: str) -> str:
        """The ``Set-Cookie`` value that stores ``session`` in the browser."""
        return f"{self.cookie_name}={session}; Path=/; HttpOnly; SameSite=Strict"

    @staticmethod
    def session_key(session: str) -> str:
        """What the server stores about a session: a hash, so a stored key cannot be replayed as a cookie."""
        return hashlib.sha256(session.encode("utf-8")).hexdigest()[:32]
