"""Computed styles shared between elements (:meth:`StyleResolver.style`): sharing never changes an element's style.

Every element of the pages of a random walk through the shipped shops gets, from resolvers that share computed
styles across pages, the very style it gets computed on its own (its own matched rules, its own parent's style)."""

from __future__ import annotations

from benchmarks.layout_reuse import walk_pages
from personal_envs.textmode.css import StyleResolver
from personal_envs.textmode.dom import Document, Element, parse_html


def _alone(styles: StyleResolver, element: Element, seen: dict[int, dict[str, str]]) -> dict[str, str]:
    """``element``'s style computed without sharing: from its parent's (also computed alone) and its rules."""
    found = seen.get(id(element))
    if found is None:
        parent = element.parent
        parent_style = _alone(styles, parent, seen) if parent is not None and not isinstance(parent, Document) \
            else None
        matched = [rule for rule in styles.index.candidates(element) if rule.selector.matches(element, styles.focused)]
        found = seen[id(element)] = styles._compute(element, parent_style, matched, element.attrs.get("style"))
    return found


def test_shared_styles_are_those_computed_alone() -> None:
    pages = walk_pages(60, seed=5)
    assert len(pages) >= 8
    elements = distinct = 0
    for markup in pages:
        document = parse_html(markup)
        styles = StyleResolver(document)
        seen: dict[int, dict[str, str]] = {}
        objects: set[int] = set()
        for element in document.iter():
            if element is document:
                continue
            shared = styles.style(element)
            assert shared == _alone(styles, element, seen), element.tag
            elements += 1
            objects.add(id(shared))
        distinct += len(objects)
    assert distinct * 2 < elements  # most elements share a computed style with another of their page


def test_what_a_style_depends_on_keeps_styles_apart() -> None:
    markup = ("<html><head><style>p{color:red} .x{color:blue} input:focus{outline:thin} div p{margin:0}</style>"
              "</head><body><p>a</p><p class='x'>b</p><p style='color:green'>c</p><div><p>d</p></div>"
              "<div style='font-size:20px'><p>e</p></div><input><input></body></html>")
    document = parse_html(markup)
    styles = StyleResolver(document)
    paragraphs = [element for element in document.iter() if element.tag == "p"]
    colors = [styles.style(p).get("color") for p in paragraphs]
    assert colors == ["red", "blue", "green", "red", "red"]
    assert styles.style(paragraphs[3]).get("margin") == "0" and "margin" not in styles.style(paragraphs[0])
    assert styles.style(paragraphs[4])["font-size"] != styles.style(paragraphs[3])["font-size"]
    first, second = [element for element in document.iter() if element.tag == "input"]
    assert styles.style(first) is styles.style(second)
    styles.focused = first
    styles.invalidate()
    assert styles.style(first).get("outline") == "thin" and "outline" not in styles.style(second)
