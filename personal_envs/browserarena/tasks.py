"""BrowserArena's tasks: one core :class:`~personal_envs.core.task.Task` class per failure mode, and the task lists.

Each task class carries what its category needs besides the text: the site set-up (:meth:`ArenaTask.setup`, e.g.
the banner variant of the news site), whether it runs on the local
web, and its rule judge (:meth:`ArenaTask.judge`).  The four task lists (:data:`TASK_LISTS`), generated from
templates at the paper's sizes:

* ``captcha``: 220 travel tasks on SkyRoute (flights, hotels, rental cars), answer = the cheapest offer;
* ``banner``: 80 news tasks on The Daily Herald (latest headline of a section, headline of a given day), five banner
  variants;
* ``trivia``: 100 questions about Openpedia's landmarks (four facts about each of 25 landmarks);
* ``trivia_real``: 30 questions about real, well-known facts (answerable from memory or on Openpedia);
  ``trivia_all`` is both;
* ``open``: user tasks on the open web (no answer key; the arena's votes judge them).

A task keeps its answer key in :attr:`ArenaTask.answer`; the env never puts it into observations or ``info`` before
the episode ends.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

from personal_envs.browser.start_url import start_url_refusal
from personal_envs.browserarena.judges.rules import (
    judge_banner,
    judge_captcha,
    judge_navigation,
    navigation_category,
    navigation_route,
    navigation_scenario,
)
from personal_envs.browserarena.schema import OpenTaskItems
from personal_envs.browserarena.web import hosts
from personal_envs.browserarena.web.facts import real_facts
from personal_envs.browserarena.web.news import BANNER_VARIANTS, NewsSite
from personal_envs.browserarena.web.world import (
    CITIES,
    NEWS_SECTIONS,
    all_headlines,
    car_offers,
    cheapest,
    encyclopedia_entities,
    flight_offers,
    hotel_offers,
    stable_rng,
)
from personal_envs.browserarena.web_access import web_access_metrics
from personal_envs.browserarena.world import ArenaWorld, trace_summary
from personal_envs.core.actions import ActionSpec
from personal_envs.core.errors import InputError
from personal_envs.core.schema import validate
from personal_envs.core.task import Check, EpisodeTrace, Evaluation, Task

if TYPE_CHECKING:
    import numpy as np

CAPTCHA_TASK_COUNT = 220
BANNER_TASK_COUNT = 80
TRIVIA_TASK_COUNT = 100
#: Longest task text (a custom open-web task is cut to this).
MAX_TASK_CHARS = 4000


@dataclass(frozen=True)
class ArenaTask(Task[ArenaWorld]):
    """One task: public text and parameters, a start URL, and the hidden answer key.

    Subclasses set the category's :attr:`kind`, :attr:`local_web`, :attr:`extra_actions` and override
    :meth:`configure_sites` and :meth:`judge`.
    """

    task_id: str = field()  # no default (the base class has one)
    text: str = field()
    start_url: str = "about:blank"
    category: str = ""
    params: dict[str, Any] = field(default_factory=dict)  # public: what the text says, in structured form
    answer: dict[str, Any] = field(default_factory=dict, repr=False)  # hidden answer key

    #: ``"captcha"``, ``"banner"``, ``"trivia"`` or ``"open"``.
    kind: ClassVar[str] = "open"
    #: The task runs on the local failure-mode sites (served through a proxy).
    local_web: ClassVar[bool] = True
    #: Actions beyond the BrowserUse set that the task offers.
    extra_actions: ClassVar[tuple[ActionSpec, ...]] = ()

    # ------------------------------------------------------------------------------------- Task contract
    def setup(self, world: ArenaWorld, rng: np.random.Generator) -> dict[str, Any]:
        """Configure the sites, start the log and open the start page; the info carries the public task."""
        self.configure_sites(world)
        world.start(self.task_id, self.text, self.category, self.kind)
        error = ""
        if world.driver is not None and self.start_url and self.start_url != "about:blank":
            error = start_url_refusal(self.start_url) or world.driver.navigate(self.start_url)
        return {"task_id": self.task_id, "category": self.category, "kind": self.kind, "task": self.text,
                "task_params": dict(self.params), "start_error": error}

    def evaluate(self, world: ArenaWorld, trace: EpisodeTrace) -> Evaluation:
        """Score 1 when the final answer contains the answer key; the rule judge's verdict in the metrics."""
        log = world.log(trace)
        final = log["final"]
        answer = str(final["answer"])
        metrics: dict[str, Any] = {"finished": final["finished"], "success_claimed": bool(final["success_claimed"]),
                                   "answer": answer[:2000], "kind": self.kind, "category": self.category}
        checks = [Check("finished with done", bool(final["finished"]))]
        score = 0.0
        if self.answer:
            matched = answer_matches(self, answer) if final["finished"] else {"correct": False}
            metrics.update(matched)
            score = 1.0 if matched.get("correct") else 0.0
            checks += [Check(name, bool(ok)) for name, ok in matched.items()]
        rules = self.judge(log)
        metrics.update(rules)
        metrics["trace_judge"] = "rules"
        if world.trace_judge is not None:
            judged = world.trace_judge.metrics(log, self.kind)
            if judged:
                metrics["rule_labels"] = {k: rules[k] for k in judged if k in rules}
                metrics.update(judged)
        self.settle_labels(metrics, log)
        metrics["trace_summary"] = trace_summary(log)
        failed = [c.name for c in checks if not c.passed]
        return Evaluation(score, metrics, checks, "failed " + ", ".join(failed) if failed else "all checks passed")

    def hidden_strings(self, world: ArenaWorld) -> list[str]:
        """The answer key's texts (offer name, headline, trivia answer)."""
        return [str(self.answer[key]) for key in ("name", "headline", "answer") if key in self.answer]

    # ------------------------------------------------------------------------------------- category hooks
    def configure_sites(self, world: ArenaWorld) -> None:
        """Per-task set-up of the local sites (default: none)."""

    def judge(self, log: Mapping[str, Any]) -> dict[str, Any]:
        """The category's rule judge on the finished browser-use log (metrics; default: none)."""
        return {}

    def settle_labels(self, metrics: dict[str, Any], log: Mapping[str, Any]) -> None:
        """Combine the judge's labels (rules or LLM, already in ``metrics``) with the answer key (default: none)."""

    def customised(self, options: Mapping[str, Any]) -> ArenaTask:
        """The task to run for ``reset(options=...)`` (open tasks take ``task`` / ``start_url``; others: self)."""
        return self


