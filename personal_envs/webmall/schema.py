"""Schemas of the official WebMall files (pydantic), for :mod:`personal_envs.webmall.tasks` and
:mod:`personal_envs.webmall.catalog`.

* ``task_sets.json``: a list of task sets, each with ``tasks``; a task has an ``id``, one of the eleven official
  ``category`` names, its ``instruction`` and ``task`` texts, and a ``correct_answer`` with a ``type`` and a list
  of ``answers``; checkout tasks add ``user_details`` and ``payment_info`` (strings).  Other keys (``motivation``,
  ``name``, ``date``...) are ignored.
* ``webmall_<n>.csv`` rows (WooCommerce product exports): a ``Name``; prices empty or a number as the exports write
  them (``"139,99"``, ``"1.299,00"``); the other columns the loader reads are text.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictStr
from typing_extensions import TypedDict

Category = Literal[
    "Specific_Product", "Cheapest_Product", "Best_Fit_Specific", "Add_To_Cart", "Checkout",
    "Cheapest_Best_Fit_Specific", "Best_Fit_Vague", "Cheapest_Best_Fit_Vague", "Substitute", "Compatible_Products",
    "FindAndOrder",
]


class CorrectAnswer(TypedDict):
    """A task's answer key."""

    type: StrictStr
    answers: list[StrictStr]


class TaskRecord(TypedDict):
    """One task of ``task_sets.json``."""

    id: StrictStr
    category: Category
    instruction: StrictStr
    task: StrictStr
    correct_answer: CorrectAnswer
    user_details: NotRequired[dict[str, StrictStr]]
    payment_info: NotRequired[dict[str, StrictStr]]


class TaskSet(TypedDict):
    """One task set of ``task_sets.json``."""

    tasks: list[TaskRecord]


#: ``task_sets.json``.
TaskSetsFile = list[TaskSet]


def _price(value: str) -> str:
    from personal_envs.webmall.catalog import parse_price

    if value.strip() and parse_price(value) is None:
        raise ValueError("expected a price such as 139,99 or 1.299,00 (or nothing)")
    return value


Price = Annotated[StrictStr, AfterValidator(_price)]


class CsvRow(BaseModel):
    """A row of a WooCommerce product export, as the loader reads it (other columns are ignored)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=False)

    name: StrictStr = Field(alias="Name", min_length=1)
    regular_price: Price = Field(alias="Regular price", default="")
    sale_price: Price = Field(alias="Sale price", default="")


def row_fields(row: dict[str, Any]) -> dict[str, Any]:
    """Cells a ``csv.DictReader`` left as ``None`` (a short row) or as a list (a long row) are what the schema
    must see as missing or wrong."""
    return {key: value for key, value in row.items() if key is not None and value is not None}
