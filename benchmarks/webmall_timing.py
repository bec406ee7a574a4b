"""What an in-place "Add to cart" shows, and what waiting for it costs, with each ``pre_observation_delay`` mode.

    PYTHONPATH=. python benchmarks/webmall_timing.py [--clicks 24] [--steps 40] [--data-dir ../shared/anchors/webmall]

BrowserGym (the paper's runs) sleeps 0.5 s after every action before it observes, so a listing's AJAX "Add to cart"
has shown its "View cart" link and the new cart count.  Modes compared, in one run on the same pages:

* ``none``: observe at once (``pre_observation_delay=0``, what the env did before);
* ``settle`` (default): wait until the page's fetch/XHR requests are answered and handled, at most 0.5 s;
* ``browsergym``: sleep 0.5 s after every action (``pre_observation_delay=0.5``).

Prints, per mode: how many clicks showed "View cart" and the new count in the observation right after the click,
the click step's p50, and the p50 of ordinary steps (goto, scroll) that start no request.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _measure import machine, percentiles  # noqa: E402

from personal_envs.webmall.env import WebMallEnv  # noqa: E402

MODES: dict[str, float | None] = {"none": 0.0, "settle": None, "browsergym": 0.5}
ADD_LINK = re.compile(r"\[(\w+)\] link 'Add to cart: “([^”]+)”'")


def _cart_count(axtree: str) -> int:
    found = re.search(r"link 'Cart \((\d+)\)'", axtree)
    return int(found.group(1)) if found else -1


def run_mode(delay: float | None, clicks: int, steps: int, data_dir: str) -> tuple[int, int, list[float], list[float]]:
    """(clicks that showed the result, clicks made, click step times, plain step times)."""
    env = WebMallEnv(data_dir=data_dir, pre_observation_delay=delay)
    shown = made = 0
    click_s: list[float] = []
    plain_s: list[float] = []
    try:
        env.reset(seed=0, options={"task_index": 0})
        targets = [(origin, node.url_path) for origin, shop in zip(env.cluster.shop_origins, env.catalog.shops,
                                                                    strict=True)
                   for node in list(shop.root.children.values())[:3]]
        while made < clicks:
            if env.steps > env.max_steps - 3:  # stay within the episode's step limit
                env.reset(seed=0, options={"task_index": 0})
            origin, path = targets[made % len(targets)]
            obs, *_ = env.step({"action_type": "goto", "url": origin + path})
            before = _cart_count(obs["axtree"])
            links = ADD_LINK.findall(obs["axtree"])
            if not links:
                made += 1
                continue
            bid, name = links[made % len(links)]
            start = time.perf_counter()
            obs, *_ = env.step({"action_type": "click", "bid": bid})
            click_s.append(time.perf_counter() - start)
            made += 1
            view = "link 'View cart'" in obs["axtree"]
            counted = before < 0 or _cart_count(obs["axtree"]) == before + 1
            shown += view and counted
        env.reset(seed=0, options={"task_index": 0})
        for index in range(steps):
            if env.steps > env.max_steps - 2:
                env.reset(seed=0, options={"task_index": 0})
            action = ({"action_type": "scroll", "delta_x": 0, "delta_y": 300} if index % 2
                      else {"action_type": "goto", "url": env.cluster.shop_origins[index % 4] + "/shop/"})
            start = time.perf_counter()
            env.step(action)
            plain_s.append(time.perf_counter() - start)
    finally:
        env.close()
    return shown, made, click_s, plain_s


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clicks", type=int, default=24)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--data-dir", default="shipped")
    args = parser.parse_args()
    print(machine())
    print(f"{'mode':12} {'shown':>8} {'click p50 ms':>13} {'plain step p50 ms':>18}")
    for name, delay in MODES.items():
        shown, made, click_s, plain_s = run_mode(delay, args.clicks, args.steps, args.data_dir)
        print(f"{name:12} {shown:>3}/{made:<4} {percentiles(click_s)[0]:13.0f} {percentiles(plain_s)[0]:18.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
