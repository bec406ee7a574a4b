"""PersonalWAB as Gymnasium envs: ``PersonalWAB-SingleTurn-v0`` and ``PersonalWAB-MultiTurn-v0``.

The episode protocol is the official code's (HongruCai/PersonalWAB at 23ff65c, ``envs/base.py`` and
``agents/gpt_function_calling_agent.py``).  Single-turn: the first task-function call (search, recommend, review)
ends the episode and is scored, *also when it fails* (a missing or misnamed argument: 0 / 0) or returns nothing (an
empty query, only unknown ASINs: the right function with an empty list, 1 / 0); an empty review is posted and scored
as the official placeholder; ``respond`` or ``stop`` end it unscored.  Multi-turn: a simulated user answers
``respond``; every task-function call is scored, the episode ends on ``stop`` or after 10 steps, and the episode
keeps the best correct call.  The functions offered are the official function-calling agent's (no
``get_product_details_by_asin`` unless ``details_function=True``).

Observation (all text):
    ``instruction``  ``USER {user_id}: {task}``; review tasks add the target product's details.
    ``result``       output of the last function call, as the official functions print it (``str`` of the returned
                     Python list or dict; products numbered from 0).
    ``user_reply``   the simulated user's last reply (multi-turn).
    ``logs``         the user's purchase and review history before the task's timestamp, one JSON object per line
                     (``memory="none"`` leaves it empty; memory baselines select from it).
    ``last_action_error``
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gymnasium import spaces

from personal_envs.core.actions import NAME_KEYS, Action, ActionError, load_action_object
from personal_envs.core.download import data_home
from personal_envs.core.env import MAX_USER_REPLY_CHARS, PersonalEnv, StepResult
from personal_envs.core.errors import InputError
from personal_envs.core.spaces import UnicodeText
from personal_envs.personalwab import functions as fn
from personal_envs.personalwab.data import PersonalWABData, load
from personal_envs.personalwab.official_texts import load_user_texts, release_for
from personal_envs.personalwab.scoring import RESULT_FORMULAS
from personal_envs.personalwab.search import ProductSearch, TooManyClauses
from personal_envs.personalwab.splits import data_split, shared_train_world
from personal_envs.personalwab.task import PersonalWABTask, PersonalWABWorld
from personal_envs.personalwab.users import LLMShopper, ProfileShopper
from personal_envs.simulators.users.base import SimulatedUser

logger = logging.getLogger(__name__)

MODES = ("single", "multi")
#: Token budgets the generic LLM policy gives this env's fields: a function's result whole, as the official agent
#: sees it (ten products of the official catalogue are about 6,000 tokens, of the generated one about 3,000).
LLM_FIELD_TOKENS = {"result": 12_000}
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
        """The recommender: with the official release, the official SASRec (``pwab.pth`` + ``1000_ids.json`` from
        ``<data_dir>/recommender`` or the data cache); otherwise our SASRec, trained on the users' histories
        (targets of tasks left out) and cached on disk, then given the catalogue: items never seen in training are
        placed among trained items of the same category and store."""
        with self._lock:
            if self._recommender is None and self.data.source.startswith("official:"):
                self._recommender = _official_recommender(Path(self.data.source.split(":", 1)[1]))
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
                recommender = SequentialRecommender.cached(
                    sorted(self.data.products), sequences, self.cache_dir / "recommender",
                    epochs=training_epochs(len(sequences)),
                )
                recommender.give_catalogue({
                    asin: [f"{p.get('main_category')}|{p.get('store')}", str(p.get("main_category"))]
                    for asin, p in self.data.products.items()
                })
                self._recommender = recommender
            return self._recommender


def _official_recommender(data_dir: Path) -> Any:
    """The official recommender if its files are in ``data_dir/recommender`` or the cache, else ``None`` (logged)."""
    from personal_envs.personalwab import official_recommender as official

    for directory in (data_dir / "recommender", data_home() / "personalwab" / "recommender"):
        if official.available(directory):
            return official.load(directory)
    logger.warning("official PersonalWAB data without the official recommender (pwab.pth, 1000_ids.json); "
                   "run 'personal-envs data fetch personalwab'. Using the project's trained SASRec instead.")
    return None


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
            search = ProductSearch(ids, [fn.search_contents(dataset.products[asin]) for asin in ids])
            cache = data_home() / "personalwab" / "cache"
            backend = _BACKENDS[key] = Backend(dataset, search, cache)
        return backend


class PersonalWABEnv(PersonalEnv):
    """PersonalWAB: personalized web-function calling for shopping (WWW'25).

    Args:
        mode: ``"single"`` or ``"multi"`` (turn setting).
        split: ``"test"`` (default: the data's test instructions, official when present), ``"train"`` (a generated
            world sharing no user, persona or answer with the test data; :mod:`personal_envs.personalwab.splits`)
            or ``"release_train"`` (the data's own train list, which shares the test users).
        task_type: Keep only ``"search"``, ``"recommend"`` or ``"review"`` tasks (``None``: all).
        memory: ``"all"`` exposes the history in ``logs``; ``"none"`` hides it.
        data_dir: Directory of the official release; ``None`` uses ``$PERSONAL_ENVS_DATA/personalwab`` if present,
            else a generated dataset.
        data: A ready :class:`PersonalWABData` (overrides ``data_dir``).
        user: ``"profile"`` (deterministic, default), ``"llm"`` or a :class:`SimulatedUser` (multi-turn only).
        review_similarity: Similarity for review scoring; default MiniLM cosine at 512 tokens (the official metric).
        generate: Keyword arguments for the dataset generator (``seed``, ``n_users``, ``n_products``, ...).
        result_formula: ``"official"`` (default, the official code's ``1 - i/len(results)``) or ``"paper"``
            (``1 - (rank-1)/10``); the metrics report both.
        details_function: Offer ``get_product_details_by_asin`` (an opt-in extra: the official function-calling
            and ReAct agents do not get it; RecMind and PUMA do).
        train_generate: Options of the generated train world (``seed``, ``n_users``, ...; default
            :data:`~personal_envs.personalwab.splits.TRAIN_WORLD`).
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
        result_formula: str = "official",
        details_function: bool = False,
        train_generate: dict[str, Any] | None = None,
    ) -> None:
        if mode not in MODES:
            raise InputError(f"mode must be one of {MODES}, got {mode!r}")
        if memory not in MEMORY_MODES:
            raise InputError(f"memory must be one of {MEMORY_MODES}, got {memory!r}")
        if task_type is not None and task_type not in fn.TASK_TYPES:
            raise InputError(f"task_type must be one of {fn.TASK_TYPES} or None, got {task_type!r}")
        if result_formula not in RESULT_FORMULAS:
            raise InputError(f"result_formula must be one of {RESULT_FORMULAS}, got {result_formula!r}")
        backend = shared_backend(data_dir, data, dict(generate or {}))
        #: The official texts (tool descriptions, system prompts, agent templates) when the release files are there.
        self.release = release_for(backend.data.source)
        self._official_tools = self.release.function_infos()
        user_texts = load_user_texts(self.release.path("user.py"))
        #: The official product templates: the numbered recommendation card, the details card, the review task's.
        self._cards: dict[str, str | None] = {
            "recommend": self.release.constant("functions/get_recommendations_by_history.py", "Product_Prompt"),
            "details": self.release.constant("functions/get_product_details_by_asin.py", "Product_Prompt"),
            "review": user_texts.product_template if user_texts is not None else None,
        }
        super().__init__(fn.function_specs(details_function, self._official_tools), max_steps=max_steps,
                         render_mode=render_mode)
        self.result_formula = result_formula
        self.mode = mode
        self.split = split
        self.memory = memory
        self.backend = backend
        if split == "train":  # a generated world of its own, disjoint from the test data (personalwab/splits.py)
            self.backend = shared_backend(None, shared_train_world(backend.data, dict(train_generate or {})), {})
        records = self.backend.data.tasks(data_split(split), task_type)
        if not records:
            raise InputError(f"no {task_type or ''} tasks in split {split!r} of {self.backend.data.source}")
        self.tasks = [PersonalWABTask(record, split, index, result_formula)
                      for index, record in enumerate(records)]
        self.user = self._make_user(user)
        if self.user is not None:
            self.user_turn_actions = frozenset({fn.RESPOND})
        self.world = PersonalWABWorld(self.backend, review_similarity or _minilm_similarity)
        self._logs_cache: dict[int, str] = {}
        self.observation_space = spaces.Dict(
            {
                "instruction": UnicodeText(200_000),
                "result": UnicodeText(1_000_000),
                "user_reply": UnicodeText(MAX_USER_REPLY_CHARS),
                "logs": UnicodeText(20_000_000),
                "last_action_error": UnicodeText(4_000),
            }
        )
        self.task: PersonalWABTask | None = None
        self._instruction = ""
        self._result = ""

    #: Field budgets for :class:`personal_envs.policies.llm.LLMPolicy` (the result is not cut to 1,000 tokens).
    llm_field_tokens = LLM_FIELD_TOKENS

    # ------------------------------------------------------------------------------------------ agent-facing texts
    def tool_schemas(self) -> list[dict[str, Any]]:
        """The functions as OpenAI tools: with the release files, the official ``__info__`` of each offered function
        verbatim (then ``respond``); otherwise the project's descriptions."""
        if self._official_tools is not None:
            return fn.official_tool_schemas(self.action_specs, self._official_tools)
        return super().tool_schemas()

    @property
    def system_prompt(self) -> str | None:
        """The official env's system prompt for this mode (``SYS_PROMPT_SINGLE``, or ``SYS_PROMPT_MULTI`` with the
        step limit), read from the release; ``None`` without its files."""
        return self.release.system_prompt(self.mode == "multi", self.max_steps)

    # ------------------------------------------------------------------------------------------ hooks
    @property
    def num_tasks(self) -> int:
        return len(self.tasks)

    def _reset_task(self, task_index: int, options: dict[str, Any]) -> dict[str, Any]:
        task = self.task = self.tasks[task_index]
        self._result = ""
        self._instruction = task.instruction(self._cards["review"])
        return {**task.setup(self.world, self.np_random), "mode": self.mode}

    def _execute(self, action: Action) -> StepResult:
        name, args = action.name, action.arguments
        if name == fn.STOP:
            return StepResult(terminated=True)
        if name == fn.RESPOND:  # reaches here only without a user (single-turn)
            return self._without_user(action)
        if name == fn.DETAILS:
            self._result = self._details(str(args["product_asin"]))
            return StepResult()
        if name == fn.SEARCH:
            # Officially a query without any indexable word returns no hit: an empty list, scored 1 / 0; one with
            # more distinct terms than Lucene accepts raises, which the official env scores 0 / 0.
            try:
                ids = self.backend.search.search(str(args["query"]), fn.TOP_K)
            except TooManyClauses as error:
                raise ActionError(f"Error: {error}") from error
            products = self.backend.data.products
            self._result = fn.official_search_observation([fn.search_contents(products[i]) for i in ids])
            return self._scored({"function": name, "ids": list(ids)})
        if name == fn.RECOMMEND:
            return self._recommend([str(x) for x in args["product_sequence"]])
        if name == fn.REVIEW:
            # Officially an empty review posts (and is scored as) a placeholder text.
            review = str(args["review"])
            self._result = fn.official_review_observation(review)
            return self._scored({"function": name, "review": review})
        raise ActionError(f"unsupported action {name}")

    def _run_action(self, raw: Any) -> StepResult:
        """As the base env, except that a task-function call that fails (bad or missing argument, an error inside
        the function) is recorded as a failed call, scored 0 / 0, and ends a single-turn episode, as officially."""
        result = super()._run_action(raw)
        if not result.error or result.record.get("call"):
            return result
        name = self._step_action.name if self._step_action is not None else _raw_name(raw)
        if name not in fn.TASK_FUNCTIONS:
            return result
        return StepResult(terminated=self.mode == "single", error=result.error,
                          record={"call": {"function": name, "error": result.error}})

    def _without_user(self, action: Action) -> StepResult:
        self.user_reply = "(single-turn: no user is available to answer; the episode ends)"
        return StepResult(terminated=True)

    def _observation(self) -> dict[str, Any]:
        return {
            "instruction": self._instruction,
            "result": self._result,
            "user_reply": self.user_reply,
            "logs": self._logs(),
        }

    # ------------------------------------------------------------------------------------------ actions
    def _recommend(self, sequence: list[str]) -> StepResult:
        """Officially: ASINs the recommender does not know are dropped, the last 30 kept; none known gives an
        empty list (scored 1 / 0), not an error."""
        products = self.backend.data.products
        known = [asin for asin in sequence if asin in products]
        ids: list[str] = []
        if known:
            ids = list(self.backend.recommender().recommend(known[-fn.MAX_SEQUENCE:], k=fn.TOP_K))
        self._result = fn.official_recommend_observation([products[i] for i in ids], self._cards["recommend"])
        return self._scored({"function": fn.RECOMMEND, "ids": ids})

    def _scored(self, call: dict[str, Any]) -> StepResult:
        """A task-function call: recorded for the task's evaluation; single-turn ends at the first one."""
        return StepResult(terminated=self.mode == "single", record={"call": call})

    # ------------------------------------------------------------------------------------------ helpers

    def _details(self, asin: str) -> str:
        """The official details text (an unknown ASIN: ``Product not found.``, as officially, not an error)."""
        template = self._cards["details"]
        product = self.backend.data.products.get(asin)
        if product is None:
            return "Product not found."
        if template is not None:
            return fn.fill_product(template, product)
        text = self.backend.details_cache.get(asin)
        if text is None:
            text = fn.format_product(product, full=True)
            self.backend.details_cache[asin] = text
        return text

    def _logs(self) -> str:
        if self.memory == "none" or self.task is None:
            return ""
        cached = self._logs_cache.get(self.task_index)
        if cached is None:
            record = self.task.record
            entries = self.backend.data.history_before(record["user_id"], int(record["timestamp"]))
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
            source = self.backend.data.source
            local = Path(source.split(":", 1)[1]) / "official" / "user.py" if source.startswith("official:") else None
            official = str(local) if local is not None and local.is_file() else None
            return LLMShopper(official_source=official)
        if user == "llm-redacted":
            source = self.backend.data.source
            local = Path(source.split(":", 1)[1]) / "official" / "user.py" if source.startswith("official:") else None
            official = str(local) if local is not None and local.is_file() else None
            return LLMShopper(official_source=official, redact_leaks=True)
        raise InputError(f"user must be 'profile', 'llm', 'llm-redacted' or a SimulatedUser, got {user!r}")


def _raw_name(raw: Any) -> str | None:
    """The function name of an action that did not parse, if one can be read from it."""
    try:
        raw = load_action_object(raw)  # total: size, depth and unicode are checked
    except ActionError:
        return None
    function = raw.get("function")
    if isinstance(function, dict):
        return function.get("name") if isinstance(function.get("name"), str) else None
    for key in NAME_KEYS:
        if isinstance(raw.get(key), str):
            return str(raw[key])
    return None


def _minilm_similarity(a: str, b: str) -> float:
    """MiniLM cosine similarity at the official 512-token truncation (the model loads on first use)."""
    from personal_envs.personalwab.similarity import review_similarity

    return review_similarity(a, b)


def history_record(entry: dict[str, Any]) -> dict[str, Any]:
    """One history entry as the agent sees it in ``logs``: the product's fields the official memory shows
    (title, ASIN, category, ratings, price, store, details, description, features) and the review."""
    product = entry.get("product_info", {})
    review = entry.get("review", {})
    return {
        "timestamp": review.get("timestamp"),
        "parent_asin": product.get("parent_asin"),
        "title": product.get("title"),
        "category": product.get("main_category"),
        "average_rating": product.get("average_rating"),
        "rating_number": product.get("rating_number"),
        "store": product.get("store"),
        "price": product.get("price"),
        "features": product.get("features"),
        "description": product.get("description"),
        "details": product.get("details"),
        "rating": review.get("rating"),
        "review_title": review.get("title"),
        "review": review.get("text"),
    }
