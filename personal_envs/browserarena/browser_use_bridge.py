"""Runs browser-use's own ``Agent`` for one task and streams its steps as JSON lines (run in browser-use's venv).

This file is executed as a script by the Python of the browser-use virtualenv (see
:mod:`personal_envs.browserarena.browser_use_policy`); it imports only the standard library and browser-use 0.1.40
(with its langchain / Playwright dependencies), never ``personal_envs``, so the project's own dependency pins are
untouched.  Protocol:

* stdin, one JSON line: ``task``, ``start_url``, ``base_url``, ``model``, ``api_key``, ``max_steps``,
  ``use_vision``, ``max_actions_per_step``, ``tool_calling_method``, ``temperature``, ``proxy`` (the local web's
  proxy or ``null``), ``allowed_domains``, ``chromium``, ``chromium_args``, ``viewport``, ``detect_js`` (the
  project's indexing script, run only to read its ``captcha`` / ``banner`` flags), ``search_redirect`` (a URL
  template with ``{query}`` that Google searches are redirected to, for the local web), ``files_dir`` (where
  ``save_pdf`` / ``save_html_to_file`` write), ``save_html_fails`` (reproduce 0.1.41rc2's failing
  ``save_html_to_file``, default true);
* stdout, JSON lines: ``{"type": "llm_call", ...}`` as soon as a model request has finished (what it was for, HTTP
  status, the reply's token usage, error kind; see :mod:`browser_use_calls`), ``{"type": "step", ...}`` after every
  agent step (the agent's state, its actions with their results and the URL before and after each, the actions
  browser-use dropped without running, what the page showed afterwards and a PNG screenshot in base64), then
  ``{"type": "end", ...}``; ``{"type": "error", "error": ...}`` if the run could not start.  Everything browser-use
  itself prints goes to stderr.

The controller has the paper's 24 actions (:mod:`browser_use_actions`).  Telemetry is off
(``ANONYMIZED_TELEMETRY=false`` before browser-use is imported).
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import sys
import threading
import traceback
from typing import Any
from urllib.parse import quote_plus

os.environ["ANONYMIZED_TELEMETRY"] = "false"
os.environ.setdefault("BROWSER_USE_LOGGING_LEVEL", "info")

_OUT = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
_OUT_LOCK = threading.Lock()
os.dup2(2, 1)  # browser-use logs to stdout: send it to stderr, keep the real stdout for the protocol
sys.stdout = sys.stderr

# The bridge's sibling modules (this folder is sys.path[0] when the bridge runs as a script); imported after the
# redirection because browser-use logs as soon as it is imported.
import browser_use_calls  # noqa: E402
from browser_use_actions import install_paper_actions  # noqa: E402

_GOOGLE_SEARCH = re.compile(r"^https?://(www\.)?google\.[a-z.]+/search\?")


def emit(message: dict[str, Any]) -> None:
    """Write one protocol line (model calls may finish in another thread than the agent's)."""
    line = json.dumps(message, ensure_ascii=False) + "\n"
    with _OUT_LOCK:
        _OUT.write(line)
        _OUT.flush()


async def run(config: dict[str, Any]) -> None:
    from browser_use import Agent, Browser, BrowserConfig, Controller
    from browser_use.agent.views import AgentStepInfo
    from browser_use.browser.context import BrowserContextConfig
    from langchain_openai import ChatOpenAI

    executable = str(config["chromium"])

    class LocalChromiumBrowser(Browser):
        """browser-use's standard launch (its own flags), with Debian's Chromium as the executable."""

        async def _setup_standard_browser(self, playwright: Any) -> Any:
            chromium = playwright.chromium

            class _Chromium:
                def __getattr__(self, name: str) -> Any:
                    return getattr(chromium, name)

                async def launch(self, **kwargs: Any) -> Any:
                    return await chromium.launch(executable_path=executable, **kwargs)

            class _Playwright:
                def __getattr__(self, name: str) -> Any:
                    return getattr(playwright, name)

            shim = _Playwright()
            shim.chromium = _Chromium()  # type: ignore[attr-defined]
            return await super()._setup_standard_browser(shim)

    class RecordingController(Controller):
        """browser-use's controller with the paper's actions, noting every action it runs: what it ran, its result
        (or the error it raised), and the URL before and after; model calls made inside an action count as the
        action's (``extract_content``'s extraction model)."""

        def __init__(self) -> None:
            super().__init__()
            self.log: list[dict[str, Any]] = []

        async def act(self, action: Any, browser_context: Any, *args: Any, **kwargs: Any) -> Any:
            entry: dict[str, Any] = {"action": action.model_dump(exclude_unset=True),
                                     "url_before": await _page_url(browser_context)}
            token = browser_use_calls.purpose.set("action")
            try:
                result = await super().act(action, browser_context, *args, **kwargs)
                entry["result"] = result
                return result
            except Exception as exc:  # browser-use turns it into the step's error; the trace keeps the action
                entry["raised"] = str(exc)
                raise
            finally:
                browser_use_calls.purpose.reset(token)
                entry["url_after"] = await _page_url(browser_context)
                self.log.append(entry)

    width, height = (int(v) for v in config.get("viewport") or (1280, 720))
    context_config = BrowserContextConfig(browser_window_size={"width": width, "height": height},
                                          allowed_domains=config.get("allowed_domains") or None)
    proxy = {"server": config["proxy"]} if config.get("proxy") else None
    browser = LocalChromiumBrowser(BrowserConfig(headless=True, proxy=proxy,
                                                 extra_chromium_args=list(config.get("chromium_args") or []),
                                                 new_context_config=context_config))
    timeout = float(config.get("timeout", 120.0))
    calls = browser_use_calls.CallCounter(on_call=lambda record: emit({"type": "llm_call", **record}))
    http_client, http_async_client = calls.clients(timeout)
    llm = ChatOpenAI(model=str(config["model"]), base_url=str(config["base_url"]),
                     api_key=str(config.get("api_key") or "not-needed"),
                     temperature=float(config.get("temperature", 0.0)), max_retries=1, timeout=timeout,
                     http_client=http_client, http_async_client=http_async_client)
    controller = RecordingController()
    install_paper_actions(controller, files_dir=str(config.get("files_dir") or os.getcwd()),
                          save_html_fails=bool(config.get("save_html_fails", True)))
    start_url = str(config.get("start_url") or "")
    initial = [{"go_to_url": {"url": start_url}}] if start_url and start_url != "about:blank" else None
    agent = Agent(task=str(config["task"]), llm=llm, browser=browser, controller=controller,
                  use_vision=bool(config.get("use_vision", True)),
                  max_actions_per_step=int(config.get("max_actions_per_step", 10)),
                  tool_calling_method=config.get("tool_calling_method") or "raw",
                  initial_actions=initial)
    max_steps = int(config.get("max_steps", 15))
    detect_js = str(config.get("detect_js") or "")
    done = False
    try:
        session = await agent.browser_context.get_session()
        redirect = config.get("search_redirect")
        if redirect:
            async def to_local_search(route: Any) -> None:
                query = re.search(r"[?&]q=([^&]*)", route.request.url)
                target = str(redirect).replace("{query}", quote_plus(_unquote(query.group(1) if query else "")))
                await route.fulfill(status=302, headers={"location": target}, body="")

            await session.context.route(_GOOGLE_SEARCH, to_local_search)
        if agent.initial_actions:
            agent.state.last_result = await agent.multi_act(agent.initial_actions, check_for_new_elements=False)
        controller.log.clear()
        for step in range(max_steps):
            if agent.state.consecutive_failures >= agent.settings.max_failures:
                break
            before = len(agent.state.history.history)
            info = AgentStepInfo(step_number=step, max_steps=max_steps)
            try:
                await agent.step(info)
            except Exception as exc:  # browser-use's own error handler can fail (e.g. a missing optional import)
                record = _step_record(None, controller.log, [], last_step=info.is_last_step())
                record["error"] = "; ".join(filter(None, [f"browser-use step failed: {type(exc).__name__}: {exc}",
                                                          record["error"]]))
                emit({"type": "step", "step": step + 1, **record,
                      **await _page_state(agent.browser_context, detect_js)})
                agent.state.consecutive_failures += 1
                controller.log.clear()
                continue
            item = agent.state.history.history[-1] if len(agent.state.history.history) > before else None
            requested = browser_use_calls.requested_actions(calls.last_reply("agent")) if item else []
            emit({"type": "step", "step": step + 1,
                  **_step_record(item, controller.log, requested, last_step=info.is_last_step()),
                  **await _page_state(agent.browser_context, detect_js)})
            controller.log.clear()
            if agent.state.history.is_done():
                done = True
                break
        emit({"type": "end", "done": done, "steps": agent.state.n_steps,
              "failures": agent.state.consecutive_failures,
              "input_tokens": agent.state.history.total_input_tokens(), "model": str(config["model"])})
    finally:
        try:
            await agent.browser_context.close()
        finally:
            await browser.close()
            http_client.close()
            await http_async_client.aclose()


def _unquote(text: str) -> str:
    from urllib.parse import unquote_plus

    return unquote_plus(text)


async def _page_url(browser_context: Any) -> str:
    try:
        page = await browser_context.get_current_page()
        return str(page.url)
    except Exception:
        return ""


def _step_record(item: Any, log: list[dict[str, Any]], requested: list[dict[str, Any]], *,
                 last_step: bool = False) -> dict[str, Any]:
    """The agent's state and the actions of one step: each action the controller ran with its result, target
    element and URLs; the actions the model asked for that browser-use ran nothing for (``dropped``)."""
    brain: dict[str, str] = {}
    planned: list[dict[str, Any]] = []
    results: list[Any] = []
    elements: list[Any] = []
    if item is not None:
        if item.model_output is not None:
            brain = {key: str(getattr(item.model_output.current_state, key, ""))
                     for key in ("evaluation_previous_goal", "memory", "next_goal")}
            planned = [a.model_dump(exclude_unset=True) for a in item.model_output.action]
        results = list(item.result or [])
        elements = list(getattr(item.state, "interacted_element", None) or [])
    actions: list[dict[str, Any]] = []
    dropped: list[dict[str, Any]] = []
    for i, entry in enumerate(log):
        ran, ignored = _ran_and_ignored(entry["action"])
        for name in ignored:
            dropped.append({"name": name, "arguments": entry["action"][name] or {},
                            "reason": "another action came first in the same item (browser-use runs one per item)"})
        if ran is None:
            dropped.append(_dropped_request(requested[i] if i < len(requested) else {}, last_step))
            continue
        result = entry.get("result")
        element = elements[i] if i < len(elements) else None
        target = ""
        if element is not None:
            attrs = " ".join(f'{k}="{v}"' for k, v in list((element.attributes or {}).items())[:4])
            target = f"<{element.tag_name}{' ' + attrs if attrs else ''}>"
        actions.append({
            "name": ran, "arguments": entry["action"][ran] or {},
            "error": str(entry.get("raised") or getattr(result, "error", "") or ""),
            "result": str(getattr(result, "extracted_content", "") or "")[:2000], "target": target,
            "url_before": entry["url_before"], "url_after": entry["url_after"],
            "is_done": bool(getattr(result, "is_done", False)),
            "success": getattr(result, "success", None),
        })
    errors = [str(r.error) for r in results if getattr(r, "error", None)]
    errors += [f"browser-use ran nothing for the model's action {d['name'] or '(unreadable)'}: {d['reason']}"
               for d in dropped]
    if item is None and not log:
        errors.append("the step made no history entry")
    return {"brain": brain, "planned": planned, "actions": actions, "dropped": dropped,
            "error": "; ".join(errors)[:4000]}


def _ran_and_ignored(dumped: dict[str, Any]) -> tuple[str | None, list[str]]:
    """Which action of one parsed item the controller ran (the first with parameters, as its ``act`` does) and
    which names it ignored; ``None`` when the item is empty (browser-use's parser dropped what the model wrote)."""
    names = [name for name, params in dumped.items() if params is not None]
    return (names[0], names[1:]) if names else (None, [])


def _dropped_request(asked: dict[str, Any], last_step: bool) -> dict[str, Any]:
    """What the model wrote for an action item that browser-use parsed into nothing."""
    name = next(iter(asked), "") if len(asked) == 1 else ", ".join(asked)
    arguments = asked.get(name) if len(asked) == 1 and isinstance(asked.get(name), dict) else {}
    reason = ("on the last step browser-use accepts only done" if last_step
              else "not an action of browser-use's controller")
    return {"name": str(name), "arguments": arguments, "reason": reason}


async def _page_state(browser_context: Any, detect_js: str) -> dict[str, Any]:
    """What the page shows after a step: URL, title, tabs, captcha / banner flags and a screenshot."""
    state: dict[str, Any] = {"url": "", "title": "", "tabs": [], "active_tab": 0, "captcha": False,
                             "banner": False, "screenshot_png_b64": ""}
    try:
        page = await browser_context.get_current_page()
        state["url"] = page.url
        state["title"] = await page.title()
        pages = list(page.context.pages)
        state["tabs"] = [p.url for p in pages]
        state["active_tab"] = pages.index(page) if page in pages else 0
        if detect_js:
            flags = await page.evaluate(detect_js, {"expansion": 0, "maxItems": 1})
            if isinstance(flags, dict):
                state["captcha"] = bool(flags.get("captcha"))
                state["banner"] = bool(flags.get("banner"))
        shot = await page.screenshot(type="png", timeout=10_000)
        state["screenshot_png_b64"] = base64.b64encode(shot).decode("ascii")
    except Exception as exc:
        state["page_error"] = f"{type(exc).__name__}: {exc}"[:500]
    return state


def main() -> int:
    try:
        config = json.loads(sys.stdin.readline())
        asyncio.run(run(config))
    except Exception as exc:
        traceback.print_exc()
        emit({"type": "error", "error": f"{type(exc).__name__}: {exc}"})
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
