"""PersonalWAB data: the official release loader, a seeded generator in the same schema, and one ``load`` entry.

Official release (HongruCai/PersonalWAB, ``PersonalWAB/envs/pwab/data/``; CC BY-NC 4.0). Findings on its schema
and value conventions, checked against the benchmark's public code (``envs/base.py``, ``envs/user.py``,
``agents/gpt_function_calling_agent.py``, ``PUMA/prepare_param_data.py``) and the real ``user_profiles.json``:

- ``user_profiles.json``: ``{uid: {"user_profile": {11 string fields}}}``; uids are 28-character upper-case
  Amazon Reviews 2023 user ids (``"AGMQSZ..."``). Levels are ``"Low" | "Medium" | "High"`` (Price Sensitivity,
  Diversity Preference, Interaction Complexity); Age is a band (``"18-24"``, ``"25-34"``, ``"35-44"``,
  ``"45-49"``, ``"50-55"``, ``"56+"``); the other fields are comma-separated free text.
- ``user_history_part_{1,2,3}.json`` (merged into one dict): ``{uid: [{"product_info": {...}, "review":
  {"rating": 5.0, "title", "text", "parent_asin", "timestamp": 1452779837000}, "split": ...}]}``. Timestamps are
  integer milliseconds since the epoch (Amazon Reviews 2023). ``split`` is ``"history"`` for plain history and
  ``"train"`` / ``"test"`` for the interactions that are instruction targets: a task's target sits in the user's
  history at exactly the task's timestamp, which is why agents may only see entries *strictly older* than it.
- ``user_instructions.json``: ``{"train": [...], "test": [...]}``; each ``{"user_id", "task", "target":
  {"product_info", "review", ...}, "timestamp", "type"}`` with ``type`` spelled ``"search" | "recommend" |
  "review"``. Release counts: 1,000 users, 40,648 interactions, 6,896 train / 2,174 test instructions (test: 694
  search, 757 recommend, 723 review), 35,772 products.
- ``all_products_part_{1,2}.json`` (merged): ``{parent_asin: product_info}`` with ``product_info`` keys
  ``main_category`` (``"Electronics"``, ``"Home_and_Kitchen"``, ``"Health_and_Household"`` ...: the Amazon
  Reviews 2023 category names with underscores), ``title``, ``average_rating`` (float), ``rating_number`` (int),
  ``features`` and ``description`` (lists of strings), ``price`` (a string such as ``"69.99"``), ``store``,
  ``categories`` (list of strings, top level first), ``details`` (dict) and ``parent_asin``.

This module keeps those layouts unchanged except that ``profiles`` maps a uid straight to its 11 fields (the
``user_profile`` wrapper is removed). Records are shared, not copied: treat them as read-only.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from personal_envs.core.download import data_home
from personal_envs.core.errors import InputError, reraise_as
from personal_envs.core.schema import read_json, validate
from personal_envs.personalwab import schema
from personal_envs.personalwab.vocab import PROFILE_FIELDS

TASK_TYPES: tuple[str, ...] = ("search", "recommend", "review")
SPLITS: tuple[str, ...] = ("train", "test")
HISTORY_SPLITS: tuple[str, ...] = ("history", "train", "test")
PRODUCT_KEYS: tuple[str, ...] = (
    "main_category",
    "title",
    "average_rating",
    "rating_number",
    "features",
    "description",
    "price",
    "store",
    "categories",
    "details",
    "parent_asin",
)
REVIEW_KEYS: tuple[str, ...] = ("rating", "title", "text", "parent_asin", "timestamp")
INSTRUCTION_KEYS: tuple[str, ...] = ("user_id", "task", "target", "timestamp", "type")

PROFILES_FILE = "user_profiles.json"
INSTRUCTIONS_FILE = "user_instructions.json"
HISTORY_PARTS: tuple[str, ...] = (
    "user_history_part_1.json",
    "user_history_part_2.json",
    "user_history_part_3.json",
)
HISTORY_SINGLE = "user_history.json"
PRODUCT_PARTS: tuple[str, ...] = ("all_products_part_1.json", "all_products_part_2.json")
PRODUCTS_SINGLE = "all_products.json"
DATA_SUBDIR = "personalwab"


class DataError(InputError):
    """Official files are missing or do not follow the PersonalWAB schema (:mod:`personal_envs.personalwab.schema`)."""


@dataclass
class PersonalWABData:
    """Everything an environment needs: profiles, catalogue, per-user histories and instructions.

    Attributes:
        profiles: uid -> the 11 profile fields (strings).
        products: parent_asin -> product_info.
        histories: uid -> ``[{product_info, review, split}]`` sorted by review timestamp.
        instructions: ``"train"`` / ``"test"`` -> ``[{user_id, task, target: {product_info, review}, timestamp,
            type}]``.
        source: ``"official:<dir>"`` or ``"generated(seed=..., users=..., products=...)"``.
    """

    profiles: dict[str, dict[str, str]]
    products: dict[str, dict[str, Any]]
    histories: dict[str, list[dict[str, Any]]]
    instructions: dict[str, list[dict[str, Any]]]
    source: str
    _texts: dict[str, str] = field(default_factory=dict, init=False, repr=False, compare=False)

    def history_before(self, uid: str, timestamp: int) -> list[dict[str, Any]]:
        """The user's history entries strictly older than ``timestamp`` (what an agent may see), oldest first."""
        return [entry for entry in self.histories.get(uid, []) if entry["review"]["timestamp"] < timestamp]

    def tasks(self, split: str = "test", task_type: str | None = None) -> list[dict[str, Any]]:
        """Instructions of ``split``, optionally only those of one ``task_type`` (search / recommend / review)."""
        if split not in SPLITS:
            raise ValueError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")
        if task_type is not None and task_type not in TASK_TYPES:
            raise ValueError(f"unknown task type {task_type!r}; expected one of {', '.join(TASK_TYPES)}")
        records = self.instructions.get(split, [])
        if task_type is None:
            return list(records)
        return [record for record in records if record["type"] == task_type]

    def text_of(self, asin: str) -> str:
        """Searchable text of a product: title, store, categories, features and description.

        Raises:
            KeyError: ``asin`` is not in the catalogue.
        """
        cached = self._texts.get(asin)
        if cached is None:
            cached = self._texts[asin] = product_text(self.products[asin])
        return cached


