"""The official SASRec loader, on a checkpoint this test writes with the official state-dict layout.

The reference forward pass below is written from the official model's rules with plain tensor operations on the
state dict (no module of the package), so a layout or wiring mistake in the loader shows as different rankings.
"""

from __future__ import annotations

import json
import math

import pytest
import torch
from torch.nn import functional

from personal_envs.personalwab import official_recommender as official

ITEMS, HIDDEN, MAXLEN = 40, 50, 30


def official_layout_state(seed: int = 0) -> dict[str, torch.Tensor]:
    """Random weights under the official key names and shapes (2 blocks, 2 heads, hidden 50, maxlen 30)."""
    g = torch.Generator().manual_seed(seed)
    state = {"item_emb.weight": torch.randn(ITEMS + 1, HIDDEN, generator=g),
             "pos_emb.weight": torch.randn(MAXLEN + 1, HIDDEN, generator=g),
             "last_layernorm.weight": 1 + 0.1 * torch.randn(HIDDEN, generator=g),
             "last_layernorm.bias": 0.1 * torch.randn(HIDDEN, generator=g)}
    for i in range(2):
        for norm in ("attention_layernorms", "forward_layernorms"):
            state[f"{norm}.{i}.weight"] = 1 + 0.1 * torch.randn(HIDDEN, generator=g)
            state[f"{norm}.{i}.bias"] = 0.1 * torch.randn(HIDDEN, generator=g)
        state[f"attention_layers.{i}.in_proj_weight"] = 0.2 * torch.randn(3 * HIDDEN, HIDDEN, generator=g)
        state[f"attention_layers.{i}.in_proj_bias"] = 0.1 * torch.randn(3 * HIDDEN, generator=g)
        state[f"attention_layers.{i}.out_proj.weight"] = 0.2 * torch.randn(HIDDEN, HIDDEN, generator=g)
        state[f"attention_layers.{i}.out_proj.bias"] = 0.1 * torch.randn(HIDDEN, generator=g)
        for conv in ("conv1", "conv2"):
            state[f"forward_layers.{i}.{conv}.weight"] = 0.2 * torch.randn(HIDDEN, HIDDEN, 1, generator=g)
            state[f"forward_layers.{i}.{conv}.bias"] = 0.1 * torch.randn(HIDDEN, generator=g)
    return state


def reference_scores(state: dict[str, torch.Tensor], items: list[int]) -> torch.Tensor:
    """The official forward pass from its rules, for one left-padded sequence; scores of items 1..ITEMS."""
    seq = torch.zeros(MAXLEN, dtype=torch.long)
    seq[-len(items):] = torch.tensor(items)
    x = state["item_emb.weight"][seq] * math.sqrt(HIDDEN)
    positions = torch.arange(1, MAXLEN + 1) * (seq != 0)
    x = x + state["pos_emb.weight"][positions]
    heads, width = 2, HIDDEN // 2
    causal = torch.triu(torch.full((MAXLEN, MAXLEN), float("-inf")), diagonal=1)
    for i in range(2):
        q_in = functional.layer_norm(x, (HIDDEN,), state[f"attention_layernorms.{i}.weight"],
                                     state[f"attention_layernorms.{i}.bias"], eps=1e-8)
        w, b = state[f"attention_layers.{i}.in_proj_weight"], state[f"attention_layers.{i}.in_proj_bias"]
        q = q_in @ w[:HIDDEN].T + b[:HIDDEN]
        k = x @ w[HIDDEN:2 * HIDDEN].T + b[HIDDEN:2 * HIDDEN]
        v = x @ w[2 * HIDDEN:].T + b[2 * HIDDEN:]
        outs = []
        for h in range(heads):
            cols = slice(h * width, (h + 1) * width)
            att = torch.softmax(q[:, cols] @ k[:, cols].T / math.sqrt(width) + causal, dim=-1)
            outs.append(att @ v[:, cols])
        attended = torch.cat(outs, dim=-1) @ state[f"attention_layers.{i}.out_proj.weight"].T
        x = q_in + attended + state[f"attention_layers.{i}.out_proj.bias"]
        x = functional.layer_norm(x, (HIDDEN,), state[f"forward_layernorms.{i}.weight"],
                                  state[f"forward_layernorms.{i}.bias"], eps=1e-8)
        c1 = state[f"forward_layers.{i}.conv1.weight"][:, :, 0]
        c2 = state[f"forward_layers.{i}.conv2.weight"][:, :, 0]
        inner = torch.relu(x @ c1.T + state[f"forward_layers.{i}.conv1.bias"]) @ c2.T
        x = inner + state[f"forward_layers.{i}.conv2.bias"] + x
    final = functional.layer_norm(x, (HIDDEN,), state["last_layernorm.weight"], state["last_layernorm.bias"],
                                  eps=1e-8)[-1]
    return state["item_emb.weight"][1:] @ final


def write_release(directory, state, item_map):
    directory.mkdir(parents=True, exist_ok=True)
    torch.save(state, directory / "pwab.pth")
    (directory / "1000_ids.json").write_text(json.dumps(item_map))


def test_loader_reproduces_the_official_forward_pass_and_candidate_rule(tmp_path):
    state = official_layout_state()
    # the item map covers items 3..32 only: recommendations come from them, unknown ASINs are dropped
    item_map = {f"B{i:09d}": i for i in range(3, 33)}
    write_release(tmp_path, state, item_map)
    recommender = official.load(tmp_path)
    history = [f"B{i:09d}" for i in (5, 9, 12, 7)]
    got = recommender.recommend(["UNKNOWN", *history], k=10)
    scores = reference_scores(state, [5, 9, 12, 7])
    candidates = sorted(item_map.values())
    expected = sorted(candidates, key=lambda i: -float(scores[i - 1]))[:10]
    assert got == [f"B{i:09d}" for i in expected]
    assert recommender.recommend(["NOPE"]) == []
    long_history = [f"B{i:09d}" for i in list(range(3, 33)) + [4, 6]]  # 32 items: the last 30 are used
    assert recommender.recommend(long_history) == recommender.recommend(long_history[-30:])


def test_missing_files_and_wrong_layout_give_clear_errors(tmp_path):
    with pytest.raises(official.OfficialRecommenderMissing, match="data fetch personalwab"):
        official.load(tmp_path)
    state = official_layout_state()
    del state["attention_layers.1.in_proj_weight"]
    write_release(tmp_path, state, {"B1": 1})
    with pytest.raises(ValueError, match="official SASRec layout"):
        official.load(tmp_path)


def test_env_on_an_official_release_uses_the_official_recommender(tmp_path):
    from personal_envs.personalwab.env import PersonalWABEnv
    from tests.personalwab.test_data import _official_payloads, _write_release

    _write_release(tmp_path)
    products = list(_official_payloads()[3])
    item_map = {asin: i + 1 for i, asin in enumerate(products)}
    state = official_layout_state(seed=3)
    write_release(tmp_path / "recommender", state, item_map)
    env = PersonalWABEnv(data_dir=str(tmp_path), review_similarity=lambda a, b: 0.0)
    assert isinstance(env.backend.recommender(), official.OfficialRecommender)
    env.reset(seed=0, options={"task_index": 0})
    obs, *_ = env.step({"action_type": "get_recommendations_by_history", "product_sequence": products[:2]})
    scores = reference_scores(state, [1, 2])
    best = max(item_map.values(), key=lambda i: float(scores[i - 1]))
    assert obs["result"].startswith("['\\nProduct 0:\\n- title: ") and f"parent_asin: {products[best - 1]}" in \
        obs["result"].split("Product 1:")[0]
