"""Preference variants (``"BuyColaPreferenceTask@developer"``) as phone tasks: one task class for the family.

:func:`build_variant` turns a class of a task source and a persona (an official role, a default or generated persona,
or any profile in the official format) into a :class:`PreferenceTask`:

* the request: the source's ``preference.request`` slot (officially ``GOAL_REQUEST`` or its per-role form);
* the world: the class's persona-independent world (:func:`~personal_envs.knowu.world.preference_world`: catalogs,
  carts, menus, timeline, channels), with the official per-persona seeding on top where the official setup has
  one (the important-SMS sender and message, Mom from the social graph, the inviter's number, the user's own photo
  from ``cache/users/<name>/``, the class's Download files);
* the score: the official rule base and combination (:mod:`.scoring`) with the judge protocol (:mod:`.judge`);
  without an endpoint the judge part is the deterministic judge written from the class's rubric
  (:mod:`.rubric_fallback`), labelled in every record;
* the oracle plan: the goals of the same rubric reading (:func:`~personal_envs.knowu.oracle.plan`).
"""

from __future__ import annotations

import ast
import copy
import functools
import textwrap
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

import yaml

from personal_envs.core.task import Check, EpisodeTrace, Evaluation
from personal_envs.knowu.official.llm_user import OfficialLLMUser
from personal_envs.knowu.official.preference.judge import JudgeVerdict, OfficialPreferenceJudge
from personal_envs.knowu.official.preference.reading import SORT_IDS
from personal_envs.knowu.official.preference.rubric_fallback import BUILDERS, ClassRubric, Reading
from personal_envs.knowu.official.preference.scoring import LAMBDAS, SCORERS, Context, OfficialScore
from personal_envs.knowu.official.preference.user import (
    OfficialPreferenceUser,
    StatedFact,
    stated_facts,
    stem,
)
from personal_envs.knowu.official.source import OfficialClass
from personal_envs.knowu.official.texts import (
    PERSONA,
    PREFERENCE_CONTEXT,
    PREFERENCE_GOAL,
    PREFERENCE_JUDGE,
    PREFERENCE_REQUEST,
    PREFERENCE_RUBRIC,
    USER_SYSTEM_PROMPT,
    TaskSource,
    destination,
    passes_chat,
    post_hint,
    scenario,
)
from personal_envs.knowu.official.user_logs import log_context
from personal_envs.knowu.oracle import Ask, Step, plan
from personal_envs.knowu.personas import (
    MissingProfileField,
    PersonaSet,
    hidden_values,
    load_logs,
    user_profile_of,
    user_slug,
)
from personal_envs.knowu.state import EndState, read_state
from personal_envs.knowu.task import PhoneTask, PhoneWorld, acting_steps, first_rejection_step, is_success
from personal_envs.knowu.world import preference_world, seed_state
from personal_envs.simulators.phone.phone import Phone
from personal_envs.simulators.users.base import SimulatedUser

COMMUTES = ("LateNightCommuteTask", "LateUrgentRouteWithNoticeTask", "CommuteRoutingBadWeatherTask",
            "CommuteRoutingSunnyTask")
IMAGE_EXTS = (".png", ".jpg", ".jpeg", ".webp")
SHARE_DIRS = {"ShareFavoritePhotosPreferenceAskUserTask": "email_share",
              "MastodonSharePhotosPreferenceAskUserTask": "mastodon_share"}
State = dict[str, Any]


def _require(profile: Mapping[str, Any], dotted: str, task: str) -> Any:
    node: Any = profile
    walked = []
    for part in dotted.split("."):
        walked.append(part)
        if not isinstance(node, Mapping) or part not in node or node[part] in (None, "", {}):
            raise MissingProfileField(f"{task} needs the profile field user_profile.{'.'.join(walked)}")
        node = node[part]
    return node


def share_images(media: Path | None, name: str, profile: Mapping[str, Any]) -> list[Path]:
    """The photo(s) the class pushes to the phone for this profile (the first one, as officially), from
    ``<media>/<slug>/<share folder>/`` (a persona set's ``cache/users``)."""
    if media is None or name not in SHARE_DIRS:
        return []
    folder = media / user_slug(profile) / SHARE_DIRS[name]
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_EXTS)[:1]


