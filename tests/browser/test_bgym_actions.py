"""BrowserGym action strings are read as BrowserGym 0.14 reads them: the calls its own non-strict parser finds
(``highlevel_action_parser`` from its virtualenv), its action set of the WebMall runs (``"webarena"``, one action per
step) and its error messages; then each call is the project's action of the same meaning."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from benchmarks.browsergym_parity import venv_site_packages
from personal_envs.browser.actions import BROWSER_ACTIONS
from personal_envs.browser.bgym_actions import decode_browser_action, find_calls, parse_browsergym_action
from personal_envs.core.actions import ActionError

TEXTS = [
    "click('11')",
    "fill('12', 'Kingston 1TB NV2 M.2 NVMe SSD')",
    'fill("a12", "example with \\"quotes\\"")',
    "select_option('48', 'Sort by price: low to high')",
    "select_option('48', ['red', 'blue'])",
    "goto('http://127.0.0.1:8081/?s=ssd&orderby=price')",
    "scroll(0, 200)",
    "scroll(0.0, -300.5)",
    "noop()",
    "noop(500)",
    "keyboard_press('Control+a')",
    "send_msg_to_user('Done')",
    "report_infeasible(reason='no such product')",
    "tab_focus(1)",
    "go_back()",
    "I think I should click('3') now",
    "# click('1')\nclick('2')",
    "click('1')\nclick('2')",
    "click(12)",
    "fill('1', '''multi\nline''')",
    "think about it",
    "dblclick('4')",
    "click('1', button='left', modifiers=[])",
    "send_msg_to_user(text='a (b) # c')",
]


@pytest.fixture(scope="module")
def browsergym() -> Any:
    site = venv_site_packages()
    if site is None:
        pytest.skip("no browsergym-core virtualenv (run scripts/setup_browsergym_venv.sh)")
    if site not in sys.path:
        sys.path.append(site)
    from browsergym.core.action.highlevel import HighLevelActionSet  # type: ignore[import-not-found]
    from browsergym.core.action.parsers import highlevel_action_parser  # type: ignore[import-not-found]

    return highlevel_action_parser, HighLevelActionSet(subsets=["webarena"], multiaction=False, strict=False)


def _browsergym_calls(parser: Any, text: str) -> list[tuple[str, list[Any], dict[str, Any]]]:
    calls = []
    for name, args in sum(parser.search_string(text).as_list(), []):
        positional = [a for a in args if type(a).__name__ != "NamedArgument"]
        named = {a.name: a.value for a in args if type(a).__name__ == "NamedArgument"}
        calls.append((name, positional, named))
    return calls


def test_the_calls_found_are_browsergyms(browsergym: Any) -> None:
    parser, _ = browsergym
    for text in TEXTS:
        ours = [(name, args, kwargs) for name, args, kwargs in find_calls(text)]
        theirs = _browsergym_calls(parser, text)
        assert ours == theirs, text


def test_errors_and_action_set_are_browsergyms(browsergym: Any) -> None:
    _, action_set = browsergym
    assert set(action_set.action_set) - {"press"} <= set(BROWSER_ACTIONS) | {"keyboard_press"}
    for text in TEXTS:
        if text == "click(12)":
            continue  # BrowserGym parses it and refuses it when it runs ("expected a string, got 12"): so do we
        try:
            action_set.to_python_code(text)
            accepted = True
        except Exception as exc:  # noqa: BLE001 - BrowserGym's own refusal
            accepted, message = False, str(exc)
        try:
            action = parse_browsergym_action(text, allowed=list(action_set.action_set))
        except ActionError as exc:
            assert not accepted, (text, str(exc))
            assert str(exc).split(" Available:")[0] == message, text
            continue
        assert accepted, (text, action)
        assert decode_browser_action(text, BROWSER_ACTIONS).name == action["action_type"] or \
            (text.startswith("keyboard_press") and action["action_type"] == "press")


def test_each_call_becomes_the_projects_action() -> None:
    assert parse_browsergym_action("click('11')") == {"action_type": "click", "bid": "11"}
    assert parse_browsergym_action("fill('12', 'a')") == {"action_type": "fill", "bid": "12", "value": "a"}
    assert parse_browsergym_action("select_option('5', 'x')")["options"] == ["x"]
    assert parse_browsergym_action("noop()") == {"action_type": "noop", "wait_ms": 1000}  # BrowserGym's default
    assert parse_browsergym_action("keyboard_press('Enter')") == {"action_type": "press", "key_comb": "Enter"}
    assert parse_browsergym_action("scroll(0, 200)")["delta_y"] == 200.0
    action = decode_browser_action("goto(url='http://x.test/')", BROWSER_ACTIONS)
    assert action.name == "goto" and action.arguments == {"url": "http://x.test/"}
    assert decode_browser_action('{"action_type": "click", "bid": "3"}', BROWSER_ACTIONS).arguments == {"bid": "3"}
    for text, message in [("click()", "missing"), ("click('1', '2', '3', '4')", "takes 3"),
                          ("fill('1', 5)", "expected a string"), ("click(12)", "expected a string, got 12"), ("click('1', button='right')", "not supported"),
                          ("goto('x', url='y')", "repeated"), ("x(" * 200_000, "")]:
        with pytest.raises(ActionError, match=message):
            parse_browsergym_action(text)
