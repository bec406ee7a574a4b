"""RL action candidates for PersonalWAB: each function with arguments built by fixed rules from the instruction and
from the user's visible history (memory), canned replies and ``stop``, every one in a fixed slot.

Search (the instruction's content words, plus the words of the user's replies in multi-turn):
    ``search/instruction``  those words alone (the heuristic's query);
    ``search/top_store``    plus the store the user bought from most often (brand preference read from memory);
    ``search/relevant``     plus the title words of the history record most similar to the request.
Recommendation (``get_recommendations_by_history``):
    ``recommend/last30``    the 30 newest ASINs (the heuristic's sequence);
    ``recommend/last5``     the 5 newest;
    ``recommend/relevant``  the 10 records most similar to the request, oldest first (PUMA's order).
Review (``add_product_review``, the product title from the instruction's card):
    ``review/last``         "I bought the <title>." plus the newest review (the heuristic's review);
    ``review/relevant``     the same opening plus the review of the record most similar to the product;
    ``review/relevant_only`` that review alone.
Then ``respond/0..2`` (canned replies) and ``stop``.

Relevance compares the request (or the product title) with a short text per record (title, category, store): by
default the shared words weighted by their rarity in the user's history (cheap and deterministic); with ``embed=``
(e.g. :func:`personal_envs.core.embedding.embed`) the MiniLM cosine.  Nothing here reads the task's target.

The candidates depend only on the instruction, the history and the user's reply, so they are memoised on those
three texts: an episode's steps and later visits of the task reuse them (the env hands back the same string
objects, whose hashes Python keeps).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from personal_envs.core.text import query_from_text
from personal_envs.personalwab import functions as fn
from personal_envs.personalwab.memory import parse_logs, task_sentence
from personal_envs.wrappers.candidates import Candidate

#: Replies the PersonalWAB provider offers for ``respond``.
PERSONALWAB_REPLIES: tuple[str, ...] = (
    "Could you tell me more about what you are looking for?",
    "Do you have a preferred brand or price range?",
    "Here are the products I found for you.",
)
SEARCH_VARIANTS = ("instruction", "top_store", "relevant")
RECOMMEND_VARIANTS = ("last30", "last5", "relevant")
REVIEW_VARIANTS = ("last", "relevant", "relevant_only")
_TITLE = re.compile(r"Here is the product information:.*?(?:- )?title: ([^\n]+)", re.S)
_CARD_FIRST_LINE = re.compile(r"Here is the product information:\n(.+)")
#: Observations whose candidates are memoised (the memo is emptied when it is full).
MEMO_SIZE = 4096


def record_brief(record: dict[str, Any]) -> str:
    """The short text of a history record that relevance compares: title, category and store."""
    return ". ".join(str(record.get(key) or "") for key in ("title", "category", "store") if record.get(key))


def product_title(instruction: str) -> str:
    """The product title of a review instruction's card (``"this product"`` when there is none)."""
    match = _TITLE.search(instruction) or _CARD_FIRST_LINE.search(instruction)
    return match.group(1).strip() if match else "this product"


