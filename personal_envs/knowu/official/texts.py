"""Task sources: where the KnowU task classes and their texts come from, behind one protocol.

A task source gives the task classes (:class:`~personal_envs.knowu.official.source.OfficialClass`: tags, apps,
``supported_profiles``, literal attributes and constants) and the texts the families render, by *slot*
(:meth:`TaskSource.text`).  Two sources exist:

* the official release, parsed with :mod:`ast` (:class:`~personal_envs.knowu.official.source.OfficialSource`); its
  slots are rendered from the release's own methods here (:class:`OfficialTexts`: the walker and f-string renderer of
  :mod:`~personal_envs.knowu.official.template`, nothing imported or executed);
* the project's embedded cards (:class:`~personal_envs.knowu.official.embedded.EmbeddedSource`): project-written YAML,
  one card per official class name, slots filled with ``str.format_map``.

The builders of the three families only ever call :meth:`TaskSource.text`; which source runs is the env's choice.

Slots (the ``values`` each one reads):

=============================  =======================================================================================
``general.user_prompt``        ``goal``, ``app_names``, ``start``: the general user model's system prompt
``general.current_date``       ``app_names``, ``start``: today's date as the general user is told it
``general.judge_messages``     ``method``, ``plan``: the chat messages of a judged commute
``preference.request``         ``role`` (``stage="init"``: as the class holds it before its set-up hook): the request
``preference.goal``            ``request``, ``user_log_context``: the goal the official server hands the agent
``preference.rubric``          the rubric's slots (``occupation``, ``social``...)
``preference.user_context``    the hook's values (``persona_text``, ``user_profile``, helpers): the user's context
``preference.judge``           none: the judge protocol (:class:`~.preference.judge.JudgeProtocol`)
``persona``                    ``profile``: the persona text of a ``user_profile``
``user_system_prompt``         ``family``, ``relevant_information``: the preference / routine user's system prompt
``routine.goal``               the setup's values and ``user_log_context``: the agent's goal
``routine.user_context``       the setup's values, ``persona_text``, ``user_profile``: the user's context
``routine.instruction``        none: the routine instruction (also the RAG query over the logs)
=============================  =======================================================================================
"""

from __future__ import annotations

import ast
import functools
import json
from collections import ChainMap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from personal_envs.knowu.official import template as tpl
from personal_envs.knowu.official.release import DEFINITIONS, PACKAGE

if TYPE_CHECKING:
    from personal_envs.knowu.official.preference.judge import JudgeProtocol
    from personal_envs.knowu.official.source import OfficialClass

GENERAL_USER_PROMPT = "general.user_prompt"
GENERAL_DATE = "general.current_date"
GENERAL_JUDGE = "general.judge_messages"
PREFERENCE_REQUEST = "preference.request"
PREFERENCE_GOAL = "preference.goal"
PREFERENCE_RUBRIC = "preference.rubric"
PREFERENCE_CONTEXT = "preference.user_context"
PREFERENCE_JUDGE = "preference.judge"
PERSONA = "persona"
USER_SYSTEM_PROMPT = "user_system_prompt"
ROUTINE_GOAL = "routine.goal"
ROUTINE_CONTEXT = "routine.user_context"
ROUTINE_INSTRUCTION = "routine.instruction"
SLOTS: tuple[str, ...] = (GENERAL_USER_PROMPT, GENERAL_DATE, GENERAL_JUDGE, PREFERENCE_REQUEST, PREFERENCE_GOAL,
                          PREFERENCE_RUBRIC,
                          PREFERENCE_CONTEXT, PREFERENCE_JUDGE, PERSONA, USER_SYSTEM_PROMPT, ROUTINE_GOAL,
                          ROUTINE_CONTEXT, ROUTINE_INSTRUCTION)
NO_LOGS = "- (No logs available)"


