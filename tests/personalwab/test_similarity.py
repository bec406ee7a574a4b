"""Review similarity at the official truncation: re-derived with plain transformers as the official code runs it."""

from __future__ import annotations

import pytest

from personal_envs.core.embedding import minilm_path, text_similarity
from personal_envs.personalwab.similarity import OFFICIAL_MAX_TOKENS, embed_official, review_similarity

LONG = " ".join(f"The lid number {i} closes tightly and the handle stays cool." for i in range(60))  # ~800 tokens
SHORT = "The lid closes tightly and the handle stays cool while the water boils."


def official_similarity(a: str, b: str) -> float:
    """The official ``compute_similarity``: tokenizer truncation, mean pooling over the mask, L2 norm, cosine."""
    import torch
    from torch.nn import functional
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(minilm_path())
    model = AutoModel.from_pretrained(minilm_path()).eval()
    encoded = tokenizer([a, b], padding=True, truncation=True, return_tensors="pt")
    assert encoded["input_ids"].shape[1] == OFFICIAL_MAX_TOKENS  # the long text is cut at 512, officially
    with torch.no_grad():
        states = model(**encoded)[0]
    mask = encoded["attention_mask"].unsqueeze(-1).float()
    pooled = functional.normalize((states * mask).sum(1) / mask.sum(1).clamp(min=1e-9), p=2, dim=1)
    return float(functional.cosine_similarity(pooled[0], pooled[1], dim=0))


def test_long_review_similarity_matches_the_official_computation_not_the_256_token_one():
    ours = review_similarity(LONG, SHORT)
    assert ours == pytest.approx(official_similarity(LONG, SHORT), abs=1e-5)
    assert abs(ours - text_similarity(LONG, SHORT)) > 1e-3  # the shared 256-token model differs on this text


def test_short_texts_agree_with_the_shared_model_and_rows_are_unit_length():
    assert review_similarity(SHORT, "A kettle with a cool handle.") == pytest.approx(
        text_similarity(SHORT, "A kettle with a cool handle."), abs=1e-5)
    vectors = embed_official([SHORT, LONG, ""])
    assert vectors.shape == (3, 384)
    assert [round(float((v * v).sum()), 4) for v in vectors[:2]] == [1.0, 1.0]
    assert embed_official([]).shape == (0, 384)
