"""A deterministic judge written from each official class's own rubric, for profiles the project template cannot read.

The official preference classes score ``base + judge``; the judge gets the persona and a weighted rubric ("Basic
Information Accuracy (30%) ... App Preference (30%) ... Product Preference (40%)").  Without an endpoint the
project falls back to a deterministic judge.  For the profiles the project's own templates read, that is the
project's preference checks; for the others (the official grandma, student, developer and user where the template
reads other fields), this module scores the class's rubric itself: one :class:`Dimension` per rubric line, with its
official weight, computed from the fields the rubric names (:mod:`.reading`) and the end state.  A dimension whose
field the profile lacks is not judged: the weights of the judged ones are renormalized and the reason names the
missing field.  The same reading gives the oracle's plan (the order, the deletion, the mail, the answer that meets
every judged dimension), so the oracle follows the official class, not a reference persona.

:data:`WORLDS` adds to a class's world what the official app images hold for every role (both shops carry the same
carts, both delivery apps every restaurant, the timeline a post for each official role's interest): the same for
every role, whichever profile runs.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from personal_envs.knowu.official.preference import reading as rd
from personal_envs.knowu.taskspec import (
    AlarmCheck,
    AnswerCheck,
    ChannelPostCheck,
    Check,
    ChromeVisitCheck,
    ListPruneCheck,
    MailCheck,
    OrderCheck,
    SmsCheck,
    listed,
    new_items,
)

State = Mapping[str, Any]
Trace = Sequence[Mapping[str, Any]]
Scorer = Callable[[State, State, Trace], tuple[float, str]]
KEVIN = "kevin@example.com"


@dataclass(frozen=True)
class Dimension:
    """One line of an official rubric: its name, official weight, and scorer (``None``: the profile lacks
    ``missing``, so it is not judged)."""

    name: str
    weight: float
    scorer: Scorer | None
    missing: str = ""


@dataclass
class ClassRubric:
    """The deterministic judge of one official class for one profile, and the oracle checks that meet it."""

    dimensions: tuple[Dimension, ...]
    oracle: tuple[Check, ...]
    ask_first: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    def score(self, initial: State, final: State, steps: Trace) -> tuple[float, str]:
        """The weighted rubric score over the judged dimensions, and a reason naming each one."""
        total = got = 0.0
        parts = []
        for dim in self.dimensions:
            if dim.scorer is None:
                parts.append(f"{dim.name}: not judged (the profile has no {dim.missing})")
                continue
            value, why = dim.scorer(initial, final, steps)
            total += dim.weight
            got += dim.weight * value
            parts.append(f"{dim.name} {value:.2f} ({why})")
        value = got / total if total else 0.0
        return value, ("deterministic fallback from the official rubric: " + "; ".join(parts)
                       + ("" if total else " (no dimension judged)"))


@dataclass(frozen=True)
class Reading:
    """What a class builder reads: the official profile, the task's world, the official values, the role."""

    doc: Mapping[str, Any]
    state: State
    values: Mapping[str, Any]
    role: str


# ============================================================================================ episode facts
def new_orders(initial: State, final: State, apps: Sequence[str]) -> list[tuple[str, Mapping[str, Any]]]:
    """New orders of ``apps`` (app, order)."""
    return [(a, o) for a in apps for o in new_items(listed(initial, a, "orders"), listed(final, a, "orders"))
            if isinstance(o, Mapping)]


def removed_from_cart(initial: State, final: State, apps: Sequence[str]) -> list[tuple[str, Mapping[str, Any]]]:
    """Cart items no longer in the cart at the end (app, item)."""
    out = []
    for a in apps:
        left = {str(i.get("id")) for i in listed(final, a, "cart") if isinstance(i, Mapping)}
        out += [(a, i) for i in listed(initial, a, "cart") if isinstance(i, Mapping) and str(i.get("id")) not in left]
    return out


def last_answer(steps: Trace) -> str:
    """The agent's last ``answer`` text (``""`` without one)."""
    answers = [str(s.get("text", "")) for s in steps if s.get("action_type") == "answer"]
    return answers[-1] if answers else ""


def my_posts(initial: State, final: State) -> list[tuple[str, str]]:
    """New Mattermost messages by the user (channel, text)."""
    me = str((final.get("mattermost", {}) or {}).get("me", "me"))

    def posts(state: State) -> list[tuple[str, str]]:
        return [(str(c.get("name", "")), str(m.get("text", ""))) for t in listed(state, "mattermost", "teams")
                if isinstance(t, Mapping) for c in t.get("channels", []) or [] if isinstance(c, Mapping)
                for m in c.get("messages", []) or [] if isinstance(m, Mapping) and str(m.get("user", "")) == me]
    return new_items(posts(initial), posts(final))