def product_text(product: dict[str, Any]) -> str:
    """Join the searchable fields of one product_info (missing or null fields are skipped)."""
    parts: list[str] = []
    for key in ("title", "store"):
        value = product.get(key)
        if value:
            parts.append(str(value))
    for key in ("categories", "features", "description"):
        value = product.get(key)
        if isinstance(value, list):
            parts.extend(str(item) for item in value if item)
        elif value:
            parts.append(str(value))
    return "\n".join(parts)


# --- official files -----------------------------------------------------------------------------------------------


def _read(path: Path, schema: Any) -> Any:
    """The parsed JSON of ``path``, checked against ``schema`` (:mod:`personal_envs.personalwab.schema`); the raw
    value is returned (records stay as the release wrote them).

    Raises:
        DataError: the file is unreadable, not UTF-8, not JSON, or breaks the schema (the message names the file
            and the field).
    """
    with reraise_as(DataError):
        value = read_json(path)
        validate(schema, value, str(path))
    return value


def load_profiles(path: str | Path) -> dict[str, dict[str, str]]:
    """Read ``user_profiles.json``: uid -> 11 profile fields (the ``user_profile`` wrapper is optional).

    Raises:
        DataError: the file is not an object of profiles with the 11 official string fields.
    """
    raw = _read(Path(path), schema.ProfilesFile)
    profiles: dict[str, dict[str, str]] = {}
    for uid, record in raw.items():
        fields = schema._unwrap_profile(record)
        profiles[str(uid)] = {name: fields[name] for name in PROFILE_FIELDS}
    return profiles


def _merge_parts(
    directory: Path, parts: tuple[str, ...], single: str, what: str, file_schema: Any
) -> tuple[dict[str, Any], list[str]]:
    """Merge the multi-part files of ``what`` (or read the single file); return the dict and the files read."""
    present = [name for name in parts if (directory / name).is_file()]
    if present:
        absent = [name for name in parts if name not in present]
        if absent:
            warnings.warn(
                f"PersonalWAB {what}: {', '.join(absent)} missing in {directory}; loading "
                f"{', '.join(present)} only (some records will be absent)",
                stacklevel=3,
            )
        names = present
    elif (directory / single).is_file():
        names = [single]
    else:
        return {}, []
    merged: dict[str, Any] = {}
    for name in names:
        merged.update(_read(directory / name, file_schema))
    return merged, names


def missing_official_files(data_dir: str | Path) -> list[str]:
    """Which required official files are absent from ``data_dir`` (empty when it can be loaded)."""
    directory = Path(data_dir)
    missing: list[str] = []
    for name in (PROFILES_FILE, INSTRUCTIONS_FILE):
        if not (directory / name).is_file():
            missing.append(name)
    for parts, single in ((HISTORY_PARTS, HISTORY_SINGLE), (PRODUCT_PARTS, PRODUCTS_SINGLE)):
        if not any((directory / name).is_file() for name in (*parts, single)):
            missing.append(f"{' + '.join(parts)} (or {single})")
    return missing


