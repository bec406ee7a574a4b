"""WordPress search semantics (``WP_Query::parse_search``), as the official WooCommerce shops answer ``/?s=``.

* The query is split at tabs, spaces, commas and ``+``; a ``"quoted phrase"`` stays one term.
* Terms are trimmed of quotes and spaces; single letters and single dashes are dropped, and so are the stop words
  of WordPress' default list.  When nothing survives, or more than nine terms do, the whole query is one term.
* A term starting with ``-`` excludes products containing it.
* A product matches when every term occurs (case-insensitive substring, SQL ``LIKE %term%``) in its title, its
  short description (the excerpt) or its description (the content).
* Order (``search_orderby`` with more than one term): the whole query in the title, then every term in the title,
  then any term in the title, then the whole query in the content; within a group, newest first (here: catalog
  order).  A single term orders by date only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

#: WordPress' default search stop words (``wp_get_search_stopwords``, English).
STOP_WORDS = frozenset(
    ["about", "an", "are", "as", "at", "be", "by", "com", "for", "from", "how", "in", "is", "it", "of", "on", "or", "that", "the", "this", "to", "was", "what", "when", "where", "who", "will", "with", "www"]
)
_SPLIT = re.compile(r'".*?(?:"|$)|(?:(?<=[\t ",+])|^)[^\t ",+]+')
#: More terms than this and the query is searched as one sentence.
MAX_TERMS = 9


@dataclass(frozen=True)
class ParsedQuery:
    """Included terms, excluded terms and the whole query (lower case)."""

    include: tuple[str, ...]
    exclude: tuple[str, ...]
    sentence: str


def parse_query(query: str) -> ParsedQuery:
    """Terms of a search query after WordPress' rules."""
    raw = query.strip()
    include: list[str] = []
    exclude: list[str] = []
    matches = _SPLIT.findall(raw)
    for token in matches:
        term = token[1:-1] if len(token) > 1 and token.startswith('"') and token.endswith('"') else token
        term = term.strip("\"' ")
        if not term or (len(term) == 1 and re.fullmatch(r"[a-z-]", term, re.IGNORECASE)):
            continue
        if term.lower() in STOP_WORDS:
            continue
        if term.startswith("-") and len(term) > 1:
            exclude.append(term[1:].lower())
        else:
            include.append(term.lower())
    if not matches or (not include and not exclude) or len(include) + len(exclude) > MAX_TERMS:
        include, exclude = [raw.lower()], []
    return ParsedQuery(tuple(include), tuple(exclude), raw.lower())


def rank(query: ParsedQuery, title: str, content: str) -> int | None:
    """None when the product does not match; else its relevance group (0 best) as ``search_orderby`` sorts."""
    fields = (title, content)
    if not all(any(term in text for text in fields) for term in query.include):
        return None
    if any(any(term in text for text in fields) for term in query.exclude):
        return None
    if len(query.include) <= 1:
        return 0
    if query.sentence in title:
        return 0
    if all(term in title for term in query.include):
        return 1
    if any(term in title for term in query.include):
        return 2
    if query.sentence in content:
        return 3
    return 4


def search(query: str, products: Sequence[tuple[str, str]]) -> list[int]:
    """Indices of the matching ``(title, excerpt + content)`` pairs (lower case), best first."""
    parsed = parse_query(query)
    if not parsed.sentence:
        return []
    scored = []
    for index, (title, content) in enumerate(products):
        group = rank(parsed, title, content)
        if group is not None:
            scored.append((group, index))
    return [index for _, index in sorted(scored)]
