"""A deterministic judge written from each preference class's own rubric, for runs without a judge endpoint.

The preference classes score ``base + judge``; the judge gets the persona and a weighted rubric ("Basic Information
Accuracy (30%) ... App Preference (30%) ... Product Preference (40%)").  Without an endpoint the project scores the
class's rubric itself, for every class and every profile: one :class:`Dimension` per rubric line, with its official
weight, computed from the profile fields the rubric names (:mod:`.reading`) and the episode's
:class:`~personal_envs.knowu.state.EndState`.  A dimension whose field the profile lacks is not judged: the weights of
the judged ones are renormalized and the reason names the missing field.  The same reading gives the oracle's goals
(the order, the deletion, the mail, the answer that meets every judged dimension), so the oracle follows the class's
rubric for the running persona.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from personal_envs.knowu.official.preference import reading as rd
from personal_envs.knowu.oracle import (
    PAYMENT_IDS,
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
    listed,
)
from personal_envs.knowu.state import EndState

State = Mapping[str, Any]
Trace = Sequence[Mapping[str, Any]]
Scorer = Callable[[EndState, Trace], tuple[float, str]]
Item = Mapping[str, Any]


@dataclass(frozen=True)
class Dimension:
    """One line of a rubric: its name, official weight, and scorer (``None``: the profile lacks ``missing``, so it
    is not judged)."""

    name: str
    weight: float
    scorer: Scorer | None
    missing: str = ""


@dataclass
class ClassRubric:
    """The deterministic judge of one class for one profile, and the oracle's goals that meet it."""

    dimensions: tuple[Dimension, ...]
    oracle: tuple[Goal, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)

    def score(self, end: EndState, steps: Trace) -> tuple[float, str]:
        """The weighted rubric score over the judged dimensions, and a reason naming each one."""
        total = got = 0.0
        parts = []
        for dim in self.dimensions:
            if dim.scorer is None:
                parts.append(f"{dim.name}: not judged (the profile has no {dim.missing})")
                continue
            value, why = dim.scorer(end, steps)
            total += dim.weight
            got += dim.weight * value
            parts.append(f"{dim.name} {value:.2f} ({why})")
        value = got / total if total else 0.0
        return value, ("deterministic fallback from the class rubric: " + "; ".join(parts)
                       + ("" if total else " (no dimension judged)"))


@dataclass(frozen=True)
class Reading:
    """What a class builder reads: the profile, the class's world (app-state fixture), the class values, the role."""

    doc: Mapping[str, Any]
    state: State
    values: Mapping[str, Any]
    role: str


# ============================================================================================ episode facts
def new_orders(end: EndState, apps: Sequence[str]) -> list[tuple[str, Item]]:
    """Orders placed during the episode on ``apps`` (app, order)."""
    return [(a, o) for a in apps for o in end.new(list(end.orders.get(a, [])))]


def removed(end: EndState, apps: Sequence[str]) -> list[tuple[str, Item]]:
    """Seeded cart items no longer in the cart at the end (app, item)."""
    return [(a, i) for a in apps for i in end.cart_removed.get(a, [])]


def my_posts(end: EndState) -> list[tuple[str, str]]:
    """The user's Mattermost posts of the episode (channel, text)."""
    return [(str(p["channel"]), str(p["text"])) for p in end.my_posts()]


def sms_to(end: EndState, number: str) -> list[str]:
    """Texts sent to ``number`` during the episode."""
    return [m["text"] for m in end.sent_sms(new_only=True) if rd.digits(m["number"]) == rd.digits(number)]


def asked(steps: Trace) -> bool:
    return any(s.get("action_type") == "ask_user" for s in steps)


def _app_scorer(credits: Mapping[str, float], used: Callable[[EndState], list[str]]) -> Scorer:
    def score(end: EndState, steps: Trace) -> tuple[float, str]:
        apps = used(end)
        if not apps:
            return 0.0, "no app used"
        return min(credits.get(a, 0.5) for a in apps), f"used {', '.join(sorted(set(apps)))}"
    return score


def app_dimension(reading: Reading, kind: str, weight: float,
                  used: Callable[[EndState], list[str]]) -> tuple[Dimension, str]:
    """The "App Preference" line: 1.0 preferred, 0.5 secondary, 0.0 avoided; and the app the oracle uses."""
    names = rd.SHOPS if kind == "shop" else rd.FOOD
    found = rd.platform_credits(reading.doc, kind)
    if found is None:
        field_name = "preferences.shopping.online_platforms" if kind == "shop" else "preferences.diet.delivery_platform"
        return Dimension("app preference", weight, None, field_name), names[0]
    credits, _ = found
    return Dimension("app preference", weight, _app_scorer(credits, used)), rd.preferred_app(credits, names)


def _order_apps(apps: Sequence[str]) -> Callable[[EndState], list[str]]:
    return lambda end: [a for a, _ in new_orders(end, apps)]


def _cart_apps(apps: Sequence[str]) -> Callable[[EndState], list[str]]:
    return lambda end: [a for a, _ in removed(end, apps)]


def basic_info(reading: Reading, weight: float, apps: Sequence[str], keys: Sequence[str]) -> tuple[Dimension, str]:
    """The "Basic Information Accuracy" line: recipient, phone and address of the new order (the account holder's
    details on file count as the user's own); ``keys``: the locations the request allows, the first the oracle's."""
    names, phone = rd.identity(reading.doc)
    places = rd.addresses(reading.doc)
    wanted = [places[k] for k in keys if k in places] or list(places.values())

    def score(end: EndState, steps: Trace) -> tuple[float, str]:
        orders = new_orders(end, apps)
        if not orders:
            return 0.0, "no order"
        order = orders[-1][1]
        recipient = str(order.get("name", ""))
        name_ok = recipient in ("", "Account holder") or any(n.lower() in recipient.lower() for n in names)
        number = str(order.get("phone", ""))
        phone_ok = number in ("", "on file") or rd.digits(number) == rd.digits(phone)
        address_ok = any(w.lower() in str(order.get("address", "")).lower() for w in wanted)
        return (name_ok + phone_ok + address_ok) / 3, (f"recipient {'ok' if name_ok else 'wrong'}, phone "
                                                       f"{'ok' if phone_ok else 'wrong'}, address "
                                                       f"{'ok' if address_ok else 'wrong'}")
    return Dimension("basic information", weight, score if wanted else None, "locations"), \
        (wanted[0] if wanted else "Home")


