"""The project's embedded task cards: the task source that runs when no official release is present.

``knowu/data/tasks/{general,preference,routine}.yaml`` hold one *card* per official class name, written for this
project (no official text: a test checks that no 40-character run of a card occurs in the release).  A card is the
YAML form of what the ast parser extracts from an official class, so the same builders read it:

* ``tags``, ``apps``, ``supported_profiles`` (persona ids of a persona set), ``attributes`` and ``module_constants``
  (the literal constants the checks read), ``methods: {method: {variable: value}}`` and ``calls: {function:
  {keyword: value}}`` (literals the official code keeps inside methods);
* the texts, one per slot of :mod:`~personal_envs.knowu.official.texts`: ``goal`` (general), ``request`` (a string or a
  per-persona table with a ``default`` row), ``rubric`` and ``user_context`` (preference), ``judge`` (the two judged
  commutes), ``system_context``, ``current_context``, ``routine_status`` and ``on_accept`` (routine).

``texts.yaml`` holds the family frames (the general user prompt, the routine goal and user context, the preference
user context, the judge prompt, the persona headings).  A text is filled with ``str.format_map`` over the slot's
values; a missing value raises :class:`~personal_envs.knowu.official.template.TemplateError` naming card and slot.
"""

from __future__ import annotations

import functools
import string
from collections import ChainMap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from personal_envs.core.schema import read_yaml
from personal_envs.knowu.official.source import (
    FAMILIES,
    OfficialCall,
    OfficialClass,
    OfficialMethod,
    class_named,
    task_classes,
)
from personal_envs.knowu.official.template import TemplateError
from personal_envs.knowu.official.texts import (
    GENERAL_DATE,
    GENERAL_JUDGE,
    GENERAL_USER_PROMPT,
    PERSONA,
    PREFERENCE_CONTEXT,
    PREFERENCE_GOAL,
    PREFERENCE_JUDGE,
    PREFERENCE_REQUEST,
    PREFERENCE_RUBRIC,
    ROUTINE_CONTEXT,
    ROUTINE_GOAL,
    ROUTINE_INSTRUCTION,
    SLOTS,
    USER_SYSTEM_PROMPT,
    build_persona,
    destination,
    role_entry,
    scenario,
)

TASKS_DIR = Path(__file__).resolve().parents[1] / "data" / "tasks"
EMBEDDED_LABEL = "personal-envs KnowU tasks (embedded)"
NO_LOGS = "- (No logs available)"


class _Values(Mapping[str, Any]):
    """The values of a slot for ``format_map``: helpers (callables) are called when read; a missing name raises
    :class:`TemplateError` naming the card and the slot."""

    def __init__(self, given: Mapping[str, Any], where: str) -> None:
        self.given, self.where = given, where

    def __getitem__(self, key: str) -> Any:
        if key not in self.given:
            raise TemplateError(f"{self.where}: no value for {{{key}}}")
        value = self.given[key]
        return value() if callable(value) else value

    def __iter__(self) -> Any:
        return iter(self.given)

    def __len__(self) -> int:
        return len(self.given)


def fill(text: str, values: Mapping[str, Any], where: str) -> str:
    """``text`` with its ``{fields}`` filled from ``values`` (see :class:`_Values`)."""
    try:
        return string.Formatter().vformat(text, (), _Values(values, where))
    except (KeyError, IndexError, AttributeError) as exc:
        raise TemplateError(f"{where}: cannot fill {exc}") from None


def _frozen(value: Any) -> Any:
    """YAML lists of the checks' tables as the tuples the official literals are (mappings kept)."""
    return tuple(value) if isinstance(value, list) and all(not isinstance(v, Mapping) for v in value) else value


