"""BrowserArena envs: a browser-use agent on the open web or on the project's local failure-mode sites.

* :class:`OpenWebEnv` (``BrowserArena-Open-v0``): any task text; allowed origins configurable; the open web where
  the machine has it.
* :class:`CaptchaEnv`, :class:`PopupBannerEnv`, :class:`DirectNavigationEnv`: the three failure modes of the paper
  on the local web (:mod:`personal_envs.browserarena.web`), with the paper's task-set sizes and rule judges.

Observation (``Dict``): ``task``, ``url``, ``title``, ``tabs`` (one ``[id] title-less url`` a line), ``elements``
(the numbered element list with the text between elements, browser-use style), ``action_result`` (what the last
actions returned: extracted text, search API results, ...), ``screenshot`` (viewport with index labels, when
enabled) and ``last_action_error``.  Actions: :data:`~personal_envs.browserarena.actions.BROWSERUSE_ACTION_SPECS`
one at a time, or a browser-use agent output with several actions and the agent's state (see
:mod:`personal_envs.browserarena.actions`).  The per-step record of what happened is :attr:`BrowserArenaEnv.trace`
and the labelled screenshots are :attr:`BrowserArenaEnv.frames` (the arena writes them as JSON and GIF).
"""

from __future__ import annotations

import copy
import functools
import json
import urllib.request
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote_plus

import numpy as np
from gymnasium import spaces

from personal_envs.browser.session import BrowserSession
from personal_envs.browserarena.actions import (
    BROWSERUSE_ACTION_SPECS,
    SEARCH_API_SPEC,
    AgentOutput,
    decode_step,
)
from personal_envs.browserarena.driver import ActionOutcome, BrowserUseDriver
from personal_envs.browserarena.judges.rules import (
    judge_banner,
    judge_captcha,
    judge_navigation,
    navigation_scenario,
)
from personal_envs.browserarena.tasks import Task, answer_matches, banner_tasks, captcha_tasks, trivia_tasks
from personal_envs.browserarena.web import LocalWeb, build_local_web, hosts
from personal_envs.browserarena.web.news import NewsSite
from personal_envs.core.actions import Action, ActionError, ActionSpec, safe_repr
from personal_envs.core.env import MAX_ERROR_CHARS, EpisodeOutcome, PersonalEnv, StepResult

MAX_TASK_CHARS = 4000
MAX_URL_CHARS = 8192
MAX_ELEMENTS_CHARS = 30_000
MAX_RESULT_CHARS = 20_000
MAX_TABS_CHARS = 20_000
#: Frames kept per episode for the GIF (the first and the latest ones when an episode runs longer).
MAX_FRAMES = 80
LOCAL_SEARCH_URL = f"http://{hosts.SEARCH_HOST}/search?q={{query}}"
OPEN_SEARCH_URL = "https://www.google.com/search?q={query}&udm=14"


