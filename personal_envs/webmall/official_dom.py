"""The official evaluator's page tree, built straight from a text-mode document.

The official checks read ``page.content()`` parsed by BeautifulSoup; the text mode's equivalent is
``parse_html(serialize(document))`` (:mod:`.official_html`, :func:`~personal_envs.textmode.dom.serialize`).  A
serialized document is well formed (every element closed, text and attribute values escaped), so that parse gives
back the document's own elements with their attributes, and its text runs with adjacent runs joined.
:func:`document_tree` builds that tree without writing and reading the markup, and gives up (None) where the
round trip would not give the document back: content of ``script`` / ``style`` that would end the raw text early
or that holds elements.
"""

from __future__ import annotations

import re

from personal_envs.textmode import dom
from personal_envs.textmode.dom import Element, Text
from personal_envs.webmall.official_html import VOID_TAGS, Node

_RAW_TEXT_TAGS = ("script", "style")
#: What may end a raw text element's content for some version of :class:`html.parser.HTMLParser`.
_RAW_END = {tag: re.compile(rf"</\s*{tag}", re.I) for tag in _RAW_TEXT_TAGS}


def document_tree(document: dom.Document) -> Node | None:
    """:func:`~personal_envs.webmall.official_html.parse_html` of ``serialize(document)``, built from ``document``
    directly; None when the content of a ``script`` or ``style`` would not read back as it is."""
    root = Node("#document")
    stack: list[tuple[Element, Node]] = [(document, root)]
    while stack:
        element, node = stack.pop()
        if element.tag in _RAW_TEXT_TAGS:
            if not _raw_text(element, node):
                return None
            continue
        children = node.children
        pending: list[str] = []  # adjacent text runs: one run once written out and read back
        for child in element.children:
            if child.__class__ is Text:
                if child.data:
                    pending.append(child.data)
                continue
            if not isinstance(child, Element):
                continue
            if pending:
                children.append(Node("#text", text="".join(pending)))
                pending = []
            tag = child.tag.lower()
            if (tag in VOID_TAGS) != (child.tag in dom.VOID_TAGS):
                return None  # written one way, read another
            kid = Node(tag, {key.lower(): value for key, value in child.attrs.items()})
            children.append(kid)
            if tag not in VOID_TAGS:  # a void element's children are not written
                stack.append((child, kid))
        if pending:
            children.append(Node("#text", text="".join(pending)))
    return root


def _raw_text(element: Element, node: Node) -> bool:
    """Give ``node`` the raw text of ``script`` / ``style`` ``element`` as the parser reads it back (one run);
    False when it would not read back as it is."""
    if any(not isinstance(child, Text) for child in element.children):
        return False
    text = "".join(child.data for child in element.children if isinstance(child, Text))
    if _RAW_END[element.tag].search(text):
        return False
    if text:
        node.children.append(Node("#script", text=text))
    return True
