"""The cascade for the project's own stylesheets: rules, selectors, specificity, inheritance.

Only what the text mode reads is computed (``display``, ``visibility``, ``list-style-type`` and the box properties
:mod:`personal_envs.textmode.layout` uses).  Selectors: type, ``*``, ``.class``, ``#id``, ``[attr]``,
``[attr=value]``, ``:not(simple)``, ``:focus`` and the descendant and child combinators; a rule with a
pseudo-element (``::after``, ``::-webkit-scrollbar``) or another pseudo-class matches nothing, as it adds nothing
the text mode shows.  Inline ``style`` attributes come last, as in a browser.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import lru_cache

from personal_envs.textmode.dom import Document, Element

#: The user agent's ``display`` of each tag (anything else is ``inline``).
UA_DISPLAY: dict[str, str] = {
    **{tag: "block" for tag in (
        "html", "body", "div", "p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "menu", "form", "header",
        "footer", "nav", "main", "section", "article", "aside", "address", "blockquote", "dl", "dt", "dd",
        "fieldset", "legend", "figure", "figcaption", "hr", "pre", "details", "summary", "search", "hgroup",
        "center", "optgroup", "option")},
    **{tag: "none" for tag in ("head", "script", "style", "title", "meta", "link", "base", "template", "noscript",
                               "dialog", "datalist", "param", "area", "map", "source", "track")},
    "li": "list-item", "table": "table", "tr": "table-row", "td": "table-cell", "th": "table-cell",
    "thead": "table-header-group", "tbody": "table-row-group", "tfoot": "table-footer-group",
    "caption": "table-caption", "col": "table-column", "colgroup": "table-column-group",
    "input": "inline-block", "button": "inline-block", "select": "inline-block", "textarea": "inline-block",
    "img": "inline", "meter": "inline-block", "progress": "inline-block",
}

#: Properties a child takes from its parent unless a rule sets them.
INHERITED = frozenset({"visibility", "list-style-type", "font-size", "font-weight", "line-height", "white-space",
                       "font-family", "text-align", "color"})

#: Initial values of the inherited properties.
INITIAL = {"visibility": "visible", "list-style-type": "disc", "font-size": "16px", "font-weight": "normal",
           "line-height": "normal", "white-space": "normal", "font-family": "serif", "text-align": "start",
           "color": "black"}

_UA_RULES = (
    "ol{list-style-type:decimal}ul ul,ol ul{list-style-type:circle}ul ul ul,ol ul ul,ul ol ul{list-style-type:square}"
    "input[type=hidden]{display:none}h1{font-size:2em;font-weight:bold}h2{font-size:1.5em;font-weight:bold}"
    "h3{font-size:1.17em;font-weight:bold}strong,b,th{font-weight:bold}small{font-size:smaller}"
    "dialog[open]{display:block}"
)


@dataclass(frozen=True)
class _Compound:
    tag: str
    ids: tuple[str, ...]
    classes: tuple[str, ...]
    attrs: tuple[tuple[str, str | None], ...]
    negations: tuple[_Compound, ...]
    focus: bool

    def matches(self, element: Element, focused: Element | None) -> bool:
        if self.tag and self.tag != "*" and element.tag != self.tag:
            return False
        if self.ids and element.attrs.get("id") not in self.ids:
            return False
        if self.classes and not element.classes.issuperset(self.classes):
            return False
        for name, value in self.attrs:
            if name not in element.attrs or (value is not None and element.attrs[name].lower() != value.lower()):
                return False
        if self.focus and element is not focused:
            return False
        return not any(negation.matches(element, focused) for negation in self.negations)


@dataclass(frozen=True)
class Selector:
    """A complex selector: compounds joined by ``" "`` (descendant) or ``">"`` (child), rightmost last."""

    parts: tuple[_Compound, ...]
    combinators: tuple[str, ...]
    specificity: tuple[int, int, int]

    def matches(self, element: Element, focused: Element | None = None) -> bool:
        """True if ``element`` matches."""
        if not self.parts[-1].matches(element, focused):
            return False
        return self._match_from(len(self.parts) - 2, element, focused)

    def _match_from(self, index: int, element: Element, focused: Element | None) -> bool:
        if index < 0:
            return True
        combinator = self.combinators[index]
        ancestor = element.parent
        while ancestor is not None and not isinstance(ancestor, Document):
            if self.parts[index].matches(ancestor, focused) and self._match_from(index - 1, ancestor, focused):
                return True
            if combinator == ">":
                return False
            ancestor = ancestor.parent
        return False


_TOKEN = re.compile(r"\s*([>+~])\s*|\s+|([^\s>+~]+)")
_SIMPLE = re.compile(r"(\*|[a-zA-Z][\w-]*)|#([\w-]+)|\.([\w-]+)|\[([\w-]+)(?:\s*=\s*(\"[^\"]*\"|'[^']*'|[^\]]*))?\]"
                     r"|:not\(([^)]*)\)|(::?[\w-]+(?:\([^)]*\))?)")


def _compound(text: str) -> _Compound | None:
    tag = ""
    ids: list[str] = []
    classes: list[str] = []
    attrs: list[tuple[str, str | None]] = []
    negations: list[_Compound] = []
    focus = False
    position = 0
    while position < len(text):
        match = _SIMPLE.match(text, position)
        if match is None or match.end() == position:
            return None
        position = match.end()
        if match.group(1):
            tag = match.group(1).lower()
        elif match.group(2):
            ids.append(match.group(2))
        elif match.group(3):
            classes.append(match.group(3))
        elif match.group(4):
            value = match.group(5)
            attrs.append((match.group(4).lower(), None if value is None else value.strip("\"'")))
        elif match.group(6) is not None:
            inner = _compound(match.group(6).strip())
            if inner is None:
                return None
            negations.append(inner)
        elif match.group(7):
            if match.group(7) == ":focus":
                focus = True
            else:
                return None  # a pseudo-element or a state the text mode does not track: matches nothing
    return _Compound(tag, tuple(ids), tuple(classes), tuple(attrs), tuple(negations), focus)


@lru_cache(maxsize=4096)
def parse_selector(text: str) -> Selector | None:
    """A complex selector, or None when it uses something not supported (then it matches nothing)."""
    parts: list[_Compound] = []
    combinators: list[str] = []
    pending = " "
    for match in _TOKEN.finditer(text.strip()):
        if match.group(2):
            compound = _compound(match.group(2))
            if compound is None:
                return None
            if parts:
                combinators.append(pending)
            parts.append(compound)
            pending = " "
        elif match.group(1):
            if match.group(1) != ">":
                return None
            pending = ">"
    if not parts:
        return None
    ids = sum(len(p.ids) + sum(len(n.ids) for n in p.negations) for p in parts)
    classes = sum(len(p.classes) + len(p.attrs) + p.focus + sum(len(n.classes) + len(n.attrs) for n in p.negations)
                  for p in parts)
    tags = sum(1 for p in parts if p.tag and p.tag != "*") + sum(1 for p in parts for n in p.negations if n.tag)
    return Selector(tuple(parts), tuple(combinators), (ids, classes, tags))


@dataclass(frozen=True)
class Rule:
    """One selector of a style rule with its declarations and its place in the cascade."""

    selector: Selector
    declarations: tuple[tuple[str, str], ...]
    order: int


def parse_declarations(text: str) -> tuple[tuple[str, str], ...]:
    """``name: value`` pairs of a declaration block (shorthands the text mode reads are expanded)."""
    out: list[tuple[str, str]] = []
    for part in text.split(";"):
        name, colon, value = part.partition(":")
        if not colon:
            continue
        name, value = name.strip().lower(), value.replace("!important", "").strip()
        if name == "list-style":
            words = value.split()
            kind = next((w for w in words if w not in ("inside", "outside") and not w.startswith("url(")), "")
            if kind:
                out.append(("list-style-type", kind))
            continue
        out.append((name, value))
    return tuple(out)


@lru_cache(maxsize=256)
def parse_stylesheet(text: str, start: int = 0) -> tuple[Rule, ...]:
    """The style rules of a stylesheet (at-rules skipped)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    rules: list[Rule] = []
    order = start
    position = 0
    while position < len(text):
        brace = text.find("{", position)
        if brace < 0:
            break
        prelude = text[position:brace].strip()
        if prelude.startswith("@"):
            depth, cursor = 1, brace + 1  # skip the whole at-rule block
            while cursor < len(text) and depth:
                depth += {"{": 1, "}": -1}.get(text[cursor], 0)
                cursor += 1
            position = cursor
            continue
        end = text.find("}", brace)
        if end < 0:
            break
        declarations = parse_declarations(text[brace + 1:end])
        for selector_text in prelude.split(","):
            selector = parse_selector(selector_text)
            if selector is not None:
                rules.append(Rule(selector, declarations, order))
                order += 1
        position = end + 1
    return tuple(rules)


