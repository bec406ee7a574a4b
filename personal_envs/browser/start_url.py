"""Which start URLs a submitted task may carry: http(s) URLs on the public web (or on sites the operator allowed)
that this machine can reach.

A study's task box is open to everyone who can reach the vote page, and a submitted task runs at once in an agent's
browser whose recording every annotator sees.  A start URL could otherwise point the agent at
``javascript:``/``file:``/``data:`` URLs, at a cloud provider's metadata service (``169.254.169.254``: the
machine's credentials) or at services on the machine and its network (the vote page itself, an LLM endpoint).
:func:`check_start_url` refuses all of them with a message, and refuses a URL whose server cannot be reached (a
battle on an error page is no battle).  :data:`FORBIDDEN_URL_PATTERN` is the part that every browser session of the
project also enforces on every request, redirects included (:class:`~personal_envs.browser.session.BrowserSession`).
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Sequence
from urllib.parse import urlsplit

from personal_envs.browser.origins import AllowedOrigins

#: Longest start URL accepted.
MAX_START_URL_CHARS = 2048

#: Host names of cloud metadata services (they answer on link-local or provider addresses).
METADATA_HOSTS = frozenset({"metadata.google.internal", "metadata.goog", "metadata", "instance-data",
                            "instance-data.ec2.internal", "metadata.azure.com"})
#: Provider metadata addresses outside the link-local range.
METADATA_ADDRESSES = frozenset({ipaddress.ip_address("100.100.100.200"), ipaddress.ip_address("168.63.129.16"),
                                ipaddress.ip_address("fd00:ec2::254")})

#: URLs no page of the project's browsers may load: link-local addresses (169.254.0.0/16, fe80::/10, where cloud
#: metadata services answer) and the metadata services' other addresses and names.  JavaScript-compatible syntax.
FORBIDDEN_URL_PATTERN = re.compile(
    r"^[a-z][a-z0-9+.-]*://(?:[^/?#@]*@)?(?:169\.254\.\d{1,3}\.\d{1,3}|\[fe[89ab][0-9a-f]?:[^\]]*\]"
    r"|\[fd00:ec2::254\]|100\.100\.100\.200|168\.63\.129\.16|metadata\.google\.internal|metadata\.goog"
    r"|instance-data(?:\.ec2\.internal)?|metadata\.azure\.com)\.?(?::\d+)?(?:[/?#]|$)",
    re.IGNORECASE,
)


#: Chromium ``--host-resolver-rules``: the metadata hosts and link-local addresses resolve to nothing, for every
#: request of every page (IP literals included; a domain name that resolves to them is caught by
#: :func:`check_start_url` only).
CHROMIUM_RESOLVER_RULES = ", ".join(
    f"MAP {host} ~NOTFOUND" for host in (
        "169.254.*", "100.100.100.200", "168.63.129.16", "[fd00:ec2::254]", "fd00:ec2::254",
        *(f"[fe{digit}*" for digit in "89ab"), *sorted(METADATA_HOSTS)))  # bracketed: never a domain name


class StartUrlError(ValueError):
    """A start URL that must not be used; the message says why and what to do."""


def _never_allowed(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    """Why an address is never a start URL's server ("" if it may be)."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return _never_allowed(address.ipv4_mapped)
    if address in METADATA_ADDRESSES or address.is_link_local:
        return "a link-local or cloud-metadata address"
    if address.is_loopback:  # ::1 counts as reserved too; loopback is refused unless the operator allowed it
        return ""
    if address.is_unspecified or address.is_multicast or address.is_reserved:
        return "an unspecified, multicast or reserved address"
    return ""


def _addresses(host: str, port: int, timeout_s: float) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    try:
        return [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        pass
    previous = socket.getdefaulttimeout()
    socket.setdefaulttimeout(timeout_s)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise StartUrlError(f"start URL host {host!r} cannot be resolved on this machine ({exc})") from None
    finally:
        socket.setdefaulttimeout(previous)
    return list(dict.fromkeys(ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos))


def start_url_refusal(url: str) -> str:
    """Why ``url`` can never be a start URL, from the URL alone ("" if it may be one): not http(s), no host, a user
    name or password in it, a cloud metadata host, or longer than :data:`MAX_START_URL_CHARS`."""
    text = url.strip()
    if len(text) > MAX_START_URL_CHARS:
        return f"start URL is {len(text):,} characters long; at most {MAX_START_URL_CHARS:,}"
    try:
        parts = urlsplit(text)
        _ = parts.port
    except ValueError as exc:
        return f"start URL {text[:200]!r} is malformed ({exc})"
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        return (f"start URL must be an http:// or https:// URL, got {scheme + ':' if scheme else 'no scheme'} "
                f"({text[:80]!r})")
    host = (parts.hostname or "").rstrip(".").lower()
    if not host:
        return f"start URL {text[:200]!r} names no host"
    if parts.username is not None or parts.password is not None:
        return "start URL must not carry a user name or password"
    if host in METADATA_HOSTS or FORBIDDEN_URL_PATTERN.match(text):
        return f"start URL {text[:200]!r} points at a cloud metadata service; refused"
    return ""


def check_start_url(url: str, *, allowed_origins: Sequence[str] | None = None, probe: bool = True,
                    timeout_s: float = 3.0) -> str:
    """The start URL to use (``""`` for none), or :class:`StartUrlError`.

    Args:
        url: The submitted start URL (surrounding spaces are ignored; empty means no start URL).
        allowed_origins: The env's allowed origins (``None``: the open web).  Loopback and private-network servers
            are accepted only when their origin is listed here; with a list, only its origins are accepted.
        probe: Open (and close at once) a TCP connection to the server: a start URL this machine cannot reach is
            refused.  Nothing is sent.
        timeout_s: Limit of the name look-up and of the connection.
    """
    text = url.strip()
    if not text:
        return ""
    refusal = start_url_refusal(text)
    if refusal:
        raise StartUrlError(refusal)
    parts = urlsplit(text)
    scheme, host = parts.scheme.lower(), (parts.hostname or "").rstrip(".").lower()
    port = parts.port if parts.port is not None else (443 if scheme == "https" else 80)
    allowed = AllowedOrigins(allowed_origins) if allowed_origins is not None else None
    listed = allowed is not None and allowed.allows(text)
    if allowed is not None and not listed:
        raise StartUrlError(f"start URL {text[:200]!r} is outside the sites this arena's env may open "
                            f"({allowed.describe()})")
    addresses = _addresses(host, port, timeout_s)
    for address in addresses:
        reason = _never_allowed(address)
        if reason:
            raise StartUrlError(f"start URL {text[:200]!r} resolves to {address}, {reason}; refused")
        if not address.is_global and not listed:
            raise StartUrlError(f"start URL {text[:200]!r} resolves to {address}, a loopback or private-network "
                                "address; only public sites (or the origins given in the env's allowed_origins) "
                                "can be start URLs")
    if probe:
        _probe(addresses, port, text, timeout_s)
    return text


def _probe(addresses: Sequence[ipaddress.IPv4Address | ipaddress.IPv6Address], port: int, url: str,
           timeout_s: float) -> None:
    errors = []
    for address in addresses:
        try:
            with socket.create_connection((str(address), port), timeout=timeout_s):
                return
        except OSError as exc:
            errors.append(f"{address}: {exc.strerror or exc}")
    raise StartUrlError(f"start URL {url[:200]!r} cannot be reached from this machine ({'; '.join(errors)[:300]}); "
                        "the agents would only see an error page")
