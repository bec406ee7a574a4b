"""Personalized and proactive KnowU tasks on the phone: :class:`KnowUPhoneTask` wraps a
:class:`~personal_envs.knowu.taskspec.KnowUTask` so :class:`~personal_envs.knowu.env.KnowUEnv` can run it.

* seeding: :func:`personal_envs.knowu.phone_state.seed_phone` (device context + app state), plus the Chrome pages
  that any variant of the same user looks for (so no page exists only because this variant's habit applies);
* scoring: the final phone state is exported into taskspec's shapes and scored once by
  :class:`~personal_envs.knowu.judge.KnowUScorer` (S = lambda*S_rule + (1-lambda)*S_llm; its breakdown carries
  each check's result), with the action trace (``ask_user`` steps carry the user's reply and decision, from the
  core :class:`~personal_envs.core.task.EpisodeTrace`) and the dialogue as evidence;
* the agent's ``logs`` observation: the user's log lines ``[time] (location) action`` (all, or top-k by RAG);
* the simulated user: :class:`~personal_envs.knowu.users.ProfileGroundedUser` (default) or
  :class:`~personal_envs.knowu.users.LLMUser`, started with the hidden profile.

:func:`load_tasks` builds the tasks of a split for one or several profiles (role names or YAML paths) and logs.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from personal_envs.core.errors import InputError
from personal_envs.core.task import Check, EpisodeTrace, Evaluation
from personal_envs.knowu.judge import Judge, KnowUScorer
from personal_envs.knowu.logs import LogEntry, LogError, load_logs, log_file_name, read_log_file
from personal_envs.knowu.memory import LogMemory, MemoryConfig
from personal_envs.knowu.metrics import episode_metrics
from personal_envs.knowu.oracle import Step
from personal_envs.knowu.personalized import ROLE_ALIASES, TEMPLATES, build_personalized_task, supports
from personal_envs.knowu.phone_state import (
    SeedRecord,
    add_task_pages,
    context_start,
    export_state,
    seed_phone,
)
from personal_envs.knowu.plans import plan_for_checks
from personal_envs.knowu.proactive import PROACTIVE_INSTRUCTION, build_proactive_task
from personal_envs.knowu.profiles import SHIPPED_ROLES, Profile, load_profile
from personal_envs.knowu.routines import ROUTINES, ROUTINES_BY_NAME
from personal_envs.knowu.task import PhoneTask, PhoneWorld
from personal_envs.knowu.taskspec import (
    ChromeVisitCheck,
    ConsentFirstCheck,
    KnowUTask,
    SilentCheck,
    StopAfterRejectionCheck,
)
from personal_envs.simulators.phone.phone import Phone
from personal_envs.simulators.users.base import DialogueTurn, SimulatedUser

#: App labels on the phone for taskspec's app keys.
APP_LABELS: dict[str, str] = {
    "messages": "Messages", "contacts": "Contacts", "calendar": "Calendar", "clock": "Clock", "settings": "Settings",
    "mail": "Mail", "gallery": "Gallery", "files": "Files", "maps": "Maps", "chrome": "Chrome", "mastodon": "Mastodon",
    "mattermost": "Mattermost", "taodian": "Taodian", "jingdian": "jingdian", "chilemei": "chilemei",
    "tuantuan": "tuantuan", "docreader": "Docreader",
}
#: What a proactive agent is told about the background monitor in ``context``.
MONITOR_NOTE = "background monitor: on (proactive mode; no user request)"


class KnowUPhoneTask(PhoneTask):
    """A personalized or proactive variant on the phone.

    Args:
        spec: The task variant (state, checks, rubric, lambda).
        profile: The hidden profile (for the simulated user only).
        memory: The agent's memory of the user's logs.
        scorer: Scores finished episodes.
    """

    def __init__(self, spec: KnowUTask, profile: Profile, memory: LogMemory, scorer: KnowUScorer,
                 pages: Sequence[str] = ()) -> None:
        self.spec = spec
        self.profile = profile
        self.memory = memory
        self.scorer = scorer
        self.task_id = spec.id
        self.split = spec.split
        self.difficulty = spec.difficulty
        self.apps = tuple(APP_LABELS.get(a, a) for a in spec.apps)
        self.instruction = spec.instruction if spec.split == "personalized" else PROACTIVE_INSTRUCTION
        self.start = context_start(spec)
        self.routine_applies = bool(spec.routine_applies) if spec.split == "proactive" else None
        self.pages = tuple(dict.fromkeys([*pages, *chrome_targets([spec])]))
        self.record: SeedRecord | None = None
        self._logs: str | None = None

    # ------------------------------------------------------------------------------------------ episode
    def seed(self, phone: Phone) -> None:
        self.record = seed_phone(phone, self.spec)
        add_task_pages(phone, [(url, _page_title(url), "Today's top stories and the latest updates.")
                               for url in self.pages])

    def final_state(self, phone: Phone) -> dict[str, Any]:
        """The phone's app state in taskspec's shapes (needs :meth:`seed` first)."""
        if self.record is None:
            raise RuntimeError("the task was not seeded on this phone")
        return export_state(phone, self.record)

    def verify(self, phone: Phone, trace: EpisodeTrace) -> Evaluation:
        steps = trace.actions
        dialogue: list[DialogueTurn] = []
        for turn in trace.dialogue:
            dialogue += [DialogueTurn("agent", turn.message), DialogueTurn("user", turn.reply)]
        breakdown = self.scorer.score(self.spec, self.final_state(phone), steps, dialogue)
        checks = [Check(name, ok, reason) for name, ok, reason in breakdown.checks]
        metrics = episode_metrics(self.spec, breakdown, steps)
        metrics.update(rule_score=breakdown.s_rule, judge_reason=breakdown.judge_reason)
        reason = breakdown.rule_reason + (f" | judge ({breakdown.judge_kind}): {breakdown.judge_reason}"
                                          if breakdown.judge_reason else "")
        return Evaluation(breakdown.score, metrics, checks, reason)

    def hidden_strings(self, world: PhoneWorld) -> list[str]:
        """The judge's rubric, the intended action (proactive: it names the routine, or says there is none) and
        the profile's sensitive values."""
        keys = [self.spec.rubric, *([self.spec.intended_action] if self.split == "proactive" else [])]
        return [k for k in keys if len(k) >= 25] + list(self.profile.sensitive_values())

    # --------------------------------------------------------------------------------------- user side
    def user_facts(self) -> dict[str, Any]:
        return self.spec.user_task_context()

    def user_profile(self) -> dict[str, Any]:
        return self.profile.to_dict()

    def make_user(self) -> SimulatedUser:
        from personal_envs.knowu.users import ProfileGroundedUser

        return ProfileGroundedUser()

    def situation(self, phone: Phone) -> dict[str, Any]:
        return self.spec.context.to_dict()

    # -------------------------------------------------------------------------------------- agent side
    def agent_logs(self) -> str:
        if self._logs is None:
            request = self.spec.instruction or self.spec.context.render()
            self._logs = self.memory.render(request)
        return self._logs

    def context_extra(self) -> str:
        context = self.spec.context
        parts: list[str] = []
        if context.connected_devices:
            parts.append("connected: " + ", ".join(context.connected_devices))
        parts += [f"notification [{n.get('app', 'system')}]: {n.get('text', '')}" for n in context.notifications]
        if context.status:
            parts.append(context.status)
        if self.split == "proactive":
            parts.append(MONITOR_NOTE)
        return "; ".join(parts)

    def reset_info(self) -> dict[str, Any]:
        info = self.spec.info()
        info["apps"] = list(self.apps)
        return info

    # ------------------------------------------------------------------------------------ privileged
    def oracle_plan(self) -> list[Step]:
        """The UI plan of an agent that knows the profile: the task's checks, consent first where required."""
        return plan_for_checks(self.spec.checks, self.spec.initial_state())

    def routine_checks(self) -> list[Any]:
        """Proactive: the checks of the routine's intended action, whether or not this user has the habit."""
        if self.split != "proactive":
            return [c for c in self.spec.checks]
        if self.spec.routine_applies:
            return [c for c in self.spec.checks if not isinstance(c, SilentCheck | StopAfterRejectionCheck
                                                                  | ConsentFirstCheck)]
        routine = ROUTINES_BY_NAME[self.spec.template]
        return [c for c in routine.build(self.profile, None).checks if not isinstance(c, ConsentFirstCheck)]

    def proposal(self) -> str:
        """A consent question that names the routine's action (what an asking agent would say)."""
        if self.split == "proactive":
            for check in self.spec.checks:
                if isinstance(check, ConsentFirstCheck):
                    return check.question
            routine = ROUTINES_BY_NAME[self.spec.template]
            scene = routine.build(self.profile, self.profile.habit(*routine.habit_keys))
            return f"Shall I do this for you now: {scene.intended_action.rstrip('.')}? ({', '.join(scene.keywords[:3])})"
        return f"Before I start: {self.spec.instruction} Is there anything I should know?"

    def action_plan(self, ask_first: str | None = None) -> list[Step]:
        """The UI plan of the routine's action (proactive) or of the request (personalized), asking first if given."""
        return plan_for_checks(self.routine_checks(), self.spec.initial_state(), ask_first=ask_first)


