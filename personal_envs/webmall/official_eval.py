"""The official WebMall evaluator, rule for rule (BrowserGym ``browsergym/webmall`` at 1aaef63, WebMall v1.0).

Reimplemented from the official task, checkpoint and evaluator modules and ``summarize_study.py``; quirks kept:

* **Checklist.**  One ``answerN`` checkpoint per expected URL, typed as the task file types the task (``string``,
  ``cart`` or ``checkout``), together worth 0.8; one ``visit_product_page_N`` (``url``) checkpoint per answer plus,
  for checkout tasks, one ``cartN`` checkpoint per answer, together worth 0.2.  A flag, once set, is never unset.
* **Every step** (``validate``) runs one checker per type that still has an unflagged checkpoint, plus the string
  checker always, on the current page:

  - string: only when the solution page shows a submitted text; URLs are pulled out of it with the official regex
    (after ``###`` becomes a line break) and normalised by ``rstrip("/")`` then ``lstrip`` of the *character sets*
    ``"http://"`` and ``"https://"`` (so ``https://shop`` loses its leading ``s`` and ``h``, on both sides alike).
    Host case, queries, fragments and percent escapes are kept; a submitted URL that matches no unflagged answer
    is a wrong solution.
  - cart: a product counts as added when its slug occurs in the page URL of a page with a WooCommerce notice, or
    in a cart row's first link on a ``/cart`` page, or in the first link of a listing ``li.product`` that holds an
    ``a.added_to_cart`` ("View cart"); the checkpoint's host and port must equal the page's.  Detected products
    without such a checkpoint (or whose checkpoint is already flagged) are wrong solutions.
  - checkout: on ``/checkout/order-received`` pages, products from the order table, billing block checked by
    substring (name, street, house number, zip, state; country or ``us`` / ``usa`` / ``united states``), e-mail
    anywhere in the page text.
  - url: a visit checkpoint is flagged when its normalised URL is a substring of the normalised page URL.

* **End.**  The episode ends when a submission is shown, or when the last chat message contains ``"Done"``.
* **Metrics** (``summarize_study.py``): benchmark set = the answer checkpoints, model set = the flagged answer
  checkpoints plus the wrong solutions of the *last* step (left out for Add-to-Cart, Checkout and End-to-End task
  types); completion = equal sets; P = |both| / |model| (0 when empty), R = |both| / |benchmark|; over tasks: mean
  CR, mean P, mean R and F1 = harmonic mean of those means.  The wrong solutions are the ones the official analysis
  reads back from its ``penalties.csv`` (:func:`stored_wrong_solutions`): ``task_logs_extractor.py`` joins them with
  ``|`` into an unquoted CSV line and ``summarize_study.py`` reads the row with ``csv.DictReader`` and splits on
  ``|``, so a wrong URL containing ``|`` counts as several, and a comma cuts off the rest of the list.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from personal_envs.webmall.official_html import Node, parsed_page

#: The official submission URL pattern: optional scheme, host (localhost, IPv4 or dotted name), optional port,
#: optional path up to the next whitespace, trimmed back to a word boundary on both ends.
URL_PATTERN = re.compile(
    r"\b(?:https?://)?"
    r"(?:localhost|\d{1,3}(?:\.\d{1,3}){3}|(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,})"
    r"(?::\d{2,5})?(?:/\S*)?\b",
    re.IGNORECASE,
)
#: Task types whose wrong solutions ``summarize_study.py`` leaves out of the model set.
PENALTY_FREE_TYPES = frozenset({"Webmall_Add_To_Cart_Task", "Webmall_Checkout_Task", "Webmall_EndToEnd_Task"})
_TASK_TYPE = re.compile(r"^(.*?_Task)\d+(?:_\d+){0,2}$")
#: Longest whitespace-free run of a submission that URLs are looked for in (characters; the rest of such a run is
#: not read).  A URL match never contains whitespace, so the text is read run by run; the official regex needs
#: time quadratic in a run's length where it fails (8,000 characters of ``a.`` take 2 s), and no real URL is longer.
MAX_URL_RUN_CHARS = 2048
_RUN = re.compile(r"\S+")


def official_normalize_url(url: str) -> str:
    """The official ``_normalize_url``: trailing slashes off, then leading characters of ``http://`` and
    ``https://`` off (character sets, not prefixes)."""
    return url.rstrip("/").lstrip("http://").lstrip("https://")  # noqa: B005 - the official quirk, on purpose


