from collections import Counter
from pathlib import Path

import pytest

from personal_envs.webmall.tasks import OFFICIAL_COUNTS, load_official_tasks, select_tasks

ORIGINS = {"URL_1": "http://a:1", "URL_2": "http://b:2", "URL_3": "http://c:3", "URL_4": "http://d:4",
           "URL_5": "http://s:5"}


def test_official_tasks(webmall_dir: Path) -> None:
    tasks = load_official_tasks(webmall_dir)
    assert len(tasks) == 91
    assert Counter(t.category for t in tasks) == Counter(OFFICIAL_COUNTS)
    assert len(select_tasks(tasks, "basic")) == 48
    assert len(select_tasks(tasks, "advanced")) == 43
    one = select_tasks(tasks, "all", "webmall.Webmall_Checkout_Task1")
    assert len(one) == 1 and one[0].requires_checkout
    goal = one[0].goal(ORIGINS)
    assert "{{" not in goal and "\\n" not in goal
    assert "Jessica Morgan" in goal and "http://c:3/product/trust-tk-350" in goal
    assert one[0].expected_urls(ORIGINS) == [
        "http://c:3/product/trust-tk-350-wireless-membrane-keyboard-spill-proof-silent-keys-media-keys-black"]
    carts = [t for t in tasks if t.answer_type == "cart"]
    assert sum(t.requires_cart for t in carts) == 8  # Substitutes_Task1 too: the official evaluator types it "cart"


def test_select_errors(webmall_dir: Path) -> None:
    tasks = load_official_tasks(webmall_dir)
    with pytest.raises(ValueError, match="task_set"):
        select_tasks(tasks, "hard")
    with pytest.raises(ValueError, match="unknown task_id"):
        select_tasks(tasks, "all", "nope")
