"""The official KnowU server API both ways: the official client (``runtime/client.py`` of the release, loaded from
the anchors) drives ``personal-envs knowu serve``, and ``backend="official"`` drives the same server; both get the
official task's score for the oracle's actions, and the near-miss score for a shortened trace."""

from __future__ import annotations

import importlib.util
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.official_api.protocol import from_official, to_official
from personal_envs.knowu.official_api.remote_env import KnowUServerEnv, ServerError
from personal_envs.knowu.official_api.server import KnowUApiServer
from personal_envs.knowu.oracle import make_oracle

#: A general task (scored on the device state) and a routine (scored on the actions the server is sent).
TASKS = [("general", "BatterySaverGeneralTask"), ("proactive", "WeekendSleeperTask@student")]


@pytest.fixture(scope="module")
def server(official_dir: Path) -> Iterator[KnowUApiServer]:
    with KnowUApiServer(str(official_dir)) as running:
        yield running


def oracle_actions(official_dir: Path, split: str, name: str) -> tuple[list[dict[str, Any]], float]:
    """The oracle's actions on the simulator for task ``name``, and the simulator's score for them."""
    env = KnowUEnv(family=split, task=name, data_dir=str(official_dir), screenshot=False)
    try:
        obs, info = env.reset(seed=0, options={"task_index": 0})
        policy = make_oracle(env)
        policy.reset(obs, info)
        actions, done, reward = [], False, 0.0
        while not done:
            action = policy.act(obs, info)
            actions.append(dict(action))
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        return actions, float(reward)
    finally:
        env.close()


#: Official modules the tests run as they are (module name -> file under ``src/knowu_bench``).
OFFICIAL_FILES = (("knowu_bench.runtime.utils.models", "runtime/utils/models.py"),
                  ("knowu_bench.runtime.utils.trajectory_logger", "runtime/utils/trajectory_logger.py"),
                  ("knowu_bench.agents.base", "agents/base.py"),
                  ("knowu_bench.runtime.client", "runtime/client.py"),
                  ("knowu_bench.core.runner", "core/runner.py"))


def official_modules(official_dir: Path) -> types.SimpleNamespace:
    """The release's client (``runtime/client.py``), benchmark runner (``core/runner.py``), agent base class and
    trajectory logger, run as they are.  Their imports of the official package are satisfied from the release where
    they are plain modules (data models, the logger, the agent base), and stubbed where they would pull the whole
    official runtime (the MCP client, the task registry, the agent registry, the Docker discovery), none of which the
    client's HTTP methods or the runner's per-task loop use."""
    package = official_dir / "src" / "knowu_bench"
    stubbed = ("knowu_bench", "knowu_bench.runtime", "knowu_bench.runtime.utils", "knowu_bench.runtime.mcp_server",
               "knowu_bench.runtime.utils.docker", "knowu_bench.tasks", "knowu_bench.tasks.registry",
               "knowu_bench.agents", "knowu_bench.agents.registry", "knowu_bench.core")
    stubs = {name: types.ModuleType(name) for name in stubbed}
    stubs["knowu_bench.runtime.mcp_server"].init_mcp_clients = lambda: None  # type: ignore[attr-defined]
    stubs["knowu_bench.tasks.registry"].TaskRegistry = lambda: None  # type: ignore[attr-defined]
    stubs["knowu_bench.agents.registry"].create_agent = None  # type: ignore[attr-defined]
    stubs["knowu_bench.runtime.utils.docker"].discover_backends = None  # type: ignore[attr-defined]
    loaded: dict[str, Any] = {}
    saved = {name: sys.modules.get(name) for name in [*stubs, *(n for n, _ in OFFICIAL_FILES)]}
    sys.modules.update(stubs)
    try:
        for name, relpath in OFFICIAL_FILES:
            spec = importlib.util.spec_from_file_location(name, package / relpath)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            loaded[name.rsplit(".", 1)[-1]] = module
        return types.SimpleNamespace(**loaded)
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def official_client_class(official_dir: Path) -> Any:
    """``AndroidEnvClient`` of the release and its data models (see :func:`official_modules`)."""
    modules = official_modules(official_dir)
    return modules.client.AndroidEnvClient, modules.models