def load_official(data_dir: str | Path) -> PersonalWABData:
    """Load the official release from ``data_dir``.

    Accepts the multi-part layout (``user_history_part_{1,2,3}.json``, ``all_products_part_{1,2}.json``) or
    single files (``user_history.json``, ``all_products.json``); a missing part only warns.  Every file is checked
    against :mod:`personal_envs.personalwab.schema`.

    Raises:
        DataError: the folder does not exist, required files are missing (all of them are listed) or a file breaks
            the schema (the file and the field are named).
    """
    directory = Path(data_dir)
    if not directory.is_dir():
        what = "is not a folder" if directory.exists() else "does not exist"
        raise DataError(f"PersonalWAB data_dir {directory} {what}; it should hold {PROFILES_FILE}, "
                        f"{INSTRUCTIONS_FILE}, the user history and the products (run `personal-envs data fetch "
                        "personalwab`)")
    missing = missing_official_files(directory)
    if missing:
        raise DataError(
            f"PersonalWAB official data incomplete in {directory}: missing {'; '.join(missing)}. "
            "Run `personal-envs data fetch personalwab` or copy the release files there."
        )
    profiles = load_profiles(directory / PROFILES_FILE)
    histories_raw, _ = _merge_parts(directory, HISTORY_PARTS, HISTORY_SINGLE, "user history", schema.HistoryFile)
    products_raw, _ = _merge_parts(directory, PRODUCT_PARTS, PRODUCTS_SINGLE, "products", schema.ProductsFile)
    instructions_raw = _read(directory / INSTRUCTIONS_FILE, schema.InstructionsFile)
    instructions = {split: instructions_raw.get(split, []) for split in SPLITS}
    histories = {str(uid): sorted(entries, key=lambda entry: entry["review"]["timestamp"])
                 for uid, entries in histories_raw.items()}
    return PersonalWABData(
        profiles=profiles,
        products={str(asin): product for asin, product in products_raw.items()},
        histories=histories,
        instructions=instructions,
        source=f"official:{directory}",
    )


# --- schema checks ------------------------------------------------------------------------------------------------


def schema_errors(data: PersonalWABData, limit: int = 50) -> list[str]:
    """Problems with ``data`` against the release's conventions (empty when every record is valid).

    Checks every profile, product, history entry and instruction against the strict schemas of
    :mod:`personal_envs.personalwab.schema` (keys and value types), then what a schema cannot say: history order,
    products keyed by their ``parent_asin``, and that each target and history product is in the catalogue.  Stops
    after ``limit`` problems.
    """
    errors: list[str] = []

    def report(message: str) -> bool:
        errors.append(message)
        return len(errors) >= limit

    def problem_of(model: Any, value: Any, where: str) -> str | None:
        try:
            validate(model, value, where)
        except InputError as exc:
            return str(exc)
        return None

    for uid, profile in data.profiles.items():
        problem = problem_of(schema.StrictProfile, profile, f"profile {uid}")
        if problem and report(problem):
            return errors
    for asin, product in data.products.items():
        problem = problem_of(schema.StrictProduct, product, f"product {asin}")
        if problem is None and product["parent_asin"] != asin:
            problem = f"product {asin}: keyed {asin} but parent_asin {product['parent_asin']}"
        if problem and report(problem):
            return errors
    for uid, entries in data.histories.items():
        previous = None
        for index, entry in enumerate(entries):
            where = f"history {uid}[{index}]"
            problem = problem_of(schema.StrictHistoryEntry, entry, where)
            if problem is None:
                asin = entry["product_info"]["parent_asin"]
                if entry["review"]["parent_asin"] != asin:
                    problem = f"{where}: review.parent_asin differs from product_info.parent_asin"
                elif asin not in data.products:
                    problem = f"{where}: product {asin} not in products"
                elif previous is not None and entry["review"]["timestamp"] < previous:
                    problem = f"{where}: not sorted by timestamp"
            if problem and report(problem):
                return errors
            if problem is None:
                previous = entry["review"]["timestamp"]
    for split in SPLITS:
        for index, record in enumerate(data.instructions.get(split, [])):
            where = f"instruction {split}[{index}]"
            problem = problem_of(schema.Instruction, record, where)
            if problem is None:
                problem = problem_of(schema.StrictReview, record["target"].get("review"), f"{where} target.review")
            if problem is None and record["target"]["product_info"]["parent_asin"] not in data.products:
                problem = f"{where}: target not in products"
            if problem and report(problem):
                return errors
    return errors


# --- entry points -------------------------------------------------------------------------------------------------


def generate(
    seed: int = 0, n_users: int = 60, n_products: int = 1500, tasks_per_user: int = 3, **options: Any
) -> PersonalWABData:
    """Seeded synthetic data in the official schema (see :mod:`personal_envs.personalwab.generator`)."""
    from personal_envs.personalwab.generator import generate as _generate

    return _generate(
        seed=seed, n_users=n_users, n_products=n_products, tasks_per_user=tasks_per_user, **options
    )


def default_data_dir() -> Path:
    """Where ``personal-envs data fetch personalwab`` puts the release: ``data_home()/personalwab``."""
    return data_home() / DATA_SUBDIR


def load(data_dir: str | Path | None = None, **generate_kwargs: Any) -> PersonalWABData:
    """The official release if available, else generated data.

    With ``data_dir`` the official files must be there (:class:`DataError` otherwise, listing what is missing).
    Without it, ``$PERSONAL_ENVS_DATA/personalwab`` (default ``~/.cache/personal-envs/personalwab``) is used when
    it holds the official files; otherwise ``generate(**generate_kwargs)``.
    """
    if data_dir is not None:
        return load_official(data_dir)
    candidate = default_data_dir()
    if candidate.is_dir() and not missing_official_files(candidate):
        return load_official(candidate)
    return generate(**generate_kwargs)
