"""PersonalWAB as Gymnasium envs: ``PersonalWAB-SingleTurn-v0`` and ``PersonalWAB-MultiTurn-v0``.

Single-turn: the first task-function call (search, recommend, review) ends the episode and is scored; ``respond``
ends it unscored (there is no user to answer), as in the paper's code.  Multi-turn: a simulated user answers
``respond``; every task-function call is scored, the episode ends on ``stop`` or after 10 steps, and the episode
keeps the best correct call.

Observation (all text):
    ``instruction``  ``USER {user_id}: {task}``; review tasks add the target product's details.
    ``result``       output of the last function call.
    ``user_reply``   the simulated user's last reply (multi-turn).
    ``logs``         the user's purchase and review history before the task's timestamp, one JSON object per line
                     (``memory="none"`` leaves it empty; memory baselines select from it).
    ``last_action_error``
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gymnasium import spaces

from personal_envs.core.actions import Action, ActionError
from personal_envs.core.download import data_home
from personal_envs.core.env import EpisodeOutcome, PersonalEnv, StepResult
from personal_envs.core.spaces import UnicodeText
from personal_envs.personalwab import functions as fn
from personal_envs.personalwab.data import PersonalWABData, load
from personal_envs.personalwab.scoring import CallScore, episode_metrics, score_ranked_call, score_review_call
from personal_envs.personalwab.search import ProductSearch
from personal_envs.personalwab.users import LLMShopper, ProfileShopper
from personal_envs.simulators.users.base import SimulatedUser, UserContext

MODES = ("single", "multi")
MEMORY_MODES = ("all", "none")
MAX_STEPS = 10


@dataclass
class Backend:
    """Data, search index and (lazily) the recommender, shared by every env of a process built on the same data."""

    data: PersonalWABData
    search: ProductSearch
    cache_dir: Path
    _recommender: Any = None
    details_cache: dict[str, str] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def recommender(self) -> Any:
        """The SASRec recommender, trained on the users' histories (targets of tasks left out) and cached on disk."""
        with self._lock:
            if self._recommender is None:
                from personal_envs.personalwab.recommender import SequentialRecommender

                targets = {
                    (task["user_id"], task["target"]["product_info"]["parent_asin"])
                    for tasks in self.data.instructions.values()
                    for task in tasks
                }
                sequences = []
                for uid, entries in self.data.histories.items():
                    sequence = [
                        e["product_info"]["parent_asin"]
                        for e in entries
                        if (uid, e["product_info"]["parent_asin"]) not in targets
                    ]
                    if len(sequence) >= 2:
                        sequences.append(sequence)
                self._recommender = SequentialRecommender.cached(
                    sorted(self.data.products), sequences, self.cache_dir / "recommender",
                    epochs=training_epochs(len(sequences)),
                )
            return self._recommender