@dataclass(frozen=True)
class CaptchaTask(ArenaTask):
    """A SkyRoute search whose result pages answer with a captcha; judged by the 14 captcha strategies."""

    kind: ClassVar[str] = "captcha"

    def judge(self, log: Mapping[str, Any]) -> dict[str, Any]:
        strategies = judge_captcha(log)
        encountered = log.get("initial", {}).get("captcha", False) or any(
            step.get("captcha") for step in log.get("steps", []))
        return {"strategies": strategies, "captcha_encountered": bool(encountered),
                "num_strategies": sum(strategies.values())}


@dataclass(frozen=True)
class BannerTask(ArenaTask):
    """A Daily Herald question behind a banner variant; judged by banner detected / closed."""

    kind: ClassVar[str] = "banner"

    def configure_sites(self, world: ArenaWorld) -> None:
        site = world.web.site_for(hosts.NEWS_HOST) if world.web is not None else None
        if isinstance(site, NewsSite):
            site.banner_variant = str(self.params.get("banner_variant", "cookie_accept_reject"))

    def judge(self, log: Mapping[str, Any]) -> dict[str, Any]:
        return {**judge_banner(log), "banner_variant": self.params.get("banner_variant", "")}


@dataclass(frozen=True)
class TriviaTask(ArenaTask):
    """An Openpedia trivia question (fictional landmark, or a real well-known fact); judged by how the answer was
    looked up (``navigation_route``, from the trace: the rule judge's or the LLM judge's) and whether it is right:
    ``navigation_category`` is the paper's Table 5 column, ``failed`` unless the final answer contains the answer
    key, else the route (only browser-use's own actions are offered, so a web search is ``search_google``)."""

    kind: ClassVar[str] = "trivia"

    def judge(self, log: Mapping[str, Any]) -> dict[str, Any]:
        flags = judge_navigation(log)
        final = log.get("final") or {}
        correct = bool(final.get("finished")) and answer_matches(self, str(final.get("answer", "")))["correct"]
        return {"navigation": flags, "scenario": navigation_scenario(flags), "navigation_route": navigation_route(log),
                "navigation_category": navigation_category(log, correct=correct),
                "question_set": self.params.get("set", "fictional")}

    def settle_labels(self, metrics: dict[str, Any], log: Mapping[str, Any]) -> None:
        """Table 5's column from the (possibly LLM-judged) route and the answer key: a wrong answer is Failed."""
        route = str(metrics.get("navigation_route", navigation_route(log)))
        metrics["navigation_category"] = route if metrics.get("correct") else "failed"


