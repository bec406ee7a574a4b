"""Reuse of laid-out blocks across pages (``textmode/layout_memo.py``): a page of the shipped shops laid out with
the memo warm from other pages, with a cold memo and with no reuse at all gives the very same boxes."""

from __future__ import annotations

import pytest

from benchmarks.layout_reuse import flat_boxes as _flat
from benchmarks.layout_reuse import walk_pages as _walk_pages
from personal_envs.textmode.css import StyleResolver
from personal_envs.textmode.dom import Document, parse_html
from personal_envs.textmode.layout import layout_document
from personal_envs.textmode.layout_memo import SubtreeMemo

VIEWPORT = (1280, 720)


def _fresh(markup: str) -> tuple[Document, StyleResolver]:
    document = parse_html(markup)
    return document, StyleResolver(document)


def test_warm_memo_gives_the_boxes_of_a_cold_one_and_of_no_reuse() -> None:
    pages = _walk_pages(120, seed=3)
    assert len(pages) >= 15
    warm = SubtreeMemo()
    for markup in pages[::2]:  # warm the memo on every other page
        layout_document(*_fresh(markup), VIEWPORT, memo=warm)
    hits_before = warm.hits
    for markup in pages:
        document, styles = _fresh(markup)
        plain = _flat(layout_document(document, styles, VIEWPORT, reuse=False))
        assert _flat(layout_document(document, styles, VIEWPORT, memo=SubtreeMemo())) == plain
        assert _flat(layout_document(document, styles, VIEWPORT, memo=warm)) == plain
        # a narrower viewport: other widths, other wrapping, the same memo
        narrow = _flat(layout_document(document, styles, (800, 600), reuse=False))
        assert _flat(layout_document(document, styles, (800, 600), memo=warm)) == narrow
    assert warm.hits > hits_before  # the shops' pages share blocks: the warm memo was used


def test_a_changed_subtree_is_not_taken_from_the_memo() -> None:
    cell = "<div class='c' style='width:300px'>{}</div>"
    head = "<style>.c{{padding:4px;font-size:{}px}}</style>"
    memo = SubtreeMemo()
    first = f"<html><head>{head.format(14)}</head><body>{cell.format('short text')}</body></html>"
    layout_document(*_fresh(first), VIEWPORT, memo=memo)
    for markup in (  # other text, another font size through the cascade, another nesting: other boxes
            f"<html><head>{head.format(14)}</head><body>{cell.format('a much longer text ' * 30)}</body></html>",
            f"<html><head>{head.format(20)}</head><body>{cell.format('short text')}</body></html>",
            f"<html><head>{head.format(14)}</head><body><ul><li>{cell.format('short text')}</li></ul></body>"
            "</html>"):
        document, styles = _fresh(markup)
        plain = _flat(layout_document(document, styles, VIEWPORT, reuse=False))
        assert _flat(layout_document(document, styles, VIEWPORT, memo=memo)) == plain
    document, styles = _fresh(first)
    hits = memo.hits
    assert _flat(layout_document(document, styles, VIEWPORT, memo=memo)) == \
        _flat(layout_document(document, styles, VIEWPORT, reuse=False))
    # a block is kept from the second document that has it on (the first one's are mostly its own)
    assert memo.hits == hits
    document, styles = _fresh(first)
    assert _flat(layout_document(document, styles, VIEWPORT, memo=memo)) == \
        _flat(layout_document(document, styles, VIEWPORT, reuse=False))
    assert memo.hits > hits  # the same page a third time comes from the memo


def test_a_block_is_kept_from_its_second_sighting() -> None:
    """Blocks only one document has (its body, its main content) are not kept; blocks two documents share are."""
    shared = "<div class='nav' style='width:200px'><a href='/'>Home</a> <a href='/shop'>Shop</a></div>"
    pages = [f"<html><body>{shared}<div style='padding:3px'>page {n} {'words ' * n}</div></body></html>"
             for n in range(1, 5)]
    memo = SubtreeMemo()
    layout_document(*_fresh(pages[0]), VIEWPORT, memo=memo)
    assert not memo.blocks  # everything was new
    layout_document(*_fresh(pages[1]), VIEWPORT, memo=memo)
    kept = len(memo.blocks)
    assert kept > 0  # the shared navigation (and what lies inside it)
    hits = memo.hits
    for markup in pages[2:]:
        document, styles = _fresh(markup)
        assert _flat(layout_document(document, styles, VIEWPORT, memo=memo)) == \
            _flat(layout_document(document, styles, VIEWPORT, reuse=False))
    assert memo.hits > hits
    assert len(memo.blocks) == kept  # the pages' own content is never kept


@pytest.mark.parametrize(("opening", "closing", "depth"), [
    ("<div style='padding:1px'>", "</div>", 280),  # blocks: three frames a level
    ("<div style='display:flex'><div>", "</div></div>", 140),  # flex items measured: max-content recursion too
])
def test_the_memo_nests_no_deeper_than_the_layout(opening: str, closing: str, depth: int) -> None:
    # the memo's work must add no stack frame a nesting level: a document this deep, laid out without reuse,
    # still fits Python's default recursion limit under pytest, and so must it with reuse
    markup = "<html><body>" + opening * depth + "deep" + closing * depth + "</body></html>"
    document, styles = _fresh(markup)
    plain = _flat(layout_document(document, styles, VIEWPORT, reuse=False))
    assert len(plain[0]) == markup.count("<div") + 2
    assert _flat(layout_document(document, styles, VIEWPORT, memo=SubtreeMemo())) == plain
