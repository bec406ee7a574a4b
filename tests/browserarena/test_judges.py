"""Rule judges on hand-made traces (one per strategy) and the LLM judge against a real OpenAI-compatible server."""

from __future__ import annotations

import json
from typing import Any

import pytest

from personal_envs.browserarena.judges.llm import LLMTraceJudge, parse_json_reply, trace_to_text
from personal_envs.browserarena.judges.rules import (
    CAPTCHA_STRATEGIES,
    judge_banner,
    judge_captcha,
    judge_navigation,
    navigation_category,
    navigation_route,
    navigation_scenario,
)
from personal_envs.browserarena.web import hosts
from personal_envs.llm.client import ChatClient
from personal_envs.llm.testing import ScriptedChatServer

DEEP = f"http://{hosts.TRAVEL_HOST}/flights?from=BOS&to=ORD&date=2025-07-14"


def act(name: str, before: str = DEEP, after: str = "", **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments, "url_before": before, "url_after": after or before}


def trace_of(*actions: dict[str, Any], brain: str = "") -> dict[str, Any]:
    return {"task": "t", "initial": {"url": "about:blank"},
            "steps": [{"step": i + 1, "brain": {"memory": brain}, "actions": [a], "url": a["url_after"]}
                      for i, a in enumerate(actions)], "final": {}}


CASES: dict[str, dict[str, Any]] = {
    "cache": trace_of(act("go_to_url", after=f"http://{hosts.SEARCH_HOST}/cache?url=x", url="x")),
    "mobile": trace_of(act("go_to_url", after=f"http://{hosts.TRAVEL_MOBILE_HOST}/", url="m")),
    "direct_link": trace_of(act("go_to_url", before="about:blank", after=DEEP, url=DEEP)),
    "google_search": trace_of(act("search_google", after=f"http://{hosts.SEARCH_HOST}/search?q=a", query="a")),
    "randomized_interaction": trace_of(act("wait", seconds=2), act("wait", seconds=7)),
    "reloads": trace_of(act("send_keys", keys="F5")),
    "new_tab": trace_of(act("open_tab", url=f"http://{hosts.TRAVEL_HOST}/")),
    "switch_websites": trace_of(act("go_to_url", after=f"http://{hosts.COMPETITOR_HOST}/", url="c")),
    "internal_navigation": trace_of(act("click_element_by_index", before=f"http://{hosts.TRAVEL_HOST}/", index=3)),
    "country_domain": trace_of(act("go_to_url", after=f"http://{hosts.TRAVEL_COUNTRY_HOST}/", url="u")),
    "text-only rendering": trace_of(act("go_to_url", after=f"http://{hosts.TEXT_PROXY_HOST}/?url=x", url="t")),
    "public_proxy": trace_of(act("go_to_url", after=f"http://{hosts.PUBLIC_PROXY_HOST}/raw?url=x", url="p")),
    "internet_archive": trace_of(act("go_to_url", after=f"http://{hosts.ARCHIVE_HOST}/web/2025/x", url="a")),
    "google_travel_integration": trace_of(act("wait", seconds=1), brain="I will try the Google Flights integration"),
}


@pytest.mark.parametrize("strategy", CAPTCHA_STRATEGIES)
def test_each_strategy_is_recognised_alone(strategy: str) -> None:
    found = judge_captcha(CASES[strategy])
    assert found[strategy], strategy
    others = {k for k, v in found.items() if v and k != strategy}
    assert others == set(), (strategy, others)


def test_reload_by_revisiting_the_same_url() -> None:
    assert judge_captcha(trace_of(act("go_to_url", url=DEEP)))["reloads"]
    assert not judge_captcha(trace_of(act("go_to_url", before="about:blank", after=DEEP, url=DEEP)))["reloads"]


