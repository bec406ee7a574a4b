"""Reuse of laid-out blocks across pages (``textmode/layout_memo.py``): a page of the shipped shops laid out with
the memo warm from other pages, with a cold memo and with no reuse at all gives the very same boxes."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

import personal_envs  # noqa: F401 - registers the ids
from personal_envs.textmode.css import StyleResolver
from personal_envs.textmode.dom import Document, parse_html, serialize
from personal_envs.textmode.layout import Layout, layout_document
from personal_envs.textmode.layout_memo import SubtreeMemo
from personal_envs.textmode.parity import random_web_action
from personal_envs.textmode.session import TextSession

VIEWPORT = (1280, 720)


def _flat(layout: Layout) -> tuple[object, ...]:
    return ([(id(element), layout.boxes[id(element)]) for element in layout.order], layout.clips, layout.height,
            len(layout.boxes))


def _walk_pages(steps: int, seed: int) -> list[str]:
    """The HTML of every distinct page a seeded random walk over the shipped shops shows."""
    env = gym.make("WebMall-v0", data_dir="shipped", render="text")
    pages: dict[str, None] = {}
    try:
        unwrapped = env.unwrapped
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(steps):
            session = unwrapped.session
            assert isinstance(session, TextSession)
            page = session.page
            if page is not None and page.document.html is not None:
                pages[serialize(page.document)] = None
            obs, _, terminated, truncated, _ = env.step(
                random_web_action(obs["axtree"], list(unwrapped.origins.values())[:4], rng))
            if terminated or truncated:
                obs, _ = env.reset()
    finally:
        env.close()
    return list(pages)


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
    assert memo.hits > hits  # the same page again comes from the memo
