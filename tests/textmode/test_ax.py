import itertools
from urllib.parse import urljoin

from personal_envs.textmode.ax import joined_url

BASES = ["http://shop1.webmall.localhost/", "http://shop1.webmall.localhost/product/x/?a=1#f", "https://h:8080/a/b/c?q",
         "http://h", "about:blank", "data:text/html,abc", "http://u:p@h/x/../y", "http://h/a/b/", "file:///tmp/x.html",
         "", "/relative/base"]
LINKS = ["/", "/cart/", "/a/../b", "//other/x", "http://x/y/../z?", "https://x", "http:g", "x", "?q=1", "#top", "../up",
         "", "/p?q#f", "http://h/a/./b/", "mailto:a@b", "javascript:void(0)", "/./a", "HTTP://X/", "https:/p"]


def test_joined_url_equals_urljoin_for_every_base_and_link() -> None:
    for _ in range(2):  # the second round reads what the first kept
        for base, link in itertools.product(BASES, LINKS):
            assert joined_url(base, link) == urljoin(base, link), (base, link)
