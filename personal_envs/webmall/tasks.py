"""WebMall tasks: the official task file, its eleven categories, placeholder filling and scoring.

The official ``task_sets.json`` holds 91 tasks in eleven task sets.  A task's instruction, text and answers use the
placeholders ``{{URL_1}}``..``{{URL_4}}`` (the shops) and ``{{URL_5}}`` (the solution page); checkout tasks add
``{{name}}``, ``{{email}}``... for the billing details.  :meth:`WebMallTask.goal` fills them with the live origins.
Answer keys stay on the Python side (:class:`WebMallTask` is never sent to a page).

:class:`WebMallTask` is a core :class:`~personal_envs.core.task.Task` over a
:class:`~personal_envs.webmall.world.WebMallWorld`: it scores the submission, the carts or the orders as the paper
does (:mod:`personal_envs.webmall.evaluator`) and gives the dense signals ``answer_pages_visited``,
``answers_carted`` and ``progress``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from personal_envs.core.errors import InputError, reraise_as
from personal_envs.core.schema import read_json, validate
from personal_envs.core.task import Check, EpisodeTrace, Evaluation, Task
from personal_envs.webmall import schema
from personal_envs.webmall.evaluator import (
    TaskScore,
    dense_reward,
    normalize_url,
    parse_submission,
    score_found,
    score_string,
)
from personal_envs.webmall.official_eval import OfficialEpisode

if TYPE_CHECKING:
    import numpy as np

    from personal_envs.webmall.world import WebMallWorld

#: Official category -> (split, display name), in the order of the paper's table.
CATEGORIES: dict[str, tuple[str, str]] = {
    "Specific_Product": ("basic", "Find Specific Product"),
    "Cheapest_Product": ("basic", "Find Cheapest Offer"),
    "Best_Fit_Specific": ("basic", "Products Fulfilling Specific Requirements"),
    "Add_To_Cart": ("basic", "Add to Cart"),
    "Checkout": ("basic", "Checkout"),
    "Cheapest_Best_Fit_Specific": ("advanced", "Cheapest Offer Specific Requirements"),
    "Best_Fit_Vague": ("advanced", "Products Satisfying Vague Requirements"),
    "Cheapest_Best_Fit_Vague": ("advanced", "Cheapest Offer Vague Requirements"),
    "Substitute": ("advanced", "Find Substitutes"),
    "Compatible_Products": ("advanced", "Find Compatible Products"),
    "FindAndOrder": ("advanced", "End-to-End"),
}

#: Task counts per category in the official release (basic 48, advanced 43).
OFFICIAL_COUNTS: dict[str, int] = {
    "Specific_Product": 12, "Cheapest_Product": 10, "Best_Fit_Specific": 11, "Add_To_Cart": 7, "Checkout": 8,
    "Cheapest_Best_Fit_Specific": 10, "Best_Fit_Vague": 8, "Cheapest_Best_Fit_Vague": 6, "Substitute": 6,
    "Compatible_Products": 5, "FindAndOrder": 8,
}

TASK_SETS: tuple[str, ...] = ("basic", "advanced", "all")

#: The general instruction of generated tasks (the project's own wording; official tasks carry their own text).
INSTRUCTION_TEMPLATE = (
    "<instructions>\n"
    "You can use four online shops for the task below:\n\n"
    "E-Store Athletes: {{URL_1}}\nTechTalk: {{URL_2}}\nCamelCases: {{URL_3}}\nHardware Cafe: {{URL_4}}\n\n"
    "When you are done, open the solution page {{URL_5}}, type your result into its text field and click the "
    "\"Submit Final Result\" button.\n\n"
    "Give product offers as their full URLs; put ### between two URLs, e.g. "
    "{{URL_1}}/product/some-product###{{URL_2}}/product/other-product\n"
    "Give any other kind of result as plain text. If there is nothing to report (for example after a checkout), "
    "type \"Done\".\n\n"
    "The task only counts as finished once \"Submit Final Result\" has been clicked.\n"
    "</instructions>\n\n"
)

_DETAIL_KEYS = ("name", "email", "street", "house_number", "zip", "city", "state", "country")
_PAYMENT_KEYS = ("card", "cvv", "expiry_date")


class TaskFileError(InputError, RuntimeError):
    """The task file is missing or malformed (the message names the file and the field)."""


@dataclass(frozen=True)
class WebMallTask(Task["WebMallWorld"]):
    """One task with its answer key (templates with ``{{URL_n}}`` placeholders), scored on a WebMall world."""

    task_id: str = field()  # no default (the base class has one)
    category: str
    instruction: str
    task: str
    answer_type: str
    answers: tuple[str, ...]
    user_details: dict[str, str] = field(default_factory=dict)
    payment_info: dict[str, str] = field(default_factory=dict)
    source: str = "official"

    @property
    def split(self) -> str:
        """``"basic"`` or ``"advanced"``."""
        return CATEGORIES.get(self.category, ("advanced", ""))[0]

    @property
    def requires_cart(self) -> bool:
        """True when the expected offers must be added to the shops' carts: the task file types the task ``cart``
        (as the official evaluator reads it; ``Webmall_Find_Substitutes_Task1`` too, although its text does not
        mention the cart)."""
        return self.answer_type == "cart"

    @property
    def requires_checkout(self) -> bool:
        """True when an order with the billing details must be placed for every expected offer."""
        return self.answer_type == "checkout"

    def replacements(self, origins: Mapping[str, str]) -> list[tuple[str, str]]:
        """Placeholder -> value pairs: ``{{URL_1}}``.. from ``origins`` and the billing details."""
        pairs = [(f"{{{{{key}}}}}", value.rstrip("/")) for key, value in origins.items()]
        pairs += [(f"{{{{{key}}}}}", self.user_details.get(key, "")) for key in _DETAIL_KEYS if key in self.user_details]
        pairs += [(f"{{{{{key}}}}}", self.payment_info.get(key, "")) for key in _PAYMENT_KEYS if key in self.payment_info]
        return pairs

    def goal(self, origins: Mapping[str, str]) -> str:
        """Instruction plus task text with every placeholder filled."""
        return fill(self.instruction + self.task, self.replacements(origins))

    def expected_urls(self, origins: Mapping[str, str]) -> list[str]:
        """The answer URLs with live origins."""
        return [fill(answer, self.replacements(origins)) for answer in self.answers]

    # ------------------------------------------------------------------------------------- Task contract
    def setup(self, world: WebMallWorld, rng: np.random.Generator) -> dict[str, Any]:
        """Reset the shops and the episode's evidence; the reset info names the task and the sites."""
        world.reset()
        world.official = OfficialEpisode(self.task_id, self.answer_type, tuple(self.expected_urls(world.origins)),
                                         dict(self.user_details))
        return {
            "task_id": self.task_id,
            "category": self.category,
            "split": self.split,
            "task_source": self.source,
            "solution_url": world.cluster.solution_origin + "/",
            "shop_urls": list(world.cluster.shop_origins),
        }

    def score(self, world: WebMallWorld) -> TaskScore:
        """The per-task score under ``world.scoring``: ``"official"`` (default) reads the official checklist the env
        kept during the episode; ``"strict"`` scores the submission (string tasks), the carts or the orders."""
        if world.scoring == "official" and world.official is not None:
            return self._official_score(world.official)
        expected = self.expected_urls(world.origins)
        if self.requires_checkout:
            return score_found(world.ordered_urls(self.user_details), expected)
        if self.requires_cart:
            return score_found(world.carted_urls(), expected)
        return score_string(parse_submission(world.submission or ""), expected)

    @staticmethod
    def _official_score(episode: OfficialEpisode) -> TaskScore:
        values = episode.metrics()
        answers = [cp for cp in episode.checkpoints if cp.id.startswith("answer")]
        benchmark, model = episode.solution_sets()
        return TaskScore(
            completed=bool(values["completed"]), precision=values["precision"], recall=values["recall"],
            f1=values["f1"], found=[normalize_url(cp.value) for cp in answers if cp.flag],
            missing=[normalize_url(cp.value) for cp in answers if not cp.flag], wrong=sorted(model - benchmark),
        )

    def evaluate(self, world: WebMallWorld, trace: EpisodeTrace) -> Evaluation:
        """Completion (the episode's score), precision, recall and F1 of the found offers."""
        result = self.score(world)
        evidence = "order" if self.requires_checkout else "cart" if self.requires_cart else "submission"
        checks = [Check(f"{evidence} has {url}", True) for url in result.found]
        checks += [Check(f"{evidence} has {url}", False, "missing") for url in result.missing]
        checks += [Check(f"{evidence} has no wrong offer", False, ", ".join(result.wrong))] if result.wrong else []
        if world.submission is None:
            checks.append(Check("submitted on the solution page", False,
                                "reported infeasible" if world.infeasible else "no submission"))
        metrics: dict[str, Any] = {
            **result.metrics(),
            "task_id": self.task_id,
            "category": self.category,
            "split": self.split,
            "answer_type": self.answer_type,
            "submitted": world.submission is not None,
            "infeasible": world.infeasible,
            "num_expected": len(self.answers),
            "scoring": world.scoring,
        }
        if world.official is not None:
            metrics["official_checkpoint_total"] = world.official.total
        failed = [c.name + (f" ({c.detail})" if c.detail else "") for c in checks if not c.passed]
        reason = "completed" if result.completed else "not completed: " + "; ".join(failed)
        return Evaluation(float(result.completed), metrics, checks, reason)

    def signals(self, world: WebMallWorld, trace: EpisodeTrace) -> dict[str, float]:
        """``answer_pages_visited`` and ``answers_carted`` (answers ever in a cart; cart and checkout tasks only)
        so far, and ``progress``: 0.2 x the fraction of answer pages visited (and carted, for tasks that cart)."""
        expected = self.expected_urls(world.origins)
        wanted = {normalize_url(url) for url in expected}
        visited = world.visited_urls()
        uses_cart = self.requires_cart or self.requires_checkout
        carted: set[str] = set()
        if uses_cart:
            carted = world.carted_urls()
            if self.requires_checkout:
                carted |= world.ordered_urls(self.user_details)  # placing the order empties the cart
        return {
            "answer_pages_visited": float(len(wanted & visited)),
            "answers_carted": float(len(wanted & (world.carted_ever | carted))) if uses_cart else 0.0,
            "progress": dense_reward(0.0, visited, carted, expected, uses_cart),
        }

    def hidden_strings(self, world: WebMallWorld) -> list[str]:
        """The expected offer URLs."""
        return self.expected_urls(world.origins)


