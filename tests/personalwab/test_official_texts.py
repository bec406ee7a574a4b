"""Official texts read from the release at run time: the tool descriptions, the system prompts, the product cards and
the memory templates, from files in the official layout (a fake release with recognisable texts), and from the real
release files when ``$PERSONAL_ENVS_DATA/personalwab/official`` holds them."""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path

import pytest

from personal_envs.core.download import data_home
from personal_envs.personalwab import functions as fn
from personal_envs.personalwab.env import PersonalWABEnv
from personal_envs.personalwab.official_texts import Release, branch_literals, module_constants
from tests.personalwab.fake_release import FUNCTIONS, write_release
from tests.personalwab.tiny_data import tiny_data

DATA = tiny_data()


def similarity(a: str, b: str) -> float:
    return 0.5


@pytest.fixture()
def release_home(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("PERSONAL_ENVS_DATA", str(tmp_path))
    write_release(tmp_path / "personalwab" / "official")
    return tmp_path


def make(mode: str = "single", **kw) -> PersonalWABEnv:
    return PersonalWABEnv(mode=mode, data=DATA, review_similarity=similarity, **kw)


def test_release_reads_constants_tool_descriptions_and_memory_headers_without_executing(tmp_path):
    release = Release(write_release(tmp_path / "official"))
    infos = release.function_infos()
    assert [info["function"]["name"] for info in infos] == list(Release.FUNCTIONS)
    assert infos[0]["function"]["description"] == "S-DESC official search"
    assert release.system_prompt(False) == "SINGLE-SYSTEM one call only.\n"
    assert release.system_prompt(True, 7) == "MULTI-SYSTEM at most 7 steps.\n"
    assert release.memory_pieces("last") == ["\nLAST-HEADER:\n\n"]
    assert release.memory_pieces("interecagent") == ["\n\nINTEREC-HISTORY:\n", "\nLIKE:\n", "\nDISLIKE:\n",
                                                      "\nEXPECT:\n"]
    assert release.memory_pieces("taskspe") == ["- TYPE {task_type}\n- TOOL {tool_name}\n", "- TS-MEMORY:\n"]
    assert release.memory_pieces("last", "chat_react_agent") == ["\n\nREACT-LAST:\n\n"]
    assert Release(tmp_path / "nowhere").function_infos() is None
    assert Release(tmp_path / "nowhere").system_prompt(False) is None
    (tmp_path / "official" / "envs" / "pwab" / "__init__.py").write_text("OTHER = 1\n")
    with pytest.raises(ValueError, match="not the official PersonalWAB file"):
        Release(tmp_path / "official").system_prompt(False)


def test_env_sends_the_official_tool_descriptions_verbatim(release_home):
    env = make("multi")
    official = [ast.literal_eval(FUNCTIONS[name].split(".__info__ = ", 1)[1])
                for name in ("search_product_by_query", "get_recommendations_by_history", "add_product_review",
                             "stop")]
    tools = env.tool_schemas()
    assert tools[:4] == official and tools[4]["function"]["name"] == fn.RESPOND
    described = {spec.name: spec for spec in env.action_specs}
    assert described[fn.SEARCH].description == "S-DESC official search"
    assert described[fn.SEARCH].param_map["query"].description == "Q-DESC official query"
    assert env.system_prompt == "MULTI-SYSTEM at most 10 steps.\n"
    assert make("single").system_prompt == "SINGLE-SYSTEM one call only.\n"
    assert [t["function"]["name"] for t in make(details_function=True).tool_schemas()] == [
        *Release.FUNCTIONS, fn.RESPOND]


def test_without_the_release_the_env_uses_its_own_descriptions(tmp_path, monkeypatch):
    monkeypatch.setenv("PERSONAL_ENVS_DATA", str(tmp_path))
    env = make("multi")
    assert env.system_prompt is None
    assert "S-DESC" not in json.dumps(env.tool_schemas())
    assert {t["function"]["name"] for t in env.tool_schemas()} == {fn.SEARCH, fn.RECOMMEND, fn.REVIEW, fn.STOP,
                                                                   fn.RESPOND}


def test_product_cards_are_the_official_templates(release_home):
    env = make("multi", details_function=True)
    review = next(i for i, task in enumerate(env.tasks) if task.task_type == "review")
    obs, _ = env.reset(seed=0, options={"task_index": review})
    target = env.tasks[review].target
    assert obs["instruction"].endswith(
        f"\nHere is the product information: \n- UT: {target['title']}\n- UA: {target['parent_asin']}\n"
        f"- UP: {target['price']}\n- US: {target['store']}\n- UC: {target['main_category']}\n")
    obs, *_ = env.step({"action_type": fn.DETAILS, "product_asin": "B000000003"})
    product = DATA.products["B000000003"]
    assert obs["result"] == (f"\nDETAILS:\n- DT: {product['title']}\n- DA: B000000003\n"
                             f"- DD: {json.dumps(product['details'])}\n")
    obs, *_ = env.step({"action_type": fn.RECOMMEND, "product_sequence": ["B000000003", "B000000004"]})
    cards = ast.literal_eval(obs["result"])
    assert len(cards) == 10 and cards[0].startswith("\nREC 0:\n- RT: ") and cards[9].startswith("\nREC 9:\n")


def real_release_root() -> Path:
    """The real release texts: ``$PERSONAL_ENVS_PWAB_OFFICIAL`` (the ``official/`` directory that ``data fetch``
    fills), else skip (the tests' data directory is a fresh temporary one)."""
    root = Path(os.environ.get("PERSONAL_ENVS_PWAB_OFFICIAL", str(data_home() / "personalwab" / "official")))
    if not (root / "agents" / "utils.py").is_file():
        pytest.skip("set PERSONAL_ENVS_PWAB_OFFICIAL to the official/ directory of 'data fetch personalwab'")
    return root


def test_real_release_texts_when_present():
    """The loader on the real release files."""
    root = real_release_root()
    release = Release(root)
    infos = release.function_infos()
    assert [info["function"]["name"] for info in infos] == list(Release.FUNCTIONS)
    assert all(info["function"]["description"] for info in infos)
    assert release.system_prompt(False).startswith("As a personalized shopping agent")
    assert "<NUM>" not in release.system_prompt(True, 10)
    for kind in ("last", "relevant", "random", "recmind"):
        assert len(release.memory_pieces(kind)) == 1
    assert len(release.memory_pieces("interecagent")) == 4 and len(release.memory_pieces("taskspe")) == 2
    for name in ("HISTORY_PROMPT", "MINI_HISTORY_PROMPT", "REACT_INST", "REFLECTION_INST", "PARAM_PORMPT",
                 "TS_SEARCH_PROMPT", "INTEREC_UPDATE_MEM_PROMPT"):
        assert release.agent_text(name)
    assert branch_literals(root / "agents" / "chat_react_agent.py", "retrieve_memory", "last")
    assert "FUNCTION_PROMPT" in module_constants(root / "PUMA" / "utils.py")