class TaskSource(Protocol):
    """Where the task classes and their texts come from (official release or embedded cards)."""

    @property
    def label(self) -> str:
        """The task-set label of records and tables (``"KnowU-Bench 0dd7989"``...)."""

    @property
    def root(self) -> Path | None:
        """The release directory whose media files the tasks push (``None``: no official media)."""

    def tasks(self, family: str | None = None) -> list[OfficialClass]:
        """The task classes (no bases), of one family or all, sorted by family then name."""

    def get(self, name: str) -> OfficialClass:
        """The class ``name`` (``KeyError`` naming close names)."""

    def attribute(self, name: str, attr: str, default: Any = None) -> Any:
        """A literal class attribute, looked up through the class's bases."""

    def text(self, name: str, slot: str, values: Mapping[str, Any]) -> Any:
        """The text ``slot`` of class ``name`` rendered with ``values`` (see the module docstring)."""


# ================================================================================================ role tables
def role_entry(table: Any, role: str) -> Any:
    """The entry of a per-role table for ``role``: its own, else the official ``"user"`` entry (what the official
    code gives unknown roles), else the ``"default"`` entry of a project card."""
    if not isinstance(table, Mapping):
        return None
    for key in (role, "user", "default"):
        if key in table:
            return table[key]
    return None


def destination(cls: OfficialClass, role: str) -> dict[str, Any]:
    """The commute classes' per-role destination (``start_key``, ``dest_key``, ``dest_name``, ``goal``)."""
    entry = role_entry(cls.attributes.get("PROFILE_DESTINATIONS"), role)
    return dict(entry) if isinstance(entry, Mapping) else {}


def post_hint(cls: OfficialClass, role: str) -> tuple[str, str]:
    """The Mastodon privacy class's ``(topic, expected visibility)`` for ``role``."""
    value = role_entry(cls.module_constants.get("PROFILE_POST_HINTS", cls.attributes.get("PROFILE_POST_HINTS")),
                       role)
    if not isinstance(value, tuple | list) or len(value) < 2:
        return "", ""
    return str(value[0]), str(value[1])


def scenario(cls: OfficialClass, role: str) -> dict[str, Any]:
    """The important-SMS class's per-role scenario (sender, message, whether it is important)."""
    method = cls.methods.get("_get_profile_scenario")
    table = method.value("scenarios") if method is not None else cls.attributes.get("SCENARIOS")
    entry = role_entry(table, role)
    return dict(entry) if isinstance(entry, Mapping) else {}