def card_class(name: str, family: str, card: Mapping[str, Any]) -> OfficialClass:
    """The :class:`OfficialClass` a card stands for (literal attributes, constants, method literals, calls)."""
    attributes: dict[str, Any] = {k: _frozen(v) for k, v in (card.get("attributes") or {}).items()}
    attributes["task_tags"] = set(card.get("tags") or ())
    attributes["app_names"] = set(card.get("apps") or ())
    if card.get("supported_profiles") is not None:
        attributes["supported_profiles"] = set(card["supported_profiles"])
    if isinstance(card.get("goal"), str):
        attributes["goal"] = card["goal"]
    if isinstance(card.get("request"), str):
        attributes["GOAL_REQUEST"] = card["request"]
    methods = {m: OfficialMethod(m, assigned={k: [_frozen(v)] for k, v in (values or {}).items()})
               for m, values in (card.get("methods") or {}).items()}
    calls = [OfficialCall(func, (), dict(kwargs or {}), line) for line, (func, kwargs)
             in enumerate((card.get("calls") or {}).items())]
    if calls:
        methods.setdefault("initialize_task_hook", OfficialMethod("initialize_task_hook")).calls.extend(calls)
    constants = {k: _frozen(v) for k, v in (card.get("module_constants") or {}).items()}
    return OfficialClass(name, family, f"personal_envs/knowu/data/tasks/{family}.yaml", (), str(card.get("doc", "")),
                         attributes=attributes, methods=methods, module_constants=constants)


