"""A fast parser for well-formed markup the project renders itself (every element closed, attributes quoted).

:func:`parse_html` in :mod:`personal_envs.textmode.dom` follows the tree-building rules a browser applies to any
template; markup built by code that closes every element it opens (the phone simulator's screens) needs none of
them, and a single regular-expression pass builds the same tree several times faster.  :func:`parse_fragment`
returns ``None`` when the markup is not such (a stray or mismatched end tag, an unclosed element, a ``<p>`` that
a browser would close implicitly): the caller then uses the full parser.
"""

from __future__ import annotations

import re
from html import unescape

from personal_envs.textmode.dom import VOID_TAGS, Element, Text

_TOKEN = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s=/>]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s>]+))?)*)\s*(/?)>"
                    r"|<!--.*?-->|([^<]+)|(<)", re.S)
_ATTRIBUTE = re.compile(r"([^\s=/>]+)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+)))?")
#: Elements whose start tag closes an open ``<p>`` or that a browser closes implicitly: not handled here.
_IMPLICIT = frozenset({"p", "li", "dd", "dt", "option", "optgroup", "tr", "td", "th", "tbody", "thead", "tfoot",
                       "table", "html", "head", "body", "script", "style", "title", "select", "form"})


def parse_fragment(markup: str, parent: Element) -> bool:
    """Append the nodes of ``markup`` to ``parent``; False (and ``parent`` left empty) when the markup needs the
    full parser."""
    stack: list[Element] = [parent]
    position = 0
    length = len(markup)
    while position < length:
        match = _TOKEN.match(markup, position)
        if match is None:
            parent.children = []
            return False
        position = match.end()
        closing, tag, raw_attrs, self_closing, text, stray = match.groups()
        if text is not None:
            current = stack[-1]
            if current.tag == "textarea" and not current.children and text.startswith("\n"):
                text = text[1:]
            data = unescape(text) if "&" in text else text
            if data:
                current.append(Text(data))
            continue
        if stray is not None:
            parent.children = []
            return False
        if tag is None:  # a comment
            continue
        tag = tag.lower()
        if tag in _IMPLICIT:
            parent.children = []
            return False
        if closing:
            if len(stack) < 2 or stack[-1].tag != tag:
                parent.children = []
                return False
            stack.pop()
            continue
        attrs: dict[str, str] = {}
        if raw_attrs:
            for name, double, single, bare in _ATTRIBUTE.findall(raw_attrs):
                value = double or single or bare
                attrs.setdefault(name.lower(), unescape(value) if "&" in value else value)
        element = Element(tag, attrs)
        stack[-1].append(element)
        if tag == "textarea":
            end = markup.find("</textarea>", position)
            if end < 0:
                parent.children = []
                return False
            raw = markup[position:end]
            if raw.startswith("\n"):
                raw = raw[1:]
            if raw:
                element.append(Text(unescape(raw) if "&" in raw else raw))
            element.value = element.text_content
            position = end + len("</textarea>")
            continue
        if tag not in VOID_TAGS and not self_closing:
            stack.append(element)
    if len(stack) != 1:
        parent.children = []
        return False
    return True
