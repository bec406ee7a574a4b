"""Official preference variants (``"BuyColaPreferenceTask@developer"``) as phone tasks.

:func:`build_variant` turns one official class and one role (an official role of the release, or any profile in
the official format) into an :class:`OfficialPreferenceTask`:

* the request: the official ``GOAL_REQUEST`` (or its per-role form) read from the release;
* the world: the project's world of the matching project template (catalogs, carts, timelines, channels...), the
  same for every role, with the official per-role seeding on top where the official setup has one (the important-SMS
  sender and message, Mom's contact from the social graph, the inviter's number, the user's own photo from
  ``cache/users/<name>/``, the official Download files);
* the score: the official rule base and combination (:mod:`.scoring`) with the official judge protocol
  (:mod:`.judge`); without an endpoint the deterministic fallback is the project's preference checks for this
  profile where the project's template reads it (for the photo, SMS and sort templates, the official expected
  photo / decision / sort), else a judge written from the official class's own rubric (:mod:`.rubric_fallback`),
  and the record says so (``judge_kind``);
* the oracle plan: UI steps that realize the rule base and the profile's preference, read by the project's template
  or, for the class-rubric variants, by the same reading as their fallback judge.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from personal_envs.core.task import Check as CoreCheck
from personal_envs.core.task import EpisodeTrace, Evaluation
from personal_envs.knowu.judge import KnowUScorer, ScoreBreakdown, is_success
from personal_envs.knowu.logs import LogEntry, parse_logs
from personal_envs.knowu.memory import LogMemory, MemoryConfig
from personal_envs.knowu.metrics import episode_metrics
from personal_envs.knowu.official.llm_user import OfficialLLMUser
from personal_envs.knowu.official.preference.facts import episode_facts
from personal_envs.knowu.official.preference.judge import JudgeVerdict, OfficialPreferenceJudge
from personal_envs.knowu.official.preference.rubric_fallback import BUILDERS, WORLDS, Reading
from personal_envs.knowu.official.preference.scoring import LAMBDAS, SCORERS, Context, OfficialScore
from personal_envs.knowu.official.preference.user import (
    OfficialPreferenceUser,
    StatedFact,
    stated_facts,
    stem,
)
from personal_envs.knowu.official.routine.build import user_profile_of
from personal_envs.knowu.official.source import MissingProfileField, OfficialClass
from personal_envs.knowu.official.texts import (
    PERSONA,
    PREFERENCE_CONTEXT,
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
from personal_envs.knowu.oracle import Step
from personal_envs.knowu.personalized import TEMPLATES_BY_NAME, build_personalized_task
from personal_envs.knowu.phone_tasks import KnowUPhoneTask
from personal_envs.knowu.plans import plan_for_checks
from personal_envs.knowu.profiles import SHIPPED_ROLES, Profile, load_profile, parse_profile
from personal_envs.knowu.taskspec import (
    ChannelPostCheck,
    Check,
    ContactCheck,
    FilesSortCheck,
    KnowUTask,
    ListPruneCheck,
    MailCheck,
    MastodonPostCheck,
    OrderCheck,
    SmsCheck,
)
from personal_envs.simulators.phone.phone import Phone
from personal_envs.simulators.users.base import SimulatedUser

#: Official class -> the project template whose world (apps, catalogs, timelines) it runs on.
PROJECT_TEMPLATE: Mapping[str, str] = {
    "BuyColaPreferenceTask": "buy_cola",
    "BuyComputerPreferenceAskUserTask": "buy_computer",
    "CalendarInviteConflictResolutionTask": "calendar_invite_conflict",
    "CalendarScheduleGroupMeetingTask": "calendar_group_meeting",
    "CartManagementPreferenceAskUserTask": "cart_remove_disliked_clothes",
    "LateNightCommuteTask": "late_night_commute",
    "LateUrgentRouteWithNoticeTask": "late_urgent_route_with_notice",
    "CommuteRoutingBadWeatherTask": "commute_rain",
    "CommuteRoutingSunnyTask": "commute_sunny",
    "DeleteItemOverBudgetPreferenceAskUserTask": "cart_remove_over_budget",
    "DeleteItemsPreferenceAskUserTask": "cart_remove_unwanted_electronics",
    "HighlightImportantSmsSenderPreferenceAskUserTask": "highlight_important_sms_sender",
    "MastodonInterestBoostTask": "mastodon_interest_forward",
    "MastodonPrivacyDefaultTestTask": "mastodon_default_visibility",
    "MastodonSharePhotosPreferenceAskUserTask": "mastodon_share_photo",
    "MattermostLeaveNoticeTask": "mattermost_leave_notice",
    "MessagesAskMomForMoneyTask": "messages_ask_mom_for_money",
    "NoteTheCourierForDeliveryPreferenceAskUserTask": "courier_note_sofa",
    "OrderLunchPreferenceTask": "order_lunch",
    "OrderLunchTradeoffTask": "order_lunch_tradeoff",
    "SearchTopInfoPreferenceAskUserTask": "search_top_info_email",
    "SearchWhiteSneakersCheckoutPreferenceAskUserTask": "commute_sneakers_checkout",
    "SetAlarmPreferenceAskUser2Task": "weekend_alarm_ringtone",
    "ShareFavoritePhotosPreferenceAskUserTask": "share_photo_by_mail",
    "SortFilesByHabitPreferenceAskUserTask": "sort_download_files",
    "TakeoutReamarkPreferenceAskUserTask": "takeout_dinner_remark",
}
#: The world of every role is the project's world of the template for the first shipped role that builds it: the
#: same for every official role, so no app content depends on the running profile's hidden preferences.
REFERENCE_WORLD = True
COMMUTES = ("LateNightCommuteTask", "LateUrgentRouteWithNoticeTask", "CommuteRoutingBadWeatherTask",
            "CommuteRoutingSunnyTask")
IMAGE_EXTS = (".png", ".jpg", ".jpeg", ".webp")
SHARE_DIRS = {"ShareFavoritePhotosPreferenceAskUserTask": "email_share",
              "MastodonSharePhotosPreferenceAskUserTask": "mastodon_share"}
SORT_TO_VIEW = {"File name (A to Z)": ("name", "asc"), "File name (Z to A)": ("name", "desc"),
                "Modified (newest first)": ("date", "desc"), "Modified (oldest first)": ("date", "asc"),
                "Type (A to Z)": ("type", "asc"), "Type (Z to A)": ("type", "desc"),
                "Size (largest first)": ("size", "desc"), "Size (smallest first)": ("size", "asc")}


def _require(profile: Mapping[str, Any], dotted: str, task: str) -> Any:
    node: Any = profile
    walked = []
    for part in dotted.split("."):
        walked.append(part)
        if not isinstance(node, Mapping) or part not in node or node[part] in (None, "", {}):
            raise MissingProfileField(f"{task} needs the profile field user_profile.{'.'.join(walked)}")
        node = node[part]
    return node


def user_slug(profile: Mapping[str, Any]) -> str:
    """The official media folder name of a profile (its full name, lower case, non-alphanumerics as ``_``)."""
    name = str((profile.get("identity", {}) or {}).get("full_name", ""))
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "user"


def share_images(root: Path | None, name: str, profile: Mapping[str, Any]) -> list[Path]:
    """The official photo(s) the class pushes to the phone for this profile (the first one, as officially)."""
    if root is None or name not in SHARE_DIRS:
        return []
    folder = root / "src/knowu_bench/cache/users" / user_slug(profile) / SHARE_DIRS[name]
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


# ==================================================================================================== task
class OfficialPreferenceTask(KnowUPhoneTask):
    """One official preference variant on the simulated phone (see the module docstring)."""

    def __init__(self, *, name: str, role: str, spec: KnowUTask, profile: Profile, memory: LogMemory,
                 source: OfficialClass, values: Mapping[str, Any], judge: OfficialPreferenceJudge,
                 fallback_checks: Sequence[Check] | None, oracle_checks: Sequence[Check], ask_first: str | None,
                 images: Sequence[Path], task_source: TaskSource) -> None:
        super().__init__(spec, profile, memory, KnowUScorer(None))
        self.task_source = task_source
        self.official_name = name
        self.role = role
        self.task_id = f"{name}@{role}"
        self.source = source
        self.values = dict(values)
        self.judge = judge
        self.fallback_checks = tuple(fallback_checks) if fallback_checks is not None else None
        self.oracle_checks = tuple(oracle_checks)
        self.ask_first = ask_first
        self.images = tuple(images)
        self.task_set = task_source.label
        self.user_doc = dict(user_profile_of(profile.to_dict()))
        self.persona = str(values["persona"])
        self.passes_chat = passes_chat(source)
        self.last_score: OfficialScore | None = None

    # ---------------------------------------------------------------------------------------- scoring
    def _fallback(self, final: Mapping[str, Any], steps: Sequence[Mapping[str, Any]],
                  base: OfficialScore | None = None) -> tuple[float, str]:
        special = self.values.get("fallback")
        if callable(special):
            return special(final, steps)
        if self.fallback_checks is None:
            return 0.0, ("deterministic fallback unavailable: the project reads no preference for this template "
                         "from this profile (S_llm = 0)")
        initial = self.spec.initial_state()
        results = [check.verify(initial, dict(final), [dict(s) for s in steps]) for check in self.fallback_checks]
        passed = sum(1 for ok, _ in results if ok)
        value = passed / len(results) if results else 1.0
        return value, (f"deterministic fallback: {passed}/{len(results)} of the project's preference checks for "
                       f"this profile pass: " + "; ".join(r for _, r in results))

    def score_state(self, final: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> OfficialScore:
        """The official score of an end state and action trace (no phone needed)."""
        facts = episode_facts(self.spec.initial_state(), final, steps, self.start.date().isoformat())

        def call(eval_data: Mapping[str, Any], slots: Mapping[str, Any],
                 images: Sequence[str | Path]) -> JudgeVerdict:
            rubric = str(self.task_source.text(self.official_name, PREFERENCE_RUBRIC, slots))
            return self.judge.judge(persona=self.persona, goal=self.instruction, eval_data=eval_data, rubric=rubric,
                                    fallback=lambda: self._fallback(final, steps),
                                    chat_history=(facts.chat or None) if self.passes_chat else None, images=images)

        ctx = Context(self.official_name, self.role, self.user_doc, self.values, call, self.images)
        result = SCORERS[self.official_name](facts, ctx)
        self.last_score = result
        return result

    def verify(self, phone: Phone, trace: EpisodeTrace) -> Evaluation:
        steps = trace.actions
        result = self.score_state(self.final_state(phone), steps)
        verdict = result.judge
        kind = verdict.kind if verdict is not None else "none (the official code does not ask the judge)"
        breakdown = ScoreBreakdown(result.base, verdict.score if verdict else 0.0, LAMBDAS[self.official_name],
                                   result.score, is_success(result.score), kind,
                                   verdict.error if verdict else None, result.reason,
                                   verdict.reasoning if verdict else "", ())
        metrics = episode_metrics(self.spec, breakdown, steps)
        metrics.update(rule_score=result.base, combination=result.combination, task_set=self.task_set,
                       official_task=self.task_id, judge_parse_note=verdict.parse_note if verdict else None,
                       judge_images=verdict.images if verdict else 0, judge_reason=breakdown.judge_reason)
        checks = [CoreCheck("official rule base", result.base > 0, result.reason)]
        reason = f"{result.reason} | {result.combination}" + (
            f" | judge ({kind}): {verdict.reasoning[:300]}" if verdict else "")
        return Evaluation(result.score, metrics, checks, reason)

    def reset_info(self) -> dict[str, Any]:
        info = super().reset_info()
        info.update(task_id=self.task_id, template=self.official_name, role=self.role, task_set=self.task_set)
        return info

    # ------------------------------------------------------------------------------------------ user side
    @functools.cached_property
    def relevant_information(self) -> str:
        """What the user model is told (officially the class's ``initialize_task_hook``)."""
        values = hook_values(self.task_source.root, self.source, self.role, self.user_doc, self.persona, self.values)
        return str(self.task_source.text(self.official_name, PREFERENCE_CONTEXT, values))

    @property
    def user_prompt(self) -> str:
        """The user model's system prompt (officially ``_set_user_sys_prompt``)."""
        return str(self.task_source.text(self.official_name, USER_SYSTEM_PROMPT,
                                         {"family": "preference", "relevant_information": self.relevant_information}))

    def gps_fix(self) -> tuple[float, float] | None:
        """The commutes' start (``locations.<start_key>`` of the profile), where the official ``_set_start_location``
        puts the emulator; the other classes set no location."""
        if self.official_name not in COMMUTES:
            return None
        key = str((self.values.get("destination") or {}).get("start_key", "home"))
        place = (self.user_doc.get("locations") or {}).get(key) or {}
        lat, lon = (place.get("latitude"), place.get("longitude")) if isinstance(place, Mapping) else (None, None)
        return (float(lat), float(lon)) if lat is not None and lon is not None else None

    def user_facts(self) -> dict[str, Any]:
        """The request alone: what the deterministic user knows beyond the profile comes from the class's hook
        (:class:`OfficialPreferenceUser`), never from the project's reference world."""
        return {"id": self.task_id, "instruction": self.spec.instruction, "answers": {}, "split": self.spec.split}

    def make_user(self) -> SimulatedUser:
        return self.user_of_kind("profile")

    def user_of_kind(self, kind: str) -> SimulatedUser:
        """``"profile"``: the deterministic user that knows what the official user is told (the profile and the
        class's stated facts); ``"llm"``: the official LLM user protocol (the class's relevant information as
        system prompt, the whole dialogue, official sampling)."""
        if kind == "llm":
            return OfficialLLMUser(self.user_prompt)
        if kind in ("profile", "deterministic", "default"):
            return OfficialPreferenceUser(stated_facts(self.relevant_information, self.persona), self.extra_facts())
        raise ValueError(f"unknown simulated user kind {kind!r}; use 'profile' or 'llm'")

    def extra_facts(self) -> list[StatedFact]:
        """The SMS-sender class's decision: its user says whether the message matters as the official scenario of
        the role expects (the official user model decides it from the same persona)."""
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
        """UI steps realizing the official rule base and the profile's preference (where the project reads it)."""
        return plan_for_checks(self.oracle_checks, self.spec.initial_state(), ask_first=self.ask_first)


# ================================================================================================ building
def _reference_spec(template: str) -> KnowUTask:
    for role in SHIPPED_ROLES:
        spec = build_personalized_task(TEMPLATES_BY_NAME[template], load_profile(role))
        if spec is not None:
            return spec
    raise RuntimeError(f"no shipped role builds the project template {template!r}")


def _own_spec(template: str, profile: Profile) -> KnowUTask | None:
    try:
        return build_personalized_task(TEMPLATES_BY_NAME[template], profile)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _ids(state: Mapping[str, Any], app_name: str, key: str) -> set[str]:
    return {str(i.get("id")) for i in (state.get(app_name, {}) or {}).get(key, []) or [] if isinstance(i, Mapping)}


def _fits(own: KnowUTask, world: KnowUTask) -> bool:
    """True when the own-profile checks can be realized in the shared ``world`` (the channel, the catalog item, the
    cart items they name exist there); else the oracle follows the world's own checks (the rule base only)."""
    state = world.initial_state()
    channels = {str(c.get("name", "")).lower() for t in (state.get("mattermost", {}) or {}).get("teams", []) or []
                for c in t.get("channels", []) or [] if isinstance(c, Mapping)}
    for check in own.checks:
        if isinstance(check, ListPruneCheck) and check.album is None \
                and not set(check.remove) <= _ids(state, check.app_name, check.key):
            return False
        if isinstance(check, ChannelPostCheck) and check.channel.lower() not in channels:
            return False
        if isinstance(check, OrderCheck) and check.acceptable and (
                state.get(check.app_name, {}) or {}).get("catalog") is not None \
                and check.acceptable[0] not in _ids(state, check.app_name, "catalog"):
            return False
    return True


@functools.lru_cache(maxsize=32)
def _official_role_specs(root: str, template: str) -> tuple[KnowUTask, ...]:
    folder = Path(root) / "src/knowu_bench/user_profile"
    specs = []
    for path in sorted(folder.glob("*.yaml")):
        if path.stem != "template":
            spec = _own_spec(template, load_profile(path))
            if spec is not None:
                specs.append(spec)
    return tuple(specs)


def _shared_channels(spec: KnowUTask, root: Path, template: str) -> KnowUTask:
    """The Mattermost server of the task holds the teams and channels of every official role's world (one server
    for all roles, as officially): the same for every role, whichever profile runs."""
    state = spec.initial_state()
    if "mattermost" not in state:
        return spec
    teams = state["mattermost"].setdefault("teams", [])
    for other in _official_role_specs(str(root), template):
        for team in (other.initial_state().get("mattermost", {}) or {}).get("teams", []) or []:
            mine = next((t for t in teams if t.get("name") == team.get("name")), None)
            if mine is None:
                teams.append(team)
                continue
            names = {str(c.get("name", "")).lower() for c in mine.get("channels", [])}
            mine.setdefault("channels", []).extend(c for c in team.get("channels", [])
                                                   if str(c.get("name", "")).lower() not in names)
    return _with_state(spec, mattermost=state["mattermost"])


@functools.lru_cache(maxsize=4)
def _official_target_channels(root: str) -> tuple[str, ...]:
    """The Mattermost channels the official profiles' social graphs name (``target_channel``)."""
    names: list[str] = []
    for path in sorted((Path(root) / "src/knowu_bench/user_profile").glob("*.yaml")):
        if path.stem == "template":
            continue
        graph = user_profile_of(load_profile(path).to_dict()).get("social_graph", {}) or {}
        for group in graph.values() if isinstance(graph, Mapping) else ():
            for person in group if isinstance(group, list) else ():
                channel = person.get("target_channel") if isinstance(person, Mapping) else None
                if channel and str(channel) not in names:
                    names.append(str(channel))
    return tuple(names)


def _target_channels(spec: KnowUTask, root: Path) -> KnowUTask:
    """The task's Mattermost server also holds the channels every official profile's social graph names (one server
    for all roles, as officially)."""
    state = spec.initial_state()
    teams = (state.get("mattermost", {}) or {}).get("teams") or []
    if not teams:
        return spec
    have = {str(c.get("name", "")).lower() for t in teams for c in t.get("channels", []) or []}
    missing = [c for c in _official_target_channels(str(root)) if c.lower() not in have]
    if not missing:
        return spec
    teams[0].setdefault("channels", []).extend({"name": c, "messages": []} for c in missing)
    return _with_state(spec, mattermost=state["mattermost"])


def _with_state(spec: KnowUTask, **apps: Any) -> KnowUTask:
    state = spec.initial_state()
    state.update(apps)
    return dataclasses.replace(spec, app_state=state)


def build_variant(task_source: TaskSource, name: str, role: str, profile: Mapping[str, Any] | str | Path,
                  logs: Sequence[Mapping[str, Any]] | str | Path | None = None, *,
                  judge: OfficialPreferenceJudge | None = None,
                  memory: MemoryConfig | None = None) -> OfficialPreferenceTask:
    """The variant ``name@role`` of ``task_source``.

    Args:
        task_source: The task source (official release or embedded cards).
        name: The official class (``"BuyColaPreferenceTask"``).
        role: The variant's role id (an official role, or the stem of a new profile).
        profile: An official-format profile document (or its path).
        logs: Official-format log entries (or their path); ``None``: no logs.
        judge: The judge; ``None``: the judge protocol without an endpoint (deterministic fallback).
        memory: The agent's log memory settings.

    Raises:
        KeyError: ``name`` is not a preference class of the source.
        MissingProfileField: the profile lacks a field the variant needs (the message names it).
    """
    source = task_source.get(name)
    if source.family != "preference":
        raise KeyError(f"{name!r} is a {source.family} class, not a preference class")
    root = task_source.root
    if isinstance(profile, str | Path):
        prof = load_profile(Path(profile))
    else:
        prof = parse_profile(dict(profile), role=role)
    doc = dict(user_profile_of(prof.to_dict()))
    _require(doc, "identity.full_name", f"{name}@{role}")
    values: dict[str, Any] = dict(source.attributes)
    values["persona"] = str(task_source.text(name, PERSONA, {"profile": doc}))
    template = PROJECT_TEMPLATE[name]
    own = _own_spec(template, prof)
    spec = _reference_spec(template) if REFERENCE_WORLD else (own or _reference_spec(template))
    if root is not None:
        spec = _shared_channels(spec, root, template)
    if name in WORLDS:
        spec = _with_state(spec, **WORLDS[name](spec.initial_state()))
    if root is not None:
        spec = _target_channels(spec, root)
    oracle_source = own if own is not None and _fits(own, spec) else spec
    fallback_checks: Sequence[Check] | None = own.checks if own is not None else None
    oracle_checks: Sequence[Check] = oracle_source.checks
    ask_first: str | None = None
    images: list[Path] = []

    if name in COMMUTES:
        dest = destination(source, role)
        values["destination"] = dest
        for key in (dest.get("start_key", "home"), dest.get("dest_key", "work")):
            _require(doc, f"locations.{key}.address", f"{name}@{role}")
    if name == "MastodonPrivacyDefaultTestTask":
        values["topic"], values["expected_visibility"] = post_hint(source, role)
    if name == "HighlightImportantSmsSenderPreferenceAskUserTask":
        spec, fallback_checks, oracle_checks = _highlight(spec, scenario(source, role), values, prof)
    if name == "MessagesAskMomForMoneyTask":
        mom = mom_contact(doc)
        values.update(mom_phone=mom["phone"], mom_name=mom["name"])
        state = spec.initial_state()
        contacts = [c for c in state.get("contacts", {}).get("contacts", []) if c.get("name") != mom["name"]]
        spec = _with_state(spec, contacts={"contacts": [*contacts, {"name": mom["name"], "phone": mom["phone"],
                                                                    "email": "", "note": "", "highlighted": False}],
                                           "calls": []}, messages={"threads": [], "blocked": []})
        oracle_checks = [SmsCheck(mom["name"], mom["phone"], (), "Hi Mom, I'm running low on money this month - "
                                                                "could you send me some living expenses? Thanks!")]
    if name == "CalendarInviteConflictResolutionTask":
        spec = _inviter(spec, str(values.get("INVITER_PHONE", "")))
        oracle_checks = [_retarget_sms(c, str(values.get("INVITER_PHONE", ""))) for c in oracle_checks]
        if fallback_checks is not None:
            fallback_checks = [_retarget_sms(c, str(values.get("INVITER_PHONE", ""))) for c in fallback_checks]
    if name in SHARE_DIRS:
        images = share_images(root, name, doc)
        spec, oracle_checks, values["fallback"] = _photos(spec, name, images, values, oracle_checks)
    if name == "SortFilesByHabitPreferenceAskUserTask":
        spec, oracle_checks, ask_first = _sort_files(spec, source, doc, values)

    rubric_judge = own is None or not _fits(own, spec)
    if name in BUILDERS and rubric_judge:
        rubric = BUILDERS[name](Reading(doc, spec.initial_state(), values, role))
        world = spec.initial_state()
        oracle_checks, ask_first, fallback_checks = rubric.oracle, rubric.ask_first or ask_first, None
        values["fallback"] = lambda final, steps: rubric.score(world, final, steps)
        values["fallback_kind"] = "official rubric"
    spec = dataclasses.replace(spec, id=f"{name}@{role}", template=name, role=role,
                               instruction=str(task_source.text(name, PREFERENCE_REQUEST, {"role": role})),
                               lam=LAMBDAS[name],
                               difficulty="hard" if "hard" in source.attributes.get("task_tags", set()) else "easy")
    entries = _log_entries(logs)
    log_memory = LogMemory(entries, memory or MemoryConfig())
    protocol = task_source.text(name, PREFERENCE_JUDGE, {})
    return OfficialPreferenceTask(name=name, role=role, spec=spec, profile=prof, memory=log_memory, source=source,
                                  values=values, judge=judge or OfficialPreferenceJudge(protocol),
                                  fallback_checks=fallback_checks, oracle_checks=oracle_checks, ask_first=ask_first,
                                  images=images, task_source=task_source)


def _log_entries(logs: Sequence[Mapping[str, Any]] | str | Path | None) -> list[LogEntry]:
    if logs is None:
        return []
    if isinstance(logs, str | Path):
        from personal_envs.knowu.logs import read_log_file

        return read_log_file(logs)
    return parse_logs([dict(e) for e in logs])


def _highlight(spec: KnowUTask, case: Mapping[str, Any], values: dict[str, Any],
               profile: Profile) -> tuple[KnowUTask, Sequence[Check], Sequence[Check]]:
    """The official sender and message of the role; the oracle saves and highlights it only when important."""
    values.update(case)
    phone = str(case.get("sender_phone", ""))
    state = spec.initial_state()
    threads = [{"contact": "", "number": phone, "messages": [
        {"direction": "in", "time": "09:30", "text": str(case.get("sms_content", ""))}]}]
    contacts = [c for c in state.get("contacts", {}).get("contacts", [])
                if "".join(ch for ch in str(c.get("phone")) if ch.isdigit()) != phone]
    spec = _with_state(spec, messages={"threads": threads, "blocked": []},
                       contacts={"contacts": contacts, "calls": []})
    important = bool(case.get("expected_important", True))
    checks: list[Check] = []
    if important:
        checks.append(ContactCheck(phone, str(case.get("sender_role") or "Important sender"), (), (),
                                   "Important - from SMS", highlighted=True))

    def fallback(final: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> tuple[float, str]:
        return 1.0, ("deterministic fallback: the official rule base already encodes the expected decision "
                     f"(important={important}); the judge part is taken as met")

    values["fallback"] = fallback
    return spec, checks, checks


def _retarget_sms(check: Check, number: str) -> Check:
    if isinstance(check, SmsCheck) and number:
        return dataclasses.replace(check, number=number)
    return check


def _inviter(spec: KnowUTask, number: str) -> KnowUTask:
    """The invite thread of the world comes from the official inviter number."""
    if not number:
        return spec
    state = spec.initial_state()
    threads = state.get("messages", {}).get("threads", [])
    for thread in threads:
        if any(m.get("direction") == "in" for m in thread.get("messages", [])):
            thread["number"] = number
            break
    return _with_state(spec, messages={**state.get("messages", {}), "threads": threads})


def _photos(spec: KnowUTask, name: str, images: Sequence[Path], values: Mapping[str, Any],
            checks: Sequence[Check]) -> tuple[KnowUTask, Sequence[Check], Any]:
    """The user's own official photo joins the gallery; the oracle shares it; the fallback checks it was shared."""
    state = spec.initial_state()
    gallery = state.get("gallery", {"albums": []})
    albums = gallery.get("albums", []) or [{"name": "Camera", "photos": []}]
    wanted = [p.name for p in images]
    for index, file in enumerate(images):
        albums[0].setdefault("photos", []).append({"id": f"official_{index}", "name": file.name,
                                                   "date": "2026-03-10", "tags": [], "description": ""})
    spec = _with_state(spec, gallery={**gallery, "albums": albums})
    new_checks: list[Check] = []
    for check in checks:
        if isinstance(check, MailCheck) and name == "ShareFavoritePhotosPreferenceAskUserTask":
            new_checks.append(dataclasses.replace(check, to=str(values.get("EMAIL_ADDRESS", check.to)),
                                                  attachments=tuple(wanted) or check.attachments))
        elif isinstance(check, MastodonPostCheck):
            new_checks.append(dataclasses.replace(check, media=tuple(wanted) or check.media))
        else:
            new_checks.append(check)

    def fallback(final: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> tuple[float, str]:
        if not wanted:
            return 0.0, "deterministic fallback unavailable: no official photo for this profile"
        from personal_envs.knowu.taskspec import listed, new_items

        initial = spec.initial_state()
        sent = [m for m in new_items(listed(initial, "mail", "sent"), listed(final, "mail", "sent"))] + [
            t for t in new_items(listed(initial, "mastodon", "posts"), listed(final, "mastodon", "posts"))]
        media = {str(x) for item in sent if isinstance(item, Mapping)
                 for x in (item.get("attachments") or item.get("media") or [])}
        ok = any(w in media for w in wanted)
        return (1.0 if ok else 0.0), (f"deterministic fallback: the user's own photo {wanted} was "
                                      f"{'shared' if ok else 'not shared'} (style not judged)")

    return spec, new_checks, fallback


def _sort_files(spec: KnowUTask, source: OfficialClass, doc: Mapping[str, Any],
                values: dict[str, Any]) -> tuple[KnowUTask, Sequence[Check], str]:
    """The official Download files; the expected sort from the profile (else the official default)."""
    files = []
    for item in source.attributes.get("FILE_SPECS", ()):
        stamp = str(item.get("mtime", "202601010000.00"))
        files.append({"name": item["name"], "modified": f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]} {stamp[8:10]}:"
                                                        f"{stamp[10:12]}", "size_kb": max(1, int(item["size"]) // 1024),
                      "type": item["name"].rsplit(".", 1)[-1]})
    spec = _with_state(spec, files={"folders": {"Download": files}, "view": {"folder": "Download",
                                                                              "sort_key": "name", "sort_order": "asc"}})
    expected = profile_sort(doc, source)
    values["profile_sort"] = expected
    option = expected or str(source.attributes.get("DEFAULT_SORT_OPTION", "Modified (newest first)"))
    key, order = SORT_TO_VIEW[option]

    def fallback(final: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> tuple[float, str]:
        view = (final.get("files", {}) or {}).get("view", {}) or {}
        ok = (view.get("sort_key"), view.get("sort_order")) == (key, order)
        return (1.0 if ok else 0.0), f"deterministic fallback: Download sorted as {option}: {ok}"

    values["fallback"] = fallback
    return spec, [FilesSortCheck("Download", key, order)], "How do you usually sort the files in Download?"


def _description(images: Sequence[Path]) -> str:
    """The ``description.txt`` beside the user's share photos, as the official ``_load_share_description`` reads it."""
    if not images:
        return ""
    path = images[0].parent / "description.txt"
    try:
        return path.read_text(encoding="utf-8").strip() if path.exists() else ""
    except OSError:
        return ""


def hook_values(root: Path | None, source: OfficialClass, role: str, doc: Mapping[str, Any], persona: str,
                values: Mapping[str, Any]) -> dict[str, Any]:
    """The ``self`` attributes and helper results a class's user-context hook reads, computed by the project: the
    profile, the persona text, the role, Mom's contact, the user's photos and their description, the sort option
    the profile implies, the Mastodon topic."""
    images = share_images(root, source.name, doc)
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