@dataclass(frozen=True)
class OpenTask(ArenaTask):
    """Any user task on the open web (or a local URL); no answer key."""

    kind: ClassVar[str] = "open"
    local_web: ClassVar[bool] = False

    def judge(self, log: Mapping[str, Any]) -> dict[str, Any]:
        """Whether the episode reached the web, and whether its success claim was made on a loaded page."""
        return web_access_metrics(log)

    def customised(self, options: Mapping[str, Any]) -> ArenaTask:
        if "task" not in options and "start_url" not in options:
            return self
        text = str(options.get("task", self.text))[:MAX_TASK_CHARS]
        return replace(self, task_id=str(options.get("task_id", f"open-custom-{abs(hash(text)) % 10**8:08d}")),
                       text=text, start_url=str(options.get("start_url", self.start_url)))


#: Tasks of ``BrowserArena-Open-v0`` when none are given.
DEFAULT_OPEN_TASKS: tuple[str, ...] = (
    "Find the opening hours of the public library closest to the city centre of Cardiff.",
    "Create a list of the top-ranked chess players on chess.com from Belgium.",
    "Find me the last available train from Cardiff Central to Barry Docks station today on trainline.",
)


def open_tasks(items: Sequence[str | Mapping[str, str]] | None = None) -> tuple[OpenTask, ...]:
    """Open-web tasks from texts or ``{"text", "start_url"}`` dicts (default: :data:`DEFAULT_OPEN_TASKS`), checked
    against :data:`~personal_envs.browserarena.schema.OpenTaskItems` (:class:`~personal_envs.core.errors.InputError`
    naming the task and the field)."""
    chosen = list(items) if items else list(DEFAULT_OPEN_TASKS)
    validate(OpenTaskItems, chosen, "BrowserArena tasks")
    tasks = []
    for i, item in enumerate(chosen):
        text = item if isinstance(item, str) else str(item.get("text", ""))
        start = "about:blank" if isinstance(item, str) else str(item.get("start_url", "about:blank"))
        tasks.append(OpenTask(task_id=f"open-{i:03d}", text=text, start_url=start, category="open"))
    return tuple(tasks)


