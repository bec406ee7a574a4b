"""Official PersonalWAB texts (the LLM user's prompts and persona sentences), read at run time from the official
source file, never shipped with this package.

``personal-envs data fetch personalwab`` stores the official ``PersonalWAB/envs/user.py`` as
``official/user.py`` in the data directory; :func:`load_user_texts` reads its string and dict constants with
``ast.literal_eval`` (nothing in the file is executed).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from personal_envs.core.download import data_home

#: Where the official user module is stored under the PersonalWAB data directory.
USER_SOURCE = Path("official") / "user.py"

_NAMES = ("DIVERSITY", "INTERACTION", "PRICE", "PROFILE_PROMPT", "PRODUCT_PROMPT", "USER_PROMPT", "USER_PROMPT_REVIEW")


@dataclass(frozen=True)
class UserTexts:
    """The official LLM user's texts: persona sentences per level and the prompt templates."""

    diversity: dict[str, str]
    interaction: dict[str, str]
    price: dict[str, str]
    profile_template: str
    product_template: str
    prompt: str
    review_prompt: str


def default_user_source() -> Path:
    """``$PERSONAL_ENVS_DATA/personalwab/official/user.py``."""
    return data_home() / "personalwab" / USER_SOURCE


def load_user_texts(path: str | Path | None = None) -> UserTexts | None:
    """The official user texts from ``path`` (default :func:`default_user_source`); ``None`` if the file is absent.

    Raises:
        ValueError: the file does not define the official constants.
    """
    source = Path(path) if path is not None else default_user_source()
    if not source.is_file():
        return None
    values: dict[str, Any] = {}
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name in _NAMES:
                values[name] = ast.literal_eval(node.value)
    missing = [name for name in _NAMES if name not in values]
    if missing:
        raise ValueError(f"{source} is not the official PersonalWAB user module (missing {', '.join(missing)})")
    return UserTexts(values["DIVERSITY"], values["INTERACTION"], values["PRICE"], values["PROFILE_PROMPT"],
                     values["PRODUCT_PROMPT"], values["USER_PROMPT"], values["USER_PROMPT_REVIEW"])


def _fill(template: str, values: dict[str, str]) -> str:
    for placeholder, value in values.items():
        template = template.replace(f"<{placeholder}>", value)
    return template


def official_profile(texts: UserTexts, profile: dict[str, Any]) -> str:
    """The profile as the official user sees it: the levels of price sensitivity, diversity and interaction
    replaced by their persona sentences, the other fields as given."""
    def field(key: str) -> str:
        return str(profile.get(key, ""))

    return _fill(texts.profile_template, {
        "GENDER": field("Gender"), "AGE": field("Age"), "OCCUPATION": field("Occupation"),
        "PRICE_SENSITIVITY": texts.price.get(field("Price Sensitivity"), field("Price Sensitivity")),
        "SHOPPING_INTEREST": field("Shopping Interest"), "BRAND_PREFERENCE": field("Brand Preference"),
        "DIVERSITY_PREFERENCE": texts.diversity.get(field("Diversity Preference"), field("Diversity Preference")),
        "INTERACTION_STYLE": texts.interaction.get(field("Interaction Complexity"),
                                                   field("Interaction Complexity")),
        "TONE_AND_STYLE": field("Tone and Style"), "ITEM_REFERENCE": field("Item Reference"),
        "FOCUS": field("Focus Aspect"),
    })


def official_product(texts: UserTexts, product: dict[str, Any]) -> str:
    """The target as the official user prompt shows it: every field (lists as Python lists, details as JSON)."""
    import json

    return _fill(texts.product_template, {
        "CATEGORY": str(product.get("main_category")), "TITLE": str(product.get("title", "")),
        "AVERAGE_RATING": str(product.get("average_rating")), "RATING_NUMBER": str(product.get("rating_number")),
        "FEATURES": str(product.get("features")), "DESCRIPTION": str(product.get("description")),
        "PRICE": str(product.get("price")), "STORE": str(product.get("store")),
        "DETAILS": json.dumps(product.get("details")), "PARENT_ASIN": str(product.get("parent_asin", "")),
    })


def official_user_prompt(texts: UserTexts, profile: dict[str, Any], task: dict[str, Any]) -> str:
    """The official LLM user's system prompt for a task (the review prompt adds the real review's text)."""
    values = {"PROFILE": official_profile(texts, profile), "PRODUCT": official_product(texts, task.get("product") or {})}
    if task.get("type") == "review":
        values["REVIEW"] = str((task.get("review") or {}).get("text", ""))
        return _fill(texts.review_prompt, values)
    return _fill(texts.prompt, values)