def style_of(doc: Mapping[str, Any]) -> tuple[str, bool]:
    """The communication style the profile states, and whether it asks for bullet points."""
    style = rd.text_of(rd.get(doc, "preferences.social.communication_style"))
    return style, "bullet" in style or "markdown" in style


def _styled(text: str, bullets: bool) -> str:
    return "- " + text.replace(". ", "\n- ").rstrip(".") if bullets else text


def style_dimension(doc: Mapping[str, Any], weight: float, texts: Callable[[EndState], list[str]]) -> Dimension:
    """The "style / tone" line: with a stated style, bullet points when it asks for them."""
    style, bullets = style_of(doc)

    def score(end: EndState, steps: Trace) -> tuple[float, str]:
        written = texts(end)
        if not written:
            return 0.0, "no message"
        ok = (not bullets) or written[-1].lstrip().startswith(("-", "*"))
        return float(ok), "message style " + ("matches" if ok else "does not match") + f" ({style or 'any'})"
    return Dimension("style", weight, score if style else None, "preferences.social.communication_style")


# ================================================================================================ shopping
def _item_text(item: Item) -> str:
    return " ".join([str(item.get("title", "")), str(item.get("brand", "")), str(item.get("color", "")),
                     " ".join(str(t) for t in item.get("tags", []) or [])]).lower()


def _ordered(reading: Reading, end: EndState, apps: Sequence[str]) -> list[Item]:
    items: list[Item] = []
    for a, order in new_orders(end, apps):
        catalog = {str(i.get("id")): i for i in listed(reading.state, a, "catalog")}
        items += [{**line, **catalog.get(str(line.get("id")), {}), "size": (line.get("options") or {}).get("size")}
                  for line in order.get("items", []) or [] if isinstance(line, Mapping)]
    return items


def _product_order(reading: Reading, *, name: str, weight: float, wanted: Callable[[Item], float],
                   missing: str | None, keys: Sequence[str], w_basic: float, w_app: float, size: str | None = None,
                   note: str = "", extra: tuple[Dimension, ...] = ()) -> ClassRubric:
    """Basic info + app preference + one product line scored by ``wanted`` (1.0 / 0.5 / 0.0 per item), then
    ``extra``; the oracle orders the best product on the preferred app."""
    basic, address = basic_info(reading, w_basic, rd.SHOPS, keys)
    app_dim, app_name = app_dimension(reading, "shop", w_app, _order_apps(rd.SHOPS))

    def product(end: EndState, steps: Trace) -> tuple[float, str]:
        items = _ordered(reading, end, rd.SHOPS)
        if not items:
            return 0.0, "nothing ordered"
        best = max(items, key=wanted)
        unstated = f" (the profile has no {missing}: only the kind of product judged)" if missing else ""
        return wanted(best), f"ordered {best.get('title', best.get('id'))}{unstated}"

    ranked = sorted(listed(reading.state, app_name, "catalog"), key=lambda i: -wanted(i))
    choice = str(ranked[0].get("id")) if ranked else ""
    return ClassRubric((basic, app_dim, Dimension(name, weight, product), *extra),
                       (Order(app_name, choice, address, size, note),))


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

    def wanted(item: Item) -> float:
        t = _item_text(item)
        if not re.search(r"cola|coke|pepsi", t):
            return 0.0
        brand_ok = brand is None or brand in t or (brand == "coca-cola" and "coke" in t)
        sugar_ok = sugar is None or (sugar == "zero") == ("zero" in t or "sugar-free" in t)
        return (brand_ok + sugar_ok) / 2

    return _product_order(reading, name="cola preference", weight=0.4, wanted=wanted,
                          missing=None if text else "preferences.diet.soft_drinks", keys=("work",),
                          w_basic=0.3, w_app=0.3)


def buy_computer(reading: Reading) -> ClassRubric:
    """BuyComputerPreferenceAskUserTask: basic info 25 %, app 25 %, computer preference 50 %."""
    found = rd.first(reading.doc, ("preferences.shopping.computer", "preferences.shopping.electronics"))
    value = found[1] if found else None
    named = value.get("disliked_brands") if isinstance(value, Mapping) else None
    disliked = [re.split(r"[(]", str(b))[0].strip().lower().split(" ")[0] for b in (
        named if isinstance(named, list) else [named] if named else [])]
    liked = rd.text_of({k: v for k, v in value.items() if k not in ("disliked_brands", "no_buy_list")}
                       if isinstance(value, Mapping) else value)
    budget = re.findall(r"(\d{4,6})", liked)
    ceiling = max(float(b) for b in budget) if budget else None

    def wanted(item: Item) -> float:
        if str(item.get("category", "")) != "computer":
            return 0.0
        words = [str(item.get("brand", "")).lower(), *[str(t).lower() for t in item.get("tags", []) or []]]
        if any(d and (d in words[0] or d in _item_text(item).split()) for d in disliked):
            return 0.0
        fits = any(w and w in liked for w in words)
        within = ceiling is None or float(item.get("price", 0) or 0) <= ceiling
        return 1.0 if fits and within else 0.5

    return _product_order(reading, name="computer preference", weight=0.5, wanted=wanted,
                          missing=None if value else "preferences.shopping.computer",
                          keys=("home", "work"), w_basic=0.25, w_app=0.25)


def white_sneakers(reading: Reading) -> ClassRubric:
    """SearchWhiteSneakersCheckoutPreferenceAskUserTask: basic info 30 %, app 30 %, product 40 % (shoes, white as
    the rubric states, the profile's EU size)."""
    size = rd.get(reading.doc, "preferences.shopping.shoe.shoe_size_eu")

    def wanted(item: Item) -> float:
        if str(item.get("category", "")) != "shoes":
            return 0.0
        white = "white" in _item_text(item)
        size_ok = size is None or str(item.get("size") or size) == str(size)
        return 1.0 if white and size_ok else 0.5

    return _product_order(reading, name="product preference", weight=0.4, wanted=wanted, missing=None,
                          keys=("home",), w_basic=0.3, w_app=0.3, size=str(size) if size is not None else None)