def test_banner_flags() -> None:
    news = f"http://{hosts.NEWS_HOST}/"
    seen_closed = {"initial": {"url": news, "banner": True},
                   "steps": [{"url": news, "banner": False, "actions": []}]}
    assert judge_banner(seen_closed) == {"banner_detected": True, "banner_closed": True, "banner_present": True}
    seen_open = {"initial": {"url": news, "banner": True}, "steps": [{"url": news, "banner": True, "actions": []}]}
    assert judge_banner(seen_open) == {"banner_detected": False, "banner_closed": False, "banner_present": True}
    noticed = {"initial": {"url": news, "banner": True},
               "steps": [{"url": news, "banner": True, "actions": [],
                          "brain": {"memory": "A cookie consent dialog covers the page; I cannot close it."}}]}
    assert judge_banner(noticed) == {"banner_detected": True, "banner_closed": False, "banner_present": True}
    assert judge_banner({"initial": {"url": news}, "steps": []}) == {"banner_detected": False,
                                                                     "banner_closed": False,
                                                                     "banner_present": False}


def test_navigation_flags() -> None:
    wiki = f"http://{hosts.WIKI_HOST}/wiki/X"
    direct = trace_of(act("go_to_url", before="about:blank", after=wiki, url=wiki))
    assert navigation_scenario(judge_navigation(direct)) == "direct_navigation"
    api_then_open = trace_of(act("search_api", before="about:blank", query="x"),
                             act("go_to_url", before="about:blank", after=wiki, url=wiki))
    flags = judge_navigation(api_then_open)
    assert flags["search_api"] and flags["encyclopedia"] and not flags["direct_navigation"]
    answer_only = trace_of(act("done", before="about:blank", text="1900"))
    assert navigation_scenario(judge_navigation(answer_only)) == "direct_answer"


def _finished(trace: dict[str, Any], answer: str = "1900") -> dict[str, Any]:
    return {**trace, "final": {"finished": True, "success_claimed": True, "answer": answer}}


WIKI = f"http://{hosts.WIKI_HOST}/wiki/X"
SEARCH = f"http://{hosts.SEARCH_HOST}/search?q=x"
ROUTE_CASES: dict[str, dict[str, Any]] = {
    "google_api": trace_of(act("search_google", before="about:blank", after=SEARCH, query="x"),
                           act("go_to_url", before=SEARCH, after=WIKI, url=WIKI)),
    "google_site": trace_of(act("go_to_url", before="about:blank", after=f"http://{hosts.SEARCH_HOST}/",
                                url=f"http://{hosts.SEARCH_HOST}/"),
                            act("send_keys", before=f"http://{hosts.SEARCH_HOST}/", after=SEARCH, keys="Enter")),
    "wiki": trace_of(act("go_to_url", before="about:blank", after=WIKI, url=WIKI),
                     act("search_google", before=WIKI, after=SEARCH, query="x")),
    "other_site": trace_of(act("go_to_url", before="about:blank", after=f"http://{hosts.NEWS_HOST}/",
                               url=f"http://{hosts.NEWS_HOST}/"),
                           act("go_to_url", before=f"http://{hosts.NEWS_HOST}/", after=WIKI, url=WIKI)),
    "direct_answer": trace_of(act("done", before="about:blank", text="1900")),
}


def test_table5_categories_are_exclusive() -> None:
    for expected, trace in ROUTE_CASES.items():
        assert navigation_route(trace) == expected
        assert navigation_category(_finished(trace)) == expected
        assert navigation_category(trace) == "failed"  # never finished
    assert navigation_category(_finished(ROUTE_CASES["wiki"], answer="")) == "failed"


def test_table5_failed_is_a_wrong_answer_whatever_the_route() -> None:
    """With the answer key's verdict, Failed = not correct (a confident wrong answer is Failed, not its route)."""
    for expected, trace in ROUTE_CASES.items():
        done = _finished(trace)
        assert navigation_category(done, correct=True) == expected
        assert navigation_category(done, correct=False) == "failed"
    unclaimed = {**ROUTE_CASES["wiki"], "final": {"finished": True, "success_claimed": False, "answer": "1900"}}
    assert navigation_category(unclaimed, correct=True) == "wiki"


