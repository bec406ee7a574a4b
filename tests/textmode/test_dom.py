"""The text mode's HTML parser: the one-pass tokenizer builds the same tree as :class:`html.parser.HTMLParser`."""

from __future__ import annotations

from collections.abc import Iterator

import gymnasium as gym
import numpy as np
import pytest

import personal_envs  # noqa: F401
from personal_envs.textmode import dom
from personal_envs.textmode.parity import random_web_action


def _by_html_parser(markup: str) -> dom.Document:
    builder = dom._Builder()
    builder.feed(markup)
    builder.close()
    dom._complete(builder.document)
    return builder.document


def _nodes(node: dom.Node) -> Iterator[tuple[object, ...]]:
    if isinstance(node, dom.Text):
        yield ("text", node.data)
        return
    assert isinstance(node, dom.Element)
    yield ("element", node.tag, tuple(node.attrs.items()), node.value, len(node.children))
    for child in node.children:
        yield from _nodes(child)


def _same_tree(markup: str) -> bool:
    return list(_nodes(dom.parse_html(markup))) == list(_nodes(_by_html_parser(markup)))


EDGE_CASES = [
    '<!DOCTYPE html><html><head><title>A &amp; B</title><style>a > b { color: red }</style></head>'
    '<body><p>one<div>two</div></p></body></html>',
    '<DIV Class="x" data-A=\'1\' hidden>Tom &lt;&amp;&gt; Jerry &#169; &copy</DIV><br/><img src=a.png alt="a &quot;b&quot;">',
    '<ul><li>a<li>b</ul><dl><dt>t<dd>d</dl><select><option>1<option selected>2</select>',
    '<table><tr><td>1<td>2</tr></table></p><!-- a comment --><textarea name="t">\nline &amp; more</textarea>',
    '<script>if (a < b && c > d) { x = "</div>"; }</script><span title="a=b" data-x = "y">z</span>',
    '<a href="/x?a=1&amp;b=2" class="one" class="two">dup</a><input type=text value=plain disabled>',
    '<div>a < b</div>',  # a stray "<": the tokenizer gives up and HTMLParser builds the tree
    '<?xml version="1.0"?><div>processing instruction</div>',
    '<div>unclosed <span>at the end',
]


@pytest.mark.parametrize("markup", EDGE_CASES)
def test_the_tokenizer_builds_html_parsers_tree(markup: str) -> None:
    assert _same_tree(markup)


def test_the_tokenizer_reads_well_formed_markup_and_gives_up_on_the_rest() -> None:
    assert all(dom._feed_tokens(dom._Builder(), markup) for markup in EDGE_CASES[:6])
    assert not any(dom._feed_tokens(dom._Builder(), markup) for markup in EDGE_CASES[6:8])


def _walk_markups(seed: int, steps: int) -> set[str]:
    """The markup of every shop page a seeded random WebMall text walk kept in its page cache."""
    env = gym.make("WebMall-v0", render="text", data_dir="shipped")
    try:
        obs, _ = env.reset(seed=seed)
        origins = list(env.unwrapped.origins.values())[:4]
        rng = np.random.default_rng(seed)
        markups: set[str] = set()
        for _ in range(steps):
            obs, _, terminated, truncated, _ = env.step(random_web_action(obs["axtree"], origins, rng))
            markups.update(key[2] for key in env.unwrapped.world.session._rendered)
            if terminated or truncated:
                obs, _ = env.reset()
        return markups
    finally:
        env.close()


def test_every_page_of_a_webmall_walk_parses_as_html_parser_parses_it() -> None:
    """The shops' pages met by 300 random text-mode steps (listings, searches, products, carts, checkout forms):
    each is read by the tokenizer, and its tree equals HTMLParser's."""
    markups = _walk_markups(seed=3, steps=300)
    assert len(markups) > 50
    assert all(dom._feed_tokens(dom._Builder(), markup) for markup in markups)
    assert all(_same_tree(markup) for markup in markups)


