"""A small HTML tree for the official WebMall evaluator's page checks (no third-party parser needed).

The official evaluator reads pages with BeautifulSoup (``html.parser``) and a handful of CSS selectors: elements by
tag and class, the first ``a[href]`` below an element, ``address`` blocks and the page's text.  :func:`parse_html`
builds a tree with the standard library's :class:`html.parser.HTMLParser` (the parser BeautifulSoup used there) and
:class:`Node` offers exactly those look-ups.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from html.parser import HTMLParser

#: Elements that never have children (their end tag is implied).
VOID_TAGS = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
                       "track", "wbr"})


@dataclass
class Node:
    """An element (``tag``) or a text run (``tag == "#text"``, content in ``text``)."""

    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[Node] = field(default_factory=list)
    text: str = ""

    @property
    def classes(self) -> set[str]:
        """The element's class names."""
        return set(self.attrs.get("class", "").split())

    def iter(self) -> Iterator[Node]:
        """This node and every descendant, in document order."""
        yield self
        for child in self.children:
            yield from child.iter()

    def elements(self, predicate: Callable[[Node], bool]) -> list[Node]:
        """Descendant elements (this one excluded) that satisfy ``predicate``, in document order."""
        return [n for n in self.iter() if n is not self and not n.tag.startswith("#") and predicate(n)]

    def select(self, tag: str = "", cls: str = "", attr: tuple[str, str] | None = None) -> list[Node]:
        """Descendants matching ``tag.cls`` (either may be empty) and, optionally, an attribute value."""
        return self.elements(lambda n: (not tag or n.tag == tag) and (not cls or cls in n.classes)
                             and (attr is None or n.attrs.get(attr[0]) == attr[1]))

    def first_link(self) -> Node | None:
        """The first descendant ``a`` with an ``href`` (BeautifulSoup's ``find("a", href=True)``)."""
        found = self.elements(lambda n: n.tag == "a" and "href" in n.attrs)
        return found[0] if found else None

    def get_text(self, separator: str = "", strip: bool = False) -> str:
        """The text below this node, as BeautifulSoup's ``get_text(separator, strip)`` joins it."""
        runs = [n.text for n in self.iter() if n.tag == "#text"]
        if strip:
            runs = [run.strip() for run in runs]
            runs = [run for run in runs if run]
        return separator.join(runs)


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document")
        self.stack = [self.root]
        self._skip = 0  # inside <script> / <style>: their text is not page text for these checks

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {key: value or "" for key, value in attrs})
        self.stack[-1].children.append(node)
        if tag not in VOID_TAGS:
            self.stack.append(node)
            if tag in ("script", "style"):
                self._skip += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, {key: value or "" for key, value in attrs}))

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                if tag in ("script", "style"):
                    self._skip = max(0, self._skip - 1)
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        # BeautifulSoup keeps script and style text apart from the page text (get_text leaves it out)
        self.stack[-1].children.append(Node("#script" if self._skip else "#text", text=data))


def parse_html(markup: str) -> Node:
    """The document tree of ``markup`` (lenient: unclosed elements end with their parent)."""
    builder = _TreeBuilder()
    builder.feed(markup)
    builder.close()
    return builder.root


@lru_cache(maxsize=64)
def parsed_page(markup: str) -> Node:
    """:func:`parse_html` of ``markup``, kept for the next identical page (the evaluator reads the page after every
    step while a cart checkpoint is open; the tree is only read)."""
    return parse_html(markup)