class EmbeddedSource:
    """The embedded cards as a :class:`~personal_envs.knowu.official.texts.TaskSource`.

    Args:
        folder: The folder of ``general.yaml``, ``preference.yaml``, ``routine.yaml`` and ``texts.yaml``.
    """

    label = EMBEDDED_LABEL
    root: Path | None = None

    def __init__(self, folder: str | Path = TASKS_DIR) -> None:
        self.folder = Path(folder)
        self.cards: dict[str, dict[str, Any]] = {}
        self.classes: dict[str, OfficialClass] = {}
        for family in FAMILIES:
            data = read_yaml(self.folder / f"{family}.yaml", f"KnowU {family} cards")
            for name, card in (data or {}).items():
                self.cards[name] = dict(card)
                self.classes[name] = card_class(name, family, card)
        self.frames: dict[str, Any] = dict(read_yaml(self.folder / "texts.yaml", "KnowU text frames") or {})

    # ---------------------------------------------------------------------------------------- classes
    def tasks(self, family: str | None = None) -> list[OfficialClass]:
        """The cards' classes, of one family or all, sorted by family then name."""
        return task_classes(self.classes, family)

    def get(self, name: str) -> OfficialClass:
        """The class of card ``name`` (``KeyError`` with close names)."""
        return class_named(self.classes, name, f"task class {name!r} in {self.label}")

    def attribute(self, name: str, attr: str, default: Any = None) -> Any:
        """A literal attribute of card ``name`` (cards have no bases)."""
        cls = self.classes.get(name)
        return cls.attributes.get(attr, default) if cls is not None else default

    # ------------------------------------------------------------------------------------------ texts
    def _card_text(self, name: str, key: str) -> Any:
        card = self.cards.get(name)
        if card is None:
            raise TemplateError(f"{self.label}: no card {name!r}")
        if key not in card:
            raise TemplateError(f"card {name}: no {key!r} text")
        return card[key]

    def _frame(self, *path: str) -> str:
        node: Any = self.frames
        for part in path:
            if not isinstance(node, Mapping) or part not in node:
                raise TemplateError(f"texts.yaml: no frame {'.'.join(path)}")
            node = node[part]
        return str(node)

    def _hook_facts(self, name: str, values: Mapping[str, Any]) -> dict[str, Any]:
        """What a card's user context may name besides the hook values: the commute's ``origin`` and
        ``destination`` addresses, the SMS scenario's fields."""
        cls, role = self.classes[name], str(values.get("role", ""))
        facts: dict[str, Any] = dict(scenario(cls, role))
        dest = destination(cls, role)
        if dest:
            places = (values.get("user_profile") or {}).get("locations") or {}
            for key, side in (("start_key", "origin"), ("dest_key", "destination")):
                place = places.get(str(dest.get(key, "")), {})
                facts[side] = place.get("address", "") if isinstance(place, Mapping) else str(place)
        return facts

    def text(self, name: str, slot: str, values: Mapping[str, Any]) -> Any:
        """The text ``slot`` of card ``name`` filled from ``values``."""
        where = f"card {name}, slot {slot}"
        if slot == GENERAL_DATE:
            return values["start"].strftime("%Y-%m-%d")
        if slot == GENERAL_USER_PROMPT:
            today = values["start"].strftime("%Y-%m-%d")
            return fill(self._frame("general", "user_prompt"), {"goal": values["goal"], "today": today}, where)
        if slot == GENERAL_JUDGE:
            judge = self._card_text(name, "judge")[str(values["method"])]
            prompt = fill(str(judge["prompt"]), {"agent_plan": values["plan"]}, where)
            return [{"role": "system", "content": str(judge["system"])}, {"role": "user", "content": prompt}]
        if slot == PREFERENCE_REQUEST:
            request = self._card_text(name, "request")
            found = role_entry(request, str(values["role"])) if isinstance(request, Mapping) else request
            if found is None:
                raise TemplateError(f"{where}: no request for {values['role']!r} and no default row")
            return str(found).strip()
        if slot == PREFERENCE_GOAL:
            return fill(self._frame("preference", "goal"),
                        {"request": values["request"], "user_log_context": values.get("user_log_context") or NO_LOGS},
                        where)
        if slot == PREFERENCE_RUBRIC:
            return fill(str(self._card_text(name, "rubric")), ChainMap(dict(values), self.classes[name].attributes),
                        where)
        if slot == PREFERENCE_CONTEXT:
            hook = ChainMap(dict(values), self._hook_facts(name, values), self.classes[name].attributes,
                            self.classes[name].module_constants)
            context = fill(str(self._card_text(name, "user_context")), hook, where)
            return fill(self._frame("preference", "user_context"), {**values, "context": context}, where)
        if slot == PREFERENCE_JUDGE:
            return embedded_judge_protocol(str(self.folder))
        if slot == PERSONA:
            profile = values["profile"]
            identity = profile.get("identity") or {}
            opening = [fill(line, {"name": identity.get("full_name", "the user"),
                                   "age": identity.get("age", "unknown"),
                                   "occupation": identity.get("occupation", "unknown"),
                                   "employer": identity.get("employer", "unknown")}, where)
                       for line in self.frames["persona"]["opening"]]
            return build_persona(profile, opening, [str(h) for h in self.frames["persona"]["headings"]])
        if slot == USER_SYSTEM_PROMPT:
            return fill(self._frame("user_system_prompt"), values, where)
        if slot == ROUTINE_INSTRUCTION:
            return self._frame("routine", "instruction").strip()
        if slot == ROUTINE_GOAL:
            given = {**values, "user_log_context": values.get("user_log_context") or NO_LOGS}
            system = fill(str(self.cards[name].get("system_context", "")), given, where)
            return fill(self._frame("routine", "goal"), {**given, "system_context": system,
                                                         "instruction": self._frame("routine", "instruction").strip()},
                        where)
        if slot == ROUTINE_CONTEXT:
            card = self.cards[name]
            status = self._card_text(name, "routine_status") if "routine_status" in card \
                else self.frames["routine"]["routine_status"]
            state = status["applies" if values.get("should_act") else "absent"]
            on_accept = fill(str(card.get("on_accept", "")), values, where)
            return fill(self._frame("routine", "user_context"), {
                **values, "current_context": fill(str(self._card_text(name, "current_context")), values, where),
                "routine_status": state, "on_accept": f"\n{on_accept}\n" if on_accept else ""}, where)
        raise TemplateError(f"unknown text slot {slot!r}; known: {', '.join(SLOTS)}")


@functools.lru_cache(maxsize=4)
def embedded_source(folder: str = str(TASKS_DIR)) -> EmbeddedSource:
    """The embedded cards of ``folder`` (read once)."""
    return EmbeddedSource(folder)


@functools.lru_cache(maxsize=4)
def embedded_judge_protocol(folder: str) -> Any:
    """The project's preference judge texts (``texts.yaml`` ``judge``), with the official request settings."""
    from personal_envs.knowu.official.preference.judge import JudgeProtocol

    frames = read_yaml(Path(folder) / "texts.yaml", "KnowU text frames")
    judge = frames["judge"]
    where = "texts.yaml judge"
    return JudgeProtocol(lambda ns: fill(str(judge["prompt"]), ns, where), str(judge["history_header"]),
                         str(judge["history_footer"]), lambda ns: fill(str(judge["turn_line"]), ns, where),
                         str(judge["agent_label"]), str(judge["user_label"]), str(judge["image_hint"]),
                         str(judge["system"]), float(judge["temperature"]), int(judge["max_tokens"]))
