"""A release in the official file layout with short, recognisable texts: the same module names, constant names,
tool-description assignments and memory branches as the official files (HongruCai/PersonalWAB at 23ff65c), so the
tests can check which official text goes where without shipping any official text."""

from __future__ import annotations

from pathlib import Path

USER_MODULE = '''
DIVERSITY = {"High": "div-high", "Medium": "div-medium", "Low": "div-low"}
INTERACTION = {"High": "int-high", "Medium": "int-medium", "Low": "int-low"}
PRICE = {"High": "price-high", "Medium": "price-medium", "Low": "price-low"}
PROFILE_PROMPT = "g=<GENDER> a=<AGE> o=<OCCUPATION> p=<PRICE_SENSITIVITY> s=<SHOPPING_INTEREST> b=<BRAND_PREFERENCE> d=<DIVERSITY_PREFERENCE> i=<INTERACTION_STYLE> t=<TONE_AND_STYLE> r=<ITEM_REFERENCE> f=<FOCUS>"
PRODUCT_PROMPT = "\\n- UT: <TITLE>\\n- UA: <PARENT_ASIN>\\n- UP: <PRICE>\\n- US: <STORE>\\n- UC: <CATEGORY>\\n"
USER_PROMPT = "SEARCH [<PROFILE>] [<PRODUCT>]"
USER_PROMPT_REVIEW = "REVIEW [<PROFILE>] [<PRODUCT>] [<REVIEW>]"
'''

ENV_MODULE = '''
from PersonalWAB.envs.base import PWABaseEnv
SYS_PROMPT_SINGLE = """SINGLE-SYSTEM one call only.
"""
SYS_PROMPT_MULTI = """MULTI-SYSTEM at most <NUM> steps.
"""
'''


def _function(name: str, description: str, params: dict[str, str], extra: str = "") -> str:
    properties = {key: {"type": "array" if key == "product_sequence" else "string", "description": text}
                  for key, text in params.items()}
    parameters = {"type": "object", "properties": properties, "required": list(params)} if params else {}
    info = {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}
    return f"{extra}\ndef {name}(data, **kwargs):\n    raise SystemExit('never executed')\n\n{name}.__info__ = {info!r}\n"


FUNCTIONS = {
    "search_product_by_query": _function("search_product_by_query", "S-DESC official search",
                                         {"query": "Q-DESC official query"}),
    "get_recommendations_by_history": _function(
        "get_recommendations_by_history", "R-DESC official recommend", {"product_sequence": "P-DESC official"},
        "Product_Prompt = '''\nREC <Num>:\n- RT: <TITLE>\n- RA: <PARENT_ASIN>\n- RC: <CATEGORY>\n'''\n"),
    "add_product_review": _function("add_product_review", "V-DESC official review", {"review": "T-DESC official"}),
    "get_product_details_by_asin": _function(
        "get_product_details_by_asin", "D-DESC official details", {"product_asin": "A-DESC official"},
        "Product_Prompt = '''\nDETAILS:\n- DT: <TITLE>\n- DA: <PARENT_ASIN>\n- DD: <DETAILS>\n'''\n"),
    "stop": _function("stop", "STOP-DESC official", {}),
}

