"""The official user-simulator protocol on a real model: SmolLM2-135M-Instruct served by llama-cpp-python on
127.0.0.1 plays the user of an official preference variant and of a general task.

Marked ``real_llm`` and opt-in like ``tests/llm/test_real_models.py``:
``PERSONAL_ENVS_REAL_LLM=1 python3 -m pytest -q -s -m real_llm tests/knowu/official_preference/test_real_user.py``.
A model this small answers poorly; the test asserts the plumbing: the env built with ``user="llm"`` sends the
official prompt to the real server, the model's raw reply reaches the agent, no error is recorded, and the second
question carries the first exchange.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.official.llm_user import OfficialLLMUser
from tests.conftest import skip_unless_real_llm
from tests.knowu.official_preference.release import RELEASE

pytestmark = pytest.mark.real_llm


skip_unless_real_llm()
if not (RELEASE / "src/knowu_bench").is_dir():
    pytest.skip("official release not present", allow_module_level=True)

from personal_envs.llm.serve import LocalModelServer  # noqa: E402


@pytest.mark.parametrize("split, task", [("personalized", "SearchTopInfoPreferenceAskUserTask@student"),
                                         ("general", "BatterySaverGeneralTask")])
def test_a_real_model_plays_the_official_user(split: str, task: str, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    with LocalModelServer(chat_format="chatml", ctx=8192, threads=2, log_path=tmp_path / "server.log") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("PERSONAL_ENVS_LLM_MODEL", server.model_name)
        env = KnowUEnv(family=split, task=task, data_dir=str(RELEASE), screenshot=False, user="llm")
        try:
            env.reset()
            first, *_ = env.step({"action_type": "ask_user", "text": "What should I focus on?"})
            second, *_ = env.step({"action_type": "ask_user", "text": "Anything else?"})
            user = env.user
        finally:
            env.close()
    assert isinstance(user, OfficialLLMUser) and user.errors == []
    assert first["user_reply"].strip() and second["user_reply"].strip()
    assert [t.speaker for t in user.dialogue] == ["agent", "user", "agent", "user"]
    print(f"\nSmolLM2 as the official user of {task}: {first['user_reply'][:160]!r} / {second['user_reply'][:160]!r}")