_TOKENS = itertools.count()
#: Key of the computed style that says whether the element and its ancestors all have a box (not a CSS property).
RENDERED = " rendered"
#: Key present in a computed style when the element itself declares ``font-size`` (else it inherits the parent's
#: computed size).
FONT_SIZE_DECLARED = " font-size declared"
_INHERITED_ORDER = tuple(sorted(INHERITED))


class RuleIndex:
    """The rules of one set of stylesheets in cascade order, bucketed by what their rightmost compound requires (an
    id, a class, a tag, or nothing), with the candidate rules of each ``(tag, id, classes)`` once asked for.

    One index serves every page with the same stylesheets (:func:`rule_index`): a site's pages share them.
    """

    def __init__(self, sheets: tuple[str, ...]) -> None:
        rules = list(parse_stylesheet(_UA_RULES))
        for sheet in sheets:
            rules.extend(parse_stylesheet(sheet, 100_000 * (len(rules) // 100_000 + 1)))
        self.rules = sorted(rules, key=lambda rule: (rule.selector.specificity, rule.order))
        self._by_id: dict[str, list[tuple[int, Rule]]] = {}
        self._by_class: dict[str, list[tuple[int, Rule]]] = {}
        self._by_tag: dict[str, list[tuple[int, Rule]]] = {}
        self._any: list[tuple[int, Rule]] = []
        for rank, rule in enumerate(self.rules):
            last = rule.selector.parts[-1]
            if last.ids:
                self._by_id.setdefault(last.ids[0], []).append((rank, rule))
            elif last.classes:
                self._by_class.setdefault(last.classes[0], []).append((rank, rule))
            elif last.tag and last.tag != "*":
                self._by_tag.setdefault(last.tag, []).append((rank, rule))
            else:
                self._any.append((rank, rule))
        self._candidates: dict[tuple[str, str | None, frozenset[str]], tuple[Rule, ...]] = {}
        #: True when a rule depends on the focus (``:focus``).
        self.has_focus_rules = any(part.focus for rule in self.rules for part in rule.selector.parts)
        #: Computed styles shared by the elements that compute the same one (see :meth:`StyleResolver.style`), by
        #: ``(id(parent's computed style), tag, ids of the matched rules, style attribute)``, each with the parent's
        #: style it was computed from.
        self.shared: dict[tuple[int, str, tuple[int, ...], str | None], tuple[dict[str, str] | None,
                                                                            dict[str, str]]] = {}

    def candidates(self, element: Element) -> tuple[Rule, ...]:
        """The rules that may match ``element`` (those its tag, id and classes select), in cascade order."""
        element_id = element.attrs.get("id")
        classes = element.classes
        key = (element.tag, element_id, classes)
        found = self._candidates.get(key)
        if found is None:
            ranked = list(self._by_tag.get(element.tag, ())) + self._any
            if element_id is not None:
                ranked += self._by_id.get(element_id, ())
            for name in classes:
                ranked += self._by_class.get(name, ())
            ranked.sort(key=lambda item: item[0])
            if len(self._candidates) >= 16384:
                self._candidates.clear()
            found = self._candidates[key] = tuple(rule for _, rule in ranked)
        return found


@lru_cache(maxsize=64)
def rule_index(sheets: tuple[str, ...]) -> RuleIndex:
    """The :class:`RuleIndex` of a document's stylesheets (one per distinct set)."""
    return RuleIndex(sheets)


class StyleResolver:
    """Computed style of a document's elements, kept on each element until :meth:`invalidate` (all) or
    :meth:`invalidate_subtree`.  Each element only tries the rules its tag, id and classes may select
    (:class:`RuleIndex`), in cascade order.
    """

    def __init__(self, document: Document, index: RuleIndex | None = None) -> None:
        """``index``: the rules of ``document``'s stylesheets when known (another document's with the same sheets);
        by default read from its ``<style>`` elements."""
        self.document = document
        self.index = index if index is not None else rule_index(tuple(document.stylesheets()))
        self.rules = self.index.rules
        self.focused: Element | None = None
        #: True when a rule depends on the focus (``:focus``): styles are computed again when it moves.
        self.has_focus_rules = self.index.has_focus_rules
        self.token = next(_TOKENS)

    def invalidate(self) -> None:
        """Forget computed styles (after the document or the focus changed)."""
        self.token = next(_TOKENS)

    def invalidate_subtree(self, element: Element) -> None:
        """Forget the computed styles of ``element`` and its descendants (after its attributes or children
        changed)."""
        for node in element.iter():
            node.style_token = -1

    def style(self, element: Element) -> dict[str, str]:
        """The element's computed properties (only those the text mode reads; see :data:`INHERITED`).

        The result is shared, and must not be changed: elements whose parents share a computed style and that
        have the same tag, match the same rules and have the same ``style`` attribute share one (a page's list
        items, cards and links mostly do, and so do those of the other pages of the site)."""
        if element.style_token == self.token:
            return element.style_cache  # type: ignore[return-value]
        parent = element.parent
        parent_style = self.style(parent) if parent is not None and not isinstance(parent, Document) else None
        focused = self.focused
        matched = [rule for rule in self.index.candidates(element) if rule.selector.matches(element, focused)]
        inline = element.attrs.get("style")
        key = (id(parent_style), element.tag, tuple(map(id, matched)), inline)
        shared = self.index.shared
        found = shared.get(key)
        if found is not None and found[0] is parent_style:
            computed = found[1]
        else:
            computed = self._compute(element, parent_style, matched, inline)
            if len(shared) >= 32768:
                shared.clear()
            shared[key] = (parent_style, computed)
        element.style_cache = computed
        element.style_token = self.token
        return computed

    def _compute(self, element: Element, parent_style: dict[str, str] | None, matched: list[Rule],
                 inline: str | None) -> dict[str, str]:
        declared: dict[str, str] = {}
        for rule in matched:
            declared.update(rule.declarations)
        if inline:
            declared.update(parse_declarations(inline))
        if parent_style is None:
            computed = dict(INITIAL)
            parent_rendered = True
        else:
            computed = {key: parent_style[key] for key in _INHERITED_ORDER}
            parent_rendered = parent_style[RENDERED] == "1"
        computed["display"] = UA_DISPLAY.get(element.tag, "inline")
        if "font-size" in declared:
            computed[FONT_SIZE_DECLARED] = "1"
        for key, value in declared.items():
            if value == "inherit":
                computed[key] = (parent_style or INITIAL).get(key, INITIAL.get(key, ""))
            elif value == "initial":
                computed[key] = INITIAL.get(key, "")
            else:
                computed[key] = value
        computed[RENDERED] = "1" if parent_rendered and computed["display"] != "none" else ""
        return computed

    def display(self, element: Element) -> str:
        """The element's ``display``."""
        if element.style_token == self.token:
            return element.style_cache["display"]  # type: ignore[index]
        return self.style(element)["display"]

    def rendered(self, element: Element) -> bool:
        """False when the element or an ancestor has ``display: none`` (``checkVisibility()`` for boxes)."""
        if element.style_token == self.token:
            return element.style_cache[RENDERED] == "1"  # type: ignore[index]
        return self.style(element)[RENDERED] == "1"