def chrome_targets(specs: Sequence[KnowUTask]) -> list[str]:
    """The URLs the Chrome checks of ``specs`` look for (served as pages on the phone)."""
    return list(dict.fromkeys(c.url for spec in specs for c in spec.checks if isinstance(c, ChromeVisitCheck)))


def _page_title(url: str) -> str:
    host = url.split("//", 1)[-1].split("/", 1)[0]
    return f"{host} - today"


# =============================================================================================== loading
def _profiles(profile: str | os.PathLike[str] | Profile | Sequence[str] | None, roles: Sequence[str] | None,
              data_dir: str | os.PathLike[str] | None) -> list[Profile]:
    if profile is None:
        return [load_profile(role, data_dir) for role in (roles or SHIPPED_ROLES)]
    if isinstance(profile, str | os.PathLike | Profile):
        return [load_profile(profile, data_dir)]
    return [load_profile(p, data_dir) for p in profile]


def profile_logs(profile: Profile, logs: str | os.PathLike[str] | None, log_source: str,
                 data_dir: str | os.PathLike[str] | None) -> list[LogEntry]:
    """The log entries of ``profile``: ``logs`` when given, else the role's log (beside a profile file, in
    ``data_dir`` / ``$PERSONAL_ENVS_DATA`` or the shipped logs)."""
    if logs is not None:
        return read_log_file(logs) if Path(logs).suffix == ".json" or Path(logs).is_file() else load_logs(
            logs, log_source, data_dir)  # type: ignore[arg-type]
    if profile.source is not None:
        name = log_file_name(profile.source.stem, log_source)  # type: ignore[arg-type]
        folder = profile.source.parent
        for candidate in (folder / name, folder.parent / "user_logs" / name, folder.parent / "logs" / name):
            if candidate.is_file():
                return read_log_file(candidate)
    try:
        return load_logs(profile.role, log_source, data_dir)  # type: ignore[arg-type]
    except LogError as exc:
        raise LogError(f"{exc}. Pass logs=<path to the user's log JSON> for the profile "
                       f"{profile.source or profile.role}") from None


