"""Schemas of the official PersonalWAB files (pydantic), for :mod:`personal_envs.personalwab.data`.

Two levels:

* the *load* schemas say what the env relies on, and nothing more (other keys are ignored, not refused), so a
  release with fields this project does not read still loads: profiles with the 11 string fields, history entries with ``product_info.parent_asin`` and an
  integer ``review.timestamp``, instructions with ``user_id``, ``task``, ``target.product_info.parent_asin``, an
  integer ``timestamp`` and a ``type`` among search / recommend / review, products that are objects;
* the *strict* schemas hold the release's conventions field by field (:func:`~personal_envs.personalwab.data.
  schema_errors` checks generated data against them): every product key with its type, reviews with a rating in
  [1, 5], history entries with exactly ``product_info``, ``review`` and ``split``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    StrictStr,
    create_model,
)
from typing_extensions import TypedDict

from personal_envs.personalwab.vocab import PROFILE_FIELDS

TaskType = Literal["search", "recommend", "review"]
HistorySplit = Literal["history", "train", "test"]


def _python_name(field: str) -> str:
    return field.lower().replace(" ", "_")


def _profile_model(name: str, extra: Literal["ignore", "forbid"]) -> type[BaseModel]:
    """A model of the 11 profile fields, each a string, under their official names (``"Price Sensitivity"``...)."""
    fields: dict[str, Any] = {_python_name(field): (StrictStr, Field(alias=field)) for field in PROFILE_FIELDS}
    return create_model(name, __config__=ConfigDict(extra=extra), **fields)


#: A profile as the loader needs it (other keys are ignored).
ProfileFields = _profile_model("ProfileFields", "ignore")
#: A profile with the 11 fields and nothing else.
StrictProfile = _profile_model("StrictProfile", "forbid")


def _unwrap_profile(value: Any) -> Any:
    """The official file wraps the fields in ``{"user_profile": {...}}``; a flat record is accepted too."""
    if isinstance(value, dict) and isinstance(value.get("user_profile"), dict):
        return value["user_profile"]
    return value


#: ``user_profiles.json``: uid -> profile (wrapped or flat).
ProfilesFile = dict[str, Annotated[ProfileFields, BeforeValidator(_unwrap_profile)]]  # type: ignore[valid-type]


class ProductRef(TypedDict):
    """A ``product_info`` as the loader needs it."""

    parent_asin: StrictStr


class ReviewRef(TypedDict):
    """A ``review`` as the loader needs it."""

    timestamp: StrictInt


class HistoryEntry(TypedDict):
    """One entry of ``user_history*.json``."""

    product_info: ProductRef
    review: ReviewRef
    split: NotRequired[StrictStr]


#: ``user_history*.json``: uid -> entries.
HistoryFile = dict[str, list[HistoryEntry]]


class Target(TypedDict):
    """An instruction's ``target``."""

    product_info: ProductRef
    review: NotRequired[dict[str, Any]]


class Instruction(TypedDict):
    """One instruction of ``user_instructions.json``."""

    user_id: StrictStr
    task: StrictStr
    target: Target
    timestamp: StrictInt
    type: TaskType


class InstructionsFile(TypedDict, total=False):
    """``user_instructions.json``: the ``train`` and ``test`` instruction lists."""

    train: list[Instruction]
    test: list[Instruction]


#: ``all_products*.json``: parent_asin -> product_info (an object).
ProductsFile = dict[str, dict[str, Any]]


# ------------------------------------------------------------------------------------------- strict schemas
class StrictProduct(BaseModel):
    """A ``product_info`` with every field of the release and its type."""

    model_config = ConfigDict(extra="forbid")

    main_category: StrictStr
    title: StrictStr
    average_rating: StrictFloat
    rating_number: StrictInt
    features: list[StrictStr]
    description: list[StrictStr]
    price: StrictStr
    store: StrictStr
    categories: list[StrictStr]
    details: dict[str, Any]
    parent_asin: StrictStr


class StrictReview(BaseModel):
    """A review with every field of the release: a rating in [1, 5], a millisecond timestamp."""

    model_config = ConfigDict(extra="allow")

    rating: Annotated[StrictFloat, Field(ge=1.0, le=5.0)]
    title: StrictStr
    text: StrictStr
    parent_asin: StrictStr
    timestamp: StrictInt


class StrictHistoryEntry(BaseModel):
    """A history entry: exactly ``product_info``, ``review`` and ``split``."""

    model_config = ConfigDict(extra="forbid")

    product_info: StrictProduct
    review: StrictReview
    split: HistorySplit

