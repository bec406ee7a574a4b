"""BrowserGym's high-level action strings (``click('11')``, ``fill('12', 'text')``) read as this project's actions.

AgentLab's agents answer with one BrowserGym call per step, the action set of the WebMall paper's runs being
BrowserGym's ``"webarena"`` subset (``noop``, ``scroll``, ``keyboard_press``, ``click``, ``fill``, ``hover``,
``tab_focus``, ``new_tab``, ``go_back``, ``go_forward``, ``goto``, ``tab_close``, ``select_option``,
``send_msg_to_user``, ``report_infeasible``; ``press`` of the ``"bid"`` subset is read too).  The text is parsed,
never run: as BrowserGym's non-strict parser does, calls with literal arguments (strings, numbers, lists, dicts,
tuples, ``True`` / ``False`` / ``None``) are looked for anywhere in the text, Python comments are skipped, and
exactly one call must be found ("Received a multi-action, only single-actions are allowed." otherwise).  Each call
becomes the JSON action of the same meaning, with BrowserGym's defaults (``noop()`` waits 1000 ms).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from personal_envs.core.actions import Action, ActionError, ActionSpec, parse_action

#: Longest action text read (characters); BrowserGym reads any length, a megabyte is far beyond a real answer.
MAX_ACTION_TEXT = 1 << 20

_CALL_START = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str):  # BrowserGym's own words when the call runs
        raise ActionError(f"expected a string, got {value!r} ({name})")
    return value


def _number(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ActionError(f"Forbidden value: {value!r} is not a number ({name})")
    return float(value)


def _click(bid: Any, button: Any = "left", modifiers: Any = ()) -> dict[str, Any]:
    if button != "left" or list(modifiers or ()):
        raise ActionError("click with another button than 'left' or with modifiers is not supported here")
    return {"action_type": "click", "bid": _text(bid, "bid")}


def _select_option(bid: Any, options: Any) -> dict[str, Any]:
    chosen = [options] if isinstance(options, str) else options
    if not isinstance(chosen, (list, tuple)) or not all(isinstance(option, str) for option in chosen):
        raise ActionError(f"Forbidden value: {options!r} is not a string or a list of strings (options)")
    return {"action_type": "select_option", "bid": _text(bid, "bid"), "options": list(chosen)}


def _noop(wait_ms: Any = 1000) -> dict[str, Any]:
    return {"action_type": "noop", "wait_ms": round(_number(wait_ms, "wait_ms"))}


#: BrowserGym action -> (its parameter names in order, the builder of the project's action).
BROWSERGYM_ACTIONS: dict[str, tuple[tuple[str, ...], Callable[..., dict[str, Any]]]] = {
    "noop": (("wait_ms",), _noop),
    "scroll": (("delta_x", "delta_y"), lambda delta_x, delta_y: {
        "action_type": "scroll", "delta_x": _number(delta_x, "delta_x"), "delta_y": _number(delta_y, "delta_y")}),
    "keyboard_press": (("key",), lambda key: {"action_type": "press", "key_comb": _text(key, "key")}),
    "press": (("bid", "key_comb"), lambda bid, key_comb: {
        "action_type": "press", "bid": _text(bid, "bid"), "key_comb": _text(key_comb, "key_comb")}),
    "click": (("bid", "button", "modifiers"), _click),
    "fill": (("bid", "value"), lambda bid, value: {
        "action_type": "fill", "bid": _text(bid, "bid"), "value": _text(value, "value")}),
    "hover": (("bid",), lambda bid: {"action_type": "hover", "bid": _text(bid, "bid")}),
    "tab_focus": (("index",), lambda index: {"action_type": "tab_focus", "index": index}),
    "new_tab": ((), lambda: {"action_type": "new_tab"}),
    "go_back": ((), lambda: {"action_type": "go_back"}),
    "go_forward": ((), lambda: {"action_type": "go_forward"}),
    "goto": (("url",), lambda url: {"action_type": "goto", "url": _text(url, "url")}),
    "tab_close": ((), lambda: {"action_type": "tab_close"}),
    "select_option": (("bid", "options"), _select_option),
    "send_msg_to_user": (("text",), lambda text: {"action_type": "send_msg_to_user", "text": _text(text, "text")}),
    "report_infeasible": (("reason",), lambda reason: {
        "action_type": "report_infeasible", "reason": _text(reason, "reason")}),
}


def looks_like_browsergym(raw: Any) -> bool:
    """True for a text that is not JSON (an action string such as ``click('11')``)."""
    return isinstance(raw, str) and not raw.lstrip().startswith(("{", "["))


def parse_browsergym_action(text: str, allowed: Sequence[str] | None = None) -> dict[str, Any]:
    """The project's action (canonical dict form) for one BrowserGym action string.

    Args:
        text: The agent's answer: one call such as ``fill('12', 'Kingston')``, possibly among other text.
        allowed: Action names accepted (default: every name of :data:`BROWSERGYM_ACTIONS`).

    Raises:
        ActionError: no call, several calls, an unknown action, wrong arguments (BrowserGym's own messages where
            it has one).
    """
    if len(text) > MAX_ACTION_TEXT:
        raise ActionError(f"action is {len(text)} characters long; the limit is {MAX_ACTION_TEXT}")
    calls = find_calls(text)
    if not calls:
        raise ActionError("Received an empty action.")
    if len(calls) > 1:
        raise ActionError("Received a multi-action, only single-actions are allowed.")
    name, args, kwargs = calls[0]
    names = BROWSERGYM_ACTIONS if allowed is None else [n for n in allowed if n in BROWSERGYM_ACTIONS]
    if name not in names:
        raise ActionError(f"Invalid action type '{name}'. Available: {', '.join(names)}")
    params, build = BROWSERGYM_ACTIONS[name]
    if len(args) > len(params):
        raise ActionError(f"{name}() takes {len(params)} arguments ({', '.join(params) or 'none'}), got {len(args)}")
    bound = dict(zip(params, args, strict=False))
    for key, value in kwargs.items():
        if key not in params or key in bound:
            raise ActionError(f"{name}() got an unexpected or repeated argument '{key}'; it takes: "
                              f"{', '.join(params) or 'no arguments'}")
        bound[key] = value
    try:
        return build(**bound)
    except TypeError:
        raise ActionError(f"{name}() is missing arguments; it takes: {', '.join(params)}") from None


def find_calls(text: str) -> list[tuple[str, list[Any], dict[str, Any]]]:
    """Every ``name(literal, ..., key=literal)`` call in ``text``, in order, as BrowserGym's non-strict parser finds
    them: positions are tried left to right, a ``#`` outside a call starts a comment up to the end of its line, and
    anything that is not a call with literal arguments is skipped (quotes outside calls included)."""
    calls = []
    closing: dict[int, int | None] = {}  # "(" index -> its ")" (None: unclosed), from every scan so far
    position = 0
    comment = -1
    while position < len(text):
        if comment < position:
            comment = text.find("#", position)
            if comment < 0:
                comment = len(text)
        start = _CALL_START.search(text, position, comment)
        if start is None:
            if comment >= len(text):
                break
            newline = text.find("\n", comment)
            position = len(text) if newline < 0 else newline + 1
            continue
        opening = start.end() - 1
        if opening not in closing:
            _scan_parens(text, opening, closing)
        end = closing[opening]
        parsed = _literal_call(text[start.start():end + 1]) if end is not None else None
        if parsed is None or end is None:
            position = start.start() + 1
            continue
        calls.append(parsed)
        position = end + 1
    return calls


_SPECIAL = re.compile(r"""[()\[\]{}'"]""")


def _scan_parens(code: str, opening: int, closing: dict[int, int | None]) -> None:
    """Match the brackets from ``opening`` to where it closes (string literals skipped), recording every
    parenthesis met in ``closing`` (its closing index, None when unclosed or closed by another bracket), so that a
    later call starting inside is not scanned again: linear time over the whole text."""
    stack: list[tuple[int, str]] = []
    i = opening
    while (found := _SPECIAL.search(code, i)) is not None:
        i = found.start()
        char = code[i]
        if char in "'\"":
            quote = code[i:i + 3] if code[i:i + 3] in ("'''", '"""') else char
            end = _string_end(code, i + len(quote), quote)
            if end is None:
                break
            i = end
            continue
        if char in "([{":
            stack.append((i, char))
        else:
            if not stack:
                break
            index, kind = stack.pop()
            if kind == "(":
                closing[index] = i if char == ")" else None
            if not stack:
                return
        i += 1
    for index, kind in stack:
        if kind == "(":
            closing[index] = None
    closing.setdefault(opening, None)


def _string_end(code: str, i: int, quote: str) -> int | None:
    """Index just after the literal closed by ``quote`` from ``i`` on (backslash escapes skipped), or None."""
    while True:
        end = code.find(quote, i)
        if end < 0:
            return None
        backslashes = len(code[i:end]) - len(code[i:end].rstrip("\\"))
        if backslashes % 2 == 0:
            return end + len(quote)
        i = end + 1


def _literal_call(source: str) -> tuple[str, list[Any], dict[str, Any]] | None:
    """(name, positional, keyword) of a call whose arguments are all literals, else None."""
    try:
        node = ast.parse(source.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        return None
    try:
        args = [ast.literal_eval(arg) for arg in node.args]
        kwargs = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg is not None}
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None
    if len(kwargs) != len(node.keywords):  # **spread
        return None
    return node.func.id, args, kwargs


def decode_browser_action(raw: Any, specs: Mapping[str, ActionSpec]) -> Action:
    """An env action from a BrowserGym action string or from any form :func:`parse_action` takes (JSON object or
    its text): the decoder of envs that accept both."""
    if looks_like_browsergym(raw):
        return parse_action(parse_browsergym_action(raw), specs)
    return parse_action(raw, specs)
