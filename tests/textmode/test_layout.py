"""Layout views: a scrolled page's boxes are its page boxes moved up by the scroll, read through a view."""

from __future__ import annotations

import gymnasium as gym

import personal_envs  # noqa: F401
from personal_envs.textmode.layout import ShiftedBoxes


def test_a_shifted_view_moves_each_box_it_reads_and_nothing_else() -> None:
    boxes = {"1": (10.0, 300.0, 50.0, 20.0), "2": (0.0, 0.0, 5.0, 5.0)}
    view = ShiftedBoxes(boxes, 250.0)
    assert view["1"] == (10.0, 50.0, 50.0, 20.0) and view.get("2") == (0.0, -250.0, 5.0, 5.0)
    assert view.get("3") is None and view.get("3", "none") == "none" and "3" not in view and "1" in view
    assert dict(view) == {key: (x, y - 250.0, w, h) for key, (x, y, w, h) in boxes.items()} and len(view) == 2
    assert boxes["1"] == (10.0, 300.0, 50.0, 20.0)  # the page boxes are not touched


def test_scrolling_a_text_page_moves_every_elements_box_by_the_scroll() -> None:
    env = gym.make("WebMall-v0", render="text", data_dir="shipped")
    try:
        env.reset(seed=0)
        shop = next(iter(env.unwrapped.origins.values()))
        env.step({"name": "goto", "arguments": {"url": shop + "/"}})  # a shop's front page: longer than the screen
        session = env.unwrapped.world.session
        page = session.page
        before = dict(session.observe().elements)
        env.step({"name": "scroll", "arguments": {"delta_x": 0, "delta_y": 300}})
        assert page.scroll_y > 0
        after = session.observe().elements
        moved = [bid for bid, info in before.items() if info.bbox is not None]
        assert len(moved) > 20 and set(moved) <= set(after)
        for bid in moved:
            x, y, w, h = before[bid].bbox
            assert after[bid].bbox == (x, y - page.scroll_y, w, h)
        env.step({"name": "scroll", "arguments": {"delta_x": 0, "delta_y": -300}})
        assert session.observe().elements == before  # back at the top: the same boxes as first seen
    finally:
        env.close()
