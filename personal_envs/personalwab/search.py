"""BM25 product search (``search_product_by_query``) computed as the official Lucene index computes it.

The official function calls Pyserini's ``LuceneSearcher.search(query)`` (Anserini 0.22 ``SimpleSearcher`` on Lucene
9.5.0): the query is analyzed like the documents (:mod:`personal_envs.personalwab.analysis`), each distinct term
becomes a ``TermQuery`` boosted by its count in the query, and Lucene's ``BM25Similarity(k1=0.9, b=0.4)`` scores
the field ``contents``.  The hits are sorted by score, ties broken by the document id (the parent ASIN, in byte
order), and at most 10 are returned: every document that shares a term with the query can be a hit.

This module reproduces the arithmetic operation by operation in float32, as Lucene does, so that scores and
therefore rankings (near-ties included) are the same:

* ``idf = (float) ln(1 + (N - df + 0.5) / (df + 0.5))`` (in double, then float);
* ``avgdl = (float) (sum of document lengths / N)``;
* each document length is stored in Lucene's one-byte norm and decoded (:func:`lucene_length`); per length
  ``inverse = 1 / (k1 * ((1 - b) + b * length / avgdl))``;
* per term and document ``weight - weight / (1 + freq * inverse)`` with ``weight = boost * idf``;
* a document's score is the sum of its terms' scores in double, then rounded to float.

Document lengths count the terms after analysis (stop words are not counted).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np

from personal_envs.personalwab.analysis import analyze

#: Anserini's BM25 defaults, used by Pyserini's ``LuceneSearcher``.
K1 = 0.9
B = 0.4
#: Lucene's default ``IndexSearcher.maxClauseCount``: a query with more distinct terms fails.
MAX_CLAUSES = 1024


class TooManyClauses(ValueError):
    """The query has more distinct terms than Lucene accepts (the official search raises an error)."""


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
    """A BM25 index over ``texts`` whose documents are identified by ``ids``, scored as Lucene 9.5 scores.

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
        freqs = sparse.csc_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)),
                                  shape=(len(texts), max(len(vocab), 1)), dtype=np.float32)
        freqs.sum_duplicates()
        self._freqs = freqs  # [docs, terms] term frequencies, one column of postings per term
        self._doc_freq = np.diff(freqs.indptr).astype(np.int64)
        self._num_docs = int(np.count_nonzero(lengths))
        avgdl = np.float32(float(lengths.sum()) / self._num_docs) if self._num_docs else np.float32(1.0)
        decoded = np.array([lucene_length(int(n)) for n in lengths], dtype=np.float32)
        k1f, bf = np.float32(k1), np.float32(b)
        self._inverse = np.float32(1.0) / (k1f * ((np.float32(1.0) - bf) + bf * decoded / avgdl))
        # Ties are broken by the id in byte order: the rank of each document's id among all ids.
        order = sorted(range(len(self.ids)), key=lambda i: self.ids[i].encode("utf-8"))
        self._id_rank = np.empty(len(self.ids), dtype=np.int64)
        self._id_rank[order] = np.arange(len(self.ids))

    def __len__(self) -> int:
        return len(self.ids)

    def _idf(self, doc_freq: int) -> np.float32:
        n = self._num_docs
        return np.float32(math.log(1.0 + (n - doc_freq + 0.5) / (doc_freq + 0.5)))

    def scores(self, query: str) -> dict[str, float]:
        """The BM25 score of every document that shares a term with ``query`` (float32 values, as Lucene's).

        Raises:
            TooManyClauses: more than 1,024 distinct query terms (Lucene's limit).
        """
        docs, values = self._score(query)
        return {self.ids[int(d)]: float(v) for d, v in zip(docs, values, strict=True)}

    def _score(self, query: str) -> tuple[np.ndarray, np.ndarray]:
        counts = Counter(analyze(query))
        if len(counts) > MAX_CLAUSES:
            raise TooManyClauses(f"maxClauseCount is set to {MAX_CLAUSES}: the query has {len(counts)} terms")
        total = np.zeros(len(self.ids), dtype=np.float64)
        hit = np.zeros(len(self.ids), dtype=bool)
        freqs = self._freqs
        for term, count in counts.items():
            column = self._vocab.get(term)
            if column is None:
                continue
            start, end = freqs.indptr[column], freqs.indptr[column + 1]
            docs = freqs.indices[start:end]
            weight = np.float32(count) * self._idf(int(self._doc_freq[column]))
            tf = freqs.data[start:end]
            contribution = weight - weight / (np.float32(1.0) + tf * self._inverse[docs])
            total[docs] += contribution.astype(np.float64)
            hit[docs] = True
        docs = np.flatnonzero(hit)
        return docs, total[docs].astype(np.float32)

    def search(self, query: str, k: int = 10) -> list[str]:
        """Ids of the top ``k`` products for ``query`` (fewer if fewer documents share a term with it), best first,
        equal scores in id order.

        Raises:
            TooManyClauses: more than 1,024 distinct query terms (Lucene's limit).
        """
        docs, values = self._score(query)
        if len(docs) == 0 or k <= 0:
            return []
        if len(docs) > k:  # keep the documents scoring at least the k-th best score (ties included), then sort
            kth = values[np.argpartition(-values, k - 1)[k - 1]]
            keep = values >= kth
            docs, values = docs[keep], values[keep]
        order = np.lexsort((self._id_rank[docs], -values))[:k]
        return [self.ids[int(docs[i])] for i in order]
