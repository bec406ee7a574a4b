"""PersonalWAB's function set: names and argument keys exactly as in the paper's code, plus product formatting.

The three *task functions* map one-to-one to the task types; calling the one that matches the task is what
function accuracy measures.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from personal_envs.core.actions import ActionSpec, Param, tool_schemas

SEARCH = "search_product_by_query"
RECOMMEND = "get_recommendations_by_history"
REVIEW = "add_product_review"
DETAILS = "get_product_details_by_asin"
RESPOND = "respond"
STOP = "stop"

#: Task type -> the function that solves it.
TASK_FUNCTION: dict[str, str] = {"search": SEARCH, "recommend": RECOMMEND, "review": REVIEW}
TASK_FUNCTIONS: frozenset[str] = frozenset(TASK_FUNCTION.values())
TASK_TYPES: tuple[str, ...] = ("search", "recommend", "review")

#: Longest recommendation input the recommender uses (the most recent items are kept).
MAX_SEQUENCE = 30
#: Results returned by search and recommendation.
TOP_K = 10

FUNCTION_SPECS: tuple[ActionSpec, ...] = (
    ActionSpec.make(
        SEARCH,
        "Search products with a text query (BM25). Returns the information of the top 10 products.",
        query=Param("string", "The query, e.g. 'wireless earbuds with noise cancelling'.", max_length=10_000),
    ),
    ActionSpec.make(
        RECOMMEND,
        "Recommend products from a sequence of product ASINs in time order, most recent last (at most 30 are used). "
        "Returns the top 10 recommended products.",
        product_sequence=Param("array", "parent_asin values in time order.", items="string"),
    ),
    ActionSpec.make(
        REVIEW,
        "Post a review of the product the user bought, written for the user.",
        review=Param("string", "The review text.", max_length=20_000),
    ),
    ActionSpec.make(
        DETAILS,
        "Get the full details of a product by its ASIN.",
        product_asin=Param("string", "The parent_asin of the product.", max_length=100),
    ),
    ActionSpec.make(
        RESPOND,
        "Say something to the user (ask a question or present results); the user's reply comes back.",
        content=Param("string", "The message to the user.", max_length=20_000),
    ),
    ActionSpec.make(STOP, "End the conversation."),
)


#: Function sets per agent type of the official runner: the function-calling and ReAct agents are not given
#: ``get_product_details_by_asin`` (RecMind and PUMA agents are); ``respond`` is the agent's plain text.
OFFICIAL_FUNCTIONS: tuple[str, ...] = (SEARCH, RECOMMEND, REVIEW, STOP, RESPOND)
ALL_FUNCTIONS: tuple[str, ...] = (SEARCH, RECOMMEND, REVIEW, DETAILS, STOP, RESPOND)


def function_specs(details: bool = False, infos: list[dict[str, Any]] | None = None) -> tuple[ActionSpec, ...]:
    """The action specs offered to the agent (``details`` adds ``get_product_details_by_asin``).

    ``infos`` are the official tool descriptions (the functions' ``__info__``, read from the release by
    :meth:`personal_envs.personalwab.official_texts.Release.function_infos`): when given, each function and argument
    carries the official description instead of the project's own (``respond`` is not an official tool: the
    official agent's plain text)."""
    names = ALL_FUNCTIONS if details else OFFICIAL_FUNCTIONS
    official = {info["function"]["name"]: info["function"] for info in infos or ()}
    specs = []
    for spec in FUNCTION_SPECS:
        if spec.name not in names:
            continue
        described = official.get(spec.name)
        if described is not None:
            properties = (described.get("parameters") or {}).get("properties") or {}
            params = tuple(
                (key, replace(param, description=str(properties.get(key, {}).get("description", param.description))))
                for key, param in spec.params)
            spec = ActionSpec(spec.name, str(described.get("description", spec.description)), params)
        specs.append(spec)
    return tuple(specs)