def mom_contact(profile: Mapping[str, Any]) -> dict[str, str]:
    """Mom's contact as the official class resolves it from the social graph (official default otherwise)."""
    graph = profile.get("social_graph", {}) or {}
    for group in ("financial", "high_priority", "personal"):
        for person in graph.get(group, []) or []:
            if isinstance(person, Mapping):
                name, role = str(person.get("name") or "").lower(), str(person.get("role") or "").lower()
                if "mom" in name or "mom" in role or "atm" in role:
                    return {"name": str(person.get("name", "Mom")), "phone": str(person.get("phone", "+8613800001111"))}
    return {"name": "Mom", "phone": "+8613800001111"}


def profile_sort(profile: Mapping[str, Any], source: OfficialClass) -> str | None:
    """The sort option the official class extracts from the profile (depth-first, as the official walk)."""
    from personal_envs.knowu.official.preference.scoring import normalize_sort

    aliases = source.attributes.get("SORT_ALIASES", {})
    options = tuple(source.attributes.get("SORT_OPTIONS", ()))
    hints = tuple(source.attributes.get("FILE_HINTS", ()))
    stack: list[tuple[str, Any]] = [("", dict(profile))]
    while stack:
        path, value = stack.pop()
        if isinstance(value, Mapping):
            stack.extend((f"{path}.{k}" if path else str(k), v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]", v) for i, v in enumerate(value))
        elif isinstance(value, str):
            option = normalize_sort(value, aliases)
            if option and (value in options or any(h in path.lower() for h in hints)):
                return option
    return None


def judge_literals(source: OfficialClass) -> dict[str, str]:
    """The fixed string entries of the dict literals in the class's ``is_successful`` (facts its judge call sends
    besides the episode's, e.g. SearchTopInfo's ``workflow_evidence_policy``), read from the release; none for a
    card."""
    method = source.methods.get("is_successful")
    if method is None or not method.source:
        return {}
    found: dict[str, str] = {}
    for node in ast.walk(ast.parse(textwrap.dedent(method.source))):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and isinstance(value, ast.Constant) and isinstance(value.value, str):
                    found[str(key.value)] = value.value
    return found


# ==================================================================================================== task
class PreferenceTask(PhoneTask):
    """One preference variant on the simulated phone (see the module docstring)."""

    split = "personalized"

    def __init__(self, *, name: str, role: str, source: OfficialClass, task_source: TaskSource,
                 doc: Mapping[str, Any], values: Mapping[str, Any], world: State, start: datetime,
                 rubric: ClassRubric, judge: OfficialPreferenceJudge, logs: Sequence[Mapping[str, Any]],
                 instruction: str, memory: str = "all", top_k: int = 10, images: Sequence[Path] = (),
                 media: Path | None = None, goal_request: str | None = None) -> None:
        self.official_name = name
        self.role = role
        self.task_id = f"{name}@{role}"
        self.source = source
        self.task_source = task_source
        self.task_set = task_source.label
        self.user_doc = dict(doc)
        self.values = dict(values)
        self.world = world
        self.start = start
        self.rubric = rubric
        self.judge = judge
        self.logs = list(logs)
        self.memory, self.top_k = memory, top_k
        self.media = media
        self.instruction = instruction
        #: The request as the class holds it once built (officially before its set-up hook): what the log
        #: retrieval queries and what the goal of the official server shows (differs for the four commutes).
        self.goal_request = instruction if goal_request is None else goal_request
        self.images = tuple(images)
        self.difficulty = source.difficulty
        self.apps = source.app_names
        self.persona = str(values["persona"])
        self.passes_chat = passes_chat(source)
        self.last_score: OfficialScore | None = None
        self._logs: str | None = None
        self._goal: str | None = None

    # ------------------------------------------------------------------------------------------ episode
    def seed(self, phone: Phone) -> None:
        seed_state(phone, self.world, self.start)

    def score_end(self, end: EndState, steps: Sequence[dict[str, Any]]) -> OfficialScore:
        """The official score of an episode's end state and action trace."""
        def call(eval_data: Mapping[str, Any], slots: Mapping[str, Any],
                 images: Sequence[str | Path]) -> JudgeVerdict:
            rubric = str(self.task_source.text(self.official_name, PREFERENCE_RUBRIC, slots))
            return self.judge.judge(persona=self.persona, goal=self.instruction, eval_data=eval_data, rubric=rubric,
                                    fallback=lambda: self.rubric.score(end, steps),
                                    chat_history=(end.chat or None) if self.passes_chat else None, images=images)

        ctx = Context(self.official_name, self.role, self.user_doc, self.values, call, self.images, self.protocol)
        result = SCORERS[self.official_name](end, ctx)
        self.last_score = result
        return result

    def verify(self, phone: Phone, trace: EpisodeTrace) -> Evaluation:
        steps = trace.actions
        result = self.score_end(read_state(phone, trace), steps)
        verdict = result.judge
        kind = verdict.kind if verdict is not None else "none (the official code does not ask the judge)"
        rejected, acting = first_rejection_step(trace), acting_steps(trace)
        metrics: dict[str, Any] = {
            "split": self.split, "role": self.role, "difficulty": self.difficulty, "template": self.official_name,
            "score": result.score, "success": is_success(result.score), "s_rule": result.base,
            "s_llm": verdict.score if verdict else 0.0, "judge_weight": LAMBDAS[self.official_name], "judge": kind,
            "judge_error": verdict.error if verdict else None, "steps": len(steps),
            "ask_user_count": trace.user_turn_count, "rejected": rejected is not None, "silent": not acting,
            "stopped_after_rejection": None if rejected is None else not [s for s in acting if s > rejected],
            "rule_score": result.base, "combination": result.combination, "task_set": self.task_set,
            "official_task": self.task_id, "judge_parse_note": verdict.parse_note if verdict else None,
            "judge_images": verdict.images if verdict else 0, "judge_reason": verdict.reasoning if verdict else ""}
        checks = [Check("official rule base", result.base > 0, result.reason)]
        reason = f"{result.reason} | {result.combination}" + (
            f" | judge ({kind}): {verdict.reasoning[:300]}" if verdict else "")
        return Evaluation(result.score, metrics, checks, reason)

    def reset_info(self) -> dict[str, Any]:
        return {**super().reset_info(), "template": self.official_name, "role": self.role}

    def agent_logs(self) -> str:
        """The persona's logs in the official line format (all of them, or the RAG top-k for the request the
        class holds when it is built, as the official ``_load_user_context`` queries)."""
        if self._logs is None:
            self._logs = log_context(self.logs, self.memory, self.top_k, self.goal_request)
        return self._logs

    def official_goal(self) -> str:
        """The goal the official server hands the agent (``BasePrefrenceTask.goal``, read by the runner before the
        task is set up): the logs section, then the request."""
        if self._goal is None:
            self._goal = str(self.task_source.text(self.official_name, PREFERENCE_GOAL,
                                                   {"request": self.goal_request, "user_log_context": self.agent_logs()}))
        return self._goal

    def hidden_strings(self, world: PhoneWorld) -> list[str]:
        """The profile's distinctive values (name, contact details, documents)."""
        return hidden_values(self.user_doc)

    def gps_fix(self) -> tuple[float, float] | None:
        """The commutes' start (``locations.<start_key>`` of the profile), where the official ``_set_start_location``
        puts the emulator; the other classes set no location."""
        if self.official_name not in COMMUTES:
            return None
        key = str((self.values.get("destination") or {}).get("start_key", "home"))
        place = (self.user_doc.get("locations") or {}).get(key) or {}
        lat, lon = (place.get("latitude"), place.get("longitude")) if isinstance(place, Mapping) else (None, None)
        return (float(lat), float(lon)) if lat is not None and lon is not None else None

    # ------------------------------------------------------------------------------------------ user side
    @functools.cached_property
    def relevant_information(self) -> str:
        """What the user model is told (officially the class's ``initialize_task_hook``)."""
        values = hook_values(self.media, self.source, self.role, self.user_doc, self.persona, self.values)
        return str(self.task_source.text(self.official_name, PREFERENCE_CONTEXT, values))

    @property
    def user_prompt(self) -> str:
        """The user model's system prompt (officially ``_set_user_sys_prompt``)."""
        return str(self.task_source.text(self.official_name, USER_SYSTEM_PROMPT,
                                         {"family": "preference", "relevant_information": self.relevant_information}))

    def user_profile(self) -> dict[str, Any]:
        return {"user_profile": dict(self.user_doc)}

    def user_facts(self) -> dict[str, Any]:
        """The request alone: what the deterministic user knows beyond the profile comes from the class's hook."""
        return {"id": self.task_id, "instruction": self.instruction, "answers": {}, "split": self.split}

    def make_user(self) -> SimulatedUser:
        return self.user_of_kind("profile")

    def user_of_kind(self, kind: str) -> SimulatedUser:
        """``"profile"``: the deterministic user that knows what the user model is told (the profile and the
        class's stated facts); ``"llm"``: the LLM user protocol (the relevant information as system prompt, the
        whole dialogue, official sampling)."""
        if kind == "llm":
            return OfficialLLMUser(self.user_prompt)
        if kind in ("profile", "deterministic", "default"):
            return OfficialPreferenceUser(stated_facts(self.relevant_information, self.persona), self.extra_facts())
        raise ValueError(f"unknown simulated user kind {kind!r}; use 'profile' or 'llm'")

    def extra_facts(self) -> list[StatedFact]:
        """The SMS-sender class's decision: its user says whether the message matters as the role's scenario
        expects (the official user model decides it from the same persona)."""
        if self.official_name != "HighlightImportantSmsSenderPreferenceAskUserTask":
            return []
        important = bool(self.values.get("expected_important", True))
        reply = ("Yes, that message matters to me. Please save the sender to my contacts and add them to my "
                 "favourites." if important else "No, that message isn't important to me. Just leave it.")
        return [StatedFact(tuple(stem(w) for w in ("important", "matter", "urgent", "spam", "scam", "save",
                                                     "highlight", "favourite", "favorite")),
                           reply, "important", "accept" if important else "reject", "the role's official scenario")]

    # ------------------------------------------------------------------------------------- privileged
    def oracle_plan(self) -> list[Step]:
        """UI steps meeting the official rule base and the class rubric for this profile."""
        return plan(self.rubric.oracle, self.world)

    def action_plan(self) -> list[Step]:
        """The request carried out without asking (``always_act``)."""
        return plan([g for g in self.rubric.oracle if not isinstance(g, Ask)], self.world)

    def proposal(self) -> str:
        """A clarifying question (``always_ask``)."""
        return f"Before I start: {self.instruction} Is there anything I should know?"


def _description(images: Sequence[Path]) -> str:
    """The ``description.txt`` beside the user's share photos, as the official ``_load_share_description`` reads it."""
    if not images:
        return ""
    path = images[0].parent / "description.txt"
    try:
        return path.read_text(encoding="utf-8").strip() if path.exists() else ""
    except OSError:
        return ""


def hook_values(media: Path | None, source: OfficialClass, role: str, doc: Mapping[str, Any], persona: str,
                values: Mapping[str, Any]) -> dict[str, Any]:
    """The ``self`` attributes and helper results a class's user-context hook reads, computed by the project: the
    profile, the persona text, the role, Mom's contact, the user's photos and their description, the sort option
    the profile implies, the Mastodon topic."""
    images = share_images(media, source.name, doc)
    return {
        "user_profile": dict(doc),
        "persona_text": persona,
        "params": {},
        "_get_profile_id": lambda: role,
        "_get_mom_info": lambda: dict(mom_contact(doc)),
        "_resolve_email_share_images": lambda: list(images),
        "_resolve_mastodon_share_images": lambda: list(images),
        "_load_share_description": lambda: _description(images),
        "_infer_sort_from_profile": lambda: profile_sort(doc, source),
        "_topic": values.get("topic") or post_hint(source, role)[0],
        "role": role,
    }


# ================================================================================================ building
@functools.lru_cache(maxsize=8)
def _named_channels(profiles: tuple[Path, ...]) -> tuple[str, ...]:
    """The Mattermost channels the social graphs of a persona set's profiles name (``target_channel``)."""
    names: list[str] = []
    for path in profiles:
        document = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        graph = user_profile_of(document).get("social_graph", {}) or {}
        for group in graph.values() if isinstance(graph, Mapping) else ():
            for person in group if isinstance(group, list) else ():
                channel = person.get("target_channel") if isinstance(person, Mapping) else None
                if channel and str(channel) not in names:
                    names.append(str(channel))
    return tuple(names)


def persona_seeding(name: str, role: str, doc: Mapping[str, Any], source: OfficialClass, world: State,
                    values: dict[str, Any], images: Sequence[Path]) -> State:
    """The class's per-persona seeding on top of its world, as the official setups do it (``values`` gets what the
    checks and the rubric reading need: Mom, the scenario, the destination, the topic, the sort option)."""
    world = copy.deepcopy(world)
    if name in COMMUTES:
        dest = destination(source, role)
        values["destination"] = dest
        for key in (dest.get("start_key", "home"), dest.get("dest_key", "work")):
            _require(doc, f"locations.{key}.address", f"{name}@{role}")
    if name == "MastodonPrivacyDefaultTestTask":
        values["topic"], values["expected_visibility"] = post_hint(source, role)
    if name == "HighlightImportantSmsSenderPreferenceAskUserTask":
        case = scenario(source, role)
        values.update(case)
        world["messages"] = {"threads": [{"contact": "", "number": str(case.get("sender_phone", "")), "messages": [
            {"direction": "in", "time": "09:30", "text": str(case.get("sms_content", ""))}]}]}
    if name == "MessagesAskMomForMoneyTask":
        mom = mom_contact(doc)
        values.update(mom_phone=mom["phone"], mom_name=mom["name"])
        world["contacts"] = {"contacts": [{"name": mom["name"], "phone": mom["phone"]}]}
    if name == "CalendarInviteConflictResolutionTask":
        for thread in world.get("messages", {}).get("threads", []):
            thread["number"] = str(values.get("INVITER_PHONE", ""))
        day = values.get("INVITE_DATE")
        values["invite_weekday"] = date.fromisoformat(str(day)).strftime("%a") if day else "Tue"
    if name in SHARE_DIRS:
        values["own_photos"] = [p.name for p in images]
        album = world["gallery"]["albums"][0]
        album["photos"] = [*album["photos"], *({"id": f"own_{i}", "name": p.name, "date": "2026-03-10"}
                                                for i, p in enumerate(images))]
    if name == "SortFilesByHabitPreferenceAskUserTask":
        files = []
        for item in source.attributes.get("FILE_SPECS", ()):
            stamp = str(item.get("mtime", "202601010000.00"))
            files.append({"name": item["name"], "size_kb": max(1, int(item["size"]) // 1024),
                          "modified": f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]} {stamp[8:10]}:{stamp[10:12]}"})
        world["files"] = {"folders": {"Download": files}, "view": {"folder": "Download", "sort": "name_asc"}}
        values["profile_sort"] = profile_sort(doc, source)
        option = values["profile_sort"] or source.attributes.get("DEFAULT_SORT_OPTION", "Modified (newest first)")
        assert str(option) in SORT_IDS, option
    return world


def build_variant(task_source: TaskSource, name: str, role: str, profile: Mapping[str, Any] | str | Path,
                  logs: Sequence[Mapping[str, Any]] | str | Path | None = None, *,
                  judge: OfficialPreferenceJudge | None = None, memory: str = "all", top_k: int = 10,
                  personas: PersonaSet | None = None) -> PreferenceTask:
    """The variant ``name@role`` of ``task_source``.

    Args:
        task_source: The task source (official release or embedded cards).
        name: The class (``"BuyColaPreferenceTask"``).
        role: The variant's persona id (an official role, a default or generated persona, a profile's stem).
        profile: An official-format profile document (or its path).
        logs: Official-format log entries (or their path); ``None``: no logs.
        judge: The judge; ``None``: the judge protocol without an endpoint (deterministic fallback).
        memory: ``"all"`` or ``"rag"``: the agent's memory of the logs (``top_k`` entries with RAG).
        personas: The persona set of the persona: its media (the user's own photos) and its profiles (their social
            graphs name the Mattermost channels the one server holds for every persona of the set).

    Raises:
        KeyError: ``name`` is not a preference class of the source.
        MissingProfileField: the profile lacks a field the variant needs (the message names it).
    """
    source = task_source.get(name)
    if source.family != "preference":
        raise KeyError(f"{name!r} is a {source.family} class, not a preference class")
    document = yaml.safe_load(Path(profile).read_text(encoding="utf-8")) if isinstance(profile, str | Path) \
        else dict(profile)
    doc = user_profile_of(document)
    _require(doc, "identity.full_name", f"{name}@{role}")
    profiles = personas.profile_paths() if personas is not None else ()
    media = personas.media_dir if personas is not None else None
    values: dict[str, Any] = {**source.module_constants, **source.attributes}  # e.g. NEWS_WORKFLOW_APPS
    values["judge_literals"] = judge_literals(source)
    values["persona"] = str(task_source.text(name, PERSONA, {"profile": doc}))
    start, world = preference_world(name, _named_channels(tuple(profiles)))
    values["start"] = start
    images = share_images(media, name, doc)
    world = persona_seeding(name, role, doc, source, world, values, images)
    rubric = BUILDERS[name](Reading(doc, world, values, role))
    protocol = task_source.text(name, PREFERENCE_JUDGE, {})
    return PreferenceTask(name=name, role=role, source=source, task_source=task_source, doc=doc, values=values,
                          world=world, start=start, rubric=rubric, judge=judge or OfficialPreferenceJudge(protocol),
                          logs=load_logs(logs) if isinstance(logs, str | Path) else list(logs or []),
                          instruction=str(task_source.text(name, PREFERENCE_REQUEST, {"role": role})), memory=memory,
                          top_k=top_k, images=images, media=media,
                          goal_request=str(task_source.text(name, PREFERENCE_REQUEST, {"role": role, "stage": "init"})))
