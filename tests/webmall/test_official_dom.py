"""The official evaluator's page tree built from a text-mode document equals the tree of the document written
out and parsed back, on every page of seeded random walks through the shops and on hand-built edge cases."""

from __future__ import annotations

import re
from typing import Any

import gymnasium as gym
import numpy as np

import personal_envs  # noqa: F401 - registers the envs
from personal_envs.textmode.dom import Element, Text, parse_html, serialize
from personal_envs.textmode.parity import random_web_action
from personal_envs.webmall.official_dom import document_tree
from personal_envs.webmall.official_html import parse_html as official_parse


def _round_trip(document: Any) -> Any:
    return official_parse(serialize(document))


def test_the_tree_of_every_page_of_random_walks_equals_the_parsed_markup() -> None:
    env: Any = gym.make("WebMall-v0", data_dir="shipped", render="text")
    pages = 0
    try:
        for seed in (1, 2):
            rng = np.random.default_rng(seed)
            origins = list(env.unwrapped.origins.values())
            obs, _ = env.reset(seed=seed)
            for _ in range(100):
                adds = re.findall(r"\[(\w+)\] (?:button|link) '[^']*[Cc]art[^']*'", obs["axtree"])
                action = ({"name": "click", "arguments": {"bid": adds[int(rng.integers(len(adds)))]}}
                          if adds and rng.random() < 0.3 else random_web_action(obs["axtree"], origins, rng))
                obs, _, terminated, truncated, _ = env.step(action)
                document = env.unwrapped.world.session.page.document
                tree = document_tree(document)
                assert tree is not None
                assert tree == _round_trip(document), env.unwrapped.world.session.page.url
                pages += 1
                if terminated or truncated:
                    obs, _ = env.reset()
    finally:
        env.close()
    assert pages == 200


def test_edge_cases_read_back_as_the_parser_reads_them() -> None:
    markup = ('<!DOCTYPE html><html><head><style>a > b { color: red }</style><script>if (a < b && c) {}</script>'
              '</head><body><p CLASS="X y">a &amp; b &lt;c&gt;<br>tail</p><textarea>\nkeep</textarea>'
              '<div title="&quot;q&quot; &amp; &lt;">  </div><img src="x.png" alt=""><ul><li>one<li>two</ul></body>'
              '</html>')
    document = parse_html(markup)
    body = document.body
    assert body is not None
    body.append(Text("first "))  # adjacent runs: one run read back
    body.append(Text(""))
    body.append(Text("second"))
    strange = Element("span", {"Data-Mixed": "v", "empty": ""})
    body.append(strange)
    void = Element("br")
    void.append(Text("never written"))
    body.append(void)
    assert document_tree(document) == _round_trip(document)


def test_raw_text_that_would_not_read_back_gives_up() -> None:
    for content in ("var s = '</script>';", "x = '</ SCRIPT'"):
        document = parse_html("<html><head></head><body></body></html>")
        script = Element("script")
        script.append(Text(content))
        assert document.body is not None
        document.body.append(script)
        assert document_tree(document) is None
    document = parse_html("<html><head></head><body></body></html>")
    style = Element("style")
    style.append(Element("b"))  # an element inside raw text: written as text, read back as text
    assert document.body is not None
    document.body.append(style)
    assert document_tree(document) is None