def training_epochs(num_sequences: int, batch_size: int = 128, min_steps: int = 400) -> int:
    """Epochs giving at least ``min_steps`` gradient steps (small generated datasets need many epochs), 30 to 400."""
    steps_per_epoch = max(1, -(-num_sequences // batch_size))
    return max(30, min(400, -(-min_steps // steps_per_epoch)))


_BACKENDS: dict[str, Backend] = {}
_BACKENDS_LOCK = threading.Lock()


def shared_backend(data_dir: str | None, data: PersonalWABData | None, generate_kwargs: dict[str, Any]) -> Backend:
    """The process-wide :class:`Backend` for this data source (built once)."""
    key = f"data:{id(data)}" if data is not None else json.dumps([data_dir, sorted(generate_kwargs.items())])
    with _BACKENDS_LOCK:
        backend = _BACKENDS.get(key)
        if backend is None:
            dataset = data if data is not None else load(data_dir, **generate_kwargs)
            ids = sorted(dataset.products)
            search = ProductSearch(ids, [dataset.text_of(asin) for asin in ids])
            cache = data_home() / "personalwab" / "cache"
            backend = _BACKENDS[key] = Backend(dataset, search, cache)
        return backend


class PersonalWABEnv(PersonalEnv):
    """PersonalWAB: personalized web-function calling for shopping (WWW'25).

    Args:
        mode: ``"single"`` or ``"multi"`` (turn setting).
        split: Instruction split, ``"test"`` (default) or ``"train"``.
        task_type: Keep only ``"search"``, ``"recommend"`` or ``"review"`` tasks (``None``: all).
        memory: ``"all"`` exposes the history in ``logs``; ``"none"`` hides it.
        data_dir: Directory of the official release; ``None`` uses ``$PERSONAL_ENVS_DATA/personalwab`` if present,
            else a generated dataset.
        data: A ready :class:`PersonalWABData` (overrides ``data_dir``).
        user: ``"profile"`` (deterministic, default), ``"llm"`` or a :class:`SimulatedUser` (multi-turn only).
        review_similarity: Similarity for review scoring; default MiniLM cosine (the paper's metric).
        generate: Keyword arguments for the dataset generator (``seed``, ``n_users``, ``n_products``, ...).
    """

    def __init__(
        self,
        mode: str = "single",
        split: str = "test",
        task_type: str | None = None,
        memory: str = "all",
        data_dir: str | None = None,
        data: PersonalWABData | None = None,
        user: str | SimulatedUser = "profile",
        review_similarity: Callable[[str, str], float] | None = None,
        generate: dict[str, Any] | None = None,
        max_steps: int = MAX_STEPS,
        render_mode: str | None = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        if memory not in MEMORY_MODES:
            raise ValueError(f"memory must be one of {MEMORY_MODES}, got {memory!r}")
        if task_type is not None and task_type not in fn.TASK_TYPES:
            raise ValueError(f"task_type must be one of {fn.TASK_TYPES} or None, got {task_type!r}")
        super().__init__(fn.FUNCTION_SPECS, max_steps=max_steps, render_mode=render_mode)
        self.mode = mode
        self.split = split
        self.memory = memory
        self.backend = shared_backend(data_dir, data, dict(generate or {}))
        self.tasks = self.backend.data.tasks(split, task_type)
        if not self.tasks:
            raise ValueError(f"no {task_type or ''} tasks in split {split!r} of {self.backend.data.source}")
        self.user = self._make_user(user)
        if self.user is not None:
            self.user_turn_actions = frozenset({fn.RESPOND})
        self._similarity = review_similarity
        self._logs_cache: dict[int, str] = {}
        self.observation_space = spaces.Dict(
            {
                "instruction": UnicodeText(200_000),
                "result": UnicodeText(1_000_000),
                "user_reply": UnicodeText(50_000),
                "logs": UnicodeText(20_000_000),
                "last_action_error": UnicodeText(4_000),
            }
        )
        self.task: dict[str, Any] = {}
        self._instruction = ""
        self._result = ""
        self._user_reply = ""
        self._calls: list[CallScore] = []

    # ------------------------------------------------------------------------------------------ hooks
    @property
    def num_tasks(self) -> int:
        return len(self.tasks)

    def _reset_task(self, task_index: int, options: dict[str, Any]) -> dict[str, Any]:
        task = self.tasks[task_index]
        self.task = task
        self._calls = []
        self._result = ""
        self._user_reply = ""
        self._instruction = f"USER {task['user_id']}: {task['task']}"
        target = task["target"]["product_info"]
        if task["type"] == "review":
            self._instruction += "\nHere is the product information:\n" + fn.format_product(target, full=True)
        if self.user is not None:
            profile = self.backend.data.profiles.get(task["user_id"], {})
            self.user.start(
                UserContext(
                    profile=dict(profile),
                    task={
                        "type": task["type"],
                        "instruction": task["task"],
                        "product": target,
                        "review": task["target"].get("review", {}) if task["type"] == "review" else {},
                    },
                )
            )
        return {
            "task_id": f"{self.split}:{task_index}",
            "task_type": task["type"],
            "user_id": task["user_id"],
            "mode": self.mode,
        }

    def _execute(self, action: Action) -> StepResult:
        name, args = action.name, action.arguments
        if name == fn.STOP:
            return StepResult(terminated=True)
        if name == fn.RESPOND:
            return self._respond(str(args["content"]))
        if name == fn.DETAILS:
            self._result = self._details(str(args["product_asin"]))
            return StepResult()
        if name == fn.SEARCH:
            query = str(args["query"]).strip()
            if not query:
                raise ActionError("the query is empty; describe the product to search for")
            ids = self.backend.search.search(query, fn.TOP_K)
            self._result = fn.format_results([self.backend.data.products[i] for i in ids])
            return self._scored(score_ranked_call(self.task["type"], name, ids, self._target_asin()))
        if name == fn.RECOMMEND:
            return self._recommend([str(x) for x in args["product_sequence"]])
        if name == fn.REVIEW:
            review = str(args["review"]).strip()
            if not review:
                raise ActionError("the review is empty; write the review text in 'review'")
            target_review = str(self.task["target"].get("review", {}).get("text", ""))
            self._result = "Review posted."
            return self._scored(score_review_call(self.task["type"], review, target_review, self._review_similarity))
        raise ActionError(f"unsupported action {name}")

    def _observation(self) -> dict[str, Any]:
        return {
            "instruction": self._instruction,
            "result": self._result,
            "user_reply": self._user_reply,
            "logs": self._logs(),
        }

    def _episode_metrics(self) -> EpisodeOutcome:
        metrics = episode_metrics(self.task.get("type", ""), self._calls, self.steps)
        metrics["user_id"] = self.task.get("user_id", "")
        return EpisodeOutcome(score=float(metrics["result_accuracy"]), metrics=metrics)

    # ------------------------------------------------------------------------------------------ actions
    def _respond(self, content: str) -> StepResult:
        if self.mode == "single" or self.user is None:
            self._user_reply = "(single-turn: no user is available to answer; the episode ends)"
            return StepResult(terminated=True)
        reply = self.user.reply(content)
        self._user_reply = reply.text
        return StepResult()

    def _recommend(self, sequence: list[str]) -> StepResult:
        products = self.backend.data.products
        known = [asin for asin in sequence if asin in products]
        if not known:
            shown = ", ".join(sequence[:5]) or "(empty list)"
            raise ActionError(f"none of the given ASINs is a known product ({shown}); pass parent_asin values")
        used = known[-fn.MAX_SEQUENCE :]
        ids = self.backend.recommender().recommend(used, k=fn.TOP_K)
        notes = []
        if len(known) < len(sequence):
            notes.append(f"{len(sequence) - len(known)} unknown ASIN(s) ignored")
        if len(known) > fn.MAX_SEQUENCE:
            notes.append(f"only the last {fn.MAX_SEQUENCE} ASINs used")
        prefix = f"({'; '.join(notes)})\n" if notes else ""
        self._result = prefix + fn.format_results([products[i] for i in ids])
        return self._scored(score_ranked_call(self.task["type"], fn.RECOMMEND, ids, self._target_asin()))

    def _scored(self, call: CallScore) -> StepResult:
        self._calls.append(call)
        score = {"function": call.function, "correct_function": call.correct_function,
                 "result_accuracy": call.result_accuracy}
        return StepResult(terminated=self.mode == "single", info={"call_score": score})

    # ------------------------------------------------------------------------------------------ helpers
    def _target_asin(self) -> str:
        return str(self.task["target"]["product_info"]["parent_asin"])

    def _details(self, asin: str) -> str:
        text = self.backend.details_cache.get(asin)
        if text is None:
            text = fn.format_product(self._product(asin), full=True)
            self.backend.details_cache[asin] = text
        return text

    def _product(self, asin: str) -> dict[str, Any]:
        product = self.backend.data.products.get(asin.strip())
        if product is None:
            raise ActionError(f"unknown product ASIN {asin[:40]!r}")
        return product

    def _review_similarity(self, a: str, b: str) -> float:
        if self._similarity is not None:
            return self._similarity(a, b)
        from personal_envs.core.embedding import text_similarity

        return text_similarity(a, b)

    def _logs(self) -> str:
        if self.memory == "none" or not self.task:
            return ""
        cached = self._logs_cache.get(self.task_index)
        if cached is None:
            entries = self.backend.data.history_before(self.task["user_id"], int(self.task["timestamp"]))
            cached = "\n".join(json.dumps(history_record(e), ensure_ascii=False) for e in entries)
            self._logs_cache[self.task_index] = cached
        return cached

    def _make_user(self, user: str | SimulatedUser) -> SimulatedUser | None:
        if self.mode == "single":
            return None
        if isinstance(user, SimulatedUser):
            return user
        if user == "profile":
            return ProfileShopper()
        if user == "llm":
            return LLMShopper()
        if user == "llm-redacted":
            return LLMShopper(redact_leaks=True)
        raise ValueError(f"user must be 'profile', 'llm', 'llm-redacted' or a SimulatedUser, got {user!r}")


def history_record(entry: dict[str, Any]) -> dict[str, Any]:
    """One history entry as the agent sees it in ``logs``."""
    product = entry.get("product_info", {})
    review = entry.get("review", {})
    return {
        "timestamp": review.get("timestamp"),
        "parent_asin": product.get("parent_asin"),
        "title": product.get("title"),
        "category": product.get("main_category"),
        "store": product.get("store"),
        "price": product.get("price"),
        "rating": review.get("rating"),
        "review_title": review.get("title"),
        "review": review.get("text"),
    }