AGENT_UTILS = '''
import json
PARAM_PORMPT = """PARAM I=<Insturction> M=<Memory> T=<Tool>
### Tool Parameter:
"""
PRODUCT_PROMPT = """
PUMA-PRODUCT <Title>|<Price>|<Store>|<Main Category>
"""
HISTORY_PROMPT = """
MEMORY <NUM>:
- Title: <TITLE>
- Parent Asin: <PARENT_ASIN>
- Main Category: <MAIN_CATEGORY>
- Price: <PRICE>
- Details: <DETAILS>
- Rating: <RATING>
- Text: <TEXT>
"""
MINI_HISTORY_PROMPT = """MINI <NUM>: <TITLE> (<PARENT_ASIN>) <RATING>"""
INTEREC_MEMORY_PROMPT = """IR <TITLE> <PARENT_ASIN> <RATING>"""
REFLECTION_INST = """REFLECT task=<TASK> actions=<ACTIONS> feedback=<FEEDBACK>"""
REACT_INST = """
REACT-FORMAT Thought/Action/Arguments"""
RECMIND_ST_PROMPT = """RECMIND-SINGLE"""
RECMIND_MT_PROPMT = """RECMIND-MULTI <NUM>"""
INTEREC_PROMPT = """INTEREC <NUM>"""
INTEREC_UPDATE_MEM_PROMPT = """UPDATE {conversation}"""
TS_SEARCH_PROMPT = """TSS <TITLE>/<MAIN_CATEGORY>/<PRICE>/<STORE>"""
TS_REC_PROMPT = """TSR <TITLE>/<MAIN_CATEGORY>/<ASIN>"""
TS_REV_PROMPT = """TSV <RATING>/<TEXT>"""
TS_AGENT_PROMPT = """TS-AGENT-SINGLE"""
TS_AGENT_MT_PROMPT = """TS-AGENT-MULTI <NUM>"""
'''

AGENT_MODULE = '''
class GPTFunctionCallingAgent:
    def retrieve_memory(self, env, index, memory, memory_length):
        if memory == 'last':
            timestamp = env.tasks[index]["timestamp"]
            mem = '\\nLAST-HEADER:\\n\\n'
            mem = mem + "\\n".join([])
            return mem
        elif memory == 'relevant':
            mem = '\\nRELEVANT-HEADER:\\n\\n'
            return mem
        elif memory == 'random':
            mem = '\\nRANDOM-HEADER:\\n\\n'
            return mem
        elif memory == 'recmind':
            mem = '\\nRECMIND-HEADER:\\n\\n'
            return mem
        elif memory == 'interecagent':
            mem = "\\n\\nINTEREC-HISTORY:\\n"
            mem = mem + "\\n".join(history)
            mem = mem + "\\nLIKE:\\n" + str(x["like"])
            mem = mem + "\\nDISLIKE:\\n" + str(x["dislike"])
            mem = mem + "\\nEXPECT:\\n" + str(x["expect"])
            return mem
        elif memory == 'taskspe':
            mem = f'- TYPE {task_type}\\n- TOOL {tool_name}\\n'
            mem = mem + '- TS-MEMORY:\\n'
            mem = mem + "|".join([item for item in history])
            return mem
'''

REACT_MODULE = '''
class ChatReActAgent:
    def retrieve_memory(self, env, index, memory, memory_length):
        if memory == 'last':
            mem = '\\n\\nREACT-LAST:\\n\\n'
            return mem
        elif memory == 'relevant':
            mem = '\\nREACT-RELEVANT:\\n\\n'
            return mem
        elif memory == 'random':
            mem = '\\nREACT-RANDOM:\\n\\n'
            return mem
'''

PUMA_UTILS = '''
FUNCTION_PROMPT = """CHOOSE <Instruction>
### Tool:
"""
'''

INTEREC_INIT = '''
PRODUCT_PROMPT = """[<TITLE>|<PARENT_ASIN>|<CATEGORIES>|<RATING>|<REVIEW_TEXT>]"""
USER_PROFILE_PROMPT = """PROFILE {History}"""
'''


def write_release(root: Path) -> Path:
    """Write the fake release under ``root`` (the ``official/`` directory) and return ``root``."""
    files = {
        "user.py": USER_MODULE, "envs/pwab/__init__.py": ENV_MODULE, "agents/utils.py": AGENT_UTILS,
        "agents/gpt_function_calling_agent.py": AGENT_MODULE, "agents/chat_react_agent.py": REACT_MODULE,
        "PUMA/utils.py": PUMA_UTILS, "tools/init_interecagent_memory.py": INTEREC_INIT,
        **{f"functions/{name}.py": text for name, text in FUNCTIONS.items()},
    }
    for relpath, text in files.items():
        path = root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