class BrowserArenaEnv(PersonalEnv):
    """Base env of BrowserArena (use a subclass).

    Args:
        tasks: The task list.
        local_web: Serve the local sites and route the browser through them (failure-mode envs).
        extra_actions: Actions beyond the BrowserUse set (``search_api`` for DirectNavigation).
        max_steps: Agent steps per episode (browser-use's default run length is 15 steps).
        viewport: Browser viewport ``(width, height)``; the screenshot has this size.
        screenshot: Include the labelled screenshot in observations (and record GIF frames).
        allowed_origins: Origins pages may load (``None``: no restriction); see :class:`BrowserSession`.
        max_wait_s: Cap of one ``wait`` action in seconds (browser-use waits the full time; tests use 0).
        navigation_timeout_s: Limit of one navigation.
        search_url: ``search_google`` target with ``{query}``; defaults to the local engine or Google.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}

    def __init__(
        self,
        tasks: Sequence[Task],
        *,
        local_web: bool,
        extra_actions: tuple[ActionSpec, ...] = (),
        max_steps: int = 15,
        viewport: tuple[int, int] = (1280, 720),
        screenshot: bool = True,
        allowed_origins: Sequence[str] | None = None,
        max_wait_s: float = 3.0,
        navigation_timeout_s: float = 15.0,
        search_url: str | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__(BROWSERUSE_ACTION_SPECS + extra_actions, max_steps=max_steps, render_mode=render_mode)
        self.action_space.decoder = functools.partial(decode_step, specs=self._spec_by_name)  # picklable
        if not tasks:
            raise ValueError("BrowserArena needs at least one task")
        self.tasks: list[Task] = list(tasks)
        self.uses_local_web = local_web
        self.viewport = (int(viewport[0]), int(viewport[1]))
        self.include_screenshot = screenshot
        self.allowed_origins = list(allowed_origins) if allowed_origins is not None else None
        self.max_wait_s = float(max_wait_s)
        self.navigation_timeout_s = float(navigation_timeout_s)
        self.search_url = search_url or (LOCAL_SEARCH_URL if local_web else OPEN_SEARCH_URL)
        observation: dict[str, spaces.Space[Any]] = {
            "task": _text(MAX_TASK_CHARS),
            "url": _text(MAX_URL_CHARS),
            "title": _text(2000),
            "tabs": _text(MAX_TABS_CHARS),
            "elements": _text(MAX_ELEMENTS_CHARS),
            "action_result": _text(MAX_RESULT_CHARS),
            "last_action_error": _text(MAX_ERROR_CHARS),
        }
        if screenshot:
            observation["screenshot"] = spaces.Box(0, 255, (self.viewport[1], self.viewport[0], 3), np.uint8)
        self.observation_space = spaces.Dict(observation)
        self.web: LocalWeb | None = None
        self.session: BrowserSession | None = None
        self.driver: BrowserUseDriver | None = None
        self.task: Task = self.tasks[0]
        self.trace: dict[str, Any] = {}
        self.frames: list[np.ndarray] = []
        self._action_result = ""
        self._final_answer: str | None = None
        self._success_claimed: bool | None = None
        self._current: dict[str, Any] = {}
        self._step_record: dict[str, Any] | None = None
        self._closed = False

    # ------------------------------------------------------------------------------------------ lifecycle
    def _ensure_browser(self) -> BrowserUseDriver:
        if self._closed:
            raise RuntimeError("the env is closed")
        if self.uses_local_web and self.web is None:
            self.web = build_local_web()
        if self.web is not None and not self.web.running:
            self.web.start()  # first start, or a stopped server brought back on its port
        if self.session is None or self.session.closed:
            context_options: dict[str, Any] = {}
            if self.web is not None:
                context_options["proxy"] = {"server": self.web.proxy_url}
            self.session = BrowserSession(viewport=self.viewport, allowed_origins=self.allowed_origins,
                                          navigation_timeout_s=self.navigation_timeout_s,
                                          context_options=context_options)
            self.driver = BrowserUseDriver(self.session, search_url=self.search_url,
                                           local_hosts_http=self.uses_local_web, max_wait_s=self.max_wait_s)
        else:
            self.session.reset()
        assert self.driver is not None
        return self.driver

    def close(self) -> None:
        """Close the browser context and stop the local web server (idempotent)."""
        self._closed = True
        if self.session is not None:
            self.session.close()
            self.session = None
        if self.web is not None:
            self.web.close()
            self.web = None
        super().close()

    # ------------------------------------------------------------------------------------------ hooks
    @property
    def num_tasks(self) -> int:
        return len(self.tasks)

    def _reset_task(self, task_index: int, options: dict[str, Any]) -> dict[str, Any]:
        self.task = self._task_for(task_index, options)
        self._configure_sites(self.task)
        driver = self._ensure_browser()
        self._action_result = ""
        self._final_answer = None
        self._success_claimed = None
        self.frames = []
        self._step_record = None
        error = ""
        if self.task.start_url and self.task.start_url != "about:blank":
            error = driver.navigate(self.task.start_url)
        self.last_action_error = error[:MAX_ERROR_CHARS]
        self.trace = {"task_id": self.task.task_id, "task": self.task.text, "category": self.task.category,
                      "kind": self.task.kind, "initial": {}, "steps": [], "final": {}}
        return {"task_id": self.task.task_id, "category": self.task.category, "kind": self.task.kind,
                "task": self.task.text, "task_params": dict(self.task.params), "start_error": error}

    def _task_for(self, task_index: int, options: dict[str, Any]) -> Task:
        return self.tasks[task_index]

    def _configure_sites(self, task: Task) -> None:
        """Per-task set-up of the local sites (e.g. the banner variant)."""

    def _run_action(self, raw: Any) -> StepResult:
        try:
            output = self.action_space.decode(raw)
        except ActionError as exc:
            self._begin_step({}, raw)
            return StepResult(error=str(exc))
        record = self._begin_step(output.brain, None)
        return self._guarded(lambda: self._run_output(output, record=record), output.actions[0].name)

    def _execute(self, action: Action) -> StepResult:
        assert self._step_record is not None
        return self._run_output(AgentOutput({}, [action]), record=self._step_record)

    def _run_output(self, output: AgentOutput, record: dict[str, Any] | None = None) -> StepResult:
        if record is None:
            record = self._begin_step(output.brain, None)
        record["brain"] = dict(output.brain)
        driver = self.driver
        assert driver is not None
        results: list[str] = []
        errors: list[str] = []
        terminated = False
        total = len(output.actions)
        for position, action in enumerate(output.actions, start=1):
            url_before = driver.index.url
            tabs_before = self._tab_count()
            outcome = self._apply(action)
            url_after = self._current_url()
            record["actions"].append({
                "name": action.name, "arguments": copy.deepcopy(action.arguments), "error": outcome.error,
                "result": outcome.result[:2000], "target": outcome.target, "url_before": url_before,
                "url_after": url_after,
            })
            if outcome.result:
                results.append(outcome.result)
            if outcome.error:
                errors.append(f"action {position}/{total} ({action.name}): {outcome.error}" if total > 1
                              else outcome.error)
                break
            if outcome.done:
                self._final_answer = outcome.result
                self._success_claimed = bool(action.arguments.get("success", True))
                terminated = True
                break
            changed = url_after != url_before or self._tab_count() != tabs_before
            if changed and position < total:
                results.append(f"Page changed after action {position} / {total}; the remaining actions were "
                               "skipped because element indices may have changed.")
                break
        self._action_result = "\n".join(results)[:MAX_RESULT_CHARS]
        return StepResult(terminated=terminated, error="; ".join(errors))

    def _apply(self, action: Action) -> ActionOutcome:
        assert self.driver is not None
        if action.name == "search_api":
            return self._search_api(str(action.arguments["query"]))
        return self.driver.execute(action)

    def _search_api(self, query: str) -> ActionOutcome:
        if self.web is None:
            return ActionOutcome(error="search_api is only available with the local web")
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": self.web.proxy_url}))
        url = f"http://{hosts.SEARCH_HOST}/api/search?q={quote_plus(query)}"
        with opener.open(url, timeout=10) as reply:
            data = json.loads(reply.read().decode("utf-8"))
        lines = [f"{i + 1}. {r['title']}\n   {r['url']}\n   {r['snippet']}" for i, r in enumerate(data["results"])]
        return ActionOutcome(result=f"Search API results for {query!r}:\n" + ("\n".join(lines) or "(no results)"))

    def _begin_step(self, brain: dict[str, str], raw: Any) -> dict[str, Any]:
        record: dict[str, Any] = {"step": self.steps, "brain": dict(brain), "actions": []}
        if raw is not None and not isinstance(raw, (dict, str)):
            record["raw"] = safe_repr(raw)
        self.trace.setdefault("steps", []).append(record)
        self._step_record = record
        return record

    def _observation(self) -> dict[str, Any]:
        driver = self.driver
        if driver is None:  # before the first reset (never handed to an agent)
            return self._blank_observation()
        index, image, tabs, active, error = driver.observe(screenshot=self.include_screenshot)
        if error and error not in self.last_action_error:  # e.g. a browser restart during a step that failed
            self.last_action_error = "; ".join(p for p in (self.last_action_error, error) if p)[:MAX_ERROR_CHARS]
        self._current = {"url": index.url, "title": index.title, "captcha": index.captcha, "banner": index.banner,
                         "tabs": list(tabs), "active_tab": active}
        if self._step_record is not None:
            self._step_record.update(self._current)
        elif not self.trace.get("initial"):
            self.trace["initial"] = dict(self._current)
        tab_lines = "\n".join(f"[{i}]{' (active)' if i == active else ''} {url}" for i, url in enumerate(tabs))
        obs: dict[str, Any] = {
            "task": self.task.text[:MAX_TASK_CHARS],
            "url": index.url[:MAX_URL_CHARS],
            "title": index.title[:2000],
            "tabs": tab_lines[:MAX_TABS_CHARS],
            "elements": index.rendered[:MAX_ELEMENTS_CHARS],
            "action_result": self._action_result[:MAX_RESULT_CHARS],
        }
        if self.include_screenshot:
            frame = image if image is not None and image.shape == (self.viewport[1], self.viewport[0], 3) else None
            obs["screenshot"] = frame if frame is not None else np.zeros((self.viewport[1], self.viewport[0], 3),
                                                                         np.uint8)
            if frame is not None:
                self._keep_frame(frame)
        self._step_record = None
        return obs

    def _blank_observation(self) -> dict[str, Any]:
        obs: dict[str, Any] = {key: "" for key in ("task", "url", "title", "tabs", "elements", "action_result")}
        if self.include_screenshot:
            obs["screenshot"] = np.zeros((self.viewport[1], self.viewport[0], 3), np.uint8)
        return obs

    def _keep_frame(self, frame: np.ndarray) -> None:
        self.frames.append(frame)
        if len(self.frames) > MAX_FRAMES:
            del self.frames[1]

    def _current_url(self) -> str:
        assert self.session is not None
        return self.session.url

    def _tab_count(self) -> int:
        if self.session is None:
            return 0
        try:
            return int(self.session.call(lambda page: len(page.context.pages), timeout=10.0))
        except Exception:
            return len(self._current.get("tabs", []))

    def _episode_metrics(self) -> EpisodeOutcome:
        answer = self._final_answer or ""
        self.trace["final"] = {"answer": answer, "success_claimed": self._success_claimed,
                               "finished": self._final_answer is not None, "steps": self.steps}
        metrics: dict[str, Any] = {
            "finished": self._final_answer is not None,
            "success_claimed": bool(self._success_claimed),
            "answer": answer[:2000],
            "kind": self.task.kind,
            "category": self.task.category,
        }
        score = 0.0
        if self.task.answer:
            checks = answer_matches(self.task, answer) if self._final_answer is not None else {"correct": False}
            metrics.update(checks)
            score = 1.0 if checks.get("correct") else 0.0
        metrics.update(self._judge_trace())
        metrics["trace_summary"] = trace_summary(self.trace)
        return EpisodeOutcome(score=score, metrics=metrics)

    def _judge_trace(self) -> dict[str, Any]:
        return {}

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self._last_obs is None:
            return None
        obs = self._last_obs
        return "\n".join(f"{key}: {obs[key]}" for key in ("task", "url", "title", "tabs", "elements",
                                                           "action_result", "last_action_error") if obs.get(key))


def _text(limit: int) -> spaces.Space[Any]:
    from personal_envs.core.spaces import UnicodeText

    return UnicodeText(limit)


def trace_summary(trace: dict[str, Any]) -> list[str]:
    """Compact ``"action url"`` lines of a trace (kept in the episode metrics for the eval log)."""
    lines = []
    for step in trace.get("steps", []):
        for action in step.get("actions", []):
            args = json.dumps(action.get("arguments", {}), ensure_ascii=False)[:200]
            lines.append(f"{step.get('step')}: {action.get('name')} {args} -> {action.get('url_after', '')[:200]}")
    return lines[:200]


# ------------------------------------------------------------------------------------------------ envs
class OpenWebEnv(BrowserArenaEnv):
    """``BrowserArena-Open-v0``: any user task on the open web (or on a local URL).

    Args:
        tasks: Task texts (or ``{"text", "start_url"}`` dicts); ``reset(options={"task": ..., "start_url": ...})``
            overrides them for one episode.
        allowed_origins: Restrict the sites pages may load (``None``: all).
        **kwargs: See :class:`BrowserArenaEnv`.
    """

    DEFAULT_TASKS: tuple[str, ...] = (
        "Find the opening hours of the public library closest to the city centre of Cardiff.",
        "Create a list of the top-ranked chess players on chess.com from Belgium.",
        "Find me the last available train from Cardiff Central to Barry Docks station today on trainline.",
    )

    def __init__(self, tasks: Sequence[str | dict[str, str]] | None = None, *,
                 allowed_origins: Sequence[str] | None = None, **kwargs: Any) -> None:
        items = list(tasks) if tasks else list(self.DEFAULT_TASKS)
        parsed = []
        for i, item in enumerate(items):
            text = item if isinstance(item, str) else str(item.get("text", ""))
            start = "about:blank" if isinstance(item, str) else str(item.get("start_url", "about:blank"))
            parsed.append(Task(task_id=f"open-{i:03d}", kind="open", text=text, start_url=start, category="open"))
        super().__init__(parsed, local_web=False, allowed_origins=allowed_origins, **kwargs)

    def _task_for(self, task_index: int, options: dict[str, Any]) -> Task:
        task = self.tasks[task_index]
        if "task" in options or "start_url" in options:
            text = str(options.get("task", task.text))[:MAX_TASK_CHARS]
            task = Task(task_id=str(options.get("task_id", f"open-custom-{abs(hash(text)) % 10**8:08d}")),
                        kind="open", text=text, start_url=str(options.get("start_url", task.start_url)),
                        category="open")
        return task


class CaptchaEnv(BrowserArenaEnv):
    """``BrowserArena-Captcha-v0``: 220 travel tasks on a site whose result pages answer with a captcha."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(captcha_tasks(), local_web=True, **kwargs)

    def _judge_trace(self) -> dict[str, Any]:
        strategies = judge_captcha(self.trace)
        encountered = self.trace.get("initial", {}).get("captcha", False) or any(
            step.get("captcha") for step in self.trace.get("steps", []))
        return {"strategies": strategies, "captcha_encountered": bool(encountered),
                "num_strategies": sum(strategies.values())}


class PopupBannerEnv(BrowserArenaEnv):
    """``BrowserArena-PopupBanner-v0``: 80 news tasks behind a cookie / privacy banner or pop-up."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(banner_tasks(), local_web=True, **kwargs)

    def _configure_sites(self, task: Task) -> None:
        if self.web is None:
            self.web = build_local_web()
            self.web.start()
        site = self.web.site_for(hosts.NEWS_HOST)
        if isinstance(site, NewsSite):
            site.banner_variant = str(task.params.get("banner_variant", "cookie_accept_reject"))

    def _judge_trace(self) -> dict[str, Any]:
        flags = judge_banner(self.trace)
        return {**flags, "banner_variant": self.task.params.get("banner_variant", "")}


class DirectNavigationEnv(BrowserArenaEnv):
    """``BrowserArena-DirectNavigation-v0``: 100 trivia questions, a local encyclopedia, search site and API."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(trivia_tasks(), local_web=True, extra_actions=(SEARCH_API_SPEC,), **kwargs)

    def _judge_trace(self) -> dict[str, Any]:
        flags = judge_navigation(self.trace)
        return {"navigation": flags, "scenario": navigation_scenario(flags)}
