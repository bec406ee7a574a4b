"""The official preference judge on a real model: SmolLM2-135M-Instruct served by llama-cpp-python on 127.0.0.1.

Marked ``real_llm`` and opt-in like ``tests/llm/test_real_models.py``:
``PERSONAL_ENVS_REAL_LLM=1 python3 -m pytest -q -m real_llm tests/knowu/official_preference/test_real_judge.py``.
A model this small rarely follows the ``<score>`` format; the test asserts the protocol, not the model's taste: the
verdict comes from the model (``kind="llm"``), its score is in [0, 1], and a reply without the tag is parsed the
official way with a note saying so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from personal_envs.knowu.official.preference.judge import JudgeProtocol, OfficialPreferenceJudge
from personal_envs.knowu.official.preference.variants import build_variant
from personal_envs.llm.client import ChatClient
from tests.conftest import skip_unless_real_llm
from tests.knowu.official_preference.release import RELEASE, end_of, source

pytestmark = pytest.mark.real_llm


skip_unless_real_llm()
if not (RELEASE / "src/knowu_bench").is_dir():
    pytest.skip("official release not present", allow_module_level=True)

from personal_envs.llm.serve import LocalModelServer  # noqa: E402


def test_a_real_model_judges_an_official_preference_variant(tmp_path: Path) -> None:
    with LocalModelServer(chat_format="chatml", ctx=8192, threads=2, log_path=tmp_path / "server.log") as server:
        client = ChatClient(base_url=server.base_url, model=server.model_name, timeout=1500.0, max_retries=0)
        judge = OfficialPreferenceJudge(JudgeProtocol.from_release(RELEASE), client, on_error="raise")
        task = build_variant(source(), "CommuteRoutingSunnyTask", "student",
                             RELEASE / "src/knowu_bench/user_profile/student.yaml", judge=judge)
        plan_text = "Take the metro line 2, about 25 minutes."
        result = task.score_end(end_of(task, plan_text), [{"action_type": "answer", "text": plan_text}])
    verdict = result.judge
    assert verdict is not None and verdict.kind == "llm" and verdict.error is None
    assert 0.0 <= verdict.score <= 1.0 and result.score == verdict.score
    assert verdict.parse_note is None or "official parsing" in verdict.parse_note
    print(f"\nSmolLM2 judge: score {verdict.score} note {verdict.parse_note!r} reasoning {verdict.reasoning[:120]!r}")