# ================================================================================================ persona
def build_persona(profile: Mapping[str, Any], opening: list[str], headings: Sequence[str]) -> str:
    """The persona text of a ``user_profile`` as the official ``PersonaPromptBuilder`` lays it out: ``opening`` lines
    and the 13 ``headings`` (contact, documents, other identity, places, digital context, habits, preferences,
    social, decision header and line, extra, situation header and line)."""
    (contact_h, docs_h, other_h, places_h, digital_h, habits_h, prefs_h, social_h, decision_h, decision_line,
     extra_h, situation_h, situation_line) = headings[:13]
    identity = profile.get("identity") or {}
    lines = list(opening)
    skip = {"full_name", "age", "occupation", "employer"}
    for key, title in (("contact_info", contact_h), ("auth_documents", docs_h)):
        if key in identity:
            lines.append(title)
            lines += [f"- {k.replace('_', ' ').title()}: {v}" for k, v in identity[key].items()]
            skip.add(key)
    other = {k: v for k, v in identity.items() if k not in skip}
    if other:
        lines.append(other_h)
        lines += [f"- {k.replace('_', ' ').title()}: {v}" for k, v in other.items()]
    lines.append("")

    def dumps(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    locations = profile.get("locations") or {}
    if locations:
        lines.append(places_h)
        for key, val in locations.items():
            if isinstance(val, Mapping):
                extra = f" (Instruction: {val.get('instructions')})" if val.get("instructions") else ""
                lines.append(f"- {key.capitalize()}: {val.get('address', 'Unknown')}{extra}")
            else:
                lines.append(f"- {key.capitalize()}: {val}")
        lines.append("")
    for key, title in (("digital_context", digital_h), ("habits", habits_h), ("preferences", prefs_h)):
        section = profile.get(key) or {}
        if section:
            lines.append(title)
            lines += [f"- {k.replace('_', ' ').title()}: {dumps(v)}" for k, v in section.items()]
            lines.append("")
    social = profile.get("social_graph") or {}
    if social:
        lines.append(social_h)
        for group, people in social.items():
            lines.append(f"[{group.replace('_', ' ').title()} Contacts]:")
            for person in people if isinstance(people, list) else []:
                if isinstance(person, Mapping):
                    text = (f"  - Name: {person.get('name', 'Unknown')} | Role: {person.get('role', 'N/A')} | "
                            f"Strategy: {person.get('instruction', 'N/A')}")
                    extras = {k: v for k, v in person.items() if k not in ("name", "role", "instruction")}
                    lines.append(text + (f" | Info: {dumps(extras)}" if extras else ""))
                else:
                    lines.append(f"  - {person}")
        lines.append("")
    criteria = profile.get("decision_criteria") or {}
    if criteria:
        lines += [decision_h, decision_line]
        for key, items in criteria.items():
            shown = ", ".join(str(i) for i in items) if isinstance(items, list) else dumps(items)
            lines.append(f"- {key.replace('_', ' ').title()}: {shown}")
        lines.append("")
    known = {"identity", "locations", "digital_context", "habits", "preferences", "social_graph", "decision_criteria"}
    unknown = {k: v for k, v in profile.items() if k not in known}
    if unknown:
        lines.append(extra_h)
        lines += [f"- {k.replace('_', ' ').title()}: {dumps(v)}" for k, v in unknown.items()]
        lines.append("")
    lines += [situation_h, situation_line]
    return "\n".join(lines)


# ============================================================================================ official texts
PROMPT_BUILDER = f"{PACKAGE}/runtime/utils/prompt_builder.py"
ROUTINE_BASE, PREFERENCE_BASE, GENERAL_BASE = "BaseRoutineTask", "BasePrefrenceTask", "BaseTask"
JUDGE_BASE_FILE = f"{DEFINITIONS}/preference/base_prefrence_task.py"


class OfficialTexts:
    """The slots of an official release, rendered from its methods (see the module docstring).

    Args:
        root: The release directory.
    """

    def __init__(self, root: Path) -> None:
        self.root = root

    def folder(self, family: str) -> tpl.TextSource:
        """The parsed definitions of a family (``"general"`` is the ``tasks/`` package with ``BaseTask``)."""
        where = self.root.resolve() / (f"{PACKAGE}/tasks" if family == "general" else f"{DEFINITIONS}/{family}")
        return tpl.text_source(str(where))

    def text(self, cls: OfficialClass | None, slot: str, values: Mapping[str, Any]) -> Any:
        """The official rendering of ``slot`` (``cls`` is ``None`` for class-independent slots)."""
        handler = _OFFICIAL.get(slot)
        if handler is None:
            raise tpl.TemplateError(f"unknown text slot {slot!r}; known: {', '.join(SLOTS)}")
        return handler(self, cls, values)

    # -------------------------------------------------------------------------------------------- general
    def current_date(self, cls: OfficialClass | None, values: Mapping[str, Any]) -> str:
        walked = self.folder("general").run(GENERAL_BASE, "__init__", {"app_names": sorted(values["app_names"])},
                                            [None], globals_={"datetime": tpl.Clock(values["start"])})
        found = walked.attributes.get("current_date")
        if not isinstance(found, str):
            raise tpl.TemplateError(f"the release's {GENERAL_BASE}.__init__ set no current_date")
        return found

    def general_user_prompt(self, cls: OfficialClass | None, values: Mapping[str, Any]) -> str:
        controller = tpl.Record()
        today = self.current_date(cls, values)
        self.folder("general").run(GENERAL_BASE, "initialize_user_agent_hook",
                                   {"goal": values["goal"], "current_date": today}, [controller])
        prompt = getattr(controller, "user_sys_prompt", None)
        if not isinstance(prompt, str):
            raise tpl.TemplateError(f"the release's {GENERAL_BASE}.initialize_user_agent_hook set no user_sys_prompt")
        return prompt

    def judge_messages(self, cls: OfficialClass | None, values: Mapping[str, Any]) -> list[dict[str, str]]:
        assert cls is not None
        found = cls.method(str(values["method"]))
        prompt = found.templates.get("eval_prompt", "{agent_plan}").replace("{agent_plan}", str(values["plan"]))
        return [{"role": m["role"], "content": m["content"].replace("{eval_prompt}", prompt)}
                for m in found.messages]

    # ----------------------------------------------------------------------------------------- preference
    def request(self, cls: OfficialClass | None, values: Mapping[str, Any]) -> str:
        """``GOAL_REQUEST``, or its per-role form (commute destinations, Mastodon topics).  With ``stage="init"``
        the request as the class holds it once built, before ``initialize_task_hook`` runs: what its log retrieval
        queries and what the official server's ``/task/goal`` shows (the four commutes set theirs in the hook)."""
        assert cls is not None and cls.tree is not None
        role = str(values["role"])
        at_init = values.get("stage") == "init"
        base = str(cls.attributes.get("GOAL_REQUEST", "")).strip()
        dest = destination(cls, role)
        if dest.get("goal") and not at_init:
            return str(dest["goal"]).strip()
        for method in ("__init__",) if at_init else ("initialize_task_hook", "__init__"):
            try:
                func = tpl.method(cls.tree, cls.name, method)
            except KeyError:
                continue
            expr = next((v for v in tpl.assigned(func, "GOAL_REQUEST") if isinstance(v, ast.JoinedStr | ast.Constant)),
                        None)
            if expr is None:
                continue
            slots: dict[str, Any] = {}
            if dest:
                slots["dest_name"] = dest.get("dest_name", "")
            if "PROFILE_POST_HINTS" in cls.module_constants:
                slots["topic"] = post_hint(cls, role)[0]
            try:
                return tpl.render(expr, slots).strip()
            except tpl.MissingSlot:
                continue
        return base

    def preference_goal(self, cls: OfficialClass | None, values: Mapping[str, Any]) -> str:
        """The official ``BasePrefrenceTask.goal``: the logs section, then the request."""
        given = {"GOAL_REQUEST": values["request"], "user_log_context": values.get("user_log_context") or ""}
        return str(self.folder("preference").render_return(PREFERENCE_BASE, "goal", given))

    def rubric(self, cls: OfficialClass | None, values: Mapping[str, Any]) -> str:
        assert cls is not None and cls.tree is not None
        func = tpl.method(cls.tree, cls.name, "is_successful")
        found = tpl.assigned(func, "rubric") or tpl.keyword_args(func, "query_user_agent_judge", "rubric")
        if not found:
            raise tpl.TemplateError(f"{cls.path}: no rubric in {cls.name}.is_successful")
        return tpl.render(found[0], ChainMap(values, cls.attributes))  # type: ignore[arg-type]

    def preference_context(self, cls: OfficialClass | None, values: Mapping[str, Any]) -> str:
        assert cls is not None
        walked = self.folder("preference").run(cls.name, "initialize_task_hook", dict(values), [tpl.Record()])
        info = walked.attributes.get("relevant_information")
        if not isinstance(info, str):
            raise tpl.TemplateError(f"{cls.name}: the official hook set no relevant_information "
                                    f"(skipped: {'; '.join(walked.skipped[-3:])})")
        return info

    def user_system_prompt(self, cls: OfficialClass | None, values: Mapping[str, Any]) -> str:
        family = str(values.get("family", "preference"))
        base = ROUTINE_BASE if family == "routine" else PREFERENCE_BASE
        controller = tpl.Record()
        self.folder(family).run(base, "_set_user_sys_prompt",
                                {"relevant_information": values["relevant_information"]}, [controller])
        prompt = getattr(controller, "user_sys_prompt", None)
        if not isinstance(prompt, str):
            raise tpl.TemplateError(f"{base}._set_user_sys_prompt set no user_sys_prompt")
        return prompt

    def judge(self, cls: OfficialClass | None, values: Mapping[str, Any]) -> JudgeProtocol:
        return official_judge_protocol(str(self.root.resolve()))

    # ------------------------------------------------------------------------------------------- persona
    def persona(self, cls: OfficialClass | None, values: Mapping[str, Any]) -> str:
        profile = values["profile"]
        opening, headings = persona_strings(str(self.root.resolve()))
        identity = profile.get("identity") or {}
        this = tpl._Self({"identity": identity, "profile": profile}, tpl.TextSource.__new__(tpl.TextSource), "")
        return build_persona(profile, [str(tpl._evaluate(node, {}, this)) for node in opening], headings)

    # ------------------------------------------------------------------------------------------- routine
    def _routine_values(self, values: Mapping[str, Any]) -> dict[str, Any]:
        found = dict(values)
        found.setdefault("expectation", {"should_act": bool(values.get("should_act")), "actions": []})
        return found

    def routine_goal(self, cls: OfficialClass | None, values: Mapping[str, Any]) -> str:
        assert cls is not None
        given = self._routine_values(values)
        given["user_log_context"] = given.get("user_log_context") or NO_LOGS
        folder = self.folder("routine")
        kwargs = folder.call_arguments(cls.name, "__init__", "_build_goal", given)
        return str(folder.render_return(cls.name, "_build_goal", given, kwargs))

    def routine_context(self, cls: OfficialClass | None, values: Mapping[str, Any]) -> str:
        assert cls is not None
        given = self._routine_values(values)
        folder = self.folder("routine")
        kwargs = folder.call_arguments(cls.name, "initialize_task_hook", "_build_relevant_information", given)
        return str(folder.render_return(cls.name, "_build_relevant_information", given, kwargs))

    def routine_instruction(self, cls: OfficialClass | None, values: Mapping[str, Any]) -> str:
        return str(self.folder("routine").literal(ROUTINE_BASE, "GOAL_INSTRUCTION"))


_OFFICIAL: dict[str, Callable[[OfficialTexts, Any, Mapping[str, Any]], Any]] = {
    GENERAL_USER_PROMPT: OfficialTexts.general_user_prompt, GENERAL_DATE: OfficialTexts.current_date,
    GENERAL_JUDGE: OfficialTexts.judge_messages, PREFERENCE_REQUEST: OfficialTexts.request,
    PREFERENCE_GOAL: OfficialTexts.preference_goal,
    PREFERENCE_RUBRIC: OfficialTexts.rubric, PREFERENCE_CONTEXT: OfficialTexts.preference_context,
    PREFERENCE_JUDGE: OfficialTexts.judge, PERSONA: OfficialTexts.persona,
    USER_SYSTEM_PROMPT: OfficialTexts.user_system_prompt, ROUTINE_GOAL: OfficialTexts.routine_goal,
    ROUTINE_CONTEXT: OfficialTexts.routine_context, ROUTINE_INSTRUCTION: OfficialTexts.routine_instruction,
}


@functools.lru_cache(maxsize=4)
def persona_strings(root: str) -> tuple[list[ast.expr], list[str]]:
    """The official persona builder's texts, read from the release: the opening lines (expressions over
    ``self.identity``) and, in source order, every non-empty literal it appends (section headers and sentences)."""
    tree = ast.parse((Path(root) / PROMPT_BUILDER).read_text(encoding="utf-8"))
    method = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "build_system_prompt")
    opening = next(n.value.elts for n in ast.walk(method) if isinstance(n, ast.Assign)
                   and isinstance(n.value, ast.List))
    appended = sorted((n.lineno, n.args[0].value) for n in ast.walk(method) if isinstance(n, ast.Call)
                      and isinstance(n.func, ast.Attribute) and n.func.attr == "append" and n.args
                      and isinstance(n.args[0], ast.Constant) and n.args[0].value)
    return list(opening), [str(v) for _, v in appended]