def make_scorer(judge: str | Judge | KnowUScorer | None) -> KnowUScorer:
    """``None`` / ``"fallback"``: deterministic fallback judge; ``"llm"``: an LLM rubric judge from the
    environment's endpoint settings; a judge object or a scorer is used as is."""
    if isinstance(judge, KnowUScorer):
        return judge
    if judge is None or judge == "fallback":
        return KnowUScorer(None)
    if judge == "llm":
        from personal_envs.llm.client import ChatClient
        from personal_envs.llm.judge import RubricJudge

        return KnowUScorer(RubricJudge(ChatClient()))
    if isinstance(judge, str):
        raise InputError(f"judge must be 'fallback', 'llm' or a judge object, got {judge!r}")
    return KnowUScorer(judge)


def _roles_of(task: str | Sequence[str] | None) -> list[str] | None:
    wanted = [task] if isinstance(task, str) else list(task or [])
    roles = [w.partition("@")[2] for w in wanted]
    return list(dict.fromkeys(roles)) if wanted and all(roles) else None


def load_tasks(split: str, *, profile: str | os.PathLike[str] | Profile | Sequence[str] | None = None,
               logs: str | os.PathLike[str] | None = None, log_source: str = "clean", memory: str = "all",
               top_k: int = 10, embedder: str = "tfidf", data_dir: str | os.PathLike[str] | None = None,
               judge: str | Judge | KnowUScorer | None = None, task: str | Sequence[str] | None = None,
               **_: Any) -> list[PhoneTask]:
    """The phone tasks of ``split`` (``"personalized"`` or ``"proactive"``) for the given profile(s).

    Args:
        profile: Role name, path to a profile YAML, a list of them, or ``None`` (the four shipped roles).
        logs: Path to the user's log JSON (one profile); otherwise each role's log is found by name.
        log_source: ``"clean"`` or ``"noise"``.
        memory: ``"all"`` or ``"rag"`` (``top_k`` entries, ``embedder`` ``"tfidf"`` or ``"minilm"``).
        judge: ``None``/``"fallback"``, ``"llm"``, or a judge / scorer object.
        task: Task id(s) ``"<template>@<role>"``; only the named roles are loaded when ``profile`` is ``None``.
    """
    if split not in ("personalized", "proactive"):
        raise InputError(f"split must be 'personalized' or 'proactive', got {split!r}")
    profiles = _profiles(profile, _roles_of(task) if profile is None else None, data_dir)
    if logs is not None and len(profiles) != 1:
        raise InputError("logs= names one user's log; pass a single profile with it")
    scorer = make_scorer(judge)
    config = MemoryConfig(mode=memory, top_k=top_k, embedder=embedder)  # type: ignore[arg-type]
    tasks: list[PhoneTask] = []
    for prof in profiles:
        log_memory = LogMemory(profile_logs(prof, logs, log_source, data_dir), config)
        specs = _specs(split, prof)
        pages = chrome_targets(specs)  # every variant of the user serves the same pages, whatever its habit
        for spec in specs:
            tasks.append(KnowUPhoneTask(spec, prof, log_memory, scorer, pages))
    return tasks


