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


def test_every_page_of_a_webmall_walk_parses_as_html_parser_parses_it() -> None:
    """The shops' pages met by 300 random text-mode steps (listings, searches, products, carts, checkout forms):
    each is read by the tokenizer, and its tree equals HTMLParser's."""
    env = gym.make("WebMall-v0", render="text", data_dir="shipped")
    try:
        obs, _ = env.reset(seed=3)
        origins = list(env.unwrapped.origins.values())[:4]
        rng = np.random.default_rng(3)
        markups: set[str] = set()
        for _ in range(300):
            obs, _, terminated, truncated, _ = env.step(random_web_action(obs["axtree"], origins, rng))
            markups.update(key[2] for key in env.unwrapped.world.session._rendered)
            if terminated or truncated:
                obs, _ = env.reset()
        assert len(markups) > 50
        assert all(dom._feed_tokens(dom._Builder(), markup) for markup in markups)
        assert all(_same_tree(markup) for markup in markups)
    finally:
        env.close()
