"""Runs browser-use's own ``Agent`` for one task and streams its steps as JSON lines (run in browser-use's venv).

This file is executed as a script by the Python of the browser-use virtualenv (see
:mod:`personal_envs.browserarena.browser_use_policy`); it imports only the standard library and browser-use 0.1.40
(with its langchain / Playwright dependencies), never ``personal_envs``, so the project's own dependency pins are
untouched.  Protocol:

* stdin, one JSON line: ``task``, ``start_url``, ``base_url``, ``model``, ``api_key``, ``max_steps``,
  ``use_vision``, ``max_actions_per_step``, ``tool_calling_method``, ``temperature``, ``proxy`` (the local web's
  proxy or ``null``), ``allowed_domains``, ``chromium``, ``chromium_args``, ``viewport``, ``detect_js`` (the
  project's indexing script, run only to read its ``captcha`` / ``banner`` flags), ``search_redirect`` (a URL
  template with ``{query}`` that Google searches are redirected to, for the local web);
* stdout, JSON lines: ``{"type": "step", ...}`` after every agent step (the agent's state, its actions with their
  results and the URL before and after each, what the page showed afterwards and a PNG screenshot in base64), then
  ``{"type": "end", ...}``; ``{"type": "error", "error": ...}`` if the run could not start.  Everything browser-use
  itself prints goes to stderr.

Telemetry is off (``ANONYMIZED_TELEMETRY=false`` before browser-use is imported).
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import sys
import traceback
from typing import Any
from urllib.parse import quote_plus

os.environ["ANONYMIZED_TELEMETRY"] = "false"
os.environ.setdefault("BROWSER_USE_LOGGING_LEVEL", "info")

_OUT = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
os.dup2(2, 1)  # browser-use logs to stdout: send it to stderr, keep the real stdout for the protocol
sys.stdout = sys.stderr

_GOOGLE_SEARCH = re.compile(r"^https?://(www\.)?google\.[a-z.]+/search\?")


def emit(message: dict[str, Any]) -> None:
    """Write one protocol line."""
    _OUT.write(json.dumps(message, ensure_ascii=False) + "\n")
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
        """browser-use's controller, noting the URL before and after every action it runs."""

        def __init__(self) -> None:
            super().__init__()
            self.log: list[dict[str, Any]] = []

        async def act(self, action: Any, browser_context: Any, *args: Any, **kwargs: Any) -> Any:
            before = await _page_url(browser_context)
            result = await super().act(action, browser_context, *args, **kwargs)
            self.log.append({"action": action.model_dump(exclude_unset=True), "url_before": before,
                             "url_after": await _page_url(browser_context)})
            return result

    width, height = (int(v) for v in config.get("viewport") or (1280, 720))
    context_config = BrowserContextConfig(browser_window_size={"width": width, "height": height},
                                          allowed_domains=config.get("allowed_domains") or None)
    proxy = {"server": config["proxy"]} if config.get("proxy") else None
    browser = LocalChromiumBrowser(BrowserConfig(headless=True, proxy=proxy,
                                                 extra_chromium_args=list(config.get("chromium_args") or []),
                                                 new_context_config=context_config))
    llm = ChatOpenAI(model=str(config["model"]), base_url=str(config["base_url"]),
                     api_key=str(config.get("api_key") or "not-needed"),
                     temperature=float(config.get("temperature", 0.0)), max_retries=1,
                     timeout=float(config.get("timeout", 120.0)))
    controller = RecordingController()
    start_url = str(config.get("start_url") or "")
    initial = [{"go_to_url": {"url": start_url}}] if start_url and start_url != "about:blank" else None
    agent = Agent(task=str(config["task"]), llm=llm, browser=browser, controller=controller,
                  use_vision=bool(config.get("use_vision", True)),
                  max_actions_per_step=int(config.get("max_actions_per_step", 10)),
                  tool_calling_method=config.get("tool_calling_method") or "auto",
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
            try:
                await agent.step(AgentStepInfo(step_number=step, max_steps=max_steps))
            except Exception as exc:  # browser-use's own error handler can fail (e.g. a missing optional import)
                emit({"type": "step", "step": step + 1, "brain": {}, "actions": [],
                      "error": f"browser-use step failed: {type(exc).__name__}: {exc}",
                      **await _page_state(agent.browser_context, detect_js)})
                agent.state.consecutive_failures += 1
                controller.log.clear()
                continue
            item = agent.state.history.history[-1] if len(agent.state.history.history) > before else None
            emit({"type": "step", "step": step + 1, **_step_record(item, controller.log),
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


def _unquote(text: str) -> str:
    from urllib.parse import unquote_plus

    return unquote_plus(text)


async def _page_url(browser_context: Any) -> str:
    try:
        page = await browser_context.get_current_page()
        return str(page.url)
    except Exception:
        return ""


def _step_record(item: Any, log: list[dict[str, Any]]) -> dict[str, Any]:
    """The agent's state and actions of one history item, each action with its result and URLs."""
    if item is None:
        return {"brain": {}, "actions": [], "error": "the step made no history entry"}
    brain: dict[str, str] = {}
    planned: list[dict[str, Any]] = []
    if item.model_output is not None:
        brain = {key: str(getattr(item.model_output.current_state, key, ""))
                 for key in ("evaluation_previous_goal", "memory", "next_goal")}
        planned = [a.model_dump(exclude_unset=True) for a in item.model_output.action]
    results = list(item.result or [])
    elements = list(getattr(item.state, "interacted_element", None) or [])
    actions = []
    for i, entry in enumerate(log):
        ((name, arguments),) = entry["action"].items() if len(entry["action"]) == 1 else (("?", entry["action"]),)
        result = results[i] if i < len(results) else None
        element = elements[i] if i < len(elements) else None
        target = ""
        if element is not None:
            attrs = " ".join(f'{k}="{v}"' for k, v in list((element.attributes or {}).items())[:4])
            target = f"<{element.tag_name}{' ' + attrs if attrs else ''}>"
        actions.append({
            "name": name, "arguments": arguments or {}, "error": str(getattr(result, "error", "") or ""),
            "result": str(getattr(result, "extracted_content", "") or "")[:2000], "target": target,
            "url_before": entry["url_before"], "url_after": entry["url_after"],
            "is_done": bool(getattr(result, "is_done", False)),
            "success": getattr(result, "success", None),
        })
    errors = [str(r.error) for r in results if getattr(r, "error", None)]
    return {"brain": brain, "planned": planned, "actions": actions, "error": "; ".join(errors)[:4000]}


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
