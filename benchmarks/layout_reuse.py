"""CPU cost of the text mode's layout of new pages, with and without reuse of laid-out blocks (issue 32).

A seeded random walk over WebMall's shipped shops (the parity walk's actions) collects the HTML of every distinct
page it shows, in the order shown.  Each page is then parsed again and laid out twice in that order: once without
reuse (``layout_document(..., reuse=False)``, every box computed) and once with one memo carried from page to page
(as a session does).  Styles are computed before the clock starts, so the figures are the layout's own.  Every box,
clip and page height of the two layouts is compared; the script exits non-zero on a difference.

    python benchmarks/layout_reuse.py                   # 3 walks of 1,500 steps
    python benchmarks/layout_reuse.py --seeds 0 --steps 500
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402

import personal_envs  # noqa: E402,F401
from benchmarks._measure import machine  # noqa: E402
from personal_envs.textmode.css import StyleResolver  # noqa: E402
from personal_envs.textmode.dom import Document, parse_html, serialize  # noqa: E402
from personal_envs.textmode.layout import Layout, layout_document  # noqa: E402
from personal_envs.textmode.layout_memo import SubtreeMemo  # noqa: E402
from personal_envs.textmode.parity import random_web_action  # noqa: E402
from personal_envs.textmode.session import TextSession  # noqa: E402

VIEWPORT = (1280, 720)


def walk_pages(steps: int, seed: int) -> list[str]:
    """The HTML of every distinct page a seeded random walk over WebMall's shipped shops shows, in order."""
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


def flat_boxes(layout: Layout) -> tuple[object, ...]:
    """Everything a layout says, comparable: boxes in document order, clips, height."""
    return ([(id(element), layout.boxes[id(element)]) for element in layout.order], layout.clips, layout.height,
            len(layout.boxes))


def styled(markup: str) -> tuple[Document, StyleResolver]:
    """A parsed page with the computed style of every element already taken."""
    document = parse_html(markup)
    styles = StyleResolver(document)
    for element in document.iter():
        if element is not document:
            styles.style(element)
    return document, styles


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2])
    parser.add_argument("--steps", type=int, default=1500)
    args = parser.parse_args(argv)
    print(machine())
    pages: dict[str, None] = {}
    for seed in args.seeds:
        pages.update(dict.fromkeys(walk_pages(args.steps, seed)))
    documents = [styled(markup) for markup in pages]
    memo = SubtreeMemo()
    plain = reused = 0.0
    differences = 0
    for document, styles in documents:
        start = time.process_time()
        without = layout_document(document, styles, VIEWPORT, reuse=False)
        middle = time.process_time()
        with_memo = layout_document(document, styles, VIEWPORT, memo=memo)
        plain += middle - start
        reused += time.process_time() - middle
        differences += flat_boxes(without) != flat_boxes(with_memo)
    count = len(documents)
    print(f"{count} distinct pages of {len(args.seeds)} walks of {args.steps} steps")
    print(f"layout without reuse: {plain:.3f} CPU-s ({1000 * plain / count:.2f} ms a page)")
    print(f"layout with reuse:    {reused:.3f} CPU-s ({1000 * reused / count:.2f} ms a page, {memo.hits} blocks "
          f"reused)")
    print(f"pages with a different box: {differences}")
    return 1 if differences else 0


if __name__ == "__main__":
    raise SystemExit(main())