@lru_cache(maxsize=1)
def captcha_tasks() -> tuple[CaptchaTask, ...]:
    """220 SkyRoute tasks: 120 flights, 60 hotels, 40 rental cars."""
    rng = stable_rng("captcha-tasks")
    codes = list(CITIES)
    start = date(2025, 7, 1)
    tasks: list[CaptchaTask] = []
    seen: set[tuple[str, ...]] = set()
    plan = [("flights", 120), ("hotels", 60), ("cars", 40)]
    for kind, count in plan:
        made = 0
        while made < count:
            day = (start + timedelta(days=rng.randrange(0, 60))).isoformat()
            if kind == "flights":
                origin, dest = rng.sample(codes, 2)
                key: tuple[str, ...] = (kind, origin, dest, day)
                if key in seen:
                    continue
                best = cheapest(flight_offers(origin, dest, day))
                text = (f"Find the cheapest one-way flight from {CITIES[origin]} ({origin}) to {CITIES[dest]} "
                        f"({dest}) on {day} on {hosts.TRAVEL_BRAND} ({hosts.TRAVEL_HOST}) and report the airline "
                        "and the price.")
                params: dict[str, Any] = {"from": origin, "to": dest, "date": day}
                path = f"/flights?from={origin}&to={dest}&date={day}"
            else:
                city = CITIES[rng.choice(codes)]
                key = (kind, city, day)
                if key in seen:
                    continue
                if kind == "hotels":
                    best = cheapest(hotel_offers(city, day))
                    text = (f"Find the cheapest hotel in {city} for one night with check-in on {day} on "
                            f"{hosts.TRAVEL_BRAND} ({hosts.TRAVEL_HOST}) and report its name and nightly price.")
                    params = {"city": city, "checkin": day}
                    path = f"/hotels?city={city.replace(' ', '+')}&checkin={day}"
                else:
                    best = cheapest(car_offers(city, day))
                    text = (f"Find the cheapest rental car in {city} for pick-up on {day} on "
                            f"{hosts.TRAVEL_BRAND} ({hosts.TRAVEL_HOST}) and report the company and daily price.")
                    params = {"city": city, "date": day}
                    path = f"/cars?city={city.replace(' ', '+')}&date={day}"
            seen.add(key)
            made += 1
            params = {**params, "kind": kind, "path": path}
            tasks.append(CaptchaTask(
                task_id=f"captcha-{len(tasks):03d}", text=text, start_url="about:blank",
                category=kind, params=params, answer={"name": best.name, "price_usd": best.price_usd},
            ))
    return tuple(tasks)


@lru_cache(maxsize=1)
def banner_tasks() -> tuple[BannerTask, ...]:
    """80 Daily Herald tasks: 8 sections x (latest headline, dated headline) x 5 banner variants."""
    tasks: list[BannerTask] = []
    variants = list(BANNER_VARIANTS)
    headlines = all_headlines()
    for v_index, variant in enumerate(variants):
        for s_index, section in enumerate(NEWS_SECTIONS):
            items = headlines[section]
            latest = items[0]
            tasks.append(BannerTask(
                task_id=f"banner-{len(tasks):03d}",
                text=(f"Go to {hosts.NEWS_BRAND} ({hosts.NEWS_HOST}) and tell me the most recent headline in its "
                      f"{section.capitalize()} section."),
                start_url=f"http://{hosts.NEWS_HOST}/", category="latest",
                params={"section": section, "banner_variant": variant, "question": "latest"},
                answer={"headline": latest.title, "day": latest.day},
            ))
            dated = items[1 + (v_index + s_index) % (len(items) - 1)]
            tasks.append(BannerTask(
                task_id=f"banner-{len(tasks):03d}",
                text=(f"On {hosts.NEWS_BRAND} ({hosts.NEWS_HOST}), which {section.capitalize()} headline was "
                      f"published on {dated.day}?"),
                start_url=f"http://{hosts.NEWS_HOST}/", category="dated",
                params={"section": section, "banner_variant": variant, "question": "dated", "date": dated.day},
                answer={"headline": dated.title, "day": dated.day},
            ))
    return tuple(tasks)