def _specs(split: str, profile: Profile) -> list[KnowUTask]:
    if split == "proactive":
        return [build_proactive_task(routine, profile) for routine in ROUTINES]
    known_role = profile.role in SHIPPED_ROLES or profile.role in ROLE_ALIASES
    specs = []
    for template in TEMPLATES:
        if known_role and not supports(template, profile.role):
            continue
        built = build_personalized_task(template, profile)
        if built is not None:
            specs.append(built)
    return specs


def load_personalized(**kwargs: Any) -> list[PhoneTask]:
    """:func:`load_tasks` for the personalized split."""
    return load_tasks("personalized", **kwargs)


def load_proactive(**kwargs: Any) -> list[PhoneTask]:
    """:func:`load_tasks` for the proactive split."""
    return load_tasks("proactive", **kwargs)


def unknown_task_message(wanted: Sequence[str], known: Sequence[str], split: str) -> str:
    """A helpful error for unknown task ids: close matches and the id format."""
    hints = []
    for name in wanted:
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
        hints.append(f"{name!r}" + (f" (did you mean {', '.join(close)}?)" if close else ""))
    names = sorted({k.partition("@")[0] for k in known})
    roles = sorted({k.partition("@")[2] for k in known})
    return (f"unknown task id(s) {', '.join(hints)} in split {split!r}. Ids are '<name>@<role>', e.g. "
            f"{known[0]!r}; names: {', '.join(names)}; roles: {', '.join(roles)}")
