"""A small mutable DOM for the project's own pages, built the way an HTML parser builds it.

The text mode (:mod:`personal_envs.textmode`) reads pages the project renders itself, so the parser only needs the
tree-building rules those templates meet: void elements, a ``<p>`` closed by a block that starts inside it (and an
empty ``<p>`` made by a stray ``</p>``, as WebMall's café layout shows around its search form), list items and
options closed by their next sibling, table rows given a ``<tbody>``.  Elements keep their form state (``value``,
``checked``, ``selected``, ``disabled``) apart from their attributes, as a browser does after the user types.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable, Iterator
from html import escape, unescape
from html.parser import HTMLParser

#: Elements that never have children.
VOID_TAGS = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
                       "track", "wbr"})
#: Start tags that close an open ``<p>`` (HTML's "close a p element in button scope").
P_CLOSERS = frozenset({"address", "article", "aside", "blockquote", "details", "dialog", "div", "dl", "fieldset",
                       "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
                       "hgroup", "hr", "main", "menu", "nav", "ol", "p", "pre", "search", "section", "table", "ul",
                       "li", "dd", "dt"})
#: Elements whose content is raw text.
RAW_TEXT_TAGS = frozenset({"script", "style", "textarea", "title"})


class Node:
    """A node of the tree: an :class:`Element` or a :class:`Text`."""

    __slots__ = ("parent",)

    def __init__(self) -> None:
        self.parent: Element | None = None

    @property
    def owner(self) -> Document | None:
        """The document the node is in (None while detached)."""
        node: Node | None = self
        while node is not None and not isinstance(node, Document):
            node = node.parent
        return node

    def _note(self, *, layout: bool, style: bool, undo: Callable[[], None] | None = None) -> None:
        """Tell the document that this node changed (see :meth:`Document.take_changes`); ``undo`` puts the change
        back (see :meth:`Document.revert`)."""
        document = self.owner
        if document is not None and document.tracking:
            document.note(self, layout=layout, style=style, undo=undo)

    @property
    def next_sibling(self) -> Node | None:
        """The node after this one under the same parent."""
        parent = self.parent
        if parent is None:
            return None
        siblings = parent.children
        index = _index_of(siblings, self)
        return siblings[index + 1] if index + 1 < len(siblings) else None

    @property
    def previous_sibling(self) -> Node | None:
        """The node before this one under the same parent."""
        parent = self.parent
        if parent is None:
            return None
        siblings = parent.children
        index = _index_of(siblings, self)
        return siblings[index - 1] if index > 0 else None


#: One frozen set per ``class`` attribute value: the pages of a site repeat a few hundred values, and each set is an
#: object the garbage collector tracks for as long as its page is kept.
_CLASS_SETS: dict[str, frozenset[str]] = {}


def class_set(attribute: str) -> frozenset[str]:
    """The class names of a ``class`` attribute value, as one shared frozen set per value."""
    names = _CLASS_SETS.get(attribute)
    if names is None:
        if len(_CLASS_SETS) >= 8192:
            _CLASS_SETS.clear()
        names = _CLASS_SETS[attribute] = frozenset(attribute.split())
    return names


def _index_of(siblings: list[Node], node: Node) -> int:
    for index, sibling in enumerate(siblings):
        if sibling is node:
            return index
    return -1


class Text(Node):
    """A text run (changing :attr:`data` is noted by the document)."""

    __slots__ = ("_data",)

    def __init__(self, data: str) -> None:
        super().__init__()
        self._data = data

    @property
    def data(self) -> str:
        """The text."""
        return self._data

    @data.setter
    def data(self, text: str) -> None:
        if text != self._data:
            old = self._data
            self._data = text

            def undo() -> None:
                self.data = old

            self._note(layout=True, style=False, undo=undo)


class Element(Node):
    """An element with its attributes, children and form state.

    Attributes:
        tag: Lower-case tag name.
        attrs: Attributes as written.
        children: Child nodes in order.
        value: The current value of an ``input`` / ``textarea`` (the ``value`` attribute or the text at first).
        checked: The state of a checkbox or radio.
        selected: Whether an ``option`` is selected.
        bid: The element id stamped for agents ("" until :func:`stamp_bids`).
    """

    __slots__ = ("tag", "attrs", "children", "_value", "_checked", "_selected", "bid", "_classes", "style_cache",
                 "style_token")

    def __init__(self, tag: str, attrs: dict[str, str] | None = None) -> None:
        super().__init__()
        self.tag = tag
        self.attrs: dict[str, str] = attrs or {}
        self.children: list[Node] = []
        self._value = self.attrs.get("value", "") if tag == "input" else ""
        self._checked = "checked" in self.attrs
        self._selected = "selected" in self.attrs
        self.bid = ""
        self._classes: frozenset[str] | None = None
        #: The computed style a :class:`~personal_envs.textmode.css.StyleResolver` keeps here, valid while
        #: ``style_token`` equals the resolver's token.
        self.style_cache: dict[str, str] | None = None
        self.style_token = -1

    # ------------------------------------------------------------------------------------------ form state
    @property
    def value(self) -> str:
        """The current value of an ``input`` / ``textarea`` (the ``value`` attribute or the text at first)."""
        return self._value

    @value.setter
    def value(self, value: str) -> None:
        if value != self._value:
            self._value = value
            self._note(layout=False, style=False)

    @property
    def checked(self) -> bool:
        """The state of a checkbox or radio."""
        return self._checked

    @checked.setter
    def checked(self, value: bool) -> None:
        if value != self._checked:
            self._checked = value
            self._note(layout=False, style=False)

    @property
    def selected(self) -> bool:
        """Whether an ``option`` is selected."""
        return self._selected

    @selected.setter
    def selected(self, value: bool) -> None:
        if value != self._selected:
            self._selected = value
            self._note(layout=False, style=False)

    # -------------------------------------------------------------------------------------------- structure
    def append(self, node: Node) -> None:
        """Add ``node`` as the last child."""
        self._insert(len(self.children), node)

    def insert_after(self, node: Node, reference: Node) -> None:
        """Insert ``node`` right after the child ``reference``."""
        self._insert(_index_of(self.children, reference) + 1, node)

    def _insert(self, index: int, node: Node) -> None:
        node.parent = self
        self.children.insert(index, node)
        self._note(layout=True, style=True, undo=lambda: self.remove(node))

    def remove(self, node: Node) -> None:
        """Take the child ``node`` out."""
        index = _index_of(self.children, node)
        if index < 0:
            return
        del self.children[index]
        node.parent = None
        self._note(layout=True, style=True, undo=lambda: self._insert(index, node))

    def set_text(self, text: str) -> None:
        """Replace the children by one text run (``textContent = text``)."""
        only = self.children[0] if len(self.children) == 1 else None
        if isinstance(only, Text) and text:
            only.data = text
            return
        old = self.children
        self.children = []
        if text:
            self.children.append(Text(text))
            self.children[0].parent = self

        def undo() -> None:
            self.children = old
            for child in old:
                child.parent = self
            self._note(layout=True, style=True)

        self._note(layout=True, style=True, undo=undo)

    @property
    def classes(self) -> frozenset[str]:
        """The class names."""
        if self._classes is None:
            self._classes = class_set(self.attrs.get("class", ""))
        return self._classes

    def set_attr(self, name: str, value: str) -> None:
        """Set an attribute (``class`` changes are seen by :attr:`classes`)."""
        old = self.attrs.get(name)
        self.attrs[name] = value
        if name == "class":
            self._classes = None
        self._note(layout=True, style=True,
                   undo=(lambda: self.remove_attr(name)) if old is None else (lambda: self.set_attr(name, old)))

    def remove_attr(self, name: str) -> None:
        """Remove an attribute (if present)."""
        if name in self.attrs:
            old = self.attrs.pop(name)
            if name == "class":
                self._classes = None
            self._note(layout=True, style=True, undo=lambda: self.set_attr(name, old))

    def add_class(self, name: str) -> None:
        """Add a class name."""
        if name not in self.classes:
            self.set_attr("class", (self.attrs.get("class", "") + " " + name).strip())

    def remove_class(self, name: str) -> None:
        """Remove a class name."""
        if name in self.classes:
            self.set_attr("class", " ".join(c for c in self.attrs.get("class", "").split() if c != name))

    @property
    def element_children(self) -> list[Element]:
        """The child elements."""
        return [child for child in self.children if isinstance(child, Element)]

    def iter(self) -> Iterator[Element]:
        """This element and every descendant element, in document order."""
        stack: list[Element] = [self]
        pop, extend = stack.pop, stack.extend
        while stack:
            element = pop()
            yield element
            children = element.children
            if children:
                extend([c for c in reversed(children) if c.__class__ is not Text])  # type: ignore[misc]

    def find_all(self, predicate: Callable[[Element], bool]) -> list[Element]:
        """Descendant elements (this one included) that satisfy ``predicate``."""
        return [element for element in self.iter() if predicate(element)]

    def find(self, predicate: Callable[[Element], bool]) -> Element | None:
        """The first element (this one included) that satisfies ``predicate``."""
        return next((element for element in self.iter() if predicate(element)), None)

    def closest(self, predicate: Callable[[Element], bool]) -> Element | None:
        """This element or its nearest ancestor that satisfies ``predicate``."""
        node: Element | None = self
        while node is not None:
            if predicate(node):
                return node
            node = node.parent
        return None

    def contains(self, other: Node) -> bool:
        """True if ``other`` is this element or lies inside it."""
        node: Node | None = other
        while node is not None:
            if node is self:
                return True
            node = node.parent
        return False

    def text_runs(self) -> list[Text]:
        """The text runs below the element, in document order."""
        runs: list[Text] = []
        stack: list[Node] = [self]
        while stack:
            node = stack.pop()
            if isinstance(node, Text):
                runs.append(node)
            elif isinstance(node, Element):
                stack.extend(reversed(node.children))
        return runs

    @property
    def text_content(self) -> str:
        """All text below the element."""
        return "".join([run._data for run in self.text_runs()])

    # ------------------------------------------------------------------------------------------ form state
    @property
    def disabled(self) -> bool:
        """``:disabled``: a disabled control, or a control inside a disabled fieldset (not in its legend)."""
        if self.tag not in ("button", "input", "select", "textarea", "option", "optgroup", "fieldset"):
            return False
        if "disabled" in self.attrs:
            return True
        if self.tag == "option":
            group = self.parent
            return group is not None and group.tag == "optgroup" and "disabled" in group.attrs
        node = self.parent
        while node is not None:
            if node.tag == "fieldset" and "disabled" in node.attrs:
                return True
            node = node.parent
        return False

    @property
    def input_type(self) -> str:
        """The lower-case ``type`` attribute ("" when absent)."""
        return self.attrs.get("type", "").lower()

    @property
    def options(self) -> list[Element]:
        """The ``option`` elements of a ``select``."""
        return [element for element in self.iter() if element.tag == "option"]

    def option_value(self) -> str:
        """An option's value (its ``value`` attribute, else its text)."""
        return self.attrs["value"] if "value" in self.attrs else " ".join(self.text_content.split())

    def option_label(self) -> str:
        """An option's label (its ``label`` attribute, else its text)."""
        return self.attrs.get("label") or " ".join(self.text_content.split())

    def selected_option(self) -> Element | None:
        """A single ``select``'s chosen option (the last selected one, else the first option)."""
        options = self.options
        chosen = [option for option in options if option.selected]
        if chosen:
            return chosen[-1]
        return next((option for option in options if not option.disabled), options[0] if options else None)

    @property
    def form(self) -> Element | None:
        """The form the control belongs to (its nearest ``form`` ancestor)."""
        node = self.parent
        while node is not None and node.tag != "form":
            node = node.parent
        return node