def extract_submitted_urls(text: str) -> list[str]:
    """URLs the official string checker finds in a submitted text (``###`` counts as a line break), the whole text
    read (the official code reads it whole): the same matches as the official regex over the text, found run by
    run between whitespace (each run read up to :data:`MAX_URL_RUN_CHARS`)."""
    found: list[str] = []
    seen: dict[str, list[str]] = {}
    for run in _RUN.finditer(text.replace("###", "\n")):
        token = run.group(0)[:MAX_URL_RUN_CHARS]
        if token not in seen:
            seen[token] = [m.group(0) for m in URL_PATTERN.finditer(token)]
        found.extend(seen[token])
    return found


def stored_wrong_solutions(wrong: Sequence[str], experiment_id: str = "run", task_id: str = "task") -> list[str]:
    """The wrong solutions as the official analysis reads them back: ``task_logs_extractor.py`` writes
    ``experiment_id,task_id,penalty,<wrong solutions joined by |>`` to ``penalties.csv`` without CSV quoting, and
    ``summarize_study.py`` reads the row's ``wrong_solutions`` column with ``csv.DictReader`` and splits it on ``|``.
    So ``a|b`` becomes two wrong solutions, and everything after a comma is lost (it spills into extra columns)."""
    joined = "|".join(str(item) for item in wrong) if wrong else ""
    stored = f"experiment_id,task_id,penalty,wrong_solutions\n{experiment_id},{task_id},None,{joined}\n"
    wrong_solutions: list[str] = []
    for row in csv.DictReader(io.StringIO(stored)):
        value = row.get("wrong_solutions") or ""
        if value:
            wrong_solutions.extend(value.split("|"))
    return wrong_solutions


def task_type(task_id: str) -> str:
    """``summarize_study.py``'s task type: the id up to ``_Task`` (``Webmall_Checkout_Task3`` -> ``..._Task``)."""
    match = _TASK_TYPE.match(task_id.split(".")[-1])
    return match.group(1) if match else "Unknown_Task"


def _slug(url: str) -> str:
    return urlparse(url).path.rstrip("/").split("/")[-1]


def _netloc(url: str) -> str:
    return urlparse(url).netloc


@dataclass
class Checkpoint:
    """One official checkpoint: id, expected URL, type, weight and whether it was reached."""

    id: str
    value: str
    type: str
    weight: float = 1.0
    flag: bool = False


def build_checklist(answers: Sequence[str], answer_type: str) -> list[Checkpoint]:
    """The official checklist of a task with ``answers`` (live URLs) typed ``answer_type``."""
    answer_cps = [Checkpoint(f"answer{i}", url, answer_type) for i, url in enumerate(answers, 1)]
    visits = [Checkpoint(f"visit_product_page_{i}", url, "url") for i, url in enumerate(answers, 1)]
    carts = ([Checkpoint(f"cart{i}", url, "cart") for i, url in enumerate(answers, 1)]
             if answer_type == "checkout" else [])
    for cp in answer_cps:
        cp.weight = 0.8 / len(answer_cps)
    group = visits + carts
    for cp in group:
        cp.weight = 0.2 / len(group)
    return answer_cps + group


# ------------------------------------------------------------------------------------------------ checkers
def check_string(final_text: str, cps: Sequence[Checkpoint]) -> tuple[float, list[str]]:
    """Flag answer checkpoints named by the submission; return (score, wrong solutions as submitted)."""
    by_norm = {official_normalize_url(cp.value): cp for cp in cps}
    originals: dict[str, str] = {}
    for url in extract_submitted_urls(final_text):
        originals[official_normalize_url(url)] = url  # the last spelling of a normalised URL is kept
    score, wrong = 0.0, []
    for norm, original in originals.items():
        cp = by_norm.get(norm)
        if cp is not None and not cp.flag:
            cp.flag = True
            score += cp.weight
        else:
            wrong.append(original)
    return score, wrong