def courier_note(reading: Reading) -> ClassRubric:
    """NoteTheCourierForDeliveryPreferenceAskUserTask: basic 25 %, app 20 %, a sofa 25 %, the courier note 30 %."""
    found = rd.courier(reading.doc)

    def sofa(item: Item) -> float:
        return 1.0 if "sofa" in _item_text(item) else (0.5 if item.get("category") == "furniture" else 0.0)

    def courier_score(end: EndState, steps: Trace) -> tuple[float, str]:
        assert found is not None
        notes = " ".join(str(o.get("note", "")) for _, o in new_orders(end, rd.SHOPS)).lower()
        ok = any(w in notes for w in found[1])
        return float(ok), f"note {'asks for' if ok else 'lacks'} {found[0]}"

    courier = Dimension("courier preference", 0.3, courier_score if found else None,
                        "preferences.shopping.delivery_courier")
    return _product_order(reading, name="product and task", weight=0.25, wanted=sofa, missing=None,
                          keys=("home",), w_basic=0.25, w_app=0.2,
                          note=f"Please ship with {found[0]}." if found else "", extra=(courier,))


# ============================================================================================ cart pruning
def _prune(reading: Reading, *, disliked: Callable[[Item], bool] | None, in_scope: str, missing: str,
           weights: tuple[float, float, float]) -> ClassRubric:
    """Target accuracy, app preference and execution of a cart deletion (the cart-management classes)."""
    app_dim, app_name = app_dimension(reading, "shop", weights[1], _cart_apps(rd.SHOPS))
    cart = listed(reading.state, app_name, "cart")
    targets = {str(i.get("id")) for i in cart if disliked is not None and in_scope in str(i.get("category", ""))
               and disliked(i)}

    def target(end: EndState, steps: Trace) -> tuple[float, str]:
        gone = {str(i.get("id")) for _, i in removed(end, rd.SHOPS)}
        if not gone:
            return 0.0, "nothing deleted"
        if gone == targets:
            return 1.0, f"deleted exactly {sorted(targets)}"
        return (0.5 if gone & targets else 0.0), f"deleted {sorted(gone)}, expected {sorted(targets)}"

    def execution(end: EndState, steps: Trace) -> tuple[float, str]:
        gone = [i for _, i in removed(end, rd.SHOPS)]
        if not gone:
            return 0.0, "empty deletion"
        outside = [str(i.get("id")) for i in gone if in_scope not in str(i.get("category", ""))]
        return (1.0 if not outside else 0.5), (f"deleted outside {in_scope}: {outside}" if outside
                                               else f"deletion within {in_scope}")

    dims = (Dimension("target accuracy", weights[0], target if disliked is not None and targets else None, missing),
            app_dim, Dimension("execution", weights[2], execution))
    return ClassRubric(dims, (Prune(app_name, tuple(sorted(targets))),) if targets else ())


def cart_clothes(reading: Reading) -> ClassRubric:
    """CartManagementPreferenceAskUserTask: disliked clothes 40 %, app 30 %, execution 30 %."""
    value = rd.get(reading.doc, "preferences.shopping.clothes")
    rule: Callable[[Item], bool] | None = None
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

    def validity(end: EndState, steps: Trace) -> tuple[float, str]:
        gone = removed(end, rd.SHOPS)
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
    rule: Callable[[Item], bool] | None
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
def _dishes(state: State, app_name: str) -> list[tuple[Item, Item]]:
    return [(r, d) for r in listed(state, app_name, "restaurants") for d in r.get("dishes", []) or []
            if isinstance(d, Mapping)]


def _dish_text(dish: Item) -> str:
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


def _dish_fit(wants: Sequence[str], avoid: Sequence[str]) -> Callable[[Item], float]:
    def fit(dish: Item) -> float:
        text = _dish_text(dish) + " " + " ".join(map(str, dish.get("contains", []) or [])).lower()
        if any(re.search(rf"\b{re.escape(a)}", text) for a in avoid):
            return 0.0
        return 1.0 if any(re.search(rf"\b{re.escape(w)}\b", text) for w in wants) else 0.5
    return fit


def _ordered_dishes(reading: Reading, end: EndState) -> list[Item]:
    out: list[Item] = []
    for a, order in new_orders(end, rd.FOOD):
        dishes = {str(d.get("id")): d for _, d in _dishes(reading.state, a)}
        out += [dishes.get(str(i.get("id")), i) for i in order.get("items", []) or [] if isinstance(i, Mapping)]
    return out


def _food_order(reading: Reading, meal: str, note: str,
                key: Callable[[Item, float], float] | None = None) -> tuple[Dimension, Dimension, Dimension, Order]:
    """App, food and basic-information lines of a delivery order, and the order goal: the best dish by fit (or by
    ``key(dish, fit)``) on the preferred app."""
    app_dim, app_name = app_dimension(reading, "food", 0.0, _order_apps(rd.FOOD))
    taste = _food_taste(reading.doc, meal)
    fit = _dish_fit(*taste[:2]) if taste else (lambda dish: 1.0)

    def food(end: EndState, steps: Trace) -> tuple[float, str]:
        dishes = _ordered_dishes(reading, end)
        if not dishes:
            return 0.0, "no dish ordered"
        return min(fit(d) for d in dishes), f"ordered {', '.join(str(d.get('name', d.get('id'))) for d in dishes)}"

    ranked = sorted(_dishes(reading.state, app_name),
                    key=lambda pair: -(key(pair[1], fit(pair[1])) if key is not None else fit(pair[1])))
    dish_id = str(ranked[0][1].get("id")) if ranked else ""
    basic, address = basic_info(reading, 0.0, rd.FOOD, ("work", "home") if meal == "lunch" else ("home", "work"))
    food_dim = Dimension("food match", 0.0, food if taste else None, "preferences.diet.cuisine_preference")
    return app_dim, food_dim, basic, Order(app_name, dish_id, address, note=note)


def _payment_dimension(reading: Reading, weight: float) -> tuple[Dimension, str | None]:
    pay = rd.payment(reading.doc)

    def payment(end: EndState, steps: Trace) -> tuple[float, str]:
        orders = new_orders(end, rd.FOOD)
        paid = str(orders[-1][1].get("payment", "")) if orders else ""
        assert pay is not None
        return float(paid == PAYMENT_IDS.get(pay[0], pay[0])), f"paid with {paid or 'nothing'}"
    return (Dimension("payment match", weight, payment if pay else None, "preferences.shopping.payment_method"),
            pay[0] if pay else None)