class Document(Element):
    """The document node: ``children`` holds the ``<html>`` element.

    Once :attr:`tracking` is on (after parsing), every change made through the node API (form state, text,
    attributes set with :meth:`Element.set_attr`, children added with :meth:`Element.append`, ...) is noted, so the
    text mode computes again only what a change can reach (:meth:`take_changes`).  Code that edits ``attrs`` or
    ``children`` directly must call :meth:`changed_everything` (or the page's ``mutated()``).
    """

    def __init__(self) -> None:
        super().__init__("#document")
        self.tracking = False
        #: Nodes changed since :meth:`take_changes` (their own AX lines, and their ancestors', may differ).
        self.changed_nodes: set[Node] = set()
        #: Elements whose subtree's styles may differ (attributes or children changed).
        self.restyled: set[Element] = set()
        #: True when a change may move boxes (text, attributes, children).
        self.layout_stale = False
        #: True when a change was made that the document could not follow: everything is computed again.
        self.everything_changed = False
        #: Counts changes of structure or attributes (caches of ids, labels and tables follow it).
        self.generation = 0
        #: How to put back each change of text, attributes and children since parsing (or the last revert).
        self.undo_log: list[Callable[[], None]] = []
        self._reverting = False
        self._by_id: dict[str, Element] | None = None
        self._by_bid: dict[str, Element] | None = None
        self._index_generation = -1
        self._order: list[Element] | None = None
        self._order_generation = -1
        #: The :attr:`generation` at which :func:`stamp_bids` last gave every element a bid.
        self.stamped_generation = -1
        #: The markup offset of the text token that started each text run, in the order the runs were made (that
        #: is document order), kept until :func:`markup_text_changes` first reads it; None when
        #: :class:`HTMLParser` built the tree. An array: the garbage collector has nothing to scan in it.
        self.text_spans: array[int] | None = None
        #: The same runs by the index of their piece of the markup cut at its tags (see :func:`markup_text_changes`).
        self.text_pieces: dict[int, Text] | None = None

    # ------------------------------------------------------------------------------------------ changes
    def note(self, node: Node, *, layout: bool, style: bool, undo: Callable[[], None] | None = None) -> None:
        """Record that ``node`` changed (called by the node API); ``undo`` puts the change back."""
        self.changed_nodes.add(node)
        if undo is not None and not self._reverting:
            self.undo_log.append(undo)
        if layout:
            self.layout_stale = True
        if style and isinstance(node, Element):
            self.restyled.add(node)
            self.generation += 1

    def changed_everything(self) -> None:
        """Record a change the document could not follow (direct edits of ``attrs`` or ``children``): it can no
        longer be put back (:attr:`revertible` is False)."""
        self.everything_changed = True
        self.layout_stale = True
        self.generation += 1
        self.revertible = False

    #: False once a change was made that :meth:`revert` cannot put back.
    revertible = True

    @property
    def modified(self) -> bool:
        """True when text, attributes or children changed since parsing (or the last :meth:`revert`)."""
        return bool(self.undo_log) or not self.revertible

    def revert(self) -> bool:
        """Put back every change of text, attributes and children since parsing (noted as changes, so what was
        computed follows); False when that is not possible (:meth:`changed_everything` was called)."""
        if not self.revertible:
            return False
        self._reverting = True
        try:
            while self.undo_log:
                self.undo_log.pop()()
        finally:
            self._reverting = False
        return True

    def take_changes(self) -> tuple[set[Node], set[Element], bool, bool]:
        """``(changed nodes, restyled elements, layout stale, everything changed)`` since the last call, cleared."""
        taken = (self.changed_nodes, self.restyled, self.layout_stale, self.everything_changed)
        self.changed_nodes, self.restyled, self.layout_stale, self.everything_changed = set(), set(), False, False
        return taken

    def iter(self) -> Iterator[Element]:
        """The document and every element, in document order; once :attr:`tracking` is on, the order is kept while
        the structure is the same (:attr:`generation`), so the many walks over a whole page cost a list each."""
        if not self.tracking:
            return super().iter()
        if self._order is None or self._order_generation != self.generation:
            self._order = list(super().iter())
            self._order_generation = self.generation
        return iter(self._order)

    def _index(self) -> None:
        if self._index_generation != self.generation or self._by_id is None or self._by_bid is None:
            by_id: dict[str, Element] = {}
            by_bid: dict[str, Element] = {}
            for element in self.iter():
                element_id = element.attrs.get("id")
                if element_id is not None and element_id not in by_id:
                    by_id[element_id] = element
                if element.bid and element.bid not in by_bid:
                    by_bid[element.bid] = element
            self._by_id, self._by_bid, self._index_generation = by_id, by_bid, self.generation

    @property
    def html(self) -> Element | None:
        """The root element."""
        return next((c for c in self.children if isinstance(c, Element)), None)

    @property
    def body(self) -> Element | None:
        """The ``<body>`` element."""
        root = self.html
        return None if root is None else next((c for c in root.element_children if c.tag == "body"), None)

    @property
    def head(self) -> Element | None:
        """The ``<head>`` element."""
        root = self.html
        return None if root is None else next((c for c in root.element_children if c.tag == "head"), None)

    @property
    def title(self) -> str:
        """The document title (whitespace collapsed)."""
        element = self.find(lambda e: e.tag == "title")
        return " ".join(element.text_content.split()) if element is not None else ""

    def get_element_by_id(self, element_id: str) -> Element | None:
        """The first element with that ``id``."""
        if not self.tracking:
            return self.find(lambda e: e.attrs.get("id") == element_id)
        self._index()
        assert self._by_id is not None
        return self._by_id.get(element_id)

    def by_bid(self, bid: str) -> Element | None:
        """The element stamped with ``bid``."""
        if not self.tracking:
            return self.find(lambda e: e.bid == bid)
        self._index()
        assert self._by_bid is not None
        return self._by_bid.get(bid)

    def stylesheets(self) -> list[str]:
        """The text of every ``<style>`` element."""
        return [e.text_content for e in self.iter() if e.tag == "style"]