def fill(text: str, replacements: Sequence[tuple[str, str]]) -> str:
    """Replace placeholders and the official file's escaped ``\\n`` sequences."""
    text = text.replace("\\n", "\n")
    for placeholder, value in replacements:
        text = text.replace(placeholder, value)
    return text


def find_task_file(data_dir: Path) -> Path | None:
    """``task_sets.json`` in ``data_dir`` or ``data_dir/webmall``."""
    for path in (data_dir / "task_sets.json", data_dir / "webmall" / "task_sets.json"):
        if path.is_file():
            return path
    return None


def parse_task_sets(raw: Any, source: str = "task_sets.json") -> list[WebMallTask]:
    """Tasks from the parsed official JSON (a list of task sets with ``tasks``), checked against
    :data:`~personal_envs.webmall.schema.TaskSetsFile` (:class:`TaskFileError` naming ``source`` and the field)."""
    with reraise_as(TaskFileError):
        task_sets = validate(schema.TaskSetsFile, raw, source)
    tasks: list[WebMallTask] = []
    for task_set in task_sets:
        for item in task_set["tasks"]:
            answer = item["correct_answer"]
            tasks.append(
                WebMallTask(
                    task_id=item["id"],
                    category=item["category"],
                    instruction=item["instruction"],
                    task=item["task"],
                    answer_type=answer["type"],
                    answers=tuple(answer["answers"]),
                    user_details=dict(item.get("user_details") or {}),
                    payment_info=dict(item.get("payment_info") or {}),
                    source="official",
                )
            )
    return tasks


