"""WebMall env on real Chromium and the real embedded shops."""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import personal_envs  # noqa: F401 - registers the ids
from personal_envs.browser import BrowserHost, kill_browser
from personal_envs.core.registration import entry_for, load_object
from personal_envs.policies.base import RandomPolicy
from personal_envs.webmall.env import WebMallEnv
from personal_envs.webmall.oracle import WebMallOracle, make_oracle
from personal_envs.webmall.report import report
from personal_envs.webmall.server import ShopCluster
from personal_envs.webmall.tasks import CATEGORIES


def run_episode(env: WebMallEnv, policy: Any, task_index: int) -> tuple[dict[str, Any], int]:
    obs, info = env.reset(options={"task_index": task_index})
    policy.reset(obs, info)
    steps = 0
    while True:
        obs, _, terminated, truncated, info = env.step(policy.act(obs, info))
        steps += 1
        if terminated or truncated:
            return info, steps


@pytest.fixture(scope="module")
def env() -> Iterator[WebMallEnv]:
    environment = WebMallEnv(data_dir="shipped", observation_mode="axtree+memory", dense_reward=True)
    yield environment
    environment.close()


def test_registered_ids_pass_the_env_checker() -> None:
    for env_id in ("WebMall-v0", "WebMall-Basic-v0", "WebMall-Advanced-v0"):
        made = gym.make(env_id, data_dir="shipped")
        try:
            check_env(made.unwrapped)
            split = made.unwrapped.tasks[0].split  # type: ignore[attr-defined]
            assert env_id == "WebMall-v0" or split in env_id.lower()
        finally:
            made.close()
    shots = gym.make("WebMall-v0", data_dir="shipped", observation_mode="screenshot", viewport=(640, 400))
    try:
        check_env(shots.unwrapped)
        obs, _ = shots.reset(seed=1)
        assert obs["screenshot"].shape == (400, 640, 3) and obs["screenshot"].any()
        assert "axtree" not in obs
    finally:
        shots.close()
    entry = entry_for("WebMall-Basic-v0")
    assert set(entry.policies) == {"oracle", "random"}
    assert load_object(entry.report) is report


def test_oracle_solves_one_task_per_category(env: WebMallEnv) -> None:
    records = []
    for category in CATEGORIES:
        index = next(i for i, t in enumerate(env.tasks) if t.category == category)
        oracle = make_oracle(env)
        info, steps = run_episode(env, oracle, index)
        assert oracle.failures == []
        assert info["metrics"]["completed"] == 1.0, (category, info["metrics"])
        assert info["metrics"]["dense_return"] == pytest.approx(1.0)
        records.append({"metrics": info["metrics"], "steps": steps, "runtime_s": 1.0})
    table = report(records)
    assert "Overall" in table and "Basic tasks (all)" in table and "End-to-End" in table


def test_observation_and_memory(env: WebMallEnv) -> None:
    assert env.axtree_backend == "dom", "embedded shops read the same through the DOM walk (test_axtree_backends)"
    obs, info = env.reset(options={"task_index": 0})
    assert obs["url"] == info["solution_url"]
    assert "Submit Final Result" in obs["axtree"]
    assert info["shop_urls"][0] in obs["instruction"] and "{{" not in obs["instruction"]
    assert "task_index" in info and "expected" not in str(info).lower()
    assert "update_memory" not in {spec.name for spec in env.action_specs} and obs["memory"] == ""
    # AgentLab's memory: written with the action of the same step, no step of its own.
    obs, reward, terminated, truncated, info = env.step(
        {"action_type": "goto", "url": env.expected_urls[0], "memory": "offer A: 12.99 €"})
    assert float(reward) > 0  # dense reward for visiting an expected product page
    assert obs["url"].rstrip("/") == env.expected_urls[0] and obs["last_action_error"] == ""
    assert obs["memory"] == "## step 0\n<memory>\noffer A: 12.99 €\n</memory>" and env.steps == 1
    obs, *_ = env.step({"action_type": "scroll", "delta_x": 0, "delta_y": 200})
    obs, *_ = env.step({"action_type": "noop", "memory": "offer B: 9.99 €"})
    assert obs["memory"].endswith("## step 2\n<memory>\noffer B: 9.99 €\n</memory>") and env.steps == 3
    assert obs["memory"].startswith("## step 0\n")
    # The paper's agents read BrowserGym's text: visible / clickable tags, the root with its URL, nothing clipped.
    assert obs["axtree"].startswith("RootWebArea ") and f"url='{obs['url']}'" in obs["axtree"].splitlines()[0]
    assert ", clickable, visible, url=" in obs["axtree"]