def _changes_by_parsing(old_markup: str, new_markup: str) -> list[tuple[object, ...]] | None:
    old = dom.parse_html(old_markup)
    changes = dom.text_changes(old, dom.parse_html(new_markup))
    return None if changes is None else [(list(_nodes(old)).index(("text", run.data)), text) for run, text in changes]


def _fast_changes(old_markup: str, new_markup: str) -> list[tuple[object, ...]] | None:
    old = dom.parse_html(old_markup)
    changes = dom.markup_text_changes(old, old_markup, new_markup)
    return None if changes is None else [(list(_nodes(old)).index(("text", run.data)), text) for run, text in changes]


PAGE = ('<html><head><title>Cart (1)</title></head><body><header><a href="/cart">Cart (<span>1</span>)</a>'
        '</header><main><p class="total">Total: &euro;10.00</p><p>a<!-- note -->b</p>'
        '<a title="x>y">Shoes</a><script>var n = 1;</script></main></body></html>')


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("<span>1</span>", "<span>2</span>", [(10, "2")]),  # the cart count (node 10 of the tree)
    ("&euro;10.00", "&euro;12.50", [(14, "Total: €12.50")]),  # entities are read as the parser reads them
    ("<span>1</span>", '<span class="x">1</span>', None),  # an attribute: the tree differs
    ("<title>Cart (1)</title>", "<title>Cart (2)</title>", None),  # the title's text is not a run to patch
    ("var n = 1;", "var n = 2;", None),  # a script's text neither
    ("a<!-- note -->b", "c<!-- note -->b", None),  # one run of two tokens
    ('"x>y">Shoes', '"x>y">Boots', None),  # text after a tag with ">" in a value: not cut where the parser cuts
    ("<span>1</span>", "<span>1 < 2</span>", None),  # new text with "<"
    ("<span>1</span>", "<span></span>", None),  # the run would be gone
])
def test_markups_that_differ_only_in_text_give_the_runs_text_changes_gives(old: str, new: str, expected) -> None:
    assert old in PAGE
    new_page = PAGE.replace(old, new)
    fast = _fast_changes(PAGE, new_page)
    assert fast == expected
    if fast is not None:  # the same runs and texts as parsing the new page and comparing the trees
        assert fast == _changes_by_parsing(PAGE, new_page)


def test_a_tree_html_parser_built_is_not_patched_from_markup() -> None:
    markup = "<p>1 < 2</p><p>3</p>"  # a stray "<": the tokenizer gives up
    document = dom.parse_html(markup)
    assert document.text_spans is None
    assert dom.markup_text_changes(document, markup, markup.replace("3", "4")) is None


def test_changed_webmall_pages_patched_from_markup_equal_the_parsed_pages() -> None:
    """Every shop page of a WebMall walk with one to three of its text pieces changed (digits, as a cart count or
    a total changes): where the markups are compared without parsing, the patched tree equals the parsed one;
    and twice in a row, as a page that changed before changes again."""
    markups = _walk_markups(seed=5, steps=150)
    rng = np.random.default_rng(5)
    patched = 0
    for markup in sorted(markups)[:60]:
        document, current = dom.parse_html(markup), markup
        for _ in range(2):
            pieces = dom._PIECES.split(current)
            digits = [index for index in range(0, len(pieces), 2) if any(c.isdigit() for c in pieces[index])]
            for index in rng.choice(digits, size=min(len(digits), int(rng.integers(1, 4))), replace=False):
                pieces[index] = "".join(str((int(c) + 1) % 10) if c.isdigit() else c for c in pieces[index])
            changed = "".join(pieces)
            changes = dom.markup_text_changes(document, current, changed)
            if changes is None:
                document = dom.parse_html(changed)
            else:
                for run, text in changes:
                    run.data = text
                patched += 1
            assert list(_nodes(document)) == list(_nodes(dom.parse_html(changed)))
            current = changed
    assert patched > 60  # most of the pages' changes were patched, not parsed