@pytest.mark.parametrize("split, name", TASKS)
def test_the_official_client_drives_our_server_through_an_official_task(server: KnowUApiServer, official_dir: Path,
                                                                       split: str, name: str) -> None:
    actions, sim_score = oracle_actions(official_dir, split, name)
    assert sim_score == 1.0
    client_class, models = official_client_class(official_dir)
    client = client_class(url=server.url, step_wait_time=0.0)
    assert client.health() and name in client.get_suite_task_list(enable_user_interaction=True)
    assert len(client.get_suite_task_list(enable_user_interaction=True)) == 192
    client.initialize_task(name)
    assert client.get_task_goal(name) == server.service.goal(name)
    for action in actions:
        observation = client.execute_action(models.JSONAction(**to_official(action)))
        assert observation.screenshot.size == (1080, 2400)
        if action["action_type"] == "ask_user":
            assert observation.ask_user_response  # the simulated user's reply comes back as the official one does
    score, reason = client.get_task_score(name, actions=[to_official(a) for a in actions])
    assert score == 1.0, reason
    assert client.tear_down_task(name).status == "success"
    # near miss: the same task with its last device action left out fails as the official check fails
    client.initialize_task(name)
    for action in actions[:-2]:
        client.execute_action(models.JSONAction(**to_official(action)))
    short, _ = client.get_task_score(name, actions=[to_official(a) for a in actions[:-2]])
    assert short < 1.0


@pytest.mark.parametrize("split, name", TASKS)
def test_backend_official_runs_a_policy_unchanged_with_the_servers_score(server: KnowUApiServer, official_dir: Path,
                                                                        split: str, name: str) -> None:
    actions, sim_score = oracle_actions(official_dir, split, name)
    env = gym.make(f"KnowU-{split.capitalize()}-v0", backend="official", server_url=server.url, task=name)
    try:
        assert isinstance(env.unwrapped, KnowUServerEnv)
        obs, info = env.reset(seed=0)
        assert set(obs) == {"instruction", "ui_xml", "context", "logs", "user_reply", "last_action_error", "screenshot"}
        assert obs["instruction"] == server.service.goal(name) and obs["ui_xml"].startswith("<?xml")
        reward, done = 0.0, False
        for action in actions:
            assert not done
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        assert done and reward == sim_score == 1.0 and info["metrics"]["score"] == 1.0
    finally:
        env.close()


def test_the_remote_env_passes_the_env_checker_and_reports_an_unreachable_server(server: KnowUApiServer) -> None:
    from gymnasium.utils.env_checker import check_env

    env = KnowUServerEnv("general", server.url, task="BatterySaverGeneralTask", screenshot_scale=0.1)
    try:
        check_env(env, skip_render_check=True)
    finally:
        env.close()
    with pytest.raises(ServerError, match="knowu serve"):
        KnowUServerEnv("general", "http://127.0.0.1:9", timeout_s=2)


def test_official_actions_map_to_ours() -> None:
    official = to_official({"action_type": "click", "x": 10, "y": 20})
    assert official["x"] == 10 and official["text"] is None and from_official(official) == {
        "action_type": "click", "x": 10, "y": 20}
    assert from_official({"action_type": "swipe", "direction": "up", "x": None}) == {
        "action_type": "swipe", "direction": "up"}  # the official swipe, from the screen centre


def test_bad_requests_get_official_style_errors(server: KnowUApiServer) -> None:
    import json
    import urllib.error
    import urllib.request

    def post(path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        request = urllib.request.Request(server.url + path, data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})  # as the official client
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    assert post("/task/init", {"task_name": "NoSuchTask"})[0] == 404
    status, answer = post("/step", {"device": "emulator-5554", "action": {"action_type": "click", "x": "far"}})
    assert status == 400 and "detail" in answer