def official_tool_schemas(specs: tuple[ActionSpec, ...], infos: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tools as the official agent sends them: the official ``__info__`` of each offered function, verbatim and
    in the official order, then the project's ``respond`` (the official agent answers the user in plain text)."""
    offered = {spec.name for spec in specs}
    tools = [info for info in infos if info["function"]["name"] in offered]
    return tools + tool_schemas([spec for spec in specs if spec.name == RESPOND])


# Field order of a product as the official functions print it (title first, category last).
_CARD_FIELDS: tuple[str, ...] = (
    "title", "parent_asin", "average_rating", "rating_number", "price", "store", "features", "description",
    "details", "main_category",
)


def _field_text(product: dict[str, Any], key: str) -> str:
    value = product.get(key)
    if key == "details":
        return json.dumps(value if value is not None else {})
    return str(value) if not isinstance(value, str) else value


def product_card(product: dict[str, Any], number: int | None = None) -> str:
    """A product as the official functions render it: every field, one ``- key: value`` line each, lists as Python
    lists and details as JSON; numbered from 0 in result lists (``Product 0:``)."""
    lines = [f"- {key}: {_field_text(product, key)}" for key in _CARD_FIELDS]
    head = f"\nProduct {number}:\n" if number is not None else "\n"
    return head + "\n".join(lines) + "\n"


#: The documents of the official search index, as its term dictionary shows them (``pyserini.index.lucene`` over
#: JSON documents whose ``contents`` the release does not ship): ten labelled fields, the 13 label terms of which
#: ("title", "parent", "asin", "main", "categori", "averag", "rate", "number", "price", "store", "detail",
#: "descript", "featur") are in every one of the 35,772 documents; details as JSON with ASCII escapes (the index
#: holds "u2026"-like terms), features and description as Python lists (it holds "n" from "\\n"), no other field
#: (no category list, images or videos).  The order of the fields is the official memory's product block.
SEARCH_FIELDS: tuple[tuple[str, str], ...] = (
    ("Title", "title"), ("Parent Asin", "parent_asin"), ("Main Category", "main_category"),
    ("Average Rating", "average_rating"), ("Rating Number", "rating_number"), ("Price", "price"),
    ("Store", "store"), ("Details", "details"), ("Description", "description"), ("Features", "features"),
)


def official_value(product: dict[str, Any], key: str) -> str:
    """A product field as the official code prints it: ``json.dumps`` for details, ``str`` for the rest."""
    value = product.get(key)
    if key == "details":
        return json.dumps(value)
    return value if isinstance(value, str) else str(value)


def search_contents(product: dict[str, Any]) -> str:
    """The ``contents`` of a product in the search index (what ``search_product_by_query`` ranks and shows):
    one ``- Label: value`` line per field of :data:`SEARCH_FIELDS`."""
    return "\n".join(f"- {label}: {official_value(product, key)}" for label, key in SEARCH_FIELDS)


def official_search_observation(contents: list[str]) -> str:
    """The search result text as the official function returns it: the Python list of ``"Product i: \\n" +
    contents + "\\n"`` strings, printed with ``str`` (``[]`` for no hit)."""
    return str([f"Product {i}: \n{text}\n" for i, text in enumerate(contents)])


#: The placeholders of the official product templates, in the order the official ``pretty_product`` functions
#: replace them (``<Num>`` only in the recommendation's numbered card).
PRODUCT_PLACEHOLDERS: tuple[tuple[str, str], ...] = (
    ("<CATEGORY>", "main_category"), ("<Num>", ""), ("<TITLE>", "title"), ("<AVERAGE_RATING>", "average_rating"),
    ("<RATING_NUMBER>", "rating_number"), ("<FEATURES>", "features"), ("<DESCRIPTION>", "description"),
    ("<PRICE>", "price"), ("<STORE>", "store"), ("<DETAILS>", "details"), ("<PARENT_ASIN>", "parent_asin"),
)


def fill_product(template: str, product: dict[str, Any], number: int | None = None) -> str:
    """An official product template (the release's ``Product_Prompt`` / ``PRODUCT_PROMPT``) filled as the official
    ``pretty_product`` fills it: one placeholder after the other, details as JSON, other fields with ``str``."""
    text = template
    for placeholder, key in PRODUCT_PLACEHOLDERS:
        text = text.replace(placeholder, str(number) if not key else official_value(product, key))
    return text


def official_recommend_observation(products: list[dict[str, Any]], template: str | None = None) -> str:
    """The recommendation result text: the Python list of numbered product cards, printed with ``str`` (the
    release's card template when given, else the project's card)."""
    if template is not None:
        return str([fill_product(template, product, i) for i, product in enumerate(products)])
    return str([product_card(product, i) for i, product in enumerate(products)])


def official_review_observation(review: str) -> str:
    """The review result text: the posted review as the official function returns it, a dict printed with
    ``str`` (an empty review becomes the placeholder)."""
    from personal_envs.personalwab.scoring import EMPTY_REVIEW_PLACEHOLDER

    return str({"review": review or EMPTY_REVIEW_PLACEHOLDER})


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_product(product: dict[str, Any], number: int | None = None, *, full: bool = False) -> str:
    """A product as agent-readable text (numbered in result lists; ``full`` adds description and details)."""
    features = product.get("features") or []
    description = product.get("description") or []
    categories = product.get("categories") or []
    head = f"Product {number}: " if number is not None else ""
    lines = [
        f"{head}{product.get('title', '')}",
        f"  parent_asin: {product.get('parent_asin', '')} | store: {product.get('store', '')} | "
        f"price: {product.get('price', '')} | rating: {product.get('average_rating', '')} "
        f"({product.get('rating_number', '')} ratings)",
        f"  category: {' > '.join(str(c) for c in categories) or product.get('main_category', '')}",
    ]
    if features:
        joined = "; ".join(str(f) for f in features)
        lines.append(f"  features: {joined if full else _clip(joined, 300)}")
    if full:
        if description:
            lines.append(f"  description: {' '.join(str(d) for d in description)}")
        details = product.get("details") or {}
        if details:
            lines.append(f"  details: {json.dumps(details, ensure_ascii=False)}")
    return "\n".join(lines)


def format_results(products: list[dict[str, Any]]) -> str:
    """A numbered result list (1-based, as ranks are)."""
    if not products:
        return "No products found."
    return "\n".join(format_product(p, i + 1) for i, p in enumerate(products))