def _app_scorer(credits: Mapping[str, float], used: Callable[[State, State], list[str]]) -> Scorer:
    def score(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        apps = used(initial, final)
        if not apps:
            return 0.0, "no app used"
        value = min(credits.get(a, 0.5) for a in apps)
        return value, f"used {', '.join(sorted(set(apps)))}"
    return score


def app_dimension(reading: Reading, kind: str, weight: float,
                  used: Callable[[State, State], list[str]]) -> tuple[Dimension, str]:
    """The "App Preference" line: 1.0 preferred, 0.5 secondary, 0.0 avoided; and the app the oracle uses."""
    names = rd.SHOPS if kind == "shop" else rd.FOOD
    found = rd.platform_credits(reading.doc, kind)
    if found is None:
        field_name = ("preferences.shopping.online_platforms" if kind == "shop"
                      else "preferences.diet.delivery_platform")
        return Dimension("app preference", weight, None, field_name), names[0]
    credits, _ = found
    return Dimension("app preference", weight, _app_scorer(credits, used)), rd.preferred_app(credits, names)


def _order_apps(apps: Sequence[str]) -> Callable[[State, State], list[str]]:
    return lambda initial, final: [a for a, _ in new_orders(initial, final, apps)]


def _cart_apps(apps: Sequence[str]) -> Callable[[State, State], list[str]]:
    return lambda initial, final: [a for a, _ in removed_from_cart(initial, final, apps)]


def basic_info(reading: Reading, weight: float, apps: Sequence[str], keys: Sequence[str]) -> tuple[Dimension, str]:
    """The "Basic Information Accuracy" line: recipient, phone and address of the new order (the account holder's
    details on file count as the user's own); ``keys``: the locations the request allows, the first the oracle's."""
    names, phone = rd.identity(reading.doc)
    places = rd.addresses(reading.doc)
    wanted = [places[k] for k in keys if k in places] or list(places.values())

    def score(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        orders = new_orders(initial, final, apps)
        if not orders:
            return 0.0, "no order"
        order = orders[-1][1]
        recipient = str(order.get("recipient", ""))
        name_ok = recipient in ("", "Account holder") or any(n.lower() in recipient.lower() for n in names)
        number = str(order.get("phone", ""))
        phone_ok = number in ("", "on file") or rd.digits(number) == rd.digits(phone)
        address_ok = any(w.lower() in str(order.get("address", "")).lower() for w in wanted)
        return (name_ok + phone_ok + address_ok) / 3, (f"recipient {'ok' if name_ok else 'wrong'}, phone "
                                                       f"{'ok' if phone_ok else 'wrong'}, address "
                                                       f"{'ok' if address_ok else 'wrong'}")
    return Dimension("basic information", weight, score if wanted else None, "locations"), \
        (wanted[0] if wanted else "Home")


# ================================================================================================ shopping
def _catalog(state: State, app_name: str) -> list[Mapping[str, Any]]:
    return [i for i in listed(state, app_name, "catalog") if isinstance(i, Mapping)]


def _item_text(item: Mapping[str, Any]) -> str:
    return " ".join([str(item.get("title", "")), str(item.get("brand", "")), str(item.get("color", "")),
                     " ".join(map(str, item.get("tags", []) or []))]).lower()


def _ordered(initial: State, final: State, apps: Sequence[str]) -> list[Mapping[str, Any]]:
    items: list[Mapping[str, Any]] = []
    for a, order in new_orders(initial, final, apps):
        catalog = {str(i.get("id")): i for i in _catalog(initial, a)}
        for line in order.get("items", []) or []:
            if isinstance(line, Mapping):
                items.append({**line, **catalog.get(str(line.get("id")), {})})
    return items


def _product_order(reading: Reading, *, name: str, weight: float, wanted: Callable[[Mapping[str, Any]], float],
                   missing: str | None, keys: Sequence[str], w_basic: float, w_app: float, size: str | None = None,
                   note: tuple[str, tuple[str, ...]] | None = None) -> tuple[list[Dimension], OrderCheck]:
    """Basic info + app preference + one product line scored by ``wanted`` (1.0 / 0.5 / 0.0 per item)."""
    basic, address = basic_info(reading, w_basic, rd.SHOPS, keys)
    app_dim, app_name = app_dimension(reading, "shop", w_app, _order_apps(rd.SHOPS))

    def product(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        items = _ordered(initial, final, rd.SHOPS)
        if not items:
            return 0.0, "nothing ordered"
        best = max(items, key=wanted)
        unstated = f" (the profile has no {missing}: only the kind of product judged)" if missing else ""
        return wanted(best), f"ordered {best.get('title', best.get('id'))}{unstated}"

    catalog = _catalog(reading.state, app_name)
    ranked = sorted(catalog, key=lambda i: -wanted(i))
    choice, worst = (ranked[0], ranked[-1]) if ranked else ({"id": ""}, {"id": ""})
    check = OrderCheck(app_name, (str(choice.get("id")),), str(worst.get("id")), address=address, size=size,
                       note_text=note[0] if note else "", note_keywords=note[1] if note else ())
    return [basic, app_dim, Dimension(name, weight, product)], check


def buy_cola(reading: Reading) -> ClassRubric:
    """BuyColaPreferenceTask: basic info 30 % (work address), app 30 %, cola brand and sugar 40 %."""
    text = rd.text_of(rd.get(reading.doc, "preferences.diet.soft_drinks"))
    brand = next((b for b in re.findall(r"coca-cola|coke|pepsi", text)
                  if not re.search(rf"\bno {b}", text)), None) if text else None
    brand = "coca-cola" if brand == "coke" else brand
    sugar = None
    if text:
        sugar = "regular" if re.search(r"no (diet|zero)|full sugar|regular", text) else (
            "zero" if re.search(r"sugar-free|zero|diet", text) else None)

    def wanted(item: Mapping[str, Any]) -> float:
        t = _item_text(item)
        if not re.search(r"cola|coke|pepsi", t):
            return 0.0
        brand_ok = brand is None or brand in t or (brand == "coca-cola" and "coke" in t)
        item_zero = "zero" in t or "sugar-free" in t
        sugar_ok = sugar is None or (sugar == "zero") == item_zero
        return (brand_ok + sugar_ok) / 2

    dims, check = _product_order(reading, name="cola preference", weight=0.4, wanted=wanted,
                                 missing=None if text else "preferences.diet.soft_drinks", keys=("work",),
                                 w_basic=0.3, w_app=0.3)
    return ClassRubric(tuple(dims), (check,))


def buy_computer(reading: Reading) -> ClassRubric:
    """BuyComputerPreferenceAskUserTask: basic info 25 %, app 25 %, computer preference 50 %."""
    found = rd.first(reading.doc, ("preferences.shopping.computer", "preferences.shopping.electronics"))
    value = found[1] if found else None
    disliked = rd.text_of(value.get("disliked_brands")) if isinstance(value, Mapping) else ""
    liked = rd.text_of({k: v for k, v in value.items() if k not in ("disliked_brands", "no_buy_list")}
                       if isinstance(value, Mapping) else value)
    budget = re.findall(r"(\d{4,6})", liked)
    ceiling = max(float(b) for b in budget) if budget else None

    def wanted(item: Mapping[str, Any]) -> float:
        if str(item.get("category", "")) != "computer":
            return 0.0
        words = [str(item.get("brand", "")).lower(), *[str(t).lower() for t in item.get("tags", []) or []]]
        if any(w and w in disliked for w in words):
            return 0.0
        fits = any(w and w in liked for w in words)
        within = ceiling is None or float(item.get("price", 0) or 0) <= ceiling
        return 1.0 if fits and within else 0.5

    dims, check = _product_order(reading, name="computer preference", weight=0.5, wanted=wanted,
                                 missing=None if value else "preferences.shopping.computer",
                                 keys=("home", "work"), w_basic=0.25, w_app=0.25)
    return ClassRubric(tuple(dims), (check,))


def white_sneakers(reading: Reading) -> ClassRubric:
    """SearchWhiteSneakersCheckoutPreferenceAskUserTask: basic info 30 %, app 30 %, product 40 % (shoes, white as
    the official rubric states, the profile's EU size)."""
    size = rd.get(reading.doc, "preferences.shopping.shoe.shoe_size_eu")

    def wanted(item: Mapping[str, Any]) -> float:
        if str(item.get("category", "")) != "shoes":
            return 0.0
        white = "white" in _item_text(item)
        size_ok = size is None or str(item.get("size", str(size))) == str(size)
        return 1.0 if white and size_ok else 0.5

    dims, check = _product_order(reading, name="product preference", weight=0.4, wanted=wanted, missing=None,
                                 keys=("home",), w_basic=0.3, w_app=0.3,
                                 size=str(size) if size is not None else None)
    return ClassRubric(tuple(dims), (check,))


def courier_note(reading: Reading) -> ClassRubric:
    """NoteTheCourierForDeliveryPreferenceAskUserTask: basic 25 %, app 20 %, a sofa 25 %, the courier note 30 %."""
    found = rd.courier(reading.doc)

    def sofa(item: Mapping[str, Any]) -> float:
        return 1.0 if "sofa" in _item_text(item) else (0.5 if item.get("category") == "furniture" else 0.0)

    note = (f"Please ship with {found[0]}.", (found[0],)) if found else None
    dims, check = _product_order(reading, name="product and task", weight=0.25, wanted=sofa, missing=None,
                                 keys=("home",), w_basic=0.25, w_app=0.2, note=note)

    def courier_score(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        assert found is not None
        notes = " ".join(str(o.get("note", "")) for _, o in new_orders(initial, final, rd.SHOPS)).lower()
        ok = any(w in notes for w in found[1])
        return float(ok), f"note {'asks for' if ok else 'lacks'} {found[0]}"

    dims.append(Dimension("courier preference", 0.3, courier_score if found else None,
                          "preferences.shopping.delivery_courier"))
    return ClassRubric(tuple(dims), (check,))


# ============================================================================================ cart pruning
def _prune(reading: Reading, *, disliked: Callable[[Mapping[str, Any]], bool] | None, in_scope: str, missing: str,
           weights: tuple[float, float, float]) -> ClassRubric:
    """Target accuracy, app preference and execution of a cart deletion (the cart-management classes)."""
    app_dim, app_name = app_dimension(reading, "shop", weights[1], _cart_apps(rd.SHOPS))
    cart = [i for i in listed(reading.state, app_name, "cart") if isinstance(i, Mapping)]
    targets = {str(i.get("id")) for i in cart if disliked is not None and in_scope in str(i.get("category", ""))
               and disliked(i)}

    def target(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        gone = {str(i.get("id")) for _, i in removed_from_cart(initial, final, rd.SHOPS)}
        if not gone:
            return 0.0, "nothing deleted"
        if gone == targets:
            return 1.0, f"deleted exactly {sorted(targets)}"
        return (0.5 if gone & targets else 0.0), f"deleted {sorted(gone)}, expected {sorted(targets)}"

    def execution(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        gone = [i for _, i in removed_from_cart(initial, final, rd.SHOPS)]
        if not gone:
            return 0.0, "empty deletion"
        outside = [str(i.get("id")) for i in gone if in_scope not in str(i.get("category", ""))]
        return (1.0 if not outside else 0.5), (f"deleted outside {in_scope}: {outside}" if outside
                                               else f"deletion within {in_scope}")

    dims = (Dimension("target accuracy", weights[0], target if disliked is not None and targets else None, missing),
            app_dim, Dimension("execution", weights[2], execution))
    keep = tuple(str(i.get("id")) for i in cart if str(i.get("id")) not in targets)
    oracle = (ListPruneCheck(app_name, "cart", tuple(sorted(targets)), keep),) if targets else ()
    return ClassRubric(dims, oracle)


def cart_clothes(reading: Reading) -> ClassRubric:
    """CartManagementPreferenceAskUserTask: disliked clothes 40 %, app 30 %, execution 30 %."""
    value = rd.get(reading.doc, "preferences.shopping.clothes")
    rule: Callable[[Mapping[str, Any]], bool] | None = None
    if isinstance(value, Mapping) and value.get("color_preference"):
        color = str(value["color_preference"]).lower()
        rule = lambda item: color not in _item_text(item)  # noqa: E731
    elif isinstance(value, str) and rd.negated_words(value):
        words = rd.negated_words(value)
        rule = lambda item: any(w in _item_text(item) for w in words)  # noqa: E731
    return _prune(reading, disliked=rule, in_scope="clothes", missing="preferences.shopping.clothes",
                  weights=(0.4, 0.3, 0.3))


def cart_over_budget(reading: Reading) -> ClassRubric:
    """DeleteItemOverBudgetPreferenceAskUserTask: validity 20 %, over-budget 40 %, clothing only 20 %, app 20 %."""
    found = rd.first(reading.doc, ("preferences.shopping.price_sensitivity.clothes_threshold",
                                   "preferences.shopping.price", "preferences.shopping.clothes.budget"))
    limit = rd.number_in(str(found[1])) if found else None
    rule = (lambda item: float(item.get("price", 0) or 0) > (limit or 0)) if limit is not None else None
    base = _prune(reading, disliked=rule, in_scope="clothes",
                  missing="preferences.shopping.price_sensitivity.clothes_threshold", weights=(0.4, 0.2, 0.2))
    target, app_dim, category = base.dimensions

    def validity(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        gone = removed_from_cart(initial, final, rd.SHOPS)
        return float(bool(gone)), f"{len(gone)} item(s) deleted"

    return ClassRubric((Dimension("action validity", 0.2, validity),
                        Dimension("over-budget alignment", 0.4, target.scorer, target.missing),
                        Dimension("category accuracy", 0.2, category.scorer), app_dim), base.oracle)


def cart_electronics(reading: Reading) -> ClassRubric:
    """DeleteItemsPreferenceAskUserTask: unwanted electronics 40 %, app 30 %, execution 30 %.  Unwanted: the
    disliked brands, every electronic item when the profile avoids the category, else brands not among the liked."""
    shopping = rd.get(reading.doc, "preferences.shopping") or {}
    disliked = rd.text_of(rd.get(reading.doc, "preferences.shopping.electronics.disliked_brands"))
    avoid = "electronics" in rd.text_of(shopping.get("avoid_categories"))
    liked = [re.split(r"[ (]", b.strip())[0].lower() for b in shopping.get("brands", []) or [] if str(b).strip()]
    rule: Callable[[Mapping[str, Any]], bool] | None
    if avoid:
        rule = lambda item: True  # noqa: E731
    elif disliked:
        rule = lambda item: any(w in disliked for w in _item_text(item).split()[:1])  # noqa: E731
    elif liked:
        rule = lambda item: not any(b in _item_text(item) for b in liked)  # noqa: E731
    else:
        rule = None
    return _prune(reading, disliked=rule, in_scope="electronics", missing="preferences.shopping.brands",
                  weights=(0.4, 0.3, 0.3))


# ==================================================================================================== food
def _dishes(state: State, app_name: str) -> list[tuple[Mapping[str, Any], Mapping[str, Any]]]:
    return [(r, d) for r in listed(state, app_name, "restaurants") if isinstance(r, Mapping)
            for d in r.get("dishes", []) or [] if isinstance(d, Mapping)]


def _dish_text(dish: Mapping[str, Any]) -> str:
    return " ".join([str(dish.get("name", "")), " ".join(map(str, dish.get("cuisine", []) or [])),
                     " ".join(map(str, dish.get("traits", []) or []))]).lower()


def _food_taste(doc: Mapping[str, Any], meal: str) -> tuple[list[str], list[str], str] | None:
    """Words a fitting dish shows (the meal's own preference when the profile states one, else the cuisines and
    tastes), words it must not contain, and the fields read."""
    diet = rd.get(doc, "preferences.diet") or {}
    wants: list[str] = []
    meal_words: list[str] = []
    if meal == "dinner":
        found = rd.first(doc, ("preferences.diet.dinner_preference", "preferences.diet.dinner",
                               "preferences.diet.meal_habits.dinner"))
        if found:
            text = rd.text_of(found[1])
            meal_words = [w for w in ("kung pao", "bowl", "fish", "noodles", "ramen", "burger", "congee") if w in text]
    for item in diet.get("cuisine_preference", []) or []:
        wants.append(re.split(r"[ (/]", str(item).strip().lower())[0])
    taste = rd.text_of(diet.get("taste_profile"))
    wants += [w for w in ("light", "soft") if w in taste]
    avoid_text = " ".join(rd.text_of(diet.get(k)) for k in ("special_notes", "blacklisted_foods",
                                                            "allergy_or_restriction", "taste_profile",
                                                            "cuisine_dislike"))
    avoid = [w for w in ("peanut", "spicy", "raw", "fried", "dairy", "sushi") if re.search(
        rf"(allerg|avoid|dislike|no |intoleran)[^.;]*{w}|{w}[^.;]*(allerg)", avoid_text)]
    if "lactose" in avoid_text:
        avoid.append("dairy")
    if not wants and not meal_words:
        return None
    return meal_words or wants, avoid, "preferences.diet"


def _dish_fit(wants: Sequence[str], avoid: Sequence[str]) -> Callable[[Mapping[str, Any]], float]:
    def fit(dish: Mapping[str, Any]) -> float:
        text = _dish_text(dish) + " " + " ".join(map(str, dish.get("contains", []) or [])).lower()
        if any(re.search(rf"\b{re.escape(a)}", text) for a in avoid):
            return 0.0
        return 1.0 if any(re.search(rf"\b{re.escape(w)}\b", text) for w in wants) else 0.5
    return fit


def _ordered_dishes(initial: State, final: State) -> list[Mapping[str, Any]]:
    out = []
    for a, order in new_orders(initial, final, rd.FOOD):
        dishes = {str(d.get("id")): d for _, d in _dishes(initial, a)}
        out += [dishes.get(str(i.get("id")), i) for i in order.get("items", []) or [] if isinstance(i, Mapping)]
    return out


def _food_order(reading: Reading, meal: str, note: str) -> tuple[Dimension, Dimension, Dimension, OrderCheck]:
    app_dim, app_name = app_dimension(reading, "food", 0.0, _order_apps(rd.FOOD))
    taste = _food_taste(reading.doc, meal)
    fit = _dish_fit(*taste[:2]) if taste else (lambda dish: 1.0)

    def food(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        dishes = _ordered_dishes(initial, final)
        if not dishes:
            return 0.0, "no dish ordered"
        value = min(fit(d) for d in dishes)
        return value, f"ordered {', '.join(str(d.get('name', d.get('id'))) for d in dishes)}"

    ranked = sorted(_dishes(reading.state, app_name), key=lambda rd_: -fit(rd_[1]))
    dish_id, worst = (str(ranked[0][1].get("id")), str(ranked[-1][1].get("id"))) if ranked else ("", "")
    basic, address = basic_info(reading, 0.0, rd.FOOD, ("work", "home") if meal == "lunch" else ("home", "work"))
    check = OrderCheck(app_name, (dish_id,), worst, address=address, note_text=note)
    food_dim = Dimension("food match", 0.0, food if taste else None, "preferences.diet.cuisine_preference")
    return app_dim, food_dim, basic, check


def order_lunch(reading: Reading) -> ClassRubric:
    """OrderLunchPreferenceTask: delivery app, food, address/phone/recipient and payment, 25 % each."""
    app_dim, food_dim, basic, check = _food_order(reading, "lunch", "")
    pay = rd.payment(reading.doc)

    def payment(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        orders = new_orders(initial, final, rd.FOOD)
        paid = str(orders[-1][1].get("payment", "")) if orders else ""
        assert pay is not None
        return float(paid == pay[0]), f"paid with {paid or 'nothing'}"

    check = OrderCheck(check.app_name, check.acceptable, check.wrong_item, address=check.address,
                       payment=pay[0] if pay else None)
    dims = tuple(Dimension(d.name, 0.25, d.scorer, d.missing) for d in (app_dim, food_dim, basic))
    return ClassRubric((*dims, Dimension("payment match", 0.25, payment if pay else None,
                                         "preferences.shopping.payment_method")), (check,))


def _remark_words(doc: Mapping[str, Any]) -> tuple[str, list[str]] | None:
    found = rd.first(doc, ("preferences.diet.delivery_general_remark", "preferences.diet.general_take_out_remark"))
    if found is None:
        return None
    text = str(found[1]).strip()
    words = [w for w in re.split(r"[,.;!]+\s*", text.lower()) if w]
    return text, [re.sub(r"^(please |do not |don't )", "", w).split(" ")[-1] if len(w.split()) > 3 else w
                  for w in words]


def takeout_remark(reading: Reading) -> ClassRubric:
    """TakeoutReamarkPreferenceAskUserTask: completion 25 %, diet 35 %, app 20 %, remark 20 %."""
    remark = _remark_words(reading.doc)
    app_dim, food_dim, basic, check = _food_order(reading, "dinner", remark[0] if remark else "")

    def completion(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        dishes = _ordered_dishes(initial, final)
        return float(bool(dishes)), f"{len(dishes)} dish(es) ordered"

    def remark_score(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        assert remark is not None
        notes = " ".join(str(o.get("note", "")) for _, o in new_orders(initial, final, rd.FOOD)).lower()
        hit = [w for w in remark[1] if w in notes]
        return len(hit) / len(remark[1]), f"remark carries {hit} of {remark[1]}"

    return ClassRubric((Dimension("basic completion", 0.25, completion),
                        Dimension("dietary habit", 0.35, food_dim.scorer, food_dim.missing),
                        Dimension("app preference", 0.2, app_dim.scorer, app_dim.missing),
                        Dimension("remark quality", 0.2, remark_score if remark else None,
                                  "preferences.diet.delivery_general_remark")), (check,))


# ==================================================================================================== mail
def search_top_info(reading: Reading) -> ClassRubric:
    """SearchTopInfoPreferenceAskUserTask: recipient 25 % (Kevin), structure 25 %, field 30 %, workflow 20 % (N/A
    without an app trajectory: 1.0, as the official rubric instructs)."""
    found = rd.field_of_interest(reading.doc)
    topic = found[0] if found else ""

    def sent(final: State, initial: State) -> list[Mapping[str, Any]]:
        return [m for m in new_items(listed(initial, "mail", "sent"), listed(final, "mail", "sent"))
                if isinstance(m, Mapping)]

    def recipient(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        mails = sent(final, initial)
        to = " ".join(str(m.get("to", "")) for m in mails[-1:]).lower()
        return float(KEVIN in to), f"sent to {to or 'nobody'}"

    def structure(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        mails = sent(final, initial)
        if not mails:
            return 0.0, "no mail"
        mail = mails[-1]
        subject, body = str(mail.get("subject", "")).lower(), str(mail.get("body", "")).lower()
        line = re.search(r"here is the recent news in the (.+?) field:\s*\S", body)
        subject_ok = bool(subject) and (not topic or topic.lower() in subject)
        return (subject_ok + bool(line)) / 2, f"subject {'names' if subject_ok else 'lacks'} the field, body line " \
                                              f"{'present' if line else 'missing'}"

    def preference(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        mails = sent(final, initial)
        text = " ".join(f"{m.get('subject', '')} {m.get('body', '')}" for m in mails[-1:]).lower()
        words = [w for w in re.split(r"[/ ,]+", topic.lower()) if len(w) > 2]
        hit = topic.lower() in text or (bool(words) and sum(w in text for w in words) >= max(1, len(words) // 2))
        return float(hit), f"the mail {'is' if hit else 'is not'} about {topic}"

    subject = f"Recent news: {topic or 'technology'}"
    body = (f"Here is the recent news in the {topic or 'technology'} field:\n"
            f"A new result in {topic or 'technology'} was announced this week.")
    oracle = (ChromeVisitCheck((re.sub(r"\W+", "+", (topic or "technology").lower()).strip("+"),),
                               f"https://search.example.com/?q={re.sub(r'[^a-z0-9]+', '+', (topic or 'technology').lower()).strip('+')}"),
              MailCheck(KEVIN, (), subject, body))
    return ClassRubric((Dimension("recipient", 0.25, recipient), Dimension("content structure", 0.25, structure),
                        Dimension("preference alignment", 0.3, preference if found else None,
                                  "preferences.hobby.field_of_interest"),
                        Dimension("app/workflow", 0.2, lambda i, f, s: (1.0, "N/A without an app trajectory"))),
                       oracle)


# ============================================================================================= commutes
MODES: Mapping[str, tuple[str, ...]] = {
    "metro": ("metro", "subway", "line "), "bus": ("bus",), "taxi": ("taxi", "cab"),
    "ride-hailing": ("didi", "ride-hailing", "ride hailing", "premier", "express"),
    "bike": ("bike", "bicycle", "cycling", "cycle"), "walk": ("walk",),
}
SHELTERED = ("metro", "bus", "taxi", "ride-hailing")


#: Each mode's words as whole words (plural and -ing / -ed forms too): "cable" names no cab (issue 28's audit: a
#: random "cable USB-C" answer was read as a taxi plan).
_MODE_WORDS: Mapping[str, re.Pattern[str]] = {
    mode: re.compile("|".join(rf"(?<![a-z]){re.escape(w.strip())}(?:s|es|ing|ed|d)?(?![a-z])" for w in words))
    for mode, words in MODES.items()}


def modes_in(text: str) -> list[str]:
    """The transport modes a text names as words, in order of first mention."""
    text = text.lower()
    found = sorted((match.start(), mode) for mode, pattern in _MODE_WORDS.items()
                   if (match := pattern.search(text)) is not None)
    return [mode for _, mode in found]


def _travel(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    return rd.get(doc, "preferences.travel") or {}


def _clauses(value: Any) -> list[tuple[str, str]]:
    """(path, text) of every string leaf of the travel preferences."""
    out: list[tuple[str, str]] = []
    if isinstance(value, Mapping):
        for k, v in value.items():
            out += [(f"{k}.{p}" if p else str(k), t) for p, t in _clauses(v)]
    elif isinstance(value, list):
        for v in value:
            out += _clauses(v)
    elif value:
        out.append(("", str(value).lower()))
    return out


def _condition_modes(doc: Mapping[str, Any], words: Sequence[str]) -> list[str]:
    """Modes the profile names in the clauses about a condition (rain, late night)."""
    modes: list[str] = []
    for path, text in _clauses(_travel(doc)):
        for sentence in re.split(r"[.;]", f"{path} {text}"):
            if any(w in sentence for w in words):
                modes += [m for m in modes_in(sentence.split(" only if")[0].split(" if ")[0]) if m not in modes]
    return modes


def _avoided_modes(doc: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    for path, text in _clauses(_travel(doc)):
        if "avoid" in path:
            out += modes_in(text)
    return out


def _default_modes(doc: Mapping[str, Any]) -> list[str]:
    for path, text in _clauses(_travel(doc)):
        if any(k in path for k in ("primary", "daily", "normal", "transport")) and modes_in(text):
            return modes_in(text)
    return []


def _answer_modes(steps: Trace) -> list[str]:
    return modes_in(last_answer(steps))


def _destination_dim(reading: Reading, weight: float, name: str) -> tuple[Dimension, str]:
    dest = reading.values.get("destination", {}) or {}
    places = rd.addresses(reading.doc)
    address = places.get(str(dest.get("dest_key", "work")), "")
    label = str(dest.get("dest_name", "")) or address

    def score(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        answer = last_answer(steps)
        if not modes_in(answer):  # a text naming the place but no way to get there is no route (issue 28's audit)
            return 0.0, "no transport mode in the plan: no route"
        ok = any(x and x in answer for x in (address, label))
        return float(ok), f"the plan {'names' if ok else 'does not name'} {label or address}"
    return Dimension(name, weight, score), address or label


def _mode_score(good: Sequence[str], bad: Sequence[str]) -> Scorer:
    def score(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        modes = _answer_modes(steps)
        if not modes:
            return 0.0, "no transport mode in the plan"
        if modes[0] in bad:
            return 0.0, f"recommends {modes[0]}"
        return (1.0 if modes[0] in good else 0.5), f"recommends {modes[0]}"
    return score


def _commute(reading: Reading, *, condition: Sequence[str], fallback_modes: Sequence[str],
             dims: Callable[[list[str], list[str], Dimension], tuple[Dimension, ...]], extra: str) -> ClassRubric:
    wanted = [m for m in _condition_modes(reading.doc, condition) if m in fallback_modes] if condition else \
        _default_modes(reading.doc)
    avoided = _avoided_modes(reading.doc)
    choice = next((m for m in [*wanted, *fallback_modes] if m not in avoided), fallback_modes[0])
    route, target = _destination_dim(reading, 0.2, "route")
    answer = f"Take the {MODES[choice][0]} from home to {target}. {extra}".strip()
    return ClassRubric(dims(wanted, avoided, route), (AnswerCheck((MODES[choice][0],), answer),))


def commute_rain(reading: Reading) -> ClassRubric:
    """CommuteRoutingBadWeatherTask: sheltered 40 %, preference 25 %, time efficiency 20 %, cost 15 %."""
    def dims(wanted: list[str], avoided: list[str], route: Dimension) -> tuple[Dimension, ...]:
        return (Dimension("outdoor exposure", 0.4, _mode_score(SHELTERED, ("bike", "walk"))),
                Dimension("travel preference", 0.25, _mode_score(wanted, avoided) if wanted else None,
                          "rain clause in preferences.travel"),
                Dimension("time efficiency", 0.2, route.scorer),
                Dimension("economic", 0.15, _mode_score(SHELTERED, avoided)))
    return _commute(reading, condition=("rain", "weather"), fallback_modes=SHELTERED, dims=dims, extra="")


def commute_sunny(reading: Reading) -> ClassRubric:
    """CommuteRoutingSunnyTask: preference 40 %, route 25 %, time efficiency 20 %, cost 15 %."""
    def dims(wanted: list[str], avoided: list[str], route: Dimension) -> tuple[Dimension, ...]:
        return (Dimension("travel preference", 0.4, _mode_score(wanted, avoided) if wanted else None,
                          "default transport in preferences.travel"),
                Dimension("route", 0.25, route.scorer), Dimension("time efficiency", 0.2, route.scorer),
                Dimension("economic", 0.15, _mode_score((*wanted, "metro", "bus", "bike", "walk"), avoided)))
    return _commute(reading, condition=(), fallback_modes=("metro", "bus", "bike", "walk"), dims=dims, extra="")


SAFETY = ("share", "licensed", "well-lit", "pick-up", "pickup")


def commute_late_night(reading: Reading) -> ClassRubric:
    """LateNightCommuteTask: late-night constraint 40 %, tier 25 %, route 20 %, safety 15 %."""
    def safety(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        ok = any(w in last_answer(steps).lower() for w in SAFETY)
        return float(ok), f"safety {'considered' if ok else 'not considered'}"

    def dims(wanted: list[str], avoided: list[str], route: Dimension) -> tuple[Dimension, ...]:
        return (Dimension("late-night constraint", 0.4, _mode_score(("taxi", "ride-hailing"), ("metro", "bus", "bike"))),
                Dimension("ride-hailing tier", 0.25, _mode_score(wanted, ()) if wanted else None,
                          "late-night or ride-hailing clause in preferences.travel"),
                Dimension("route", 0.2, route.scorer), Dimension("safety and comfort", 0.15, safety))
    return _commute(reading, condition=("late", "night", "ride_hailing", "ride-hailing", "didi"),
                    fallback_modes=("ride-hailing", "taxi"), dims=dims,
                    extra="Wait at a well-lit pick-up point and share your trip with a contact.")


def late_urgent_notice(reading: Reading) -> ClassRubric:
    """LateUrgentRouteWithNoticeTask (judge part, 0.7 of the score): route 40 %, message style 35 %, both done
    25 %; the message style from ``preferences.social.communication_style``."""
    base = _commute(reading, condition=("didi", "taxi", "ride"), fallback_modes=("ride-hailing", "taxi"),
                    dims=lambda w, a, r: (r,), extra="")
    style = rd.text_of(rd.get(reading.doc, "preferences.social.communication_style"))
    bullets = "bullet" in style or "markdown" in style
    text = ("- Running late, on my way\n- ETA ~20 min" if bullets else "Running late, on my way - there in 20 min.")

    def style_score(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        posts = [t for _, t in my_posts(initial, final)]
        if not posts:
            return 0.0, "no message"
        ok = (not bullets) or posts[-1].lstrip().startswith(("-", "*"))
        return float(ok), "message style " + ("matches" if ok else "does not match") + f" ({style or 'any'})"

    def complete(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        done = bool(modes_in(last_answer(steps))) + bool(my_posts(initial, final))  # a route names a way to travel
        return done / 2, f"{done} of 2 parts done"

    channel = _first_channel(reading.state)
    return ClassRubric((Dimension("route / transport", 0.4, _mode_score(("taxi", "ride-hailing"), ("bike", "walk"))),
                        Dimension("message style", 0.35, style_score if style else None,
                                  "preferences.social.communication_style"),
                        Dimension("task completeness", 0.25, complete)),
                       (*base.oracle, ChannelPostCheck(channel, ("late",), text)))


def _first_channel(state: State) -> str:
    for team in listed(state, "mattermost", "teams"):
        for channel in team.get("channels", []) or []:
            return str(channel.get("name", "town-square"))
    return "town-square"


# ======================================================================================== social / messages
def mastodon_interest(reading: Reading) -> ClassRubric:
    """MastodonInterestBoostTask (judge part, 0.7): interest match 50 %, channel 50 %.  The interest: the user's
    field of interest; the channel: the one whose name shares a word with it, else the first work channel."""
    found = rd.field_of_interest(reading.doc)
    topic = found[0].lower() if found else ""
    words = [w for w in re.split(r"[/ ,]+", topic) if len(w) > 2]
    timeline = [p for p in listed(reading.state, "mastodon", "timeline") if isinstance(p, Mapping)]
    post = next((p for p in timeline if any(w in rd.text_of(p) for w in words)), None)
    channels = [str(c.get("name", "")) for t in listed(reading.state, "mattermost", "teams")
                for c in t.get("channels", []) or []]
    targets = [str(p.get("target_channel")) for group in (rd.get(reading.doc, "social_graph") or {}).values()
               if isinstance(group, list) for p in group if isinstance(p, Mapping) and p.get("target_channel")]
    channel = next((c for c in channels for t in targets if c.lower() == t.lower()), None) or next(
        (c for c in channels if any(w[:4] in c.lower() for w in words)), None) or next(
        (c for c in channels if c.lower() not in ("random", "off-topic", "town-square")), _first_channel(reading.state))

    def interest(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        posts = [t.lower() for _, t in my_posts(initial, final)]
        ok = any(any(w in t for w in words) for t in posts)
        return float(ok), f"forwarded content {'matches' if ok else 'does not match'} {topic}"

    def right_channel(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        used = [c for c, _ in my_posts(initial, final)]
        if not used:
            return 0.0, "nothing posted"
        return (1.0 if used[-1] == channel else 0.5 if used[-1].lower() not in ("random", "off-topic") else 0.0), \
            f"posted in #{used[-1]}"

    oracle: tuple[Check, ...] = ()
    if post is not None:
        oracle = (ChannelPostCheck(channel, (words[0],) if words else (),
                                   f"Worth a read: {post.get('text', '')} ({post.get('author', '')})"),)
    return ClassRubric((Dimension("interest match", 0.5, interest if post is not None else None,
                                  "preferences.social.hobby.field_of_interest (or no matching post)"),
                        Dimension("channel", 0.5, right_channel)), oracle)


def ask_mom(reading: Reading) -> ClassRubric:
    """MessagesAskMomForMoneyTask (judge part, 0.6): casual tone with emoji or [Doge], never formal, no call."""
    phone = str(reading.values.get("mom_phone", ""))
    name = str(reading.values.get("mom_name", "Mom"))

    def style(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        texts = [str(m.get("text", "")) for t in listed(final, "messages", "threads") if isinstance(t, Mapping)
                 and rd.digits(t.get("number", "")) == rd.digits(phone)
                 for m in t.get("messages", []) or [] if isinstance(m, Mapping) and m.get("direction") == "out"]
        calls = new_items(listed(initial, "contacts", "calls"), listed(final, "contacts", "calls"))
        if not texts:
            return 0.0, "no SMS to Mom"
        text = texts[-1]
        formal = bool(re.search(r"\b(dear|sincerely|regards)\b", text.lower()))
        playful = bool(re.search(r"\[doge\]|[\U0001F300-\U0001FAFF]|lol|pls|plz", text.lower()))
        value = 0.0 if formal or calls else (1.0 if playful else 0.5)
        return value, f"tone {'formal' if formal else 'casual'}, emoji {'yes' if playful else 'no'}, " \
                      f"{len(calls)} call(s)"

    return ClassRubric((Dimension("gen-z style", 1.0, style),),
                       (SmsCheck(name, phone, (), "mom pls send me some living money this month [Doge] "
                                                  "love u lol"),))


def weekend_alarm(reading: Reading) -> ClassRubric:
    """SetAlarmPreferenceAskUser2Task: wake-up time 35 %, ringtone 35 %, weekend repeat 20 %, asking 10 %."""
    ringtones = [str(r) for r in listed(reading.state, "clock", "ringtones")]
    habit = next((v for k, v in (rd.get(reading.doc, "habits") or {}).items()
                  if "alarm" in str(k).lower() and isinstance(v, Mapping)), {})
    wanted_tone = next((str(v) for k, v in habit.items() if "ringtone" in str(k).lower()), "")
    ringtone = next((r for r in ringtones if r.lower() == wanted_tone.lower()), None)
    wake = _clock_time(next((str(v) for k, v in habit.items() if "time" in str(k).lower()), ""))

    def new_alarms(initial: State, final: State) -> list[Mapping[str, Any]]:
        return [a for a in new_items(listed(initial, "clock", "alarms"), listed(final, "clock", "alarms"))
                if isinstance(a, Mapping)]

    def time_score(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        alarms = new_alarms(initial, final)
        ok = any(str(a.get("time")) == wake for a in alarms)
        return (1.0 if ok else 0.5 if alarms else 0.0), f"alarm times {[a.get('time') for a in alarms]}"

    def tone_score(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        alarms = new_alarms(initial, final)
        ok = any(str(a.get("ringtone")) == ringtone for a in alarms)
        return float(ok), f"ringtones {[a.get('ringtone') for a in alarms]}"

    def weekend(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        alarms = new_alarms(initial, final)
        ok = any(a.get("enabled") and {"Sat", "Sun"} <= set(a.get("days", []) or []) for a in alarms)
        return (1.0 if ok else 0.5 if alarms else 0.0), f"weekend repeat {'set' if ok else 'not set'}"

    def asked(initial: State, final: State, steps: Trace) -> tuple[float, str]:
        ok = any(s.get("action_type") == "ask_user" for s in steps)
        return (1.0 if ok else 0.5), "asked the user" if ok else "did not ask"

    oracle = AlarmCheck(wake or "08:00", True, "Weekend", ringtone, ("Sat", "Sun"))
    return ClassRubric((Dimension("wake-up time", 0.35, time_score if wake else None, "weekend alarm habit"),
                        Dimension("ringtone", 0.35, tone_score if ringtone else None, "ringtone preference"),
                        Dimension("weekend alarm", 0.2, weekend),
                        Dimension("interaction", 0.1, asked)), (oracle,),
                       ask_first="What time do you like to get up at the weekend, and which ringtone?")


def _clock_time(text: str) -> str | None:
    """"6:00am" / "18:30" -> "06:00" / "18:30" (``None`` without a time)."""
    found = re.search(r"(\d{1,2}):(\d{2})\s*([ap]m)?", text.lower())
    if not found:
        return None
    hour = int(found.group(1)) % 12 + (12 if found.group(3) == "pm" else 0) if found.group(3) else int(found.group(1))
    return f"{hour:02d}:{found.group(2)}"


#: Official class -> the builder of its deterministic rubric judge.
BUILDERS: Mapping[str, Callable[[Reading], ClassRubric]] = {
    "BuyColaPreferenceTask": buy_cola, "BuyComputerPreferenceAskUserTask": buy_computer,
    "CartManagementPreferenceAskUserTask": cart_clothes,
    "DeleteItemOverBudgetPreferenceAskUserTask": cart_over_budget,
    "DeleteItemsPreferenceAskUserTask": cart_electronics,
    "SearchWhiteSneakersCheckoutPreferenceAskUserTask": white_sneakers,
    "NoteTheCourierForDeliveryPreferenceAskUserTask": courier_note,
    "OrderLunchPreferenceTask": order_lunch, "TakeoutReamarkPreferenceAskUserTask": takeout_remark,
    "SearchTopInfoPreferenceAskUserTask": search_top_info,
    "CommuteRoutingBadWeatherTask": commute_rain, "CommuteRoutingSunnyTask": commute_sunny,
    "LateNightCommuteTask": commute_late_night, "LateUrgentRouteWithNoticeTask": late_urgent_notice,
    "MastodonInterestBoostTask": mastodon_interest, "MessagesAskMomForMoneyTask": ask_mom,
    "SetAlarmPreferenceAskUser2Task": weekend_alarm,
}


# ================================================================================================== worlds
def _both_shops_carts(state: State) -> dict[str, Any]:
    carts = [listed(state, a, "cart") for a in rd.SHOPS]
    cart = max(carts, key=len)
    extra = [{"id": "c8", "title": "White linen shirt", "category": "clothes", "price": 119.0, "color": "white",
              "tags": []}] if any(i.get("category") == "clothes" for i in cart) else []
    out = {}
    for a in rd.SHOPS:
        holder = dict(state.get(a, {}) or {})
        holder["cart"] = copy.deepcopy([*cart, *extra])
        out[a] = holder
    return out


def _both_food_menus(state: State) -> dict[str, Any]:
    restaurants = [r for a in rd.FOOD for r in listed(state, a, "restaurants")]
    return {a: {**dict(state.get(a, {}) or {}), "restaurants": copy.deepcopy(restaurants)} for a in rd.FOOD}


#: Posts on the timeline of the interest-boost class, one per official role's stated interest the project's own
#: timeline lacks (the official image holds one timeline for every role).
INTEREST_POSTS: tuple[Mapping[str, Any], ...] = (
    {"id": "t6", "author": "@agents_weekly", "key": "gui agent",
     "text": "New benchmark for personalized GUI agent assistants that learn user habits",
     "tags": ["gui agent", "personalized agent"]},
)


def _timeline(state: State) -> dict[str, Any]:
    mastodon = dict(state.get("mastodon", {}) or {})
    mastodon["timeline"] = [*listed(state, "mastodon", "timeline"), *copy.deepcopy(INTEREST_POSTS)]
    return {"mastodon": mastodon}


#: Stock Android alarm sounds (the official image's Clock offers them), added to the project's ringtones.
STOCK_RINGTONES: tuple[str, ...] = ("Argon", "Krypton", "Neon", "Oxygen", "Platinum")


def _ringtones(state: State) -> dict[str, Any]:
    clock = dict(state.get("clock", {}) or {})
    names = [str(r) for r in listed(state, "clock", "ringtones")]
    clock["ringtones"] = [*names, *(r for r in STOCK_RINGTONES if r not in names)]
    return {"clock": clock}


#: Official class -> the additions to its world (the same for every role).
WORLDS: Mapping[str, Callable[[State], dict[str, Any]]] = {
    "CartManagementPreferenceAskUserTask": _both_shops_carts,
    "DeleteItemOverBudgetPreferenceAskUserTask": _both_shops_carts,
    "DeleteItemsPreferenceAskUserTask": _both_shops_carts,
    "OrderLunchPreferenceTask": _both_food_menus, "TakeoutReamarkPreferenceAskUserTask": _both_food_menus,
    "MastodonInterestBoostTask": _timeline, "SetAlarmPreferenceAskUser2Task": _ringtones,
}
