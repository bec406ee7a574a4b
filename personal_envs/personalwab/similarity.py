"""Review similarity and memory relevance with MiniLM at the official truncation (512 tokens).

The official code (``envs/base.py`` ``compute_similarity`` and the agents' ``encode_texts``) runs
all-MiniLM-L6-v2 through ``transformers`` with ``truncation=True``: the tokenizer's limit, 512 tokens, then mean
pooling over the attention mask and L2 normalisation.  The shared
:func:`personal_envs.core.embedding.minilm` model is a SentenceTransformer whose ``max_seq_length`` is 256, so a
long review would be cut at half the official length; this module tokenizes at 512 itself and runs the same
model's modules (mean pooling, normalisation), leaving the shared model's setting untouched for other benchmarks
(:func:`personal_envs.core.embedding.encode_local` with ``max_tokens=512``).

:func:`review_similarity` remembers the cosine of every (posted, target) pair it computed (:data:`PAIR_CACHE_SIZE`
pairs per process), so a review posted again costs a dictionary look-up; the value is the one first computed.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

#: The official truncation (the MiniLM tokenizer's ``model_max_length``).
OFFICIAL_MAX_TOKENS = 512
#: (posted, target) pairs whose similarity is remembered per process.
PAIR_CACHE_SIZE = 20_000

_PAIRS: OrderedDict[tuple[str, str], float] = OrderedDict()
_PAIRS_LOCK = threading.Lock()


def embed_official(texts: Sequence[str], max_tokens: int = OFFICIAL_MAX_TOKENS, batch_size: int = 16) -> np.ndarray:
    """L2-normalised MiniLM embeddings of ``texts`` truncated at ``max_tokens`` tokens, one row per text (memoised;
    in vector-env workers computed by the machine's shared embedding service)."""
    from personal_envs.core.embedding import embed

    return embed(texts, batch_size=batch_size, max_tokens=max_tokens)


def review_similarity(a: str, b: str) -> float:
    """Cosine of the MiniLM embeddings of two texts at 512 tokens (PersonalWAB's review metric, as official);
    remembered per pair."""
    key = (a, b)
    with _PAIRS_LOCK:
        value = _PAIRS.get(key)
        if value is not None:
            _PAIRS.move_to_end(key)
            return value
    vectors = embed_official([a, b])
    value = float(np.dot(vectors[0], vectors[1]))
    with _PAIRS_LOCK:
        _PAIRS[key] = value
        while len(_PAIRS) > PAIR_CACHE_SIZE:
            _PAIRS.popitem(last=False)
    return value


def clear_pair_cache() -> None:
    """Forget the remembered pair similarities of this process."""
    with _PAIRS_LOCK:
        _PAIRS.clear()
