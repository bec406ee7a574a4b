"""RL observation features for PersonalWAB, computed from what the agent sees (never the answer key).

Frozen MiniLM embeddings (384 each, through :func:`personal_envs.core.embedding.embed`, memoised and shared by
vector-env workers) of

* the request: the instruction's task sentence (without ``USER {id}:`` and the product card);
* the history: the titles of the user's 10 newest history records, newest first, joined in one text;
* the user's last reply (multi-turn; zeros when there is none);

then four flags: a reply is present, the last result is a product list, the last result is a posted review, the
last action failed.

The embedded part depends only on the instruction, the history and the reply, so it is memoised on those three
texts (:data:`MEMO_SIZE` observations); the flags are computed every call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from personal_envs.personalwab.memory import parse_logs, task_sentence

HISTORY_TITLES = 10
EMBEDDING_DIM = 384
#: Observations whose embedded part is memoised (the memo is emptied when it is full).
MEMO_SIZE = 4096


def history_brief(logs: str, count: int = HISTORY_TITLES) -> str:
    """The titles of the ``count`` newest history records, newest first, one per line."""
    records = parse_logs(logs)[-count:]
    return "\n".join(str(r.get("title") or "") for r in reversed(records) if r.get("title"))


class PersonalWABFeatures:
    """Observation -> vector of :attr:`dim` floats (see the module docstring).

    Args:
        embed: Text embedder returning L2-normalised rows (default: the shared MiniLM).
    """

    dim = 3 * EMBEDDING_DIM + 4

    def __init__(self, embed: Callable[[list[str]], np.ndarray] | None = None) -> None:
        self._embed = embed
        self._memo: dict[tuple[str, str, str], np.ndarray] = {}

    def __call__(self, observation: dict[str, Any]) -> np.ndarray:
        key = (str(observation.get("instruction", "")), str(observation.get("logs", "")),
               str(observation.get("user_reply", "")))
        embedded = self._memo.get(key)
        if embedded is None:
            embedded = self._embedded(*key)
            if len(self._memo) >= MEMO_SIZE:
                self._memo.clear()
            self._memo[key] = embedded
        vector = np.zeros(self.dim, dtype=np.float32)
        vector[:3 * EMBEDDING_DIM] = embedded
        result = str(observation.get("result", ""))
        vector[3 * EMBEDDING_DIM:] = [
            float(bool(key[2])), float(result.startswith("[") and len(result) > 2), float(result.startswith("{'review")),
            float(bool(observation.get("last_action_error"))),
        ]
        return vector

    def _embedded(self, instruction: str, logs: str, reply: str) -> np.ndarray:
        """The request, history and reply embeddings, one after the other (zeros for a missing history or reply)."""
        history = history_brief(logs)
        texts = [task_sentence(instruction), history or "(no history)"] + ([reply] if reply else [])
        rows = self._embedder()(texts)
        embedded = np.zeros(3 * EMBEDDING_DIM, dtype=np.float32)
        embedded[:EMBEDDING_DIM] = rows[0]
        embedded[EMBEDDING_DIM:2 * EMBEDDING_DIM] = rows[1] if history else 0.0
        if reply:
            embedded[2 * EMBEDDING_DIM:] = rows[2]
        embedded.flags.writeable = False
        return embedded

    def _embedder(self) -> Callable[[list[str]], np.ndarray]:
        if self._embed is None:
            from personal_envs.core.embedding import embed

            self._embed = embed
        return self._embed


def warm_embeddings(env: Any) -> int:
    """Embed the request and the history brief of every task of ``env`` (a PersonalWAB env, wrapped or not) in one
    batched call, so that later steps read them from the memo (or the shared service's cache), then score every
    review candidate of every review task (:func:`warm_review_scores`); returns the number of distinct texts."""
    from personal_envs.core.embedding import embed

    base = env.unwrapped
    texts: list[str] = []
    for index in range(base.num_tasks):
        observation, _ = base.reset(seed=0, options={"task_index": index})
        texts += [task_sentence(str(observation["instruction"])),
                  history_brief(str(observation["logs"])) or "(no history)"]
    texts += user_replies(env)
    distinct = list(dict.fromkeys(texts))
    embed(distinct)
    warm_review_scores(env)
    return len(distinct)


def candidate_provider(env: Any) -> Any:
    """The candidate provider of ``env``'s :class:`~personal_envs.wrappers.discrete.DiscreteActions` wrapper, else
    a :class:`~personal_envs.personalwab.candidates.PersonalWABCandidates`."""
    from personal_envs.personalwab.candidates import PersonalWABCandidates

    try:
        return env.get_wrapper_attr("provider")
    except AttributeError:
        return PersonalWABCandidates()


def user_replies(env: Any) -> list[str]:
    """The simulated user's replies (multi-turn) when, on each task, one canned ``respond`` candidate is sent until
    the episode ends, for each such candidate: the replies the features embed most often (empty in single-turn).
    The deterministic user's replies depend on the message and on the clues it already gave, so these runs meet
    most of them; a reply not met here is embedded when it first comes."""
    from personal_envs.personalwab.functions import RESPOND

    base = env.unwrapped
    if base.mode != "multi":
        return []
    provider = candidate_provider(env)
    replies: list[str] = []
    for index in range(base.num_tasks):
        observation, _ = base.reset(seed=0, options={"task_index": index})
        for candidate in [c for c in provider(observation) if c.family == RESPOND]:
            base.reset(seed=0, options={"task_index": index})
            done = False
            while not done:
                observation, _, terminated, truncated, _ = base.step(dict(candidate.action))
                done = terminated or truncated
                if observation["user_reply"]:
                    replies.append(str(observation["user_reply"]))
    return replies


def warm_review_scores(env: Any) -> int:
    """Score, through the env's own review scorer, every review candidate the env's candidate provider (its
    :class:`~personal_envs.wrappers.discrete.DiscreteActions` provider, else :class:`PersonalWABCandidates`) offers
    on every review task, so that posting one later is a look-up (the similarity's pair cache, the embeddings' memo
    or the shared service's cache) instead of a MiniLM forward pass; returns the number of pairs scored.

    The target review is read here, on the trainer's side, only to fill the scorer's caches, exactly as the step
    that scores the call would; nothing reaches the agent."""
    from personal_envs.personalwab.functions import REVIEW
    from personal_envs.personalwab.scoring import score_review_call

    base = env.unwrapped
    provider = candidate_provider(env)
    pairs: dict[tuple[str, str], str] = {}
    for index, task in enumerate(base.tasks):
        if task.task_type != "review":
            continue
        observation, _ = base.reset(seed=0, options={"task_index": index})
        for candidate in provider(observation):
            if candidate.family == REVIEW:
                pairs.setdefault((str(candidate.action.get("review", "")), task.target_review), task.task_type)
    for (review, target), task_type in pairs.items():
        score_review_call(task_type, review, target, base.world.review_similarity)
    return len(pairs)


def make_features(env: Any = None) -> PersonalWABFeatures:
    """Factory for ``make_rl_env(..., features="personal_envs.personalwab.features:make_features")``."""
    return PersonalWABFeatures()