def _constants(node: ast.AST) -> list[str]:
    """String constants of a ``+`` chain, left to right, outside calls."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _constants(node.left) + _constants(node.right)
    return []


@functools.lru_cache(maxsize=4)
def official_judge_protocol(root: str) -> JudgeProtocol:
    """The official preference judge texts and request settings (``query_user_agent_judge`` of the release)."""
    from personal_envs.knowu.official.preference.judge import JudgeProtocol

    path = Path(root) / JUDGE_BASE_FILE
    if not path.is_file():
        raise FileNotFoundError(f"no official preference base {JUDGE_BASE_FILE} under {root}")
    func = tpl.method(tpl.parse(path), PREFERENCE_BASE, "query_user_agent_judge")
    prompt = tpl.assigned(func, "eval_prompt")
    history = tpl.assigned(func, "history_block")
    role = [v for v in tpl.assigned(func, "role") if isinstance(v, ast.IfExp)]
    hint = [v for v in tpl.assigned(func, "image_hint") if isinstance(v, ast.IfExp)]
    if not (prompt and history and role and hint):
        raise ValueError(f"{path}: the official judge prompt is not where the project reads it "
                         "(eval_prompt, history_block, role, image_hint)")
    parts = [p for value in history for p in _constants(value) if p]
    turn_lines = [node.args[0] for node in ast.walk(func) if isinstance(node, ast.Call)
                  and isinstance(node.func, ast.Attribute) and node.func.attr == "append" and node.args
                  and isinstance(node.args[0], ast.JoinedStr)]
    system = ""
    for node in ast.walk(func):
        if isinstance(node, ast.Dict):
            entries = {ast.literal_eval(k): v for k, v in zip(node.keys, node.values, strict=True)
                       if isinstance(k, ast.Constant)}
            role_node = entries.get("role")
            if isinstance(role_node, ast.Constant) and role_node.value == "system":
                system = tpl.render(entries["content"], {})
    temperature = tpl.keyword_args(func, "create", "temperature")
    max_tokens = tpl.keyword_args(func, "create", "max_tokens")
    if len(parts) < 2 or not turn_lines or not system or not temperature or not max_tokens:
        raise ValueError(f"{path}: the official judge request is not where the project reads it")
    eval_prompt, turn_line = prompt[0], turn_lines[0]
    return JudgeProtocol(lambda ns: tpl.render(eval_prompt, ns), parts[0], parts[-1],
                         lambda ns: tpl.render(turn_line, ns), tpl.render(role[0].body, {}),
                         tpl.render(role[0].orelse, {}), tpl.render(hint[0].body, {}), system,
                         float(ast.literal_eval(temperature[0])), int(ast.literal_eval(max_tokens[0])))


def passes_chat(cls: OfficialClass) -> bool:
    """Whether the class's ``is_successful`` hands the dialogue to the judge (``chat_history=``; a card says it with
    ``JUDGE_SEES_CHAT``)."""
    if "JUDGE_SEES_CHAT" in cls.attributes:
        return bool(cls.attributes["JUDGE_SEES_CHAT"])
    method = cls.methods.get("is_successful")
    return method is not None and any(c.func == "query_user_agent_judge" and "chat_history" in c.kwargs
                                      for c in method.calls)
