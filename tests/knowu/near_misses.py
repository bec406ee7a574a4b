"""Near misses of an oracle's goals: each breaks one thing the goal gets right (the item, the address, the channel,
the recipient, the visibility...), so a test plays it through the UI and checks that the task's check scores it
lower, as the official check (or the class rubric) would."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.oracle import (
    Alarm,
    Ask,
    Contact,
    Event,
    Goal,
    Mail,
    Order,
    Post,
    Prune,
    Reply,
    Sms,
    Sort,
    Toot,
    Visit,
    plan,
)
from tests.knowu.helpers import run_oracle

#: Items of the embedded world nobody's request wants (a bookshelf; a fried, cheesy burger).
WRONG_ITEMS = ("bookshelf", "cheeseburger")


def _items(world: Mapping[str, Any], app: str) -> dict[str, set[str]]:
    """The app's items by id, each with its describing words (cuisine, contents, traits, category)."""
    holder = world.get(app) or {}
    items = [*holder.get("catalog", []), *[d for r in holder.get("restaurants", []) for d in r.get("dishes", [])]]
    return {str(i["id"]): {str(w).lower() for key in ("cuisine", "contains", "traits", "category")
                           for w in (i.get(key) or [] if isinstance(i.get(key), list) else [i.get(key) or ""]) if w}
            for i in items}


def _wrong_item(goal: Order, world: Mapping[str, Any]) -> str | None:
    """An item nobody's request wants when the app has one, else the one least like what the oracle picked for this
    persona (the oracle's pick carries the persona's preference)."""
    items = _items(world, goal.app)
    others = [i for i in items if i != goal.item]
    fixed = next((i for i in WRONG_ITEMS if i in others), None)
    if fixed is not None or not others:
        return fixed
    picked = items.get(goal.item, set())
    return min(reversed(others), key=lambda i: len(items[i] & picked))


def goal_misses(goal: Goal, world: Mapping[str, Any]) -> list[tuple[str, Goal | None]]:
    """Labelled near misses of one goal (``None``: the goal left out)."""
    replace = dataclasses.replace
    if isinstance(goal, Order):
        wrong = _wrong_item(goal, world)
        misses: list[tuple[str, Goal | None]] = [("wrong address", replace(goal, address="Somewhere Else Road 1"))]
        misses.append(("wrong item", replace(goal, item=wrong, size=None)) if wrong else ("no order", None))
        if goal.note:
            misses.append(("no note", replace(goal, note="")))
        return misses
    if isinstance(goal, Prune):
        return [("one item kept", replace(goal, ids=goal.ids[:-1])) if len(goal.ids) > 1 else ("nothing deleted", None)]
    if isinstance(goal, Sms):
        return [("wrong recipient", replace(goal, recipient="13000000001"))]
    if isinstance(goal, Post):
        return [("wrong channel", replace(goal, channel="random"))]
    if isinstance(goal, Mail):
        misses = [("wrong recipient", replace(goal, to="someone.else@example.com"))]
        return misses + ([("no attachment", replace(goal, attachments=()))] if goal.attachments else [])
    if isinstance(goal, Toot):
        other = "public" if goal.visibility != "public" else "direct"
        misses = [("wrong visibility", replace(goal, visibility=other))]
        return misses + ([("no photo", replace(goal, media=()))] if goal.media else [])
    if isinstance(goal, Alarm):
        return [("wrong ringtone", replace(goal, ringtone="Default")), ("no weekend repeat", replace(goal, days=()))]
    if isinstance(goal, Contact):
        return [("not starred", replace(goal, starred=False))]
    if isinstance(goal, Sort):
        return [("wrong sort", replace(goal, order="size_desc" if goal.order != "size_desc" else "name_asc"))]
    if isinstance(goal, Event):
        return [("no event", None)]
    if isinstance(goal, Reply):
        return [("no plan", replace(goal, text="I can't help with that today."))]
    if isinstance(goal, Ask):
        return [("no question", None)]
    if isinstance(goal, Visit):
        return [("no visit", None)]
    return []


def near_misses(goals: Sequence[Goal], world: Mapping[str, Any]) -> list[tuple[str, list[Goal]]]:
    """Every near miss of a plan's goals: the goals with one of them mutated (or left out)."""
    found: list[tuple[str, list[Goal]]] = []
    for index, goal in enumerate(goals):
        for label, replacement in goal_misses(goal, world):
            rest = [*goals[:index], *([replacement] if replacement is not None else []), *goals[index + 1:]]
            found.append((f"{type(goal).__name__}: {label}", rest))
    return found


#: Near misses the official code does not penalize either: the notice class takes a post in any channel (its rubric
#: judges style and completeness only), the news class's workflow line is "N/A, assign 1.0" without an app
#: trajectory (skipping the search page costs nothing), and the Mastodon photo's rubric does not judge visibility.
OFFICIALLY_UNJUDGED = {("LateUrgentRouteWithNoticeTask", "Post: wrong channel"),
                       ("SearchTopInfoPreferenceAskUserTask", "Visit: no visit"),
                       ("MastodonSharePhotosPreferenceAskUserTask", "Toot: wrong visibility"),
                       ("TakeoutReamarkPreferenceAskUserTask", "Order: wrong address")}


def check_near_misses(env: KnowUEnv, variant: str) -> int:
    """The oracle succeeds with the rubric judge; every near miss of its goals scores lower (returns how many)."""
    info = run_oracle(env, variant)
    assert info["metrics"]["success"], (variant, info["metrics"]["reason"])
    assert "from the class rubric" in info["metrics"]["judge_reason"]
    task: Any = env.task
    checked = 0
    for label, goals in near_misses(task.rubric.oracle, task.world):
        if (task.official_name, label) in OFFICIALLY_UNJUDGED:
            continue
        worse = run_oracle(env, variant, plan(goals, task.world))
        assert worse["score"] < info["score"], (variant, label, worse["metrics"]["reason"])
        checked += 1
    return checked