#: The classes of the notices a product page shows after adding to the cart, and of the link a listing shows.
_NOTICE_CLASSES = ("woocommerce-message", "wc-block-components-notice-banner__content")
_ADDED_CLASS = "added_to_cart"
#: A class attribute holding one of those names, as a serialized page writes it (always in double quotes, a quote
#: inside escaped); the shops' scripts name the classes too, but not in an attribute.
_CLASS_ATTRIBUTE = {name: re.compile(r'\sclass="[^"]*' + re.escape(name)) for name in (*_NOTICE_CLASSES, _ADDED_CLASS)}


def _class_in_markup(html: str, name: str) -> bool:
    """False only when no element of the serialized page ``html`` can have the class ``name``."""
    return name in html and _CLASS_ATTRIBUTE[name].search(html) is not None


def _cart_detected(page_url: str, doc: Node, slug: str) -> bool:
    if slug in page_url and any(doc.select(cls=name) for name in _NOTICE_CLASSES):
        return True
    if "/cart" in page_url:
        rows = doc.elements(lambda n: (n.tag == "tr" and bool({"wc-block-cart-items__row", "cart_item"} & n.classes))
                            or (n.tag == "td" and "product-name" in n.classes))
        for row in rows:
            link = row.first_link()
            if link is not None and slug in link.attrs["href"]:
                return True
    for item in doc.select("li", "product"):
        link = item.first_link()
        if link is not None and slug in link.attrs["href"] and item.select("a", _ADDED_CLASS):
            return True
    return False


def _once(html: str | Callable[[], str]) -> Callable[[], str]:
    """``html``, or what the function ``html`` returns, computed on the first call only."""
    markup: str | None = html if isinstance(html, str) else None

    def text() -> str:
        nonlocal markup
        if markup is None:
            markup = html() if callable(html) else html
        return markup

    return text


@dataclass(frozen=True)
class PageSummary:
    """What the cart checks read of a page that its caller knows without serializing it: the class names its
    elements have, and the ``href`` values of its ``a`` elements (as attributes, unescaped)."""

    class_names: frozenset[str]
    link_hrefs: frozenset[str]


def cart_may_show(page_url: str, html: str | Callable[[], str], cps: Sequence[Checkpoint],
                  summary: PageSummary | None = None) -> bool:
    """False only when :func:`check_cart` cannot detect any of ``cps`` on this page, so the page need not be parsed.

    Each way :func:`_cart_detected` detects a product needs an element with a given class and text that the
    serialized page then holds literally (class names hold no character HTML escapes): a notice class with the slug
    in the page URL, or the slug in a link's ``href`` (in the HTML, unless the slug holds a character HTML escapes)
    on a cart page or next to an ``added_to_cart`` link.  ``html`` is the serialized page (``page.content()``:
    attribute values in double quotes), or a function that serializes it, called only when needed; with the page's
    ``summary`` it is not needed (the parsed page has the same elements with the same attributes)."""
    text = _once(html)

    def has_class(name: str) -> bool:
        return name in summary.class_names if summary is not None else _class_in_markup(text(), name)

    def linked(slug: str) -> bool:
        if summary is not None:
            return any(slug in href for href in summary.link_hrefs)
        return slug in text() or any(ch in slug for ch in "&<>\"'")

    notice: bool | None = None
    added: bool | None = None
    for cp in cps:
        slug = _slug(cp.value)
        if not slug:
            continue
        if slug in page_url:
            if notice is None:
                notice = any(has_class(name) for name in _NOTICE_CLASSES)
            if notice:
                return True
        if "/cart" not in page_url:
            if added is None:
                added = has_class(_ADDED_CLASS)
            if not added:
                continue
        if linked(slug):
            return True
    return False