class PersonalWABCandidates:
    """PersonalWAB functions with arguments built by fixed rules from the instruction and the history (see the
    module docstring); every candidate has a fixed slot.

    Args:
        replies: Canned ``respond`` messages.
        max_sequence: Longest recommendation input.
        embed: Text embedder returning L2-normalised rows for relevance (default: word overlap, no model).
    """

    families: tuple[str, ...] = (fn.SEARCH, fn.RECOMMEND, fn.REVIEW, fn.RESPOND, fn.STOP)

    def __init__(self, replies: Sequence[str] = PERSONALWAB_REPLIES, max_sequence: int = fn.MAX_SEQUENCE,
                 embed: Callable[[list[str]], np.ndarray] | None = None) -> None:
        self.replies = tuple(replies)
        self.max_sequence = max_sequence
        self._embed = embed
        self.fixed_slots: tuple[str, ...] = (
            *(f"{fn.SEARCH}/{v}" for v in SEARCH_VARIANTS), *(f"{fn.RECOMMEND}/{v}" for v in RECOMMEND_VARIANTS),
            *(f"{fn.REVIEW}/{v}" for v in REVIEW_VARIANTS), *(f"{fn.RESPOND}/{i}" for i in range(len(self.replies))),
            fn.STOP,
        )
        self._memo: dict[tuple[str, str, str], tuple[Candidate, ...]] = {}

    def __call__(self, observation: dict[str, Any]) -> list[Candidate]:
        key = (str(observation.get("instruction", "")), str(observation.get("logs", "")),
               str(observation.get("user_reply", "")))
        candidates = self._memo.get(key)
        if candidates is None:
            candidates = tuple(self.build(*key))
            if len(self._memo) >= MEMO_SIZE:
                self._memo.clear()
            self._memo[key] = candidates
        return list(candidates)

    def build(self, instruction: str, logs: str, reply: str = "") -> list[Candidate]:
        """The candidates of an observation with this instruction, history (``logs``) and user reply (no memo)."""
        history = parse_logs(logs)
        request = task_sentence(instruction)
        words = query_from_text(request).split()
        if reply:
            words += query_from_text(reply).split()[:20]
        query = " ".join(words) or "popular products"
        relevant = self._by_relevance(request, history)
        candidates = self._searches(query, history, relevant)
        candidates += self._recommendations(history, relevant)
        candidates += self._reviews(instruction, history)
        for i, text in enumerate(self.replies):
            candidates.append(Candidate(fn.RESPOND, f"say '{text}'", {"action_type": fn.RESPOND, "content": text},
                                        slot=f"{fn.RESPOND}/{i}"))
        candidates.append(Candidate(fn.STOP, "stop", {"action_type": fn.STOP}, slot=fn.STOP))
        return candidates

    # ------------------------------------------------------------------------------------------ functions
    def _searches(self, query: str, history: list[dict[str, Any]], relevant: list[int]) -> list[Candidate]:
        queries = {"instruction": query}
        stores = Counter(str(r.get("store")) for r in history if r.get("store"))
        if stores:
            queries["top_store"] = f"{query} {stores.most_common(1)[0][0]}"
        if relevant:
            title_words = query_from_text(str(history[relevant[0]].get("title") or "")).split()[:6]
            queries["relevant"] = f"{query} {' '.join(title_words)}".strip()
        return [Candidate(fn.SEARCH, f"search ({name}) '{text[:60]}'", {"action_type": fn.SEARCH, "query": text},
                          slot=f"{fn.SEARCH}/{name}") for name, text in queries.items()]

    def _recommendations(self, history: list[dict[str, Any]], relevant: list[int]) -> list[Candidate]:
        asins = [str(r["parent_asin"]) for r in history if r.get("parent_asin")]
        if not asins:
            return []
        top = sorted(relevant[:10])  # history is oldest first, so index order is time order
        sequences = {
            "last30": asins[-self.max_sequence:],
            "last5": asins[-5:],
            "relevant": [str(history[i]["parent_asin"]) for i in top if history[i].get("parent_asin")],
        }
        return [Candidate(fn.RECOMMEND, f"recommend ({name}, {len(seq)} items)",
                          {"action_type": fn.RECOMMEND, "product_sequence": seq}, slot=f"{fn.RECOMMEND}/{name}")
                for name, seq in sequences.items() if seq]

    def _reviews(self, instruction: str, history: list[dict[str, Any]]) -> list[Candidate]:
        title = product_title(instruction)
        reviewed = [i for i, r in enumerate(history) if r.get("review")]
        last = str(history[reviewed[-1]]["review"]) if reviewed else "It works well and I like it."
        reviews = {"last": f"I bought the {title}. {last}".strip()}
        if reviewed:
            best = self._by_relevance(title, [history[i] for i in reviewed])[0]
            similar = str(history[reviewed[best]]["review"])
            reviews["relevant"] = f"I bought the {title}. {similar}".strip()
            reviews["relevant_only"] = similar
        return [Candidate(fn.REVIEW, f"review ({name})", {"action_type": fn.REVIEW, "review": text},
                          slot=f"{fn.REVIEW}/{name}") for name, text in reviews.items()]

    # ------------------------------------------------------------------------------------------ memory
    def _by_relevance(self, request: str, records: list[dict[str, Any]]) -> list[int]:
        """Indices of ``records``, most similar to ``request`` first (ties: the newer record)."""
        if not records:
            return []
        briefs = [record_brief(r) for r in records]
        if self._embed is not None:
            vectors = self._embed([request, *briefs])
            scores = [float(x) for x in vectors[1:] @ vectors[0]]
        else:
            scores = lexical_scores(request, briefs)
        return sorted(range(len(records)), key=lambda i: (-round(scores[i], 6), -i))


def _stems(text: str) -> list[str]:
    return [w[:-1] if len(w) > 3 and w.endswith("s") else w for w in query_from_text(text.lower()).split()]


def lexical_scores(request: str, texts: Sequence[str]) -> list[float]:
    """Word-overlap relevance of each text to ``request``: the sum of the shared stems' inverse document frequency
    over ``texts`` (cheap, deterministic; the default relevance of the candidates)."""
    stemmed = [set(_stems(text)) for text in texts]
    counts = Counter(stem for stems in stemmed for stem in stems)
    wanted = set(_stems(request))
    total = len(texts)
    return [sum(math.log(1 + total / counts[stem]) for stem in stems & wanted) for stems in stemmed]


def make_candidates(env: Any) -> PersonalWABCandidates:
    """Factory named in the registration entries."""
    return PersonalWABCandidates()
