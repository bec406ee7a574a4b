"""``coords="official"``: positions as the official agents give them (``coordinate`` [x, y] in 0..999), converted as
``general_e2e_agent.py`` converts them; the same taps solve an official task in both conventions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from personal_envs.knowu.actions import OFFICIAL_COORDINATE_ARGS, official_to_pixels
from personal_envs.knowu.env import KnowUEnv
from personal_envs.simulators.phone.geometry import SCREEN_HEIGHT, SCREEN_WIDTH
from tests.knowu.official.test_official_api import oracle_actions


def to_relative(action: dict[str, Any]) -> dict[str, Any]:
    """A pixel action in the official agents' convention (the relative position that converts back into the same
    pixel cell)."""
    relative = dict(action)
    for key, x_key, y_key in OFFICIAL_COORDINATE_ARGS.get(action["action_type"], ()):
        x, y = relative.pop(x_key), relative.pop(y_key)
        relative[key] = [-(-x * 1000 // SCREEN_WIDTH), -(-y * 1000 // SCREEN_HEIGHT)]
    return relative


def test_conversion_is_the_official_agents() -> None:
    # int(relative * image_size / 1000), image 1080x2400
    assert official_to_pixels("click", {"coordinate": [500, 500]}) == {"x": 540, "y": 1200}
    assert official_to_pixels("click", {"coordinate": [999, 0]}) == {"x": 1078, "y": 0}
    assert official_to_pixels("drag", {"start_coordinate": [100, 900], "end_coordinate": [100, 100]}) == {
        "start_x": 108, "start_y": 2160, "end_x": 108, "end_y": 240}
    with pytest.raises(ValueError, match="0..999"):
        official_to_pixels("click", {"coordinate": [1000, 5]})


def test_the_same_taps_solve_an_official_task_in_both_conventions(official_dir: Path) -> None:
    actions, score = oracle_actions(official_dir, "general", "BatterySaverGeneralTask")
    assert score == 1.0 and any(a["action_type"] in OFFICIAL_COORDINATE_ARGS for a in actions)
    env = KnowUEnv(family="general", task="BatterySaverGeneralTask", data_dir=str(official_dir), screenshot=False,
                   coords="official")
    try:
        assert "coordinate" in env.tool_schemas()[0]["function"]["parameters"]["properties"]
        obs, _ = env.reset(seed=0)
        assert "0..999" in obs["context"]
        reward = 0.0
        for action in actions:
            relative = to_relative(action)
            pixels = official_to_pixels(action["action_type"], {k: v for k, v in relative.items() if k != "action_type"})
            # a relative unit is 1.08 x 2.4 pixels: the tap lands within 3 pixels of the oracle's, on its element
            numeric = [k for k in pixels if isinstance(pixels[k], int) and k in action]
            assert all(abs(pixels[k] - action[k]) <= 3 for k in numeric), (pixels, action)
            obs, reward, terminated, truncated, info = env.step(relative)
            assert not obs["last_action_error"], obs["last_action_error"]
        assert reward == 1.0
        # pixel arguments are not the official convention's: the env says so and nothing happens
        env.reset(seed=0)
        obs, *_ = env.step({"action_type": "click", "x": 10, "y": 10})
        assert "coordinate" in obs["last_action_error"]
    finally:
        env.close()