def load_official_tasks(data_dir: Path) -> list[WebMallTask]:
    """The official tasks from ``data_dir`` (raises :class:`TaskFileError` with what to do)."""
    path = find_task_file(data_dir)
    if path is None:
        raise TaskFileError(
            f"task_sets.json not found under {data_dir}; run 'personal-envs data fetch webmall' or omit data_dir"
        )
    with reraise_as(TaskFileError):
        raw = read_json(path, "task file")
    return parse_task_sets(raw, str(path))


def select_tasks(tasks: Sequence[WebMallTask], task_set: str, task_id: str | None = None) -> list[WebMallTask]:
    """Tasks of a split (``basic`` / ``advanced`` / ``all``), or the one task with ``task_id``."""
    if task_set not in TASK_SETS:
        raise InputError(f"task_set must be one of {TASK_SETS}, got {task_set!r}")
    chosen = [t for t in tasks if task_set == "all" or t.split == task_set]
    if task_id is not None:
        wanted = task_id.split(".")[-1]
        chosen = [t for t in tasks if t.task_id == wanted]
        if not chosen:
            known = ", ".join(t.task_id for t in tasks[:5])
            raise InputError(f"unknown task_id {task_id!r}; ids look like {known}, ...")
    if not chosen:
        raise InputError(f"no tasks in task_set {task_set!r}")
    return chosen
