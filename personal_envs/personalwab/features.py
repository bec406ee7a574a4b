"""RL observation features for PersonalWAB, computed from what the agent sees (never the answer key).

Frozen MiniLM embeddings (384 each, through :func:`personal_envs.core.embedding.embed`, memoised and shared by
vector-env workers) of

* the request: the instruction's task sentence (without ``USER {id}:`` and the product card);
* the history: the titles of the user's 10 newest history records, newest first, joined in one text;
* the user's last reply (multi-turn; zeros when there is none);

then four flags: a reply is present, the last result is a product list, the last result is a posted review, the
last action failed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from personal_envs.personalwab.memory import parse_logs, task_sentence

HISTORY_TITLES = 10
EMBEDDING_DIM = 384


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
        self._history_memo: dict[str, str] = {}

    def __call__(self, observation: dict[str, Any]) -> np.ndarray:
        request = task_sentence(str(observation.get("instruction", "")))
        logs = str(observation.get("logs", ""))
        history = self._history_memo.get(logs)
        if history is None:
            history = history_brief(logs)
            if len(self._history_memo) > 2048:
                self._history_memo.clear()
            self._history_memo[logs] = history
        reply = str(observation.get("user_reply", ""))
        texts = [request, history or "(no history)"] + ([reply] if reply else [])
        rows = self._embedder()(texts)
        vector = np.zeros(self.dim, dtype=np.float32)
        vector[:EMBEDDING_DIM] = rows[0]
        vector[EMBEDDING_DIM:2 * EMBEDDING_DIM] = rows[1] if history else 0.0
        if reply:
            vector[2 * EMBEDDING_DIM:3 * EMBEDDING_DIM] = rows[2]
        result = str(observation.get("result", ""))
        vector[3 * EMBEDDING_DIM:] = [
            float(bool(reply)), float(result.startswith("[") and len(result) > 2), float(result.startswith("{'review")),
            float(bool(observation.get("last_action_error"))),
        ]
        return vector

    def _embedder(self) -> Callable[[list[str]], np.ndarray]:
        if self._embed is None:
            from personal_envs.core.embedding import embed

            self._embed = embed
        return self._embed


def warm_embeddings(env: Any) -> int:
    """Embed the request and the history brief of every task of ``env`` (a PersonalWAB env, wrapped or not) in one
    batched call, so that later steps read them from the memo (or the shared service's cache); returns the number
    of distinct texts."""
    from personal_envs.core.embedding import embed

    base = env.unwrapped
    texts: list[str] = []
    for index in range(base.num_tasks):
        observation, _ = base.reset(seed=0, options={"task_index": index})
        texts += [task_sentence(str(observation["instruction"])),
                  history_brief(str(observation["logs"])) or "(no history)"]
    distinct = list(dict.fromkeys(texts))
    embed(distinct)
    return len(distinct)


def make_features(env: Any = None) -> PersonalWABFeatures:
    """Factory for ``make_rl_env(..., features="personal_envs.personalwab.features:make_features")``."""
    return PersonalWABFeatures()
