"""BrowserArena: a browser-use agent on the open web or on the project's local failure-mode sites.

One env class, :class:`BrowserArenaEnv`, registered with four task lists (:data:`~personal_envs.browserarena.tasks.
TASK_LISTS`): ``BrowserArena-Open-v0`` (any task text; allowed origins configurable; the open web where the machine
has it) and the three failure modes of the paper on the local web (:mod:`personal_envs.browserarena.web`),
``-Captcha-v0``, ``-PopupBanner-v0`` and ``-DirectNavigation-v0``, with the paper's task-set sizes.  What differs
between them (site set-up, extra actions, the rule judge) lives in the task classes
(:mod:`personal_envs.browserarena.tasks`).

Observation (``Dict``): ``task``, ``url``, ``title``, ``tabs`` (one ``[id] title-less url`` a line), ``elements``
(the numbered element list with the text between elements, browser-use style), ``action_result`` (what the last
actions returned: extracted text, search API results, ...), ``screenshot`` (viewport with index labels, when
enabled) and ``last_action_error``.  Actions: :data:`~personal_envs.browserarena.actions.BROWSERUSE_ACTION_SPECS`
(plus the tasks' extra actions) one at a time, or a browser-use agent output with several actions and the agent's
state (see :mod:`personal_envs.browserarena.actions`).  The browser-use log of the episode is
:attr:`BrowserArenaEnv.browser_trace` and the labelled screenshots are :attr:`BrowserArenaEnv.frames` (the arena
writes them as JSON and GIF).  ``render="text"`` runs the local task lists without Chromium
(:mod:`personal_envs.browserarena.text_driver`; no screenshot, no frames).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from personal_envs.browser.session import BrowserSession
from personal_envs.browserarena.actions import (
    BROWSERUSE_ACTION_SPECS,
    AgentOutput,
    decode_step,
    looks_like_agent_output,
    parse_agent_output,
)
from personal_envs.browserarena.dom import PageIndex
from personal_envs.browserarena.driver import ActionOutcome, BrowserUseDriver, UseDriverBase
from personal_envs.browserarena.external import ExternalStep, action_record
from personal_envs.browserarena.extraction import resolve_extractor
from personal_envs.browserarena.judges.llm import make_trace_judge
from personal_envs.browserarena.tasks import MAX_TASK_CHARS, ArenaTask, resolve_tasks
from personal_envs.browserarena.text_driver import TextUseDriver
from personal_envs.browserarena.text_scripts import ArenaScript
from personal_envs.browserarena.web import LocalWeb, build_local_web, hosts
from personal_envs.browserarena.web_access import page_state, step_errors
from personal_envs.browserarena.world import ArenaWorld
from personal_envs.core.actions import Action, ActionError, safe_repr
from personal_envs.core.env import MAX_ERROR_CHARS, PersonalEnv, StepResult
from personal_envs.core.errors import InputError
from personal_envs.core.spaces import UnicodeText
from personal_envs.textmode.session import TextSession

MAX_URL_CHARS = 8192
MAX_ELEMENTS_CHARS = 30_000
MAX_RESULT_CHARS = 20_000
MAX_TABS_CHARS = 20_000
#: Frames kept per episode for the GIF (the first and the latest ones when an episode runs longer).
MAX_FRAMES = 80
#: ``render`` values: Chromium shows the pages, or the text mode computes the element list without a browser.
RENDERS = ("browser", "text")
LOCAL_SEARCH_URL = f"http://{hosts.SEARCH_HOST}/search?q={{query}}"
OPEN_SEARCH_URL = "https://www.google.com/search?q={query}&udm=14"

#: What the browser showed after a step: the element index, the labelled screenshot, the tabs and the active tab.
_View = tuple[PageIndex, np.ndarray | None, tuple[str, ...], int]


class BrowserArenaEnv(PersonalEnv):
    """BrowserArena on one task list.

    Args:
        tasks: A task list name (``"open"``, ``"captcha"``, ``"banner"``, ``"trivia"``), task objects, or open-web
            task texts / ``{"text", "start_url"}`` dicts (default: three open-web tasks).  For open tasks,
            ``reset(options={"task": ..., "start_url": ...})`` runs a custom task for one episode.
        max_steps: Agent steps per episode (browser-use's default run length is 15 steps).
        viewport: Browser viewport ``(width, height)``; the screenshot has this size.
        screenshot: Include the labelled screenshot in observations (and record GIF frames).
        allowed_origins: Origins pages may load (``None``: no restriction); see :class:`BrowserSession`.
        max_wait_s: Cap of one ``wait`` / ``wait_for_element`` action in seconds (browser-use waits the full time;
            tests use 0).
        navigation_timeout_s: Limit of one navigation.
        search_url: ``search_google`` target with ``{query}``; defaults to the local engine or Google.
        extraction_model: ``extract_content``'s model: ``"auto"`` (the chat endpoint of ``$OPENAI_BASE_URL`` when
            set), ``None`` (the page's raw text, labelled as not extracted), a base URL or a chat client.
        files_dir: Folder for ``save_pdf`` / ``save_html_to_file`` (default: a temporary folder, deleted by
            :meth:`close`).
        trace_judge: ``"rules"`` (default) or the paper's LLM trace judge (``"llm"``, ``{"base_url", "model"}``
            or a chat client); its labels replace the rule labels in the metrics (kept in ``rule_labels``).
        render: ``"browser"`` (default): Chromium shows the pages.  ``"text"``: no browser; the local sites answer
            in-process and the element list is computed from the pages they render
            (:mod:`personal_envs.browserarena.text_driver`).  The local task lists only; no screenshot (the
            observation has no ``screenshot`` key; ``screenshot=True`` is refused).
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}

    def __init__(
        self,
        tasks: str | Sequence[str | Mapping[str, str] | ArenaTask] | None = None,
        *,
        max_steps: int = 15,
        viewport: tuple[int, int] = (1280, 720),
        screenshot: bool | None = None,
        allowed_origins: Sequence[str] | None = None,
        max_wait_s: float = 3.0,
        navigation_timeout_s: float = 15.0,
        search_url: str | None = None,
        render_mode: str | None = None,
        extraction_model: Any = "auto",
        files_dir: str | None = None,
        trace_judge: Any = None,
        render: str = "browser",
    ) -> None:
        task_list = resolve_tasks(tasks)
        if not task_list:
            raise InputError("BrowserArena needs at least one task")
        if render not in RENDERS:
            raise InputError(f"render must be one of {RENDERS}, got {render!r}")
        if render == "text":
            if screenshot:
                raise InputError("render='text' has no screenshots: leave screenshot unset or False")
            if not all(task.local_web for task in task_list):
                raise InputError("render='text' runs the local sites only (the captcha, banner and trivia task "
                                 "lists), not the open web")
        self.render_backend = render
        extra = {spec.name: spec for task in task_list for spec in task.extra_actions}
        super().__init__(BROWSERUSE_ACTION_SPECS + tuple(extra.values()), max_steps=max_steps,
                         render_mode=render_mode)
        self.action_space.decoder = functools.partial(decode_step, specs=self._spec_by_name)  # picklable
        self.tasks: list[ArenaTask] = task_list
        self.uses_local_web = any(task.local_web for task in task_list)
        self.viewport = (int(viewport[0]), int(viewport[1]))
        self.include_screenshot = render == "browser" if screenshot is None else bool(screenshot)
        self.allowed_origins = list(allowed_origins) if allowed_origins is not None else None
        self.max_wait_s = float(max_wait_s)
        self.navigation_timeout_s = float(navigation_timeout_s)
        self.search_url = search_url or (LOCAL_SEARCH_URL if self.uses_local_web else OPEN_SEARCH_URL)
        self.extractor = resolve_extractor(extraction_model)
        self.files_dir = files_dir
        observation: dict[str, spaces.Space[Any]] = {
            "task": UnicodeText(MAX_TASK_CHARS),
            "url": UnicodeText(MAX_URL_CHARS),
            "title": UnicodeText(2000),
            "tabs": UnicodeText(MAX_TABS_CHARS),
            "elements": UnicodeText(MAX_ELEMENTS_CHARS),
            "action_result": UnicodeText(MAX_RESULT_CHARS),
            "last_action_error": UnicodeText(MAX_ERROR_CHARS),
        }
        if self.include_screenshot:
            observation["screenshot"] = spaces.Box(0, 255, (self.viewport[1], self.viewport[0], 3), np.uint8)
        self.observation_space = spaces.Dict(observation)
        self.world = ArenaWorld()
        self.world.trace_judge = make_trace_judge(trace_judge)
        self.task: ArenaTask = self.tasks[0]
        self.frames: list[np.ndarray] = []
        self._action_result = ""
        self._view: _View | None = None
        self._tabs: list[str] = []
        self._step_record: dict[str, Any] | None = None
        self._external_driver: object | None = None
        self._closed = False

    # ------------------------------------------------------------------------------------------ world
    @property
    def web(self) -> LocalWeb | None:
        """The local sites (``None`` on the open web or before the first reset)."""
        return self.world.web

    @property
    def session(self) -> BrowserSession | TextSession | None:
        """The browser session, or the text session in the text mode (``None`` before the first reset)."""
        return self.world.session

    @property
    def driver(self) -> UseDriverBase | None:
        """The browser-use driver (``None`` before the first reset)."""
        return self.world.driver

    @property
    def browser_trace(self) -> dict[str, Any]:
        """The browser-use log of the current episode (JSON-ready; what the judges and the arena read)."""
        return self.world.log(self.trace)

    def _ensure_browser(self) -> None:
        if self._closed:
            raise RuntimeError("the env is closed")
        world = self.world
        if self.uses_local_web and world.web is None:
            world.web = build_local_web()
        if self.render_backend == "text":
            self._ensure_text_session()
            return
        if world.web is not None and not world.web.running:
            world.web.start()  # first start, or a stopped server brought back on its port
        if world.session is None or world.session.closed:
            context_options: dict[str, Any] = {}
            if world.web is not None:
                context_options["proxy"] = {"server": world.web.proxy_url}
            world.session = BrowserSession(viewport=self.viewport, allowed_origins=self.allowed_origins,
                                           navigation_timeout_s=self.navigation_timeout_s,
                                           context_options=context_options)
            world.driver = BrowserUseDriver(world.session, search_url=self.search_url,
                                            local_hosts_http=self.uses_local_web, max_wait_s=self.max_wait_s,
                                            extractor=self.extractor, files_dir=self.files_dir)
        else:
            world.session.reset()

    def _ensure_text_session(self) -> None:
        world = self.world
        assert world.web is not None
        if world.session is None or world.session.closed:
            session = TextSession({}, viewport=self.viewport, allowed_origins=self.allowed_origins,
                                  scripts=[ArenaScript()], fallback=world.web)
            world.session = session
            world.driver = TextUseDriver(session, search_url=self.search_url, local_hosts_http=True,
                                         max_wait_s=self.max_wait_s, extractor=self.extractor,
                                         files_dir=self.files_dir)
        else:
            world.session.reset()

    def close(self) -> None:
        """Close the browser context and stop the local web server (idempotent)."""
        self._closed = True
        if self.world.driver is not None:
            self.world.driver.remove_temporary_files()
        if self.world.session is not None:
            self.world.session.close()
            self.world.session = self.world.driver = None
        if self.world.web is not None:
            self.world.web.close()
            self.world.web = None
        super().close()

    # ------------------------------------------------------------------------------------------ hooks
    @property
    def num_tasks(self) -> int:
        return len(self.tasks)

    def _reset_task(self, task_index: int, options: dict[str, Any]) -> dict[str, Any]:
        self.task = self.tasks[task_index].customised(options)
        self._ensure_browser()
        self._action_result = ""
        self.frames = []
        self._step_record = None
        info = self.task.setup(self.world, self.np_random)
        self.last_action_error = self._look(str(info.get("start_error", "")))[:MAX_ERROR_CHARS]
        return info

    def accept_external_steps(self, driver: object | None) -> None:
        """Let ``driver`` hand the env :class:`~personal_envs.browserarena.external.ExternalStep` objects: steps an
        agent ran in its own browser on the same sites (browser-use's own Agent), recorded like the env's own.
        ``None`` withdraws the permission."""
        self._external_driver = driver

    def _run_action(self, raw: Any) -> StepResult:
        record = self._step_record = {"step": self.steps, "brain": {}, "actions": []}
        if isinstance(raw, ExternalStep):
            result = self._run_external(raw, record)
            result.record = {**result.record, **record}
            return result
        if raw is not None and not isinstance(raw, (dict, str)):
            record["raw"] = safe_repr(raw)
        if not looks_like_agent_output(raw):
            result = super()._run_action(raw)
        else:
            try:
                output = parse_agent_output(raw, self._spec_by_name)
            except ActionError as exc:
                result = StepResult(error=str(exc))
            else:
                result = self._guarded(lambda: self._run_output(output), output.actions[0].name)
        result.error = self._look(result.error)
        result.record = {**result.record, **record}
        return result

    def _run_external(self, step: ExternalStep, record: dict[str, Any]) -> StepResult:
        if self._external_driver is None or step.driver is not self._external_driver:
            return StepResult(error="external steps are accepted only from the driver given to "
                                    "accept_external_steps()")
        record["brain"] = {key: str(value) for key, value in step.brain.items()}
        record["actions"] = [action_record(action) for action in step.actions]
        record.update({key: value for key, value in step.extra.items() if key not in record})
        state = {"url": step.url, "title": step.title, "captcha": bool(step.captcha), "banner": bool(step.banner),
                 "tabs": list(step.tabs), "active_tab": int(step.active_tab),
                 "page": page_state(step.url, step_errors(record["actions"]))}
        record.update(state)
        image = step.screenshot
        shape = (self.viewport[1], self.viewport[0], 3)
        if self.include_screenshot and image is not None and image.shape == shape:
            self._keep_frame(image)
        index = PageIndex(url=step.url, title=step.title, captcha=bool(step.captcha), banner=bool(step.banner),
                          rendered="(this step ran in the agent's own browser)")
        self._view = (index, image if image is not None and image.shape == shape else None, tuple(step.tabs),
                      int(step.active_tab))
        self._tabs = list(step.tabs)
        self._action_result = "\n".join(str(a.get("result", "")) for a in step.actions
                                         if a.get("result"))[:MAX_RESULT_CHARS]
        result = StepResult(error=step.error[:MAX_ERROR_CHARS])
        if step.answer is not None:
            self.trace.answer = step.answer
            result.record["success_claimed"] = bool(step.success)
            result.terminated = True
        elif step.stop:  # the agent gave up (its own step loop ended without done)
            result.record["agent_stopped"] = True
            result.terminated = True
        return result

    def _execute(self, action: Action) -> StepResult:
        return self._run_output(AgentOutput({}, [action]))

    def _run_output(self, output: AgentOutput) -> StepResult:
        record = self._step_record
        assert record is not None and self.driver is not None
        record["brain"] = dict(output.brain)
        results: list[str] = []
        errors: list[str] = []
        result = StepResult()
        total = len(output.actions)
        for position, action in enumerate(output.actions, start=1):
            url_before = self.driver.index.url
            tabs_before = self._tab_count()
            outcome = self._apply(action)
            url_after = self.world.session.url if self.world.session is not None else ""
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
                self.trace.answer = outcome.result
                result.record["success_claimed"] = bool(action.arguments.get("success", True))
                result.terminated = True
                break
            changed = url_after != url_before or self._tab_count() != tabs_before
            if changed and position < total:
                results.append(f"Page changed after action {position} / {total}; the remaining actions were "
                               "skipped because element indices may have changed.")
                break
        self._action_result = "\n".join(results)[:MAX_RESULT_CHARS]
        result.error = "; ".join(errors)
        return result

    def _apply(self, action: Action) -> ActionOutcome:
        assert self.driver is not None
        if action.name == "search_api":
            try:
                return ActionOutcome(result=self.world.search_api(str(action.arguments["query"])))
            except ActionError as exc:
                return ActionOutcome(error=str(exc))
        return self.driver.execute(action)

    def _look(self, error: str) -> str:
        """Observe the page after a step (kept for the observation and the step's record); returns the step's
        error, or the page's own error when the step had none."""
        if self.driver is None:
            return error
        index, image, tabs, active, page_error = self.driver.observe(screenshot=self.include_screenshot)
        self._view = (index, image, tabs, active)
        self._tabs = list(tabs)
        errors = step_errors(self._step_record["actions"]) if self._step_record is not None else [error]
        state = {"url": index.url, "title": index.title, "captcha": index.captcha, "banner": index.banner,
                 "tabs": list(tabs), "active_tab": active, "page": page_state(index.url, errors)}
        if self._step_record is not None:
            self._step_record.update(state)
        else:
            self.world.initial = state
        if self.include_screenshot and image is not None and image.shape == (*self.viewport[::-1], 3):
            self._keep_frame(image)
        if page_error and page_error not in error:  # e.g. a browser restart during a step that failed
            return "; ".join(p for p in (error, page_error) if p)
        return error

    def element_boxes(self) -> dict[str, tuple[float, float, float, float]]:
        """Viewport boxes ``(x, y, width, height)`` of the current page's numbered elements (for trajectory viewers)."""
        if self.driver is None:
            return {}
        return {str(index): element.bbox for index, element in self.driver.index.element_map.items()}

    def _observation(self) -> dict[str, Any]:
        view, self._view = self._view, None
        if view is None and self.driver is not None:  # no step ran (the episode is over): look again
            index, image, tabs, active, _ = self.driver.observe(screenshot=self.include_screenshot)
            view = (index, image, tabs, active)
        if view is None:  # before the first reset (never handed to an agent)
            obs: dict[str, Any] = {key: "" for key in ("task", "url", "title", "tabs", "elements", "action_result")}
            if self.include_screenshot:
                obs["screenshot"] = np.zeros((self.viewport[1], self.viewport[0], 3), np.uint8)
            return obs
        index, image, tabs, active = view
        tab_lines = "\n".join(f"[{i}]{' (active)' if i == active else ''} {url}" for i, url in enumerate(tabs))
        obs = {
            "task": self.task.text[:MAX_TASK_CHARS],
            "url": index.url[:MAX_URL_CHARS],
            "title": index.title[:2000],
            "tabs": tab_lines[:MAX_TABS_CHARS],
            "elements": index.rendered[:MAX_ELEMENTS_CHARS],
            "action_result": self._action_result[:MAX_RESULT_CHARS],
        }
        if self.include_screenshot:
            shape = (self.viewport[1], self.viewport[0], 3)
            obs["screenshot"] = image if image is not None and image.shape == shape else np.zeros(shape, np.uint8)
        return obs

    def _keep_frame(self, frame: np.ndarray) -> None:
        self.frames.append(frame)
        if len(self.frames) > MAX_FRAMES:
            del self.frames[1]

    def _tab_count(self) -> int:
        if self.world.driver is None:
            return 0
        try:
            return self.world.driver.tab_count()
        except Exception:
            return len(self._tabs)

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self._last_obs is None:
            return None
        obs = self._last_obs
        return "\n".join(f"{key}: {obs[key]}" for key in ("task", "url", "title", "tabs", "elements",
                                                           "action_result", "last_action_error") if obs.get(key))