def check_cart(page_url: str, doc: Node, cps: Sequence[Checkpoint]) -> tuple[float, list[str]]:
    """Flag cart checkpoints whose add-to-cart confirmation the page shows; return (score, wrong slugs)."""
    by_slug: dict[str, list[Checkpoint]] = {}
    for cp in cps:
        slug = _slug(cp.value)
        if slug:
            by_slug.setdefault(slug, []).append(cp)
    here = _netloc(page_url)
    score, wrong = 0.0, []
    for slug in [s for s in by_slug if _cart_detected(page_url, doc, s)]:
        matched = False
        for cp in by_slug[slug]:
            if _netloc(cp.value) == here and not cp.flag:
                cp.flag = True
                score += cp.weight
                matched = True
        if not matched:
            wrong.append(slug)
    return score, wrong


def _billing_ok(doc: Node, details: Mapping[str, str]) -> bool:
    blocks = (doc.elements(lambda n: n.tag == "address" and _inside_class(doc, n, "woocommerce-customer-details"))
              or [a for block in doc.select(attr=("data-block-name", "woocommerce/order-confirmation-billing-address"))
                  for a in block.select("address")]
              or doc.select("address"))
    if not blocks:
        return False  # the official code raises here; the step then scores nothing
    text = blocks[0].get_text(" ", strip=True).lower()
    keys = ("name", "street", "house_number", "zip", "state")
    if not all(str(details.get(key, "")).strip().lower() in text for key in keys):
        return False
    country = str(details.get("country", "")).lower()
    return any(option in text for option in (country, "us", "usa", "united states"))


def _inside_class(doc: Node, target: Node, cls: str) -> bool:
    return any(target in block.iter() for block in doc.select(cls=cls))


def check_checkout(page_url: str, doc: Node, cps: Sequence[Checkpoint],
                   details: Mapping[str, str]) -> tuple[float, list[str]]:
    """Flag checkout checkpoints on an order-received page; return (score, unexpected product slugs)."""
    if "/checkout/order-received" not in page_url:
        return 0.0, []
    found: set[str] = set()
    for cell in doc.elements(lambda n: n.tag == "td" and bool(
            {"woocommerce-table__product-name", "wc-block-order-confirmation-totals__product"} & n.classes)):
        for link in cell.select("a"):
            if link.attrs.get("href"):
                found.add(_slug(link.attrs["href"]))
    score = 0.0
    expected = {_slug(cp.value): cp for cp in cps if cp.type == "checkout"}
    for slug, cp in expected.items():
        if slug in found:
            email_ok = str(details.get("email", "")).lower() in doc.get_text().lower()
            if _billing_ok(doc, details) and email_ok and not cp.flag:
                cp.flag = True
                score += cp.weight
            found.discard(slug)
    return score, sorted(found)


def check_url(page_url: str, cps: Sequence[Checkpoint]) -> float:
    """Flag visit checkpoints whose URL (normalised) is part of the page URL (normalised)."""
    score = 0.0
    here = official_normalize_url(page_url)
    for cp in cps:
        if official_normalize_url(cp.value) in here and not cp.flag:
            cp.flag = True
            score += cp.weight
    return score


# ------------------------------------------------------------------------------------------------ episode
@dataclass
class StepVerdict:
    """What one official ``validate`` call gave: the weight flagged now, whether the episode ends, wrong ones."""

    score: float
    done: bool
    wrong_solutions: list[str]