def test_signals_count_answer_pages_and_carts_and_info_hides_the_answers(env: WebMallEnv) -> None:
    index = next(i for i, t in enumerate(env.tasks) if t.category == "Add_To_Cart")
    obs, info = env.reset(options={"task_index": index})
    assert env.task is not None
    hidden = env.task.hidden_strings(env.world)
    assert hidden == env.expected_urls and len(hidden) >= 1
    oracle = make_oracle(env)
    oracle.reset(obs, info)
    seen_info = [info]
    signals = [env.privileged_signals()]
    assert signals[0]["answer_pages_visited"] == 0 and signals[0]["answers_carted"] == 0
    while True:
        obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
        signals.append(env.privileged_signals())
        if terminated or truncated:
            break
        seen_info.append(info)
    assert not any(url in str(item) for item in seen_info for url in hidden), "no answer in info before the end"
    assert signals[-1]["answer_pages_visited"] == len(hidden) and signals[-1]["answers_carted"] == len(hidden)
    assert signals[-1]["progress"] == pytest.approx(0.2)
    carted = [s["answers_carted"] for s in signals]
    assert carted == sorted(carted), "running totals never go down"
    assert info["metrics"]["completed"] == 1.0 and info["evaluation"]["checks"]
    assert all(check["passed"] for check in info["evaluation"]["checks"])


def test_signal_shaping_pays_the_first_visit_of_an_answer_page() -> None:
    from personal_envs.wrappers.shaping import SignalShaping

    assert entry_for("WebMall-Basic-v0").signal_weights == {"answer_pages_visited": 0.1, "answers_carted": 0.1}
    env = SignalShaping(gym.make("WebMall-Basic-v0", data_dir="shipped"))
    try:
        env.reset(seed=0, options={"task_index": 0})
        answer = env.unwrapped.expected_urls[0]  # type: ignore[attr-defined]
        _, reward, _, _, info = env.step({"action_type": "goto", "url": answer})
        assert reward == pytest.approx(0.1) and info["shaping"]["signals"] == pytest.approx(0.1)
        assert answer not in str(info), "answer progress stays out of what a policy sees"
        env.step({"action_type": "go_back"})
        _, reward, _, _, _ = env.step({"action_type": "goto", "url": answer})
        assert reward == pytest.approx(0.0)  # only the first visit pays
        env.reset(seed=0, options={"task_index": 0})
        _, reward, _, _, _ = env.step({"action_type": "goto", "url": answer})
        assert reward == pytest.approx(0.1)  # a new episode starts from zero
    finally:
        env.close()


def test_axtree_backend_defaults_and_choice(shipped_catalog: Any) -> None:
    with pytest.raises(ValueError, match="axtree_backend"):
        WebMallEnv(data_dir="shipped", axtree_backend="fast")  # type: ignore[arg-type]
    env = WebMallEnv(data_dir="shipped", axtree_backend="cdp")
    try:
        obs, _ = env.reset(options={"task_index": 0})
        assert env.session is not None and env.session.axtree_backend == "cdp"
        assert "Submit Final Result" in obs["axtree"]
        box = re.search(r"\[(\w+)\] textbox", obs["axtree"])
        assert box, obs["axtree"]
        obs, *_ = env.step({"action_type": "fill", "bid": box.group(1), "value": "http://example.test/p"})
        assert obs["last_action_error"] == "" and "value='http://example.test/p'" in obs["axtree"]
    finally:
        env.close()


def test_bad_input_never_crashes(env: WebMallEnv) -> None:
    obs, _ = env.reset(options={"task_index": 1})
    cases = [
        ({"action_type": "click", "bid": "99999"}, "no element with bid"),
        ({"action_type": "goto", "url": "http://example.com/"}, "outside the allowed sites"),
        ("{not json", "not valid JSON"),
        ({"action_type": "fly"}, "unknown action"),
        ({"action_type": "send_msg_to_user", "text": "done"}, "solution page"),
    ]
    for action, message in cases:
        obs, reward, terminated, truncated, _ = env.step(action)
        assert message in obs["last_action_error"] and not terminated
    box = next(line for line in obs["axtree"].splitlines() if "] textbox " in line)
    bid = box.strip().split("]")[0].lstrip("[")
    env.step({"action_type": "fill", "bid": bid, "value": "garbage ### not a url ###" + "x" * 300_000})
    button = next(line for line in env.step({"action_type": "noop"})[0]["axtree"].splitlines()
                  if "button 'Submit Final Result'" in line)
    obs, reward, terminated, truncated, info = env.step({"action_type": "click", "bid": button.strip()[1:].split("]")[0]})
    assert terminated and reward == 0.0
    assert info["metrics"]["completed"] == 0.0 and info["metrics"]["num_wrong"] == 0
    obs, reward, terminated, truncated, info = env.step({"action_type": "noop"})
    assert terminated and "episode is over" in obs["last_action_error"]


