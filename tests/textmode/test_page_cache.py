import random
from collections import OrderedDict

from personal_envs.textmode.page_cache import PageCache, PageKey


def test_random_operations_keep_the_order_of_a_plain_ordered_dict() -> None:
    """Against an OrderedDict used as the session used it before (LRU by move_to_end / popitem, pages of a URL found
    by scanning all keys newest first)."""
    rng = random.Random(5)
    cache: PageCache[int] = PageCache(capacity=12)
    model: OrderedDict[PageKey, int] = OrderedDict()
    keys = [(f"http://s{rng.randrange(3)}/p{rng.randrange(4)}", rng.choice([200, 404]), f"m{i % 9}")
            for i in range(40)]
    for step in range(3000):
        key = rng.choice(keys)
        operation = rng.randrange(4)
        if operation == 0:
            cache.put(key, step)
            model.pop(key, None)
            model[key] = step
            while len(model) > 12:
                model.popitem(last=False)
        elif operation == 1 and key in model:
            cache.touch(key)
            model.move_to_end(key)
        elif operation == 2:
            cache.remove(key)
            model.pop(key, None)
        assert cache.get(key) == model.get(key)
        assert list(cache) == list(model)
        url = key[0]
        assert cache.newest_first(url) == [(k, v) for k, v in reversed(model.items()) if k[0] == url]
    assert len(cache) == len(model) > 0


def test_a_full_cache_drops_the_least_recently_used() -> None:
    cache: PageCache[str] = PageCache(capacity=2)
    a, b, c = ("http://a/", 200, "1"), ("http://a/", 200, "2"), ("http://b/", 200, "3")
    cache.put(a, "a")
    cache.put(b, "b")
    cache.touch(a)
    cache.put(c, "c")
    assert list(cache) == [a, c] and cache.get(b) is None
    assert cache.newest_first("http://a/") == [(a, "a")]
    cache.remove(a)
    assert cache.newest_first("http://a/") == [] and len(cache) == 1
