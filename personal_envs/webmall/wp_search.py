"""WordPress search semantics (``WP_Query::parse_search`` and ``parse_search_order``), as the official WooCommerce
shops answer ``/?s=``.

* The query is split at tabs, spaces, commas and ``+``; a ``"quoted phrase"`` stays one term.
* Terms are trimmed of quotes and spaces; single letters and single dashes are dropped, and so are the stop words
  of WordPress' default list.  When nothing survives, or more than nine terms do, the whole query is one term.
* A term starting with ``-`` excludes products containing it (in none of the three columns).
* A product matches when every other term occurs (case-insensitive substring, SQL ``LIKE %term%``) in its title,
  its short description (the excerpt) or its description (the content).
* Order, when the query has more than one token (counted before stop words are dropped): ``CASE`` 1 the whole
  query in the title (skipped when the query has a ``-`` exclusion), 2 every term in the title (fewer than seven
  terms), 3 any term in the title (two to six terms), 4 the whole query in the excerpt, 5 in the content, else 6.
  With a single token: products whose title contains it first (``post_title LIKE %term% DESC``).  Within a group,
  newest first (``post_date DESC``; here the post id, which grows in the order the products were imported).
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
_NEGATION = re.compile(r"(?:\s|^)-")
#: More terms than this and the query is searched as one sentence.
MAX_TERMS = 9
#: From this many title terms on, only the sentence groups order the results (WordPress' "sanity limit").
MAX_TITLE_TERMS = 7


@dataclass(frozen=True)
class ParsedQuery:
    """Included terms, excluded terms, the whole query (lower case), its token count before filtering and whether
    it holds a ``-`` exclusion."""

    include: tuple[str, ...]
    exclude: tuple[str, ...]
    sentence: str
    tokens: int = 1
    negated: bool = False


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
    return ParsedQuery(tuple(include), tuple(exclude), raw.lower(), max(1, len(matches)),
                       bool(_NEGATION.search(raw)))


def matches(query: ParsedQuery, title: str, excerpt: str, content: str) -> bool:
    """True when the product is a result: every included term in some column, no excluded term in any."""
    columns = (title, excerpt, content)
    return (all(any(term in text for text in columns) for term in query.include)
            and not any(term in text for term in query.exclude for text in columns))


def relevance_group(query: ParsedQuery, title: str, excerpt: str, content: str) -> int:
    """The product's place in WordPress' search order (lower first), as ``parse_search_order`` builds it."""
    if query.tokens > 1:
        sentence = "" if query.negated else query.sentence
        if sentence and sentence in title:
            return 1
        terms = query.include
        if 0 < len(terms) < MAX_TITLE_TERMS:
            if all(term in title for term in terms):
                return 2
            if len(terms) > 1 and any(term in title for term in terms):
                return 3
        if sentence and sentence in excerpt:
            return 4
        if sentence and sentence in content:
            return 5
        return 6
    return 0 if query.include and query.include[0] in title else 1


def search(query: str, products: Sequence[tuple[str, str, str]], post_ids: Sequence[int] | None = None) -> list[int]:
    """Indices of the matching ``(title, excerpt, content)`` triples (lower case), in WordPress' relevance order
    (newest first within a group: highest ``post_ids``, by default the later index)."""
    parsed = parse_query(query)
    if not parsed.sentence:
        return []
    ids = post_ids if post_ids is not None else range(len(products))
    scored = []
    for index, (title, excerpt, content) in enumerate(products):
        if matches(parsed, title, excerpt, content):
            scored.append((relevance_group(parsed, title, excerpt, content), -ids[index], index))
    return [index for *_, index in sorted(scored)]
