"""The official PersonalWAB recommender: SASRec as the official code defines it (the pmixer PyTorch layout),
loaded from the released ``pwab.pth`` checkpoint and ``1000_ids.json`` item map.

Facts from HongruCai/PersonalWAB at 23ff65c (``functions/get_recommendations_by_history.py`` and
``functions/recommender/model.py``): hidden size 50, 2 blocks, 2 heads, at most 30 input items, learned positions
``1..30`` (0 for padding), item embeddings scaled by ``sqrt(50)``; each block normalises the queries, runs causal
multi-head attention with the normalised queries and the raw sequence as keys and values, adds the attention to
the normalised queries, normalises again and applies a residual point-wise feed-forward (two width-1
convolutions with a ReLU); a last LayerNorm; an item's score is the dot product of its embedding with the final
state.  The ASINs of the input not in the item map are dropped, the last 30 kept and left-padded with 0; the
candidates are the items of the map; the top 10 are returned best first.  An input with no known ASIN returns
an empty list.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from torch import nn

HIDDEN = 50
BLOCKS = 2
HEADS = 2
MAX_LEN = 30
#: ``itemnum`` of the released checkpoint.
ITEM_NUM = 104284

CHECKPOINT = "pwab.pth"
ITEM_MAP = "1000_ids.json"


class OfficialRecommenderMissing(FileNotFoundError):
    """The official checkpoint or item map is not in the directory."""


class _FeedForward(nn.Module):
    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv1d(hidden, hidden, kernel_size=1)
        self.conv2 = nn.Conv1d(hidden, hidden, kernel_size=1)

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        inner = self.conv2(torch.relu(self.conv1(states.transpose(-1, -2)))).transpose(-1, -2)
        return inner + states


class OfficialSASRec(nn.Module):
    """SASRec with the official state-dict layout (``item_emb``, ``pos_emb``, ``attention_layernorms``,
    ``attention_layers``, ``forward_layernorms``, ``forward_layers``, ``last_layernorm``); inference only."""

    def __init__(self, item_num: int, hidden: int = HIDDEN, blocks: int = BLOCKS, heads: int = HEADS,
                 max_len: int = MAX_LEN) -> None:
        super().__init__()
        self.item_emb = nn.Embedding(item_num + 1, hidden, padding_idx=0)
        self.pos_emb = nn.Embedding(max_len + 1, hidden, padding_idx=0)
        self.attention_layernorms = nn.ModuleList(nn.LayerNorm(hidden, eps=1e-8) for _ in range(blocks))
        self.attention_layers = nn.ModuleList(nn.MultiheadAttention(hidden, heads) for _ in range(blocks))
        self.forward_layernorms = nn.ModuleList(nn.LayerNorm(hidden, eps=1e-8) for _ in range(blocks))
        self.forward_layers = nn.ModuleList(_FeedForward(hidden) for _ in range(blocks))
        self.last_layernorm = nn.LayerNorm(hidden, eps=1e-8)

    def final_state(self, items: torch.Tensor) -> torch.Tensor:
        """State after the last column of ``items`` (``[batch, L]``, 0 = padding, most recent item last)."""
        states = self.item_emb(items) * math.sqrt(self.item_emb.embedding_dim)
        positions = torch.arange(1, items.shape[1] + 1, device=items.device).expand_as(items) * (items != 0)
        states = states + self.pos_emb(positions)
        length = items.shape[1]
        blocked = ~torch.tril(torch.ones(length, length, dtype=torch.bool, device=items.device))
        for norm, attention, ff_norm, feed_forward in zip(self.attention_layernorms, self.attention_layers,
                                                          self.forward_layernorms, self.forward_layers, strict=True):
            sequence_first = states.transpose(0, 1)
            queries = norm(sequence_first)
            attended, _ = attention(queries, sequence_first, sequence_first, attn_mask=blocked, need_weights=False)
            states = (queries + attended).transpose(0, 1)
            states = feed_forward(ff_norm(states))
        return self.last_layernorm(states)[:, -1, :]


class OfficialRecommender:
    """``get_recommendations_by_history`` with the released model.

    Args:
        model: The loaded network.
        item_map: ``parent_asin -> item index`` (the released ``1000_ids.json``).
    """

    def __init__(self, model: OfficialSASRec, item_map: dict[str, int]) -> None:
        self.model = model.eval()
        self.item_map = dict(item_map)
        self._asin_of = {index: asin for asin, index in self.item_map.items()}
        self._candidates = np.array(sorted(set(self.item_map.values())), dtype=np.int64)

    def recommend(self, sequence: Sequence[str], k: int = 10) -> list[str]:
        """The top ``k`` ASINs for a history in time order (empty when no ASIN of it is in the item map)."""
        items = [self.item_map[asin] for asin in sequence if asin in self.item_map][-MAX_LEN:]
        if not items:
            return []
        padded = np.zeros(MAX_LEN, dtype=np.int64)
        padded[-len(items):] = items
        with torch.no_grad():
            state = self.model.final_state(torch.from_numpy(padded)[None, :])[0]
            scores = (self.model.item_emb(torch.from_numpy(self._candidates)) @ state).numpy()
        order = np.argsort(-scores, kind="stable")[:k]
        return [self._asin_of[int(self._candidates[i])] for i in order]


def available(directory: str | Path) -> bool:
    """Both released files are in ``directory``."""
    return (Path(directory) / CHECKPOINT).is_file() and (Path(directory) / ITEM_MAP).is_file()


def load(directory: str | Path) -> OfficialRecommender:
    """Load ``pwab.pth`` and ``1000_ids.json`` from ``directory``.

    Raises:
        OfficialRecommenderMissing: a file is absent (the message says how to fetch it).
        ValueError: the checkpoint does not have the official SASRec layout.
    """
    directory = Path(directory)
    missing = [name for name in (CHECKPOINT, ITEM_MAP) if not (directory / name).is_file()]
    if missing:
        raise OfficialRecommenderMissing(
            f"the official PersonalWAB recommender is incomplete in {directory}: missing {', '.join(missing)}; "
            "run 'personal-envs data fetch personalwab'"
        )
    state = torch.load(directory / CHECKPOINT, map_location="cpu", weights_only=True)
    if not isinstance(state, dict) or "item_emb.weight" not in state:
        raise ValueError(f"{directory / CHECKPOINT} is not an official SASRec state dict (no item_emb.weight)")
    item_rows, hidden = state["item_emb.weight"].shape
    blocks = len({key.split(".")[1] for key in state if key.startswith("attention_layers.")})
    model = OfficialSASRec(item_rows - 1, hidden=hidden, blocks=blocks,
                           max_len=state["pos_emb.weight"].shape[0] - 1)
    try:
        model.load_state_dict(state)
    except RuntimeError as exc:
        raise ValueError(f"{directory / CHECKPOINT} does not have the official SASRec layout: {exc}") from exc
    item_map = json.loads((directory / ITEM_MAP).read_text(encoding="utf-8"))
    return OfficialRecommender(model, {str(k): int(v) for k, v in item_map.items()})