@dataclass
class OfficialEpisode:
    """The official checklist of one episode, updated after every step as ``WebMallTask.validate`` does."""

    task_id: str
    answer_type: str
    answers: tuple[str, ...]
    user_details: dict[str, str] = field(default_factory=dict)
    checkpoints: list[Checkpoint] = field(default_factory=list)
    last_wrong: list[str] = field(default_factory=list)
    done: bool = False

    def __post_init__(self) -> None:
        if not self.checkpoints:
            self.checkpoints = build_checklist(self.answers, self.answer_type)

    def needs_html(self, page_url: str) -> bool:
        """True when this step's checks read the page's HTML (unflagged cart checkpoints, or an order page)."""
        pending = {cp.type for cp in self.checkpoints if not cp.flag}
        return "cart" in pending or ("checkout" in pending and "/checkout/order-received" in page_url)

    def validate(self, page_url: str, html: str | Callable[[], str], submitted: str | None = None,
                 last_message: str = "", summary: Callable[[], PageSummary] | None = None,
                 tree: Callable[[], Node | None] | None = None) -> StepVerdict:
        """One official validation: ``submitted`` is the text the solution page shows (None: no submission on
        this page), ``last_message`` the last chat message of the agent ("Done" in it ends the episode).
        ``html`` may be a function that serializes the page, called only when a check reads the markup;
        ``summary``, when given, returns the page's :class:`PageSummary` (see :func:`cart_may_show`); ``tree``,
        when given, the tree parsing the page would give (None: parse it)."""
        pending = {cp.type for cp in self.checkpoints if not cp.flag} | {"string"}
        by_type: dict[str, list[Checkpoint]] = {}
        for cp in self.checkpoints:
            by_type.setdefault(cp.type, []).append(cp)
        doc: Node | None = None
        text = _once(html)

        def page() -> Node:
            nonlocal doc
            if doc is None:
                doc = tree() if tree is not None else None
            if doc is None:
                doc = parsed_page(text())
            return doc

        score, done = 0.0, False
        wrong: list[str] = []
        if "url" in pending:
            score += check_url(page_url, by_type.get("url", []))
        carts = by_type.get("cart", [])
        if "cart" in pending and cart_may_show(page_url, text, carts, None if summary is None else summary()):
            # else check_cart gives (0.0, [])
            got, bad = check_cart(page_url, page(), carts)
            score, wrong = score + got, wrong + bad
        if "checkout" in pending and "/checkout/order-received" in page_url:
            got, bad = check_checkout(page_url, page(), by_type.get("checkout", []), self.user_details)
            score, wrong = score + got, wrong + bad
        final_text = (submitted or "").strip()
        if final_text:
            got, bad = check_string(final_text, by_type.get("string", []))
            score, wrong, done = score + got, wrong + bad, True
        self.last_wrong = wrong
        self.done = self.done or done or "Done" in last_message
        return StepVerdict(score, self.done, wrong)

    # -------------------------------------------------------------------------------------------- metrics
    @property
    def total(self) -> float:
        """Sum of the weights of the flagged checkpoints (the official dense return)."""
        return sum(cp.weight for cp in self.checkpoints if cp.flag)

    def solution_sets(self) -> tuple[set[str], set[str]]:
        """(benchmark set, model set) as ``summarize_study.py`` builds them from the checklist and penalties."""
        answers = [cp for cp in self.checkpoints if re.fullmatch(r"answer\d+", cp.id)]
        benchmark = {cp.id for cp in answers}
        model = {cp.id for cp in answers if cp.flag}
        if task_type(self.task_id) not in PENALTY_FREE_TYPES:
            model |= set(stored_wrong_solutions(self.last_wrong))
        return benchmark, model

    def metrics(self) -> dict[str, Any]:
        """Per-task completion, precision, recall and F1 as ``summarize_study.py`` computes them."""
        return set_metrics(*self.solution_sets())


def set_metrics(benchmark: set[str], model: set[str]) -> dict[str, Any]:
    """``calculation_results`` for one task."""
    both = len(benchmark & model)
    precision = both / len(model) if model else 0.0
    recall = both / len(benchmark) if benchmark else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return {"completed": float(benchmark == model), "precision": precision, "recall": recall, "f1": f1}


def study_metrics(pairs: Sequence[tuple[set[str], set[str]]]) -> dict[str, float]:
    """``calculation_results`` over tasks: mean CR, mean P, mean R, F1 of the two means."""
    if not pairs:
        return {"CR": 0.0, "P": 0.0, "R": 0.0, "F1": 0.0}
    rows = [set_metrics(b, m) for b, m in pairs]
    n = len(rows)
    cr = sum(r["completed"] for r in rows) / n
    p = sum(r["precision"] for r in rows) / n
    r_ = sum(r["recall"] for r in rows) / n
    return {"CR": cr, "P": p, "R": r_, "F1": 2 * p * r_ / (p + r_) if p + r_ > 0 else 0.0}
