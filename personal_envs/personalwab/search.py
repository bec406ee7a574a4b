"""BM25 product search (``search_product_by_query``) equivalent to the official Pyserini / Lucene index.

The official function queries a Lucene index through Pyserini's ``LuceneSearcher`` with Anserini's defaults: BM25
with k1 = 0.9 and b = 0.4, Lucene's BM25 idf ``log(1 + (N - df + 0.5) / (df + 0.5))``, and the default English
analyzer (standard tokenizer, possessive ``'s`` removed, lower case, Lucene's 33 English stop words, Porter
stemming), over the single indexed field ``contents``; it returns at most 10 hits, every document that shares an
analyzed term with the query, best first.  This module rebuilds that with a sparse score matrix (float32, document
lengths through Lucene's lossy one-byte norm) and PyStemmer's Porter stemmer.  Known differences from a real
Lucene: Unicode word segmentation (UAX #29) is approximated by a regular expression, and float rounding may order
near-ties differently (ties keep the catalogue order here, index order in Lucene).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from personal_envs.personalwab.stopwords import STOPWORDS

#: Anserini's BM25 defaults, used by Pyserini's ``LuceneSearcher``.
K1 = 0.9
B = 0.4

# Word runs (letters, digits, underscore), joined across ``.`` ``'`` ``:`` inside a word and ``,`` inside a number,
# as the standard tokenizer keeps "25.99", "e.g", "don't" and "1,000" whole.
_TOKEN = re.compile(r"\w+(?:(?:[.'’:]|(?<=\d),(?=\d))\w+)*")
_POSSESSIVE = re.compile(r"['’]s$")


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("porter")


def analyze(text: str) -> list[str]:
    """Terms of ``text`` as Lucene's English analyzer makes them (stop words dropped, Porter stems)."""
    words = [_POSSESSIVE.sub("", token) for token in _TOKEN.findall(text.lower())]
    kept = [word for word in words if word and word not in STOPWORDS]
    return list(_stemmer().stemWords(kept))


def _long_to_int4(value: int) -> int:
    """Lucene ``SmallFloat.longToInt4``: a 4-bit-mantissa float code of a non-negative integer."""
    bits = value.bit_length()
    if bits < 4:
        return value
    shift = bits - 4
    return ((value >> shift) & 0x07) | ((shift + 1) << 3)


def _int4_to_long(code: int) -> int:
    bits, shift = code & 0x07, (code >> 3) - 1
    return bits if shift == -1 else (bits | 0x08) << shift


_FREE_VALUES = 255 - _long_to_int4(2**31 - 1)  # 24 small lengths are stored exactly


def lucene_length(length: int) -> int:
    """A document length as Lucene stores it in its one-byte norm and decodes it for BM25 (lossy above 24)."""
    if length < _FREE_VALUES:
        return length
    return _FREE_VALUES + _int4_to_long(_long_to_int4(length - _FREE_VALUES))


class ProductSearch:
    """A Lucene-style BM25 index over ``texts`` whose rows are identified by ``ids``.

    Scores are Lucene 9's ``BM25Similarity`` in float32: ``idf * tf / (tf + k1 * (1 - b + b * dl / avgdl))`` with the
    document length ``dl`` decoded from Lucene's one-byte norm (:func:`lucene_length`) and ``avgdl`` exact.

    Args:
        ids: Document ids (parent_asin), one per text.
        texts: The ``contents`` of each product.
        k1: BM25 term-frequency saturation (Anserini default 0.9).
        b: BM25 length normalisation (Anserini default 0.4).
    """

    def __init__(self, ids: Sequence[str], texts: Sequence[str], k1: float = K1, b: float = B) -> None:
        from scipy import sparse

        if len(ids) != len(texts):
            raise ValueError("ids and texts must have the same length")
        self.ids: list[str] = list(ids)
        vocab: dict[str, int] = {}
        rows: list[int] = []
        cols: list[int] = []
        lengths = np.zeros(len(texts), dtype=np.int64)
        for doc, text in enumerate(texts):
            terms = analyze(text)
            lengths[doc] = len(terms)
            for term in terms:
                rows.append(doc)
                cols.append(vocab.setdefault(term, len(vocab)))
        self._vocab = vocab
        counts = sparse.csc_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)),
                                   shape=(len(texts), max(len(vocab), 1)), dtype=np.float32)
        counts.sum_duplicates()
        n = float(len(texts))
        doc_freq = np.diff(counts.indptr).astype(np.float64)
        idf = np.log1p((n - doc_freq + 0.5) / (doc_freq + 0.5)).astype(np.float32)
        avgdl = float(lengths.sum()) / n if n else 1.0
        decoded = np.array([lucene_length(int(x)) for x in lengths], dtype=np.float32)
        norm = np.float32(k1) * (np.float32(1 - b) + np.float32(b) * decoded / np.float32(avgdl or 1.0))
        tf = counts.data
        doc_of = counts.indices
        term_of = np.repeat(np.arange(counts.shape[1]), np.diff(counts.indptr))
        counts.data = (idf[term_of] * tf / (tf + norm[doc_of])).astype(np.float32)
        self._scores = counts  # [docs, terms] BM25 contribution of each (doc, term) pair

    def __len__(self) -> int:
        return len(self.ids)

    def search(self, query: str, k: int = 10) -> list[str]:
        """Ids of the top ``k`` products for ``query`` (fewer if fewer documents share a term with it).

        A term repeated in the query counts once per occurrence, as Pyserini's bag-of-words query weights it;
        equal scores keep the catalogue order, as Lucene keeps index order.
        """
        token_ids = [self._vocab[token] for token in analyze(query) if token in self._vocab]
        if not token_ids:
            return []
        weights = np.bincount(token_ids, minlength=self._scores.shape[1]).astype(np.float32)
        scores = np.asarray(self._scores @ weights, dtype=np.float32).ravel()
        positive = int(np.count_nonzero(scores > 0))
        k = min(k, positive)
        if k == 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k]
        order = top[np.lexsort((top, -scores[top]))]
        return [self.ids[int(i)] for i in order]