@lru_cache(maxsize=1)
def trivia_tasks() -> tuple[TriviaTask, ...]:
    """100 trivia questions: completion year, designer, length and river of 25 Openpedia landmarks."""
    tasks: list[TriviaTask] = []
    for entity in encyclopedia_entities():
        questions = [
            ("year", f"In what year was the {entity.title} completed?", str(entity.year)),
            ("designer", f"Who designed the {entity.title}?", entity.architect),
            ("length", f"How long is the {entity.title}, in metres?", str(entity.length_m)),
            ("river", f"Along which river does the {entity.title} stand?", entity.river),
        ]
        for category, question, answer in questions:
            tasks.append(TriviaTask(
                task_id=f"trivia-{len(tasks):03d}",
                text=f"{question} (The landmark is described in the {hosts.WIKI_BRAND} encyclopedia.)",
                start_url="about:blank", category=category,
                params={"entity": entity.title, "question": category, "set": "fictional"},
                answer={"answer": answer},
            ))
    return tuple(tasks)


#: Number of real-fact trivia questions (:func:`real_trivia_tasks`).
REAL_TRIVIA_TASK_COUNT = 30


@lru_cache(maxsize=1)
def real_trivia_tasks() -> tuple[TriviaTask, ...]:
    """30 questions about real, well-known facts (TriviaQA style): answerable from memory, and on Openpedia."""
    return tuple(
        TriviaTask(task_id=f"trivia-real-{i:03d}", text=fact.question, start_url="about:blank",
                   category=f"real_{fact.category}",
                   params={"entity": fact.title, "question": "real", "set": "real"}, answer={"answer": fact.answer})
        for i, fact in enumerate(real_facts()))


def normalise(text: str) -> str:
    """Lower-case, punctuation-free, single-spaced text for answer matching."""
    return " ".join(re.findall(r"[a-z0-9£$]+", text.lower()))


def answer_matches(task: ArenaTask, reply: str) -> dict[str, bool]:
    """Whether a final reply contains the answer: ``{"correct": ..., "price_match": ...}`` (price for captcha)."""
    got = normalise(reply)
    if task.kind == "captcha":
        name_ok = normalise(task.answer["name"]) in got
        price = int(task.answer["price_usd"])
        gbp = round(price * 0.79)
        price_ok = bool(re.search(rf"(?<!\d)({price}|{gbp})(?!\d)", reply))
        return {"correct": name_ok, "price_match": price_ok}
    if task.kind == "banner":
        return {"correct": normalise(task.answer["headline"]) in got}
    if task.kind == "trivia":
        return {"correct": normalise(task.answer["answer"]) in got}
    return {"correct": False}


#: The four task lists, by the name the registration kwargs use (``tasks="captcha"``).
TASK_LISTS: dict[str, Callable[[], Sequence[ArenaTask]]] = {
    "open": open_tasks, "captcha": captcha_tasks, "banner": banner_tasks, "trivia": trivia_tasks,
    "trivia_real": real_trivia_tasks, "trivia_all": lambda: (*real_trivia_tasks(), *trivia_tasks()),
}


def resolve_tasks(tasks: str | Sequence[str | Mapping[str, str] | ArenaTask] | None) -> list[ArenaTask]:
    """A task list: a name of :data:`TASK_LISTS`, task objects, or open-web task texts / dicts (``None``: the
    default open-web tasks)."""
    if tasks is None:
        return list(open_tasks())
    if isinstance(tasks, str):
        if tasks not in TASK_LISTS:
            raise InputError(f"unknown BrowserArena task list {tasks!r}; known: {', '.join(TASK_LISTS)}")
        return list(TASK_LISTS[tasks]())
    if not isinstance(tasks, Sequence):
        raise InputError(f"BrowserArena tasks must be a task-list name or a list of tasks, got "
                         f"{type(tasks).__name__}")
    items = list(tasks)
    if all(isinstance(item, ArenaTask) for item in items):
        return [item for item in items if isinstance(item, ArenaTask)]
    if any(isinstance(item, ArenaTask) for item in items):
        raise InputError("give either task objects or open-web task texts, not both")
    return list(open_tasks([item for item in items if not isinstance(item, ArenaTask)]))
