"""Official PersonalWAB texts, read at run time from the official source files, never shipped with this package.

``personal-envs data fetch personalwab`` stores the official source files listed in
:data:`personal_envs.personalwab.download.TEXT_FILES` under ``official/`` in the data directory (the LLM user's
module, the env's system prompts, the five functions with their tool descriptions, the agents and their prompts and
memory templates, PUMA's prompts).  Their string and dict constants are read with ``ast.literal_eval``; nothing in
them is executed.  :func:`load_user_texts` reads the user's texts; :class:`Release` everything else.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from personal_envs.core.download import data_home

#: Where the official source files are stored under the PersonalWAB data directory.
OFFICIAL_DIR = Path("official")

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
    from personal_envs.personalwab.functions import fill_product

    return fill_product(texts.product_template, product)


def official_user_prompt(texts: UserTexts, profile: dict[str, Any], task: dict[str, Any]) -> str:
    """The official LLM user's system prompt for a task (the review prompt adds the real review's text)."""
    values = {"PROFILE": official_profile(texts, profile), "PRODUCT": official_product(texts, task.get("product") or {})}
    if task.get("type") == "review":
        values["REVIEW"] = str((task.get("review") or {}).get("text", ""))
        return _fill(texts.review_prompt, values)
    return _fill(texts.prompt, values)


# ------------------------------------------------------------------------------------------------- the release


def module_constants(path: Path) -> dict[str, Any]:
    """The module-level constants of a Python source file (``NAME = <literal>``), read without executing it, and
    its functions' ``<function>.__info__ = {...}`` tool descriptions under the key ``"<function>.__info__"``."""
    values: dict[str, Any] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target = node.targets[0]
        if isinstance(target, ast.Name):
            name = target.id
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            name = f"{target.value.id}.{target.attr}"
        else:
            continue
        try:
            values[name] = ast.literal_eval(node.value)
        except ValueError:
            continue
    return values


def branch_literals(path: Path, method: str, kind: str) -> list[str]:
    """The string literals assigned to ``mem`` in the branch ``if memory == kind`` of a method (the official
    agents' memory headers), in source order; an f-string comes back as a ``str.format`` template."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for function in ast.walk(tree):
        if not (isinstance(function, ast.FunctionDef) and function.name == method):
            continue
        for branch in ast.walk(function):
            if not (isinstance(branch, ast.If) and isinstance(branch.test, ast.Compare)
                    and isinstance(branch.test.left, ast.Name) and branch.test.left.id == "memory"
                    and isinstance(branch.test.comparators[0], ast.Constant)
                    and branch.test.comparators[0].value == kind):
                continue
            pieces: list[str] = []
            for statement in branch.body:
                if (isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Name)
                        and statement.targets[0].id == "mem"):
                    pieces.extend(_top_level_literals(statement.value))
            return pieces
    return []


def _top_level_literals(node: ast.expr) -> list[str]:
    if isinstance(node, ast.BinOp):
        return _top_level_literals(node.left) + _top_level_literals(node.right)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value).replace("{", "{{").replace("}", "}}"))
            elif isinstance(value, ast.FormattedValue) and isinstance(value.value, ast.Name):
                parts.append("{" + value.value.id + "}")
        return ["".join(parts)]
    return []


class Release:
    """The official texts of the release in ``root`` (default ``$PERSONAL_ENVS_DATA/personalwab/official``).

    Each accessor returns ``None`` when its file is absent, so callers fall back to the project's own wording.
    """

    #: The official function modules, in the order of the official ``functions`` list.
    FUNCTIONS: tuple[str, ...] = ("search_product_by_query", "get_recommendations_by_history", "add_product_review",
                                  "get_product_details_by_asin", "stop")

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root) if root is not None else data_home() / "personalwab" / OFFICIAL_DIR
        self._cache: dict[str, dict[str, Any]] = {}

    def path(self, relpath: str) -> Path:
        """Where a release file (a path under ``official/``) is stored."""
        return self.root / relpath

    def has(self, relpath: str) -> bool:
        """Whether the file is present."""
        return self.path(relpath).is_file()

    def constants(self, relpath: str) -> dict[str, Any] | None:
        """The constants of a release file (see :func:`module_constants`), ``None`` if the file is absent."""
        if relpath not in self._cache:
            if not self.has(relpath):
                return None
            self._cache[relpath] = module_constants(self.path(relpath))
        return self._cache[relpath]

    def constant(self, relpath: str, name: str) -> Any:
        """One constant; ``None`` if the file is absent.

        Raises:
            ValueError: the file is there but does not define ``name`` (not the official file).
        """
        values = self.constants(relpath)
        if values is None:
            return None
        if name not in values:
            raise ValueError(f"{self.path(relpath)} does not define {name}: not the official PersonalWAB file")
        return values[name]

    def function_info(self, function: str) -> dict[str, Any] | None:
        """The official tool description (``__info__``) of a function, ``None`` without its module."""
        info = self.constant(f"functions/{function}.py", f"{function}.__info__")
        return dict(info) if info is not None else None

    def function_infos(self, names: tuple[str, ...] | None = None) -> list[dict[str, Any]] | None:
        """The tool descriptions in the official order (all five, or ``names``), ``None`` if any module is absent."""
        infos = [self.function_info(name) for name in (names or self.FUNCTIONS)]
        return None if any(info is None for info in infos) else [info for info in infos if info is not None]

    def system_prompt(self, multi: bool, max_steps: int = 10) -> str | None:
        """The env's system prompt (``SYS_PROMPT_SINGLE``, or ``SYS_PROMPT_MULTI`` with the step limit)."""
        if multi:
            prompt = self.constant("envs/pwab/__init__.py", "SYS_PROMPT_MULTI")
            return None if prompt is None else str(prompt).replace("<NUM>", str(max_steps))
        prompt = self.constant("envs/pwab/__init__.py", "SYS_PROMPT_SINGLE")
        return None if prompt is None else str(prompt)

    def agent_text(self, name: str) -> str | None:
        """A prompt or template of the official agents' ``utils.py`` (``HISTORY_PROMPT``, ``REACT_INST``, ...)."""
        text = self.constant("agents/utils.py", name)
        return None if text is None else str(text)

    def memory_pieces(self, kind: str, agent: str = "gpt_function_calling_agent") -> list[str] | None:
        """The literal pieces of the memory text an official agent builds for a memory kind (its headers)."""
        relpath = f"agents/{agent}.py"
        if not self.has(relpath):
            return None
        return branch_literals(self.path(relpath), "retrieve_memory", kind)


def release_for(data_source: str) -> Release:
    """The release texts that go with a dataset: ``<data_dir>/official`` of an official release when present,
    else the data cache's (``personal-envs data fetch personalwab``)."""
    if data_source.startswith("official:"):
        local = Path(data_source.split(":", 1)[1]) / OFFICIAL_DIR
        if local.is_dir():
            return Release(local)
    return Release()
