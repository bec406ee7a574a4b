"""BM25 product search (``search_product_by_query``) equivalent to the official Pyserini / Lucene index.

The official function queries a Lucene index through Pyserini's ``LuceneSearcher`` with Anserini's defaults: BM25
with k1 = 0.9 and b = 0.4, Lucene's BM25 idf ``log(1 + (N - df + 0.5) / (df + 0.5))``, and the default English
analyzer (standard tokenizer, possessive ``'s`` removed, lower case, Lucene's 33 English stop words, Porter
stemming), over the single indexed field ``contents``; it returns at most 10 hits, every document that shares an
analyzed term with the query, best first.  This module rebuilds that with bm25s (method ``lucene``) and PyStemmer's
Porter stemmer.  Known differences from a real Lucene: Lucene stores document lengths in a lossy one-byte norm
(so near-tied scores can swap), Unicode word segmentation (UAX #29) is approximated by a regular expression, and
score ties are broken by the catalogue order here, by index order in Lucene.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import bm25s
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


class ProductSearch:
    """A Lucene-style BM25 index over ``texts`` whose rows are identified by ``ids``.

    Args:
        ids: Document ids (parent_asin), one per text.
        texts: The ``contents`` of each product.
        k1: BM25 term-frequency saturation (Anserini default 0.9).
        b: BM25 length normalisation (Anserini default 0.4).
    """

    def __init__(self, ids: Sequence[str], texts: Sequence[str], k1: float = K1, b: float = B) -> None:
        if len(ids) != len(texts):
            raise ValueError("ids and texts must have the same length")
        self.ids: list[str] = list(ids)
        self._bm25 = bm25s.BM25(k1=k1, b=b, method="lucene")
        vocab: dict[str, int] = {"": 0}
        token_ids = []
        for text in texts:
            row = []
            for token in analyze(text):
                index = vocab.get(token)
                if index is None:
                    index = vocab[token] = len(vocab)
                row.append(index)
            token_ids.append(row)
        self._vocab = vocab
        self._bm25.index(bm25s.tokenization.Tokenized(ids=token_ids, vocab=vocab), show_progress=False)

    def __len__(self) -> int:
        return len(self.ids)

    def search(self, query: str, k: int = 10) -> list[str]:
        """Ids of the top ``k`` products for ``query`` (fewer if fewer documents share a term with it).

        A term repeated in the query counts once per occurrence, as Pyserini's bag-of-words query weights it.
        """
        token_ids = [self._vocab[token] for token in analyze(query) if token in self._vocab]
        if not token_ids:
            return []
        scores = np.asarray(self._bm25.get_scores_from_ids(token_ids), dtype=np.float64)
        positive = int(np.count_nonzero(scores > 0))
        k = min(k, positive)
        if k == 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k]
        order = top[np.lexsort((top, -scores[top]))]
        return [self.ids[int(i)] for i in order]
