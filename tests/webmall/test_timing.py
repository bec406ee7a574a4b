"""Between an action and the observation the env does what BrowserGym's 0.5 s ``pre_observation_delay`` does for
the pages it serves: every in-place "Add to cart" of a listing shows its "View cart" link and the new cart count
in the observation of the click itself (``benchmarks/webmall_timing.py`` measures the cost)."""

from __future__ import annotations

import re

import pytest

from personal_envs.webmall.env import WebMallEnv

ADD = re.compile(r"\[(\w+)\] link 'Add to cart: “[^”]+”'")


def _count(axtree: str) -> int:
    found = re.search(r"link 'Cart \((\d+)\)'", axtree)
    assert found, axtree[:2000]
    return int(found.group(1))


@pytest.mark.parametrize("delay", [None, 0.5])
def test_every_in_place_add_to_cart_is_on_the_clicks_observation(delay: float | None) -> None:
    env = WebMallEnv(data_dir="shipped", pre_observation_delay=delay)
    clicks = 24 if delay is None else 4
    try:
        env.reset(seed=0, options={"task_index": 0})
        pages = [(origin, node.url_path) for origin, shop in zip(env.cluster.shop_origins, env.catalog.shops,
                                                                  strict=True)
                 for node in list(shop.root.children.values())[:3]]
        for index in range(clicks):
            if env.steps > env.max_steps - 3:
                env.reset(seed=0, options={"task_index": 0})
            origin, path = pages[index % len(pages)]
            obs, *_ = env.step({"action_type": "goto", "url": origin + path})
            before, links = _count(obs["axtree"]), ADD.findall(obs["axtree"])
            obs, *_ = env.step({"action_type": "click", "bid": links[index % len(links)]})
            assert "link 'View cart'" in obs["axtree"] and _count(obs["axtree"]) == before + 1, (index, origin, path)
    finally:
        env.close()
    with pytest.raises(ValueError, match="pre_observation_delay"):
        WebMallEnv(data_dir="shipped", pre_observation_delay=-1)
