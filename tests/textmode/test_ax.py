import itertools
import random
import re
from urllib.parse import urljoin

from personal_envs.textmode.ax import clip, joined_url

BASES = ["http://shop1.webmall.localhost/", "http://shop1.webmall.localhost/product/x/?a=1#f", "https://h:8080/a/b/c?q",
         "http://h", "about:blank", "data:text/html,abc", "http://u:p@h/x/../y", "http://h/a/b/", "file:///tmp/x.html",
         "", "/relative/base"]
LINKS = ["/", "/cart/", "/a/../b", "//other/x", "http://x/y/../z?", "https://x", "http:g", "x", "?q=1", "#top", "../up",
         "", "/p?q#f", "http://h/a/./b/", "mailto:a@b", "javascript:void(0)", "/./a", "HTTP://X/", "https:/p"]


def test_joined_url_equals_urljoin_for_every_base_and_link() -> None:
    for _ in range(2):  # the second round reads what the first kept
        for base, link in itertools.product(BASES, LINKS):
            assert joined_url(base, link) == urljoin(base, link), (base, link)


def test_clip_collapses_ascii_whitespace_runs_and_cuts_one_space_at_each_end() -> None:
    rng = random.Random(3)
    alphabet = [" ", "  ", "\t", "\n", "\r", "\f", "\xa0", "\u2003", "a", "b", "é", "\x00", "\v"]
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(8)))
        expected = re.sub(r"[ \t\n\r\f]+", " ", text)
        expected = expected[1:] if expected.startswith(" ") else expected
        expected = expected[:-1] if expected.endswith(" ") else expected
        assert clip(text) == expected, repr(text)
    assert clip(None) == "" and clip(" Add  to\ncart ") == "Add to cart"
