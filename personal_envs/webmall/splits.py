"""Train and test task sets for WebMall that share no answer and no buyer.

* ``split="test"``: the official 91 tasks when the data is present, else the embedded default (the generator's tasks
  with seed ``generator_seed``, 91 in the official proportions).
* ``split="train"``: generated tasks on the same shops with a train seed, in the official proportions (categories the
  catalog cannot support are left out), minus every task that shares a product with a test task (an answer offer,
  the same product in another shop, or a product the task text links to) or repeats a test task's text.  Checkout
  tasks get buyers of their own (:data:`TRAIN_BUYERS`), never a test task's billing identity.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence

from personal_envs.webmall.catalog import Catalog
from personal_envs.webmall.generator import generate_tasks
from personal_envs.webmall.tasks import WebMallTask

TRAIN_SEED = 7919
#: Generated train tasks before filtering (the shipped catalog keeps about 145 of them, the official one more).
TRAIN_TASKS = 1500
#: Billing identities of generated train checkout tasks (fictional; no test task uses them).
TRAIN_BUYERS: tuple[dict[str, str], ...] = (
    {"name": "Priya Raman", "street": "Cedar Street", "house_number": "31", "zip": "73301", "city": "Austin",
     "state": "TX", "country": "USA", "email": "priya.raman@example.com"},
    {"name": "Tomasz Nowak", "street": "Lakeview Drive", "house_number": "9", "zip": "98101", "city": "Seattle",
     "state": "WA", "country": "USA", "email": "t.nowak@example.org"},
    {"name": "Aisha Bello", "street": "Elm Court", "house_number": "57", "zip": "30301", "city": "Atlanta",
     "state": "GA", "country": "USA", "email": "aisha.bello@example.net"},
)
SPLITS = ("train", "test")
_PRODUCT_URL = re.compile(r"\{\{URL_(\d)\}\}/product/([^\s/\"'<>#?]+)")


def product_identity(catalog: Catalog, shop: int, slug: str) -> str:
    """What makes two offers the same product: the catalog's model key, else the slug (as the generator groups)."""
    product = catalog.shops[shop - 1].by_slug.get(slug) if 1 <= shop <= len(catalog.shops) else None
    model = product.attributes.get("model") if product is not None else None
    return str(model) if model else f"slug:{slug}"


def task_products(catalog: Catalog, task: WebMallTask) -> set[str]:
    """Products of a task: its answers and the products its text links to (as :func:`product_identity`)."""
    found = set()
    for text in (*task.answers, task.task):
        for shop, slug in _PRODUCT_URL.findall(text):
            found.add(product_identity(catalog, int(shop), slug.rstrip("/")))
    return found


def answer_urls(tasks: Iterable[WebMallTask]) -> set[str]:
    """Every answer URL template of ``tasks``."""
    return {answer.rstrip("/") for task in tasks for answer in task.answers}


def buyers(tasks: Iterable[WebMallTask]) -> set[str]:
    """Billing names of ``tasks``."""
    return {task.user_details["name"] for task in tasks if task.user_details.get("name")}


def overlaps(catalog: Catalog, train: Sequence[WebMallTask], test: Sequence[WebMallTask]) -> dict[str, set[str]]:
    """What ``train`` shares with ``test``: answer URLs, products, buyers and task texts (all empty when disjoint)."""
    train_products = set().union(*(task_products(catalog, t) for t in train)) if train else set()
    test_products = set().union(*(task_products(catalog, t) for t in test)) if test else set()
    return {"answer_urls": answer_urls(train) & answer_urls(test), "products": train_products & test_products,
            "buyers": buyers(train) & buyers(test), "texts": {t.task for t in train} & {t.task for t in test}}


def train_tasks(catalog: Catalog, test: Sequence[WebMallTask], num_tasks: int | None = None,
                seed: int = TRAIN_SEED) -> list[WebMallTask]:
    """Generated train tasks sharing no product, text or buyer with ``test`` (ids ``Train_<category>_TaskN``)."""
    taken = set().union(*(task_products(catalog, t) for t in test)) if test else set()
    texts = {t.task for t in test}
    kept: list[WebMallTask] = []
    for task in generate_tasks(catalog, num_tasks or TRAIN_TASKS, seed=seed):
        if task.task in texts or task_products(catalog, task) & taken:
            continue
        details = dict(task.user_details)
        if details:
            details = dict(TRAIN_BUYERS[len(kept) % len(TRAIN_BUYERS)])
        kept.append(dataclasses.replace(task, task_id=task.task_id.replace("Gen_", "Train_", 1),
                                        user_details=details, source="generated-train"))
    return kept