def order_lunch(reading: Reading) -> ClassRubric:
    """OrderLunchPreferenceTask: delivery app, food, address/phone/recipient and payment, 25 % each."""
    app_dim, food_dim, basic, goal = _food_order(reading, "lunch", "")
    pay_dim, pay = _payment_dimension(reading, 0.25)
    dims = tuple(Dimension(d.name, 0.25, d.scorer, d.missing) for d in (app_dim, food_dim, basic))
    return ClassRubric((*dims, pay_dim), (Order(goal.app, goal.item, goal.address, payment=pay),))


def order_lunch_tradeoff(reading: Reading) -> ClassRubric:
    """OrderLunchTradeoffTask (judge part, 0.5): address/phone/recipient 25 %, preference fit 20 %, budget and
    payment 30 %, practicality 20 %.  The budget: the lunch budget the profile states (else the cheapest half of the
    menu counts as a fit)."""
    budget = rd.number_in(rd.text_of(rd.get(reading.doc, "preferences.diet.lunch_budget")))
    app_dim, food_dim, basic, goal = _food_order(reading, "lunch", "")
    pay_dim, pay = _payment_dimension(reading, 0.0)
    prices = sorted(float(d.get("price", 0) or 0) for _, d in _dishes(reading.state, goal.app))
    ceiling = budget if budget is not None else (prices[len(prices) // 2] if prices else 0.0)

    def cheap(dish: Item) -> float:
        return 1.0 if float(dish.get("price", 0) or 0) <= ceiling else 0.0

    def budget_fit(end: EndState, steps: Trace) -> tuple[float, str]:
        dishes = _ordered_dishes(reading, end)
        if not dishes:
            return 0.0, "no dish ordered"
        price_ok = min(cheap(d) for d in dishes)
        paid = pay_dim.scorer(end, steps)[0] if pay_dim.scorer is not None else price_ok
        return (price_ok + paid) / 2, f"within {ceiling:g} CNY: {bool(price_ok)}"

    def practical(end: EndState, steps: Trace) -> tuple[float, str]:
        orders = new_orders(end, rd.FOOD)
        ok = bool(orders) and bool(str(orders[-1][1].get("address", "")).strip())
        return float(ok), "an order with a delivery address" if ok else "no deliverable order"

    taste = _food_taste(reading.doc, "lunch")
    fit = _dish_fit(*taste[:2]) if taste else (lambda dish: 1.0)
    options = [(cheap(d) * 2 + fit(d) + (0.1 if app == goal.app else 0.0), app, str(d.get("id")))
               for app in rd.FOOD for _, d in _dishes(reading.state, app)]
    _, app, dish = max(options, default=(0.0, goal.app, goal.item))
    dims = (Dimension("address, phone and recipient", 0.25, basic.scorer, basic.missing),
            Dimension("preference fit", 0.2, food_dim.scorer, food_dim.missing),
            Dimension("budget and payment", 0.3, budget_fit), Dimension("practicality", 0.2, practical))
    return ClassRubric(dims, (Order(app, dish, goal.address, payment=pay),))


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
    app_dim, food_dim, basic, goal = _food_order(reading, "dinner", remark[0] if remark else "")

    def completion(end: EndState, steps: Trace) -> tuple[float, str]:
        dishes = _ordered_dishes(reading, end)
        return float(bool(dishes)), f"{len(dishes)} dish(es) ordered"

    def remark_score(end: EndState, steps: Trace) -> tuple[float, str]:
        assert remark is not None
        notes = " ".join(str(o.get("note", "")) for _, o in new_orders(end, rd.FOOD)).lower()
        hit = [w for w in remark[1] if w in notes]
        return len(hit) / len(remark[1]), f"remark carries {hit} of {remark[1]}"

    return ClassRubric((Dimension("basic completion", 0.25, completion),
                        Dimension("dietary habit", 0.35, food_dim.scorer, food_dim.missing),
                        Dimension("app preference", 0.2, app_dim.scorer, app_dim.missing),
                        Dimension("remark quality", 0.2, remark_score if remark else None,
                                  "preferences.diet.delivery_general_remark")), (goal,))


# ==================================================================================================== mail
def search_top_info(reading: Reading) -> ClassRubric:
    """SearchTopInfoPreferenceAskUserTask: recipient 25 % (the class's address), structure 25 %, field 30 %,
    workflow 20 % (N/A without an app trajectory: 1.0, as the rubric instructs)."""
    found = rd.field_of_interest(reading.doc)
    topic = found[0] if found else ""
    kevin = str(reading.values.get("KEVIN_EMAIL", "kevin@example.com"))

    def last_mail(end: EndState) -> Sequence[Item]:
        return end.new(end.mails)[-1:]

    def recipient(end: EndState, steps: Trace) -> tuple[float, str]:
        to = " ".join(str(m.get("to", "")) for m in last_mail(end)).lower()
        return float(kevin.lower() in to), f"sent to {to or 'nobody'}"

    def structure(end: EndState, steps: Trace) -> tuple[float, str]:
        mails = last_mail(end)
        if not mails:
            return 0.0, "no mail"
        subject, body = str(mails[0].get("subject", "")).lower(), str(mails[0].get("body", "")).lower()
        line = re.search(r"here is the recent news in the (.+?) field:\s*\S", body)
        subject_ok = bool(subject) and (not topic or topic.lower() in subject)
        return (subject_ok + bool(line)) / 2, f"subject {'names' if subject_ok else 'lacks'} the field, body line " \
                                              f"{'present' if line else 'missing'}"

    def preference(end: EndState, steps: Trace) -> tuple[float, str]:
        text = " ".join(f"{m.get('subject', '')} {m.get('body', '')}" for m in last_mail(end)).lower()
        words = [w for w in re.split(r"[/ ,]+", topic.lower()) if len(w) > 2]
        hit = topic.lower() in text or (bool(words) and sum(w in text for w in words) >= max(1, len(words) // 2))
        return float(hit), f"the mail {'is' if hit else 'is not'} about {topic}"

    shown = topic or "technology"
    query = re.sub(r"[^a-z0-9]+", "+", shown.lower()).strip("+")
    oracle = (Visit(f"https://search.example.com/?q={query}"),
              Mail(kevin, f"Recent news: {shown}", f"Here is the recent news in the {shown} field:\n"
                                                   f"A new result in {shown} was announced this week."))
    return ClassRubric((Dimension("recipient", 0.25, recipient), Dimension("content structure", 0.25, structure),
                        Dimension("preference alignment", 0.3, preference if found else None,
                                  "preferences.hobby.field_of_interest"),
                        Dimension("app/workflow", 0.2, lambda end, steps: (1.0, "N/A without an app trajectory"))),
                       oracle)


def share_photo_mail(reading: Reading) -> ClassRubric:
    """ShareFavoritePhotosPreferenceAskUserTask: photo selection 50 % (the user's own photo), message text 50 %
    (a message in the body; its style is not judged)."""
    photos = [str(p) for p in reading.values.get("own_photos", ())]
    address = str(reading.values.get("EMAIL_ADDRESS", ""))

    def photo(end: EndState, steps: Trace) -> tuple[float, str]:
        shared = {a for m in end.new(end.mails) for a in m.get("attachments", [])}
        ok = any(p in shared for p in photos)
        return float(ok), f"the user's own photo {photos} was {'shared' if ok else 'not shared'}"

    def message(end: EndState, steps: Trace) -> tuple[float, str]:
        mails = end.new(end.mails)
        ok = bool(mails) and bool(str(mails[-1].get("body", "")).strip())
        return float(ok), "a message in the body" if ok else "no message"

    return ClassRubric((Dimension("photo selection", 0.5, photo if photos else None, "own photo to share"),
                        Dimension("message text", 0.5, message)),
                       (Mail(address, "A photo for you", "Thought you'd like this one.", tuple(photos[:1])),))


def share_photo_mastodon(reading: Reading) -> ClassRubric:
    """MastodonSharePhotosPreferenceAskUserTask: photo selection 50 % (the user's own photo), caption 50 %."""
    photos = [str(p) for p in reading.values.get("own_photos", ())]
    visibility = rd.visibility(reading.doc) or "public"

    def photo(end: EndState, steps: Trace) -> tuple[float, str]:
        media = {m for t in end.new(end.toots) for m in t.get("media", [])}
        ok = any(p in media for p in photos)
        return float(ok), f"the user's own photo {photos} was {'posted' if ok else 'not posted'}"

    def caption(end: EndState, steps: Trace) -> tuple[float, str]:
        toots = end.new(end.toots)
        ok = bool(toots) and len(str(toots[-1].get("text", "")).strip()) > 3
        return float(ok), "a caption" if ok else "no caption"

    return ClassRubric((Dimension("photo selection", 0.5, photo if photos else None, "own photo to share"),
                        Dimension("caption style", 0.5, caption)),
                       (Toot("Sharing this one!", visibility, tuple(photos[:1])),))


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


def _destination_dim(reading: Reading, weight: float, name: str) -> tuple[Dimension, str]:
    dest = reading.values.get("destination", {}) or {}
    places = rd.addresses(reading.doc)
    address = places.get(str(dest.get("dest_key", "work")), "")
    label = str(dest.get("dest_name", "")) or address

    def score(end: EndState, steps: Trace) -> tuple[float, str]:
        if not modes_in(end.answer):  # a text naming the place but no way to get there is no route (issue 28)
            return 0.0, "no transport mode in the plan: no route"
        ok = any(x and x in end.answer for x in (address, label))
        return float(ok), f"the plan {'names' if ok else 'does not name'} {label or address}"
    return Dimension(name, weight, score), address or label


def _mode_score(good: Sequence[str], bad: Sequence[str]) -> Scorer:
    def score(end: EndState, steps: Trace) -> tuple[float, str]:
        modes = modes_in(end.answer)
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
    text = f"Take the {MODES[choice][0]} from home to {target}. {extra}".strip()
    return ClassRubric(dims(wanted, avoided, route), (Reply(text),))


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
    def safety(end: EndState, steps: Trace) -> tuple[float, str]:
        ok = any(w in end.answer.lower() for w in SAFETY)
        return float(ok), f"safety {'considered' if ok else 'not considered'}"

    def dims(wanted: list[str], avoided: list[str], route: Dimension) -> tuple[Dimension, ...]:
        return (Dimension("late-night constraint", 0.4, _mode_score(("taxi", "ride-hailing"), ("metro", "bus", "bike"))),
                Dimension("ride-hailing tier", 0.25, _mode_score(wanted, ()) if wanted else None,
                          "late-night or ride-hailing clause in preferences.travel"),
                Dimension("route", 0.2, route.scorer), Dimension("safety and comfort", 0.15, safety))
    return _commute(reading, condition=("late", "night", "ride_hailing", "ride-hailing", "didi"),
                    fallback_modes=("ride-hailing", "taxi"), dims=dims,
                    extra="Wait at a well-lit pick-up point and share your trip with a contact.")


def _channels(state: State) -> list[str]:
    holder = state.get("mattermost")
    return [str(c) for c in holder.get("channels", [])] if isinstance(holder, Mapping) else []


def _channel_scorer(channel: str | None) -> Scorer | None:
    """Whether the last post went to ``channel`` (``None``, not judged, without a target channel)."""
    def score(end: EndState, steps: Trace) -> tuple[float, str]:
        used = [c for c, _ in my_posts(end)]
        return (float(bool(used) and used[-1] == channel), f"posted in #{used[-1]}" if used else "nothing posted")
    return score if channel else None


def target_channel(reading: Reading) -> str | None:
    """The team channel the profile's social graph names (``target_channel``), when the world has it."""
    targets = [str(p.get("target_channel")) for group in (rd.get(reading.doc, "social_graph") or {}).values()
               if isinstance(group, list) for p in group if isinstance(p, Mapping) and p.get("target_channel")]
    return next((c for c in _channels(reading.state) for t in targets if c.lower() == t.lower()), None)


def late_urgent_notice(reading: Reading) -> ClassRubric:
    """LateUrgentRouteWithNoticeTask (judge part, 0.7): route 40 %, message style 35 %, both done 25 %; the message
    style from ``preferences.social.communication_style``."""
    base = _commute(reading, condition=("didi", "taxi", "ride"), fallback_modes=("ride-hailing", "taxi"),
                    dims=lambda w, a, r: (r,), extra="")
    _, bullets = style_of(reading.doc)

    def complete(end: EndState, steps: Trace) -> tuple[float, str]:
        done = bool(modes_in(end.answer)) + bool(my_posts(end))  # a route names a way to travel (issue 28)
        return done / 2, f"{done} of 2 parts done"

    channel = target_channel(reading) or (_channels(reading.state) or ["town-square"])[0]
    text = _styled("Running late, on my way. ETA about 20 min.", bullets)
    return ClassRubric((Dimension("route / transport", 0.4, _mode_score(("taxi", "ride-hailing"), ("bike", "walk"))),
                        style_dimension(reading.doc, 0.35, lambda end: [t for _, t in my_posts(end)]),
                        Dimension("task completeness", 0.25, complete)),
                       (Post(channel, text), *base.oracle))


# ======================================================================================== social / messages
def mastodon_interest(reading: Reading) -> ClassRubric:
    """MastodonInterestBoostTask (judge part, 0.7): interest match 50 %, channel 50 %.  The interest: the user's
    field of interest; the channel: the team channel of the social graph, else the one whose name shares a word with
    the interest, else the first work channel."""
    found = rd.field_of_interest(reading.doc)
    topic = found[0].lower() if found else ""
    words = [w for w in re.split(r"[/ ,]+", topic) if len(w) > 2]
    timeline = listed(reading.state, "mastodon", "timeline")
    post = next((p for p in timeline if any(w in rd.text_of(p) for w in words)), None)
    channels = _channels(reading.state)
    channel = target_channel(reading) or next((c for c in channels if any(w[:4] in c.lower() for w in words)), None) \
        or next((c for c in channels if c.lower() not in ("random", "off-topic", "town-square")), "town-square")

    def interest(end: EndState, steps: Trace) -> tuple[float, str]:
        ok = any(any(w in t.lower() for w in words) for _, t in my_posts(end))
        return float(ok), f"forwarded content {'matches' if ok else 'does not match'} {topic}"

    def right_channel(end: EndState, steps: Trace) -> tuple[float, str]:
        used = [c for c, _ in my_posts(end)]
        if not used:
            return 0.0, "nothing posted"
        return (1.0 if used[-1] == channel else 0.5 if used[-1].lower() not in ("random", "off-topic") else 0.0), \
            f"posted in #{used[-1]}"

    shared = post or (timeline[0] if timeline else {})
    oracle = (Post(channel, f"Worth a read: {shared.get('text', '')} ({shared.get('author', '')})"),)
    return ClassRubric((Dimension("interest match", 0.5, interest if post is not None else None,
                                  "preferences.social.hobby.field_of_interest (or no matching post)"),
                        Dimension("channel", 0.5, right_channel)), oracle)


def group_meeting(reading: Reading) -> ClassRubric:
    """CalendarScheduleGroupMeetingTask (judge part, 0.6): time slot 40 % (a future date, a sensible length, the
    same time in the post), channel 30 % (the team channel of the social graph), style 30 %."""
    start = reading.values.get("start")
    tomorrow = (start + timedelta(days=1)).strftime("%Y-%m-%d") if start is not None else "2026-05-23"
    today = start.strftime("%Y-%m-%d") if start is not None else ""
    channel = target_channel(reading)
    _, bullets = style_of(reading.doc)

    def slot(end: EndState, steps: Trace) -> tuple[float, str]:
        events = end.new(end.events)
        if not events:
            return 0.0, "no event"
        event = events[0]
        future = str(event["start"])[:10] > today
        hours = (int(str(event["end"])[11:13]) * 60 + int(str(event["end"])[14:16])
                 - int(str(event["start"])[11:13]) * 60 - int(str(event["start"])[14:16])) / 60
        sensible = 0 < hours <= 3
        matches = any(str(event["start"])[11:16] in t for _, t in my_posts(end))
        return (future + sensible + matches) / 3, f"future {future}, length {hours:g} h, post names the time {matches}"

    text = _styled(f"Project discussion meeting on {tomorrow} 15:00-16:00, online. See the calendar invite.", bullets)
    return ClassRubric((Dimension("time slot", 0.4, slot),
                        Dimension("channel", 0.3, _channel_scorer(channel), "target_channel in the social graph"),
                        style_dimension(reading.doc, 0.3, lambda end: [t for _, t in my_posts(end)])),
                       (Event("Project discussion meeting", tomorrow, "15:00", "16:00"),
                        Post(channel or (_channels(reading.state) or ["town-square"])[0], text)))


def leave_notice(reading: Reading) -> ClassRubric:
    """MattermostLeaveNoticeTask (judge part, 0.6): tone 30 %, channel 50 % (the team channel of the social
    graph), completeness 20 % (the reason and the time off)."""
    channel = target_channel(reading)
    _, bullets = style_of(reading.doc)

    def complete(end: EndState, steps: Trace) -> tuple[float, str]:
        posts = [t.lower() for _, t in my_posts(end)]
        if not posts:
            return 0.0, "no message"
        reason = any(w in posts[-1] for w in ("sick", "unwell", "ill", "not feeling well", "fever"))
        when = any(w in posts[-1] for w in ("today", "day off", "tomorrow", "leave"))
        return (reason + when) / 2, f"reason {'given' if reason else 'missing'}, time off {'given' if when else 'missing'}"

    text = _styled("Not feeling well today, taking a sick day off. Back tomorrow.", bullets)
    return ClassRubric((style_dimension(reading.doc, 0.3, lambda end: [t for _, t in my_posts(end)]),
                        Dimension("recipient / channel", 0.5, _channel_scorer(channel),
                                  "target_channel in the social graph"),
                        Dimension("content completeness", 0.2, complete)),
                       (Post(channel or (_channels(reading.state) or ["town-square"])[0], text),))


VISIBILITY_ORDER = ("public", "unlisted", "followers-only", "direct")
PHONE_VISIBILITY = {"private": "followers-only"}


def privacy_default(reading: Reading) -> ClassRubric:
    """MastodonPrivacyDefaultTestTask (judge part, 0.6): visibility 50 % (the profile's default, else the class's
    expected one; an adjacent level scores 0.5), content 50 % (the requested topic)."""
    expected = rd.visibility(reading.doc) or str(reading.values.get("expected_visibility") or "public")
    topic = str(reading.values.get("topic", ""))

    def visibility(end: EndState, steps: Trace) -> tuple[float, str]:
        toots = end.new(end.toots)
        if not toots:
            return 0.0, "no toot"
        got = PHONE_VISIBILITY.get(str(toots[-1]["visibility"]), str(toots[-1]["visibility"]))
        gap = abs(VISIBILITY_ORDER.index(got) - VISIBILITY_ORDER.index(expected)) \
            if got in VISIBILITY_ORDER and expected in VISIBILITY_ORDER else 3
        return (1.0 if gap == 0 else 0.5 if gap == 1 else 0.0), f"posted {got}, expected {expected}"

    def content(end: EndState, steps: Trace) -> tuple[float, str]:
        toots = end.new(end.toots)
        ok = bool(toots) and (not topic or topic[:6] in str(toots[-1].get("text", "")))
        return float(ok), "the toot carries the topic" if ok else "the toot misses the topic"

    return ClassRubric((Dimension("visibility", 0.5, visibility), Dimension("content and style", 0.5, content)),
                       (Toot(topic or "Sharing a small win today!", expected),))


def ask_mom(reading: Reading) -> ClassRubric:
    """MessagesAskMomForMoneyTask (judge part, 0.6): casual tone with emoji or [Doge], never formal, no call."""
    phone = str(reading.values.get("mom_phone", ""))

    def style(end: EndState, steps: Trace) -> tuple[float, str]:
        texts = sms_to(end, phone)
        calls = end.new(end.calls)
        if not texts:
            return 0.0, "no SMS to Mom"
        text = texts[-1]
        formal = bool(re.search(r"\b(dear|sincerely|regards)\b", text.lower()))
        playful = bool(re.search(r"\[doge\]|[\U0001F300-\U0001FAFF]|lol|pls|plz", text.lower()))
        value = 0.0 if formal or calls else (1.0 if playful else 0.5)
        return value, f"tone {'formal' if formal else 'casual'}, emoji {'yes' if playful else 'no'}, " \
                      f"{len(calls)} call(s)"

    return ClassRubric((Dimension("gen-z style", 1.0, style),),
                       (Sms(phone, "mom pls send me some living money this month [Doge] love u lol"),))


def invite_conflict(reading: Reading) -> ClassRubric:
    """CalendarInviteConflictResolutionTask (judge part, 0.6): decision 45 % (decline exactly when a habit with
    ``auto_decline_meetings`` covers the invite's time and day), calendar 25 %, reply 20 %, tone 10 %."""
    values = reading.values
    start_hm, end_hm = values.get("INVITE_START_HM", (10, 30)), values.get("INVITE_END_HM", (11, 0))
    start, finish = start_hm[0] * 60 + start_hm[1], end_hm[0] * 60 + end_hm[1]
    day = str(values.get("invite_weekday", "tue"))[:3].lower()
    date = str(values.get("INVITE_DATE", "2026-02-10"))
    decline = any(rd.habit_blocks(habit, start, finish, day) for habit in (rd.get(reading.doc, "habits") or {}).values())
    inviter = str(values.get("INVITER_PHONE", ""))
    no_words = ("sorry", "can't", "cannot", "decline", "unavailable", "another time")

    def replies(end: EndState) -> list[str]:
        return sms_to(end, inviter)

    def decision(end: EndState, steps: Trace) -> tuple[float, str]:
        sent = replies(end)
        if not sent:
            return 0.0, "no reply"
        declined = any(w in sent[-1].lower() for w in no_words)
        return float(declined == decline), f"{'declined' if declined else 'accepted'}; expected " \
                                           f"{'decline' if decline else 'accept'}"

    def calendar(end: EndState, steps: Trace) -> tuple[float, str]:
        events = end.new(end.events)
        if decline:
            return (0.0 if events else 1.0), f"{len(events)} event(s) added"
        if not events:
            return 0.0, "no event"
        exact = events[-1]["start"] == f"{date} {start_hm[0]:02d}:{start_hm[1]:02d}"
        return (1.0 if exact else 0.5), f"event at {events[-1]['start']}"

    def reply(end: EndState, steps: Trace) -> tuple[float, str]:
        sent = replies(end)
        return float(bool(sent) and len(sent[-1]) > 10), "a clear reply" if sent else "no reply"

    text = ("Sorry, I can't make it then because of a fixed commitment - could we find another time?" if decline
            else "Sure, that works for me - see you then.")
    oracle: tuple[Goal, ...] = (Sms(inviter, text),)
    if not decline:
        oracle += (Event(str(values.get("INVITE_TITLE", "Chat")), date, f"{start_hm[0]:02d}:{start_hm[1]:02d}",
                         f"{end_hm[0]:02d}:{end_hm[1]:02d}"),)
    return ClassRubric((Dimension("decision", 0.45, decision), Dimension("calendar operation", 0.25, calendar),
                        Dimension("reply quality", 0.2, reply),
                        Dimension("tone", 0.1, lambda end, steps: (1.0, "tone not judged without a model"))), oracle)


def highlight_sms(reading: Reading) -> ClassRubric:
    """HighlightImportantSmsSenderPreferenceAskUserTask (judge part, 0.6): importance 35 %, contact 25 %, highlight
    25 %, note and asking 15 %; the expected decision is the role's scenario (a message that matters is saved and
    starred, another one left alone)."""
    values = reading.values
    important = bool(values.get("expected_important", True))
    sender = str(values.get("sender_phone", ""))

    def saved(end: EndState) -> list[Item]:
        return [c for c in end.new(end.contacts) if rd.digits(c["phone"]) == rd.digits(sender)]

    def importance(end: EndState, steps: Trace) -> tuple[float, str]:
        acted = bool(saved(end)) or any(c["starred"] and not c["was_starred"] for c in end.contacts)
        return float(acted == important), f"treated as {'important' if acted else 'unimportant'}"

    def created(end: EndState, steps: Trace) -> tuple[float, str]:
        return float(bool(saved(end)) == important), f"{len(saved(end))} contact(s) for the sender"

    def starred(end: EndState, steps: Trace) -> tuple[float, str]:
        star = any(c["starred"] for c in saved(end))
        return float(star == important), f"sender starred: {star}"

    def note(end: EndState, steps: Trace) -> tuple[float, str]:
        ok = not important or asked(steps) or any(c["note"] for c in saved(end))
        return float(ok), "a note or a question" if ok else "no note and no question"

    oracle: tuple[Goal, ...] = ()
    if important:
        oracle = (Contact(str(values.get("sender_role") or values.get("sender_name") or "Important sender"), sender,
                          "Important - from SMS", starred=True),)
    return ClassRubric((Dimension("importance", 0.35, importance), Dimension("contact creation", 0.25, created),
                        Dimension("highlight", 0.25, starred), Dimension("note and asking", 0.15, note)), oracle)


def sort_files(reading: Reading) -> ClassRubric:
    """SortFilesByHabitPreferenceAskUserTask (judge part, 0.6): clarification 35 % (asked), sort 50 % (the option
    the profile implies, else the class's default), consistency 15 %."""
    option = str(reading.values.get("profile_sort") or reading.values.get("DEFAULT_SORT_OPTION")
                 or "Modified (newest first)")
    order = rd.SORT_IDS.get(option, "modified_desc")

    def correct(end: EndState, steps: Trace) -> tuple[float, str]:
        got = end.files.get("Download", {}).get("sort", "")
        return float(got == order), f"Download sorted {got or 'not at all'}, expected {order}"

    return ClassRubric((Dimension("clarification", 0.35, lambda end, steps: (float(asked(steps)), "asked")),
                        Dimension("sort option", 0.5, correct), Dimension("consistency", 0.15, correct)),
                       (Ask("How do you usually sort the files in Download?"), Sort("Download", order)))


def weekend_alarm(reading: Reading) -> ClassRubric:
    """SetAlarmPreferenceAskUser2Task: wake-up time 35 %, ringtone 35 %, weekend repeat 20 %, asking 10 %."""
    ringtones = [str(r) for r in (reading.state.get("clock") or {}).get("ringtones", [])]
    habit = next((v for k, v in (rd.get(reading.doc, "habits") or {}).items()
                  if "alarm" in str(k).lower() and isinstance(v, Mapping)), {})
    wanted_tone = next((str(v) for k, v in habit.items() if "ringtone" in str(k).lower()), "")
    ringtone = next((r for r in ringtones if r.lower() == wanted_tone.lower()), None)
    wake = rd.clock_time(next((str(v) for k, v in habit.items() if "time" in str(k).lower()), ""))

    def time_score(end: EndState, steps: Trace) -> tuple[float, str]:
        alarms = end.new(end.alarms)
        ok = any(str(a.get("time")) == wake for a in alarms)
        return (1.0 if ok else 0.5 if alarms else 0.0), f"alarm times {[a.get('time') for a in alarms]}"

    def tone_score(end: EndState, steps: Trace) -> tuple[float, str]:
        alarms = end.new(end.alarms)
        return float(any(str(a.get("ringtone")) == ringtone for a in alarms)), \
            f"ringtones {[a.get('ringtone') for a in alarms]}"

    def weekend(end: EndState, steps: Trace) -> tuple[float, str]:
        alarms = end.new(end.alarms)
        ok = any(a.get("enabled") and {"Sat", "Sun"} <= set(a.get("days", []) or []) for a in alarms)
        return (1.0 if ok else 0.5 if alarms else 0.0), f"weekend repeat {'set' if ok else 'not set'}"

    def asking(end: EndState, steps: Trace) -> tuple[float, str]:
        ok = asked(steps)
        return (1.0 if ok else 0.5), "asked the user" if ok else "did not ask"

    return ClassRubric((Dimension("wake-up time", 0.35, time_score if wake else None, "weekend alarm habit"),
                        Dimension("ringtone", 0.35, tone_score if ringtone else None, "ringtone preference"),
                        Dimension("weekend alarm", 0.2, weekend), Dimension("interaction", 0.1, asking)),
                       (Ask("What time do you like to get up at the weekend, and which ringtone?"),
                        Alarm(wake or "08:00", "Weekend", ringtone, ("Sat", "Sun"))))


#: Class -> the builder of its deterministic rubric judge (every preference class).
BUILDERS: Mapping[str, Callable[[Reading], ClassRubric]] = {
    "BuyColaPreferenceTask": buy_cola, "BuyComputerPreferenceAskUserTask": buy_computer,
    "CartManagementPreferenceAskUserTask": cart_clothes,
    "DeleteItemOverBudgetPreferenceAskUserTask": cart_over_budget,
    "DeleteItemsPreferenceAskUserTask": cart_electronics,
    "SearchWhiteSneakersCheckoutPreferenceAskUserTask": white_sneakers,
    "NoteTheCourierForDeliveryPreferenceAskUserTask": courier_note,
    "OrderLunchPreferenceTask": order_lunch, "OrderLunchTradeoffTask": order_lunch_tradeoff,
    "TakeoutReamarkPreferenceAskUserTask": takeout_remark,
    "SearchTopInfoPreferenceAskUserTask": search_top_info,
    "ShareFavoritePhotosPreferenceAskUserTask": share_photo_mail,
    "MastodonSharePhotosPreferenceAskUserTask": share_photo_mastodon,
    "CommuteRoutingBadWeatherTask": commute_rain, "CommuteRoutingSunnyTask": commute_sunny,
    "LateNightCommuteTask": commute_late_night, "LateUrgentRouteWithNoticeTask": late_urgent_notice,
    "MastodonInterestBoostTask": mastodon_interest, "MastodonPrivacyDefaultTestTask": privacy_default,
    "MattermostLeaveNoticeTask": leave_notice, "CalendarScheduleGroupMeetingTask": group_meeting,
    "CalendarInviteConflictResolutionTask": invite_conflict, "MessagesAskMomForMoneyTask": ask_mom,
    "HighlightImportantSmsSenderPreferenceAskUserTask": highlight_sms,
    "SortFilesByHabitPreferenceAskUserTask": sort_files, "SetAlarmPreferenceAskUser2Task": weekend_alarm,
}
