"""The elements of a text-mode observation are computed when first read (:class:`LazyElements`): read late, they
must still be those of the page the observation showed."""

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np

import personal_envs  # noqa: F401 - registers the envs
from personal_envs.browser.axtree import parse_axtree
from personal_envs.browser.observation import ElementInfo
from personal_envs.textmode.parity import random_web_action

STEPS = 120
LATE_BY = 3


def _walk(read_late: bool) -> list[tuple[str, dict[str, ElementInfo]]]:
    """The AX text and the elements of each observation of a seeded random walk; the elements read right after
    the step, or only ``LATE_BY`` steps later."""
    env: Any = gym.make("WebMall-v0", data_dir="shipped", render="text")
    rng = np.random.default_rng(4)
    origins = list(env.unwrapped.origins.values())[:4]
    seen: list[tuple[str, Mapping[str, ElementInfo]]] = []
    out: list[tuple[str, dict[str, ElementInfo]]] = []
    try:
        obs, _ = env.reset(seed=4)
        for _ in range(STEPS):
            obs, _, terminated, truncated, _ = env.step(random_web_action(obs["axtree"], origins, rng))
            seen.append((obs["axtree"], env.unwrapped._page_elements))
            if not read_late:
                out.append((seen[-1][0], dict(seen[-1][1])))
            elif len(seen) > LATE_BY:
                text, elements = seen[-1 - LATE_BY]
                out.append((text, dict(elements)))
            if terminated or truncated:
                obs, _ = env.reset()
        if read_late:
            out.extend((text, dict(elements)) for text, elements in seen[-LATE_BY:])
    finally:
        env.close()
    return out


def test_elements_read_late_are_those_of_the_observation() -> None:
    early, late = _walk(read_late=False), _walk(read_late=True)
    assert [text for text, _ in early] == [text for text, _ in late]
    assert [elements for _, elements in early] == [elements for _, elements in late]
    assert sum(len(elements) for _, elements in early) > 20 * STEPS


def test_elements_agree_with_the_printed_lines() -> None:
    for text, elements in _walk(read_late=True):
        printed = {node.bid: node for node in parse_axtree(text) if node.bid}
        assert set(printed) <= set(elements)
        for bid, node in printed.items():
            # parse_axtree keeps the comma of a nameless line ("[14] generic, clickable") with the role
            assert (elements[bid].role, elements[bid].name) == (node.role.rstrip(","), node.name), bid


def test_is_visible_is_browsergyms_visibility_test() -> None:
    from personal_envs.browser.bgym_format import visibility_ratio
    from personal_envs.textmode.axmemo import is_visible

    rng = np.random.default_rng(3)
    edges = [0.0, -0.0, 1.0, 0.5, 359.75, 360.0, 719.9999999999999, 720.0, 720.0000000000001, 1280.0, -1.0, 1e-300,
             5e-324, 1e-9, 1e300]
    viewports = [(1280.0, 720.0), (800.0, 600.0), (0.0, 0.0)]
    boxes = [(float(rng.choice(edges)) if rng.random() < 0.5 else float(rng.uniform(-400, 1600)),
              float(rng.choice(edges)) if rng.random() < 0.5 else float(rng.uniform(-800, 3000)),
              float(rng.choice(edges)) if rng.random() < 0.5 else float(rng.uniform(-50, 900)),
              float(rng.choice(edges)) if rng.random() < 0.5 else float(rng.uniform(-50, 900))) for _ in range(20000)]
    shown = 0
    for viewport in viewports:
        for box in boxes:
            expected = visibility_ratio(box, viewport) >= 0.5
            assert is_visible(box, viewport) == expected, (box, viewport)
            shown += expected
        assert is_visible(None, viewport) is False
    assert 0 < shown < len(boxes) * len(viewports)