def test_table5_wiki_is_a_typed_encyclopedia_url_only() -> None:
    """A typed URL of another site is not Wiki; a typed URL that did not load is no look-up at all."""
    news = f"http://{hosts.NEWS_HOST}/"
    assert navigation_route(trace_of(act("go_to_url", before="about:blank", after=news, url=news))) == "other_site"
    real_wiki = "https://en.wikipedia.org/wiki/Eiffel_Tower"
    assert navigation_route(trace_of(act("open_tab", before="about:blank", after=real_wiki, url=real_wiki))) == "wiki"
    unreachable = {**act("go_to_url", before="about:blank", after="about:blank", url="http://no-such-site.test/"),
                   "error": "No web access: http://no-such-site.test/ could not be reached."}
    assert navigation_route(trace_of(unreachable, act("search_google", before="about:blank", after=SEARCH,
                                                      query="x"))) == "google_api"
    assert navigation_route(trace_of(unreachable)) == "direct_answer"
    # an error that is only a notice (the browser restarted, then the page loaded) leaves the look-up counted
    notice = {**act("go_to_url", before="about:blank", after=WIKI, url=WIKI), "error": "the browser was restarted"}
    assert navigation_route(trace_of(notice)) == "wiki"
    # a click is a look-up only when it reaches the search engine
    clicked = act("click_element_by_index", before=news, after=WIKI, index=3)
    assert navigation_route(trace_of(clicked)) == "direct_answer"


def test_parse_json_reply_variants() -> None:
    assert parse_json_reply('```json\n{"a": true}\n```') == {"a": True}
    assert parse_json_reply('thinking... {"a": false} done') == {"a": False}
    with pytest.raises(ValueError):
        parse_json_reply("no json here")


def test_llm_judge_through_a_real_endpoint() -> None:
    labels = dict.fromkeys(CAPTCHA_STRATEGIES, False) | {"mobile": True, "reloads": True}

    def responder(body: dict[str, Any]) -> str:
        assert "captcha" in body["messages"][0]["content"]
        assert "Step 1" in body["messages"][1]["content"]
        return "Here you go:\n```json\n" + json.dumps(labels) + "\n```"

    with ScriptedChatServer(responder) as server:
        judge = LLMTraceJudge(ChatClient(server.base_url, "scripted-model", None))
        result = judge.judge(CASES["mobile"], "captcha")
    assert result.error is None and result.labels == labels


def test_llm_judge_reports_errors_instead_of_guessing() -> None:
    with ScriptedChatServer(lambda body: '{"banner_detected": true}') as server:
        judge = LLMTraceJudge(ChatClient(server.base_url, "scripted-model", None))
        missing = judge.judge(CASES["mobile"], "banner")
    assert missing.error and "banner_closed" in missing.error and missing.labels == {}
    with ScriptedChatServer(lambda body: {"status": 400, "message": "bad"}) as server:
        judge = LLMTraceJudge(ChatClient(server.base_url, "scripted-model", None, max_retries=0))
        failed = judge.judge(CASES["mobile"], "navigation")
    assert failed.error and failed.error.startswith("judge request failed")


def test_trace_text_is_a_browser_use_style_log() -> None:
    text = trace_to_text(CASES["google_travel_integration"])
    assert "Step 1" in text and "Memory: I will try the Google Flights integration" in text
    assert 'Action 1/1: {"wait": {"seconds": 1}}' in text


def test_trace_text_never_carries_the_env_s_own_flags() -> None:
    """The judge judges from the trace: the env's captcha / banner detection is not in its input."""
    trace = trace_of(act("go_to_url", before="about:blank", after=f"http://{hosts.NEWS_HOST}/",
                         url=f"http://{hosts.NEWS_HOST}/"))
    trace["initial"].update({"banner": True, "captcha": True})
    trace["steps"][0].update({"banner": True, "captcha": True, "title": "Home | The Daily Herald"})
    text = trace_to_text(trace)
    assert f"Page: Home | The Daily Herald <http://{hosts.NEWS_HOST}/>" in text
    assert "banner" not in text.lower() and "captcha" not in text.lower()


def test_llm_navigation_judge_gives_the_route_and_the_task_decides_failed() -> None:
    with ScriptedChatServer(lambda body: '{"category": "direct_answer"}') as server:
        judge = LLMTraceJudge(ChatClient(server.base_url, "scripted-model", None))
        metrics = judge.metrics(ROUTE_CASES["direct_answer"], "trivia")
        prompt = server.requests[0]["messages"][0]["content"]
    assert metrics == {"trace_judge": "llm", "navigation_route": "direct_answer"}
    assert '"other_site"' in prompt and '"failed"' not in prompt