def _attach(parent: Element, node: Node) -> None:
    """``parent.append(node)`` while the tree is built (nothing to note yet)."""
    node.parent = parent
    parent.children.append(node)


class _Builder(HTMLParser):
    """Tree construction for the project's templates (see the module docstring for the rules it follows)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.document = Document()
        self.stack: list[Element] = [self.document]

    # ------------------------------------------------------------------------------------------ helpers
    def _ensure_html(self) -> None:
        if len(self.stack) == 1:
            html = Element("html")
            _attach(self.document, html)
            self.stack.append(html)

    def _in_scope(self, tag: str, barriers: frozenset[str] = frozenset({"button", "table", "td", "th", "html"})
                  ) -> int:
        for depth in range(len(self.stack) - 1, 0, -1):
            name = self.stack[depth].tag
            if name == tag:
                return depth
            if name in barriers:
                return -1
        return -1

    def _close(self, tag: str) -> bool:
        depth = self._in_scope(tag)
        if depth < 0:
            return False
        del self.stack[depth:]
        return True

    def _add(self, element: Element) -> None:
        _attach(self.stack[-1], element)
        if element.tag not in VOID_TAGS:
            self.stack.append(element)

    # ------------------------------------------------------------------------------------------ events
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values: dict[str, str] = dict(attrs)  # type: ignore[arg-type]
        if None in values.values():  # a bare name from HTMLParser: "" (our tokenizer gives "" already)
            values = {key: value or "" for key, value in attrs}
        if tag == "html":
            if len(self.stack) == 1:
                element = Element("html", values)
                _attach(self.document, element)
                self.stack.append(element)
            return
        self._ensure_html()
        if tag in P_CLOSERS:
            self._close("p")
        if tag == "li":
            depth = self._in_scope("li", frozenset({"ul", "ol", "menu", "html"}))
            if depth > 0:
                del self.stack[depth:]
        elif tag in ("dd", "dt"):
            for other in ("dd", "dt"):
                depth = self._in_scope(other, frozenset({"dl", "html"}))
                if depth > 0:
                    del self.stack[depth:]
        elif tag in ("option", "optgroup") and self.stack[-1].tag == "option":
            self.stack.pop()
        elif tag == "tr" and self.stack[-1].tag == "table":
            self._add(Element("tbody"))
        elif tag in ("td", "th"):
            for other in ("td", "th"):
                depth = self._in_scope(other, frozenset({"tr", "table", "html"}))
                if depth > 0:
                    del self.stack[depth:]
        self._add(Element(tag, values))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID_TAGS and self.stack[-1].tag == tag:
            self.stack.pop()

    def handle_endtag(self, tag: str) -> None:
        if tag == "p" and self._in_scope("p") < 0:
            self._ensure_html()
            _attach(self.stack[-1], Element("p"))  # a stray </p> makes an empty paragraph
            return
        if tag in ("html", "body"):
            return
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.add_text(data)

    def add_text(self, data: str) -> Text | None:
        """Add text where the parser is; the run it starts, or None when it joined the run before or was dropped."""
        if not data:
            return None
        parent = self.stack[-1]
        if parent is self.document:
            if not data.strip():
                return None
            self._ensure_html()
            parent = self.stack[-1]
        if parent.tag == "textarea" and not parent.children and data.startswith("\n"):
            data = data[1:]  # a newline right after <textarea> is dropped
        last = parent.children[-1] if parent.children else None
        if isinstance(last, Text):
            last._data += data
            return None
        run = Text(data)
        _attach(parent, run)
        return run


#: One token of well-formed markup: a start tag (name, attributes, "/" when self-closing), an end tag, a comment, a
#: doctype, or a run of text.  Anything else (a stray "<", a processing instruction, an unquoted attribute value
#: with a quote or "<" in it) matches nothing and sends the document to :class:`HTMLParser`.
_TOKEN = re.compile(
    r"<([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s\"'>/=]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s\"'=<>`]+))?)*)\s*(/?)>"
    r"|</([a-zA-Z][a-zA-Z0-9-]*)\s*>|<!--.*?-->|<![dD][oO][cC][tT][yY][pP][eE][^<>]*>|([^<]+)", re.S)
_ATTRIBUTE = re.compile(r"([^\s\"'>/=]+)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s\"'=<>`]+)))?")
#: Elements whose content :class:`HTMLParser` passes on raw, up to their end tag.
_CDATA_TAGS = ("script", "style")


def _feed_tokens(builder: _Builder, markup: str) -> bool:
    """Feed ``markup`` to ``builder`` as :class:`HTMLParser` would (the same calls, with the same lower-cased
    names and unescaped values) with one regular-expression pass; False at the first construct it does not read,
    and the builder must then be discarded."""
    position, end = 0, len(markup)
    match_token, find_attributes, add_text = _TOKEN.match, _ATTRIBUTE.findall, builder.add_text
    spans = builder.document.text_spans = array("q")
    note_span = spans.append
    while position < end:
        token = match_token(markup, position)
        if token is None:
            return False
        start, position = position, token.end()
        name, raw_attrs, closing_slash, end_name, text = token.groups()
        if text is not None:
            if add_text(unescape(text) if "&" in text else text) is not None:
                note_span(start)
        elif name is not None:
            tag = name.lower()
            attrs: list[tuple[str, str | None]] = []
            if raw_attrs:  # a bare name gets "" where HTMLParser gives None: the builder reads both as ""
                for attr_name, double, single, bare in find_attributes(raw_attrs):
                    value = double or single or bare
                    attrs.append((attr_name.lower(), unescape(value) if "&" in value else value))
            if closing_slash:
                builder.handle_startendtag(tag, attrs)
                continue
            builder.handle_starttag(tag, attrs)
            if tag in _CDATA_TAGS:
                closing = re.compile(rf"</\s*{tag}\s*>", re.I).search(markup, position)
                if closing is None:
                    return False
                if closing.start() > position and add_text(markup[position:closing.start()]) is not None:
                    note_span(position)
                builder.handle_endtag(tag)
                position = closing.end()
        elif end_name is not None:
            builder.handle_endtag(end_name.lower())
    return True


def _complete(document: Document) -> None:
    """Give the document the ``<head>`` and ``<body>`` a parser always makes, and textareas their value."""
    html = document.html
    if html is None:
        html = Element("html")
        _attach(document, html)
    head = next((c for c in html.element_children if c.tag == "head"), None)
    body = next((c for c in html.element_children if c.tag == "body"), None)
    if body is None:
        body = Element("body")
        movable = [c for c in html.children if c is not head]
        html.children = [c for c in html.children if c is head]
        for child in movable:
            _attach(body, child)
        _attach(html, body)
    if head is None:
        head = Element("head")
        head.parent = html
        html.children.insert(0, head)
    for element in document.iter():
        if element.tag == "textarea":
            element.value = element.text_content


def parse_html(markup: str) -> Document:
    """The document tree of ``markup``."""
    builder = _Builder()
    if not _feed_tokens(builder, markup):
        builder = _Builder()
        builder.feed(markup)
    builder.close()
    _complete(builder.document)
    builder.document.tracking = True
    return builder.document


#: Elements whose text, when it changes, changes more than the text's own line (the cascade, a form's value).
_TEXT_SENSITIVE = frozenset({"style", "textarea", "title", "script"})


def text_changes(old: Document, new: Document) -> list[tuple[Text, str]] | None:
    """The text runs of ``old`` that differ in ``new`` (``(run, new text)``), when the two documents have the same
    elements, attributes and runs; None when anything but text differs (or the text of a ``<style>``,
    ``<textarea>``, ``<title>`` or ``<script>``)."""
    changes: list[tuple[Text, str]] = []
    stack: list[tuple[Element, Element]] = [(old, new)]
    while stack:
        left, right = stack.pop()
        left_children, right_children = left.children, right.children
        if len(left_children) != len(right_children):
            return None
        for a, b in zip(left_children, right_children, strict=True):
            if isinstance(a, Text):
                if not isinstance(b, Text):
                    return None
                if a._data != b._data:
                    if left.tag in _TEXT_SENSITIVE:
                        return None
                    changes.append((a, b._data))
            elif not isinstance(a, Element) or not isinstance(b, Element) or a.tag != b.tag or a.attrs != b.attrs:
                return None
            else:
                stack.append((a, b))
    return changes


#: Cuts markup at its tags: text pieces at even indices, tag-like pieces (``<`` to the next ``>``) at odd ones.
_PIECES = re.compile(r"(<[^>]*>)")


def markup_text_changes(document: Document, old_markup: str, new_markup: str) -> list[tuple[Text, str]] | None:
    """What :func:`text_changes` finds for ``new_markup``, without parsing it: the runs of ``document`` (the tree
    of ``old_markup``: parsed from it, or from an earlier markup that differed from it in such runs only) to give
    new text, when the two markups differ only inside text pieces that each made one run of the tree; None when
    this cannot tell (then parse ``new_markup`` and compare the trees).

    Both markups are cut at their tags (:data:`_PIECES`); the tag pieces must be equal one for one, and each text
    piece that differs must be one the tokenizer read as a whole run (its offset is in
    :attr:`Document.text_spans`, and the run holds exactly the piece's text now), outside ``<style>``,
    ``<textarea>``, ``<title>`` and ``<script>``, with new text that is not empty and has no ``<``. Such a piece
    is read as the same one token in the new markup, and nothing else is read differently: the new tree is the
    old one with these runs' text."""
    if old_markup.count("<") != new_markup.count("<") or old_markup.count(">") != new_markup.count(">"):
        return None  # a different tag, or a "<" in the new text: no need to cut the markups
    old_pieces, new_pieces = _PIECES.split(old_markup), _PIECES.split(new_markup)
    if len(old_pieces) != len(new_pieces) or old_pieces[1::2] != new_pieces[1::2]:
        return None
    pieces = document.text_pieces
    if pieces is None:
        spans = document.text_spans
        if spans is None:
            return None
        runs = document.text_runs()
        if len(runs) != len(spans):
            return None
        run_at = dict(zip(spans, runs, strict=True))
        pieces, offset = {}, 0
        for index, piece in enumerate(old_pieces):
            run = run_at.get(offset) if not index % 2 else None
            if run is not None:
                pieces[index] = run
            offset += len(piece)
        document.text_pieces, document.text_spans = pieces, None
    changes: list[tuple[Text, str]] = []
    for index in range(0, len(old_pieces), 2):
        old_piece, new_piece = old_pieces[index], new_pieces[index]
        if old_piece == new_piece:
            continue
        run = pieces.get(index)
        if run is None or not new_piece.strip() or "<" in new_piece or run.parent is None or \
                run.parent.tag in _TEXT_SENSITIVE or run.parent is document:
            return None
        if run._data != (unescape(old_piece) if "&" in old_piece else old_piece):
            return None  # the run is not this one piece (it took in more text) or it changed since
        text = unescape(new_piece) if "&" in new_piece else new_piece
        if text != run._data:
            changes.append((run, text))
    return changes


def stamp_bids(document: Document, next_bid: int = 1) -> int:
    """Give every element without a bid the next free number, in document order (as the browser mode's stamping
    script does); returns the next number to use."""
    if document.tracking and document.stamped_generation == document.generation:
        return next_bid  # no element was added since every element had a bid
    fresh = [element for element in document.iter() if not element.bid and element is not document]
    document.stamped_generation = document.generation
    if not fresh:
        return next_bid
    used = {element.bid for element in document.iter() if element.bid}
    for element in fresh:
        while str(next_bid) in used:
            next_bid += 1
        element.bid = str(next_bid)
        used.add(element.bid)
        next_bid += 1
    document._by_bid = None
    return next_bid


def serialize(node: Node) -> str:
    """HTML of a node as the browser's ``outerHTML`` writes it (form state not included)."""
    if isinstance(node, Text):
        parent = node.parent
        if parent is not None and parent.tag in ("script", "style"):
            return node.data
        return escape(node.data, quote=False)
    assert isinstance(node, Element)
    if isinstance(node, Document):
        return "<!DOCTYPE html>" + "".join(serialize(child) for child in node.children)
    attrs = "".join(f' {key}="{escape(value, quote=True)}"' if value else f" {key}=\"\""
                    for key, value in node.attrs.items())
    if node.tag in VOID_TAGS:
        return f"<{node.tag}{attrs}>"
    return f"<{node.tag}{attrs}>{''.join(serialize(child) for child in node.children)}</{node.tag}>"