def test_browser_killed_mid_episode(env: WebMallEnv) -> None:
    env.reset(options={"task_index": 2})
    env.step({"action_type": "goto", "url": env.cluster.shop_origins[0] + "/shop/"})
    host = env.session.host  # type: ignore[union-attr]
    assert kill_browser(host)
    obs, _, terminated, truncated, _ = env.step({"action_type": "goto", "url": env.cluster.shop_origins[1] + "/"})
    assert not terminated and not truncated
    assert "restart" in obs["last_action_error"] or "crash" in obs["last_action_error"]
    obs, _, _, _, _ = env.step({"action_type": "goto", "url": env.cluster.shop_origins[1] + "/"})
    assert obs["url"].startswith(env.cluster.shop_origins[1])
    info, _ = run_episode(env, WebMallOracle(env), 2)
    assert info["metrics"]["completed"] == 1.0


def test_random_policy_runs_until_truncation(shipped_catalog: Any) -> None:
    small = WebMallEnv(data_dir="shipped", task_set="basic", max_steps=6)
    try:
        policy = RandomPolicy(small, seed=3)
        info, steps = run_episode(small, policy, 0)
        assert steps <= 6 and "completed" in info["metrics"]
    finally:
        small.close()


class HangingServer:
    """Accepts connections and never answers (a page that never loads)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.origin = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.stop = threading.Event()
        self.conns: list[socket.socket] = []
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
                self.conns.append(conn)
            except OSError:
                continue

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        for conn in self.conns:
            conn.close()
        self.sock.close()


def test_external_shops_and_a_page_that_never_loads(shipped_catalog: Any) -> None:
    shops = ShopCluster(shipped_catalog)
    hanging = HangingServer()
    try:
        external = WebMallEnv(data_dir="shipped", tasks="generated", shop_urls=shops.shop_origins, navigation_timeout_s=2.0)
        try:
            assert external.cluster.external and external.cluster.shop_origins == shops.shop_origins
            assert external.axtree_backend == "auto", "pages of unknown shops are read from Chromium's own tree"
            for category in ("Add_To_Cart", "Checkout"):
                index = next(i for i, t in enumerate(external.tasks) if t.category == category)
                info, _ = run_episode(external, WebMallOracle(external), index)
                assert info["metrics"]["completed"] == 1.0, (category, info["metrics"])
        finally:
            external.close()
        broken = WebMallEnv(data_dir="shipped", tasks="generated", shop_urls=[hanging.origin, *shops.shop_origins[1:]],
                            navigation_timeout_s=1.5)
        try:
            broken.reset(options={"task_index": 0})
            obs, _, terminated, truncated, _ = broken.step({"action_type": "goto", "url": hanging.origin + "/"})
            assert "timed out" in obs["last_action_error"] or "did not finish" in obs["last_action_error"]
            assert not terminated and not truncated
            obs, *_ = broken.step({"action_type": "goto", "url": shops.shop_origins[1] + "/"})
            assert obs["url"].startswith(shops.shop_origins[1]) and obs["last_action_error"] == ""
        finally:
            broken.close()
    finally:
        hanging.close()
        shops.close()


def test_close_releases_servers_and_context() -> None:
    before = {t.ident for t in threading.enumerate()}
    temporary = WebMallEnv(data_dir="shipped")
    temporary.reset(seed=0)
    session = temporary.session
    temporary.close()
    temporary.close()
    assert session is not None and session.closed
    alive = [t for t in threading.enumerate() if t.ident not in before and t.name.startswith("webmall-")]
    assert alive == []
    assert BrowserHost.shared().running  # the shared browser stays for other envs


@pytest.mark.slow
def test_official_tasks_all_solved_by_the_oracle(webmall_dir: Path) -> None:
    official = WebMallEnv(data_dir=webmall_dir)
    try:
        assert official.num_tasks == 91 and official.catalog.source == "official"
        assert len(official.data_quirks) == 1 and official.unresolved_references == []
        oracle = WebMallOracle(official)
        records = []
        for index in range(official.num_tasks):
            started = time.perf_counter()
            info, steps = run_episode(official, oracle, index)
            assert oracle.failures == [], (official.task.task_id, oracle.failures)  # type: ignore[union-attr]
            records.append({"metrics": info["metrics"], "steps": steps, "runtime_s": time.perf_counter() - started})
        failed = [r["metrics"]["task_id"] for r in records if r["metrics"]["completed"] != 1.0]
        assert failed == []
        table = report(records)
        assert "Overall" in table
        print(table)
    finally:
        official.close()


def test_the_instruction_follows_the_task_of_each_episode() -> None:
    """The filled instruction is kept for an episode's steps and made again for the next episode's task."""
    env: Any = gym.make("WebMall-v0", data_dir="shipped", render="text")
    try:
        inner = env.unwrapped
        shown = []
        for index in (0, 1, 0):
            obs, _ = env.reset(options={"task_index": index})
            expected = inner.task.goal(inner.origins)[:len(obs["instruction"])]
            assert obs["instruction"] == expected and "{{" not in obs["instruction"]
            obs, *_ = env.step({"action_type": "scroll", "delta_x": 0, "delta_y": 100})
            assert obs["instruction"] == expected
            shown.append(obs["instruction"])
        assert shown[0] != shown[1] and shown[0] == shown[2]
    finally:
        env.close()
