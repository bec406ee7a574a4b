"""``WebMall-v0``: comparison shopping across four shops in a real browser, scored as in the WebMall paper.

The env starts the four shops and the solution page on loopback (:class:`~personal_envs.webmall.server.ShopCluster`)
or uses the URLs of the original WooCommerce shops (``shop_urls``), opens a fresh Chromium context per episode on
the solution page, and drives it with BrowserGym-style actions: JSON actions, or the action strings AgentLab's agents
write (``click('11')``, ``fill('12', 'text')``; :mod:`personal_envs.browser.bgym_actions`).  The episode ends when the agent presses
"Submit Final Result" on the solution page (or reports the task infeasible), or after ``max_steps`` (50).
Scoring is the task's (:class:`~personal_envs.webmall.tasks.WebMallTask` over a
:class:`~personal_envs.webmall.world.WebMallWorld`); the env feeds the world the pages the browser shows and the
submission.

Observation modes (``observation_mode``): ``"axtree"``, ``"screenshot"`` (screenshot with set-of-marks),
``"axtree+screenshot"`` and ``"axtree+memory"`` (the paper's AX tree plus memory as AgentLab keeps it: any action
may carry a ``memory`` text, written in the same step, and the observation's ``memory`` lists what the agent wrote
so far, step by step).  The AX tree is BrowserGym's text by default (``axtree_format="browsergym"``: what
``flatten_axtree_to_str`` gave the paper's agents, ``visible`` / ``clickable`` tags, nothing clipped).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

from personal_envs.browser import BROWSER_ACTION_SPECS, BrowserHost, BrowserSession, PageObservation
from personal_envs.browser.bgym_actions import decode_browser_action
from personal_envs.browser.observation import ElementInfo
from personal_envs.browser.session import AXTREE_BACKENDS, AXTREE_FORMATS, AxTreeBackend, AxTreeFormat
from personal_envs.core.actions import Action, ActionSpec, Param
from personal_envs.core.download import data_home
from personal_envs.core.env import MAX_ERROR_CHARS, PersonalEnv, StepResult
from personal_envs.core.errors import InputError, MissingDataError
from personal_envs.core.spaces import UnicodeText
from personal_envs.core.task import Evaluation
from personal_envs.textmode.session import TextSession
from personal_envs.webmall.catalog import Catalog, find_product_csvs, load_catalog
from personal_envs.webmall.generator import generate_tasks
from personal_envs.webmall.official_dom import document_tree
from personal_envs.webmall.official_eval import PageSummary
from personal_envs.webmall.official_html import Node
from personal_envs.webmall.reconcile import reconcile_answer_slugs
from personal_envs.webmall.server import ShopCluster
from personal_envs.webmall.solution_page import is_solution_url, load_solution_texts, read_submission
from personal_envs.webmall.splits import SPLITS, TRAIN_SEED, train_tasks
from personal_envs.webmall.tasks import WebMallTask, find_task_file, load_official_tasks, select_tasks
from personal_envs.webmall.text_scripts import ShopScript, SolutionScript, submitted_text
from personal_envs.webmall.world import WebMallWorld

OBSERVATION_MODES: tuple[str, ...] = ("axtree", "screenshot", "axtree+screenshot", "axtree+memory")
#: ``scoring`` values: the official evaluator's rules (default) or the project's stricter ones.
SCORINGS: tuple[str, ...] = ("official", "strict")
#: ``render`` values: Chromium shows the pages, or the text mode computes the observation without a browser.
RENDERS: tuple[str, ...] = ("browser", "text")
MAX_AXTREE_CHARS = 1 << 20
MAX_MEMORY_CHARS = 20_000
MAX_INSTRUCTION_CHARS = 20_000
MAX_URL_CHARS = 8192

#: Longest memory one action may carry.
MAX_STEP_MEMORY_CHARS = 4000

#: The optional argument every action takes in ``"axtree+memory"`` mode (AgentLab's ``<memory>`` answer part).
MEMORY_PARAM = Param("string", "Optional: anything to remember for the next steps (URLs, prices, hints); shown in "
                     "every later observation. Written with this action, no extra step.", required=False,
                     max_length=MAX_STEP_MEMORY_CHARS)

#: Value of ``data_dir`` that forces the shipped catalog even if official data is in the cache.
SHIPPED = "shipped"

#: Longest wait a ``noop`` may ask for here (the browser allows more; 3 s is plenty for these pages).
MAX_NOOP_WAIT_MS = 3000

#: BrowserGym's ``pre_observation_delay`` (browsergym-core 0.14, the paper's runs): the longest wait for the page's
#: requests after an action.
BROWSERGYM_DELAY_S = 0.5


def _action_specs(memory: bool) -> tuple[ActionSpec, ...]:
    specs = tuple(
        ActionSpec.make("noop", spec.description, wait_ms=Param(
            "integer", "Milliseconds to wait.", required=False, minimum=0, maximum=MAX_NOOP_WAIT_MS))
        if spec.name == "noop" else spec
        for spec in BROWSER_ACTION_SPECS
    )
    if memory:
        specs = tuple(ActionSpec(spec.name, spec.description, (*spec.params, ("memory", MEMORY_PARAM)))
                      for spec in specs)
    return specs


def render_memories(memories: list[tuple[int, str]], limit: int = MAX_MEMORY_CHARS) -> str:
    """The memories written so far as AgentLab's prompt shows them (``## step i`` then ``<memory>``), newest kept
    when they exceed ``limit`` characters."""
    blocks = [f"## step {step}\n<memory>\n{text}\n</memory>" for step, text in memories]
    kept: list[str] = []
    size = 0
    for block in reversed(blocks):
        if size + len(block) + 1 > limit:
            break
        kept.append(block)
        size += len(block) + 1
    return "\n".join(reversed(kept))


def resolve_data_dir(data_dir: str | Path | None) -> Path | None:
    """The official data directory to use: ``data_dir``, else the fetch cache if it holds the files, else None."""
    if data_dir is not None:
        if str(data_dir) == SHIPPED:
            return None
        path = Path(data_dir).expanduser()
        if not path.is_dir():
            what = "is not a folder" if path.exists() else "does not exist"
            raise MissingDataError(f"WebMall data_dir {path} {what}; run 'personal-envs data fetch webmall' (or pass "
                                   f"data_dir='{SHIPPED}' for the catalog the project ships)")
        return path
    cached = data_home() / "webmall"
    if find_task_file(cached) is not None and find_product_csvs(cached) is not None:
        return cached
    return None


class WebMallEnv(PersonalEnv):
    """Four-shop comparison shopping (WebMall) on embedded or external shops.

    Args:
        task_set: ``"basic"``, ``"advanced"`` or ``"all"``.
        task_id: Restrict the env to one task (e.g. ``"Webmall_Find_Cheapest_Offer_Task3"``).
        data_dir: Directory with the official ``task_sets.json`` and ``webmall_1..4.csv``; default: the fetch cache
            when it holds them, else the shipped catalog with generated tasks; ``"shipped"`` forces the latter.
        tasks: ``"auto"`` (official when data is present, else generated), ``"official"`` or ``"generated"``.
        split: ``"test"`` (default): the tasks above; ``"train"``: generated tasks (seed ``7919 + generator_seed``,
            ``num_generated`` of them, default 1,500 before filtering) sharing no product, task text or buyer with
            them (:mod:`personal_envs.webmall.splits`).
        num_generated: Number of generated tasks (default: the official 91 per-category counts).
        generator_seed: Seed of the task generator.
        observation_mode: One of :data:`OBSERVATION_MODES`.
        max_steps: Step limit (50 in the paper).
        dense_reward: Per-step rewards.  With ``scoring="official"``: the weights of the official checkpoints each
            step reaches (answers 0.8, product-page visits and carts 0.2, as the official ``validate`` returns
            them).  With ``"strict"``: 0.2 x progress on product-page visits and carts during the episode and
            0.8 x answer F1 at the end.  The completion score stays in ``info["metrics"]["completed"]``.
        scoring: ``"official"`` (default): the official WebMall evaluator's rules, quirks included
            (:mod:`personal_envs.webmall.official_eval`); ``"strict"``: the project's stricter rules (normalised URL
            sets; carts and orders read from the shops' server state, :mod:`personal_envs.webmall.evaluator`).
        shop_urls: Origins of the four original WooCommerce shops; no embedded shop is started then.
            ``"docker"`` (or ``"docker:<deployment>"``) reads them from the deployment that
            ``personal-envs backend up webmall`` started on the local Docker engine.  Needs the official task data
            (refused otherwise: generated tasks' answers do not exist on the original shops), unless
            ``tasks="generated"`` says that the shops serve the shipped catalog.
        viewport: Browser viewport ``(width, height)``.
        navigation_timeout_s: Limit for a page to load.
        axtree_format: ``"browsergym"`` (default: BrowserGym's ``flatten_axtree_to_str`` text with AgentLab's WebMall
            settings, as the paper's agents read it) or ``"compact"`` (names clipped, no ``visible`` / ``clickable``
            tags; fewer tokens).
        axtree_backend: How the AX tree is built (see :class:`~personal_envs.browser.BrowserSession`): ``"cdp"``
            or ``"auto"`` (Chromium's own tree, the one BrowserGym agents see) or ``"dom"`` (one DOM walk).  Default:
            ``"dom"`` on the embedded shops, where it gives the same text as Chromium's tree on every page type
            (``tests/webmall/test_axtree_backends.py``) at under half the cost; ``"auto"`` on external shops.
        render_mode: ``None`` or ``"ansi"``.
        host: Browser host (default: the process-wide shared one).
        pre_observation_delay: What happens between an action and the observation.  BrowserGym (the paper's
            runs) sleeps ``pre_observation_delay`` = 0.5 s after every action, so an in-place "Add to cart" shows
            its "View cart" link and the new count.  ``None`` (default): wait instead until the fetch/XHR requests
            the page sent are answered and handled, at most 0.5 s (the same page as BrowserGym's whenever the
            page's script finishes within 0.5 s, without the fixed cost on every step); a number: sleep that many
            seconds after every action, as BrowserGym does.
        render: ``"browser"`` (default): Chromium shows the pages.  ``"text"``: no browser; the shops answer
            in-process and the observation is computed from the pages the shops render
            (:mod:`personal_envs.textmode`): the same BrowserGym AX-tree text apart from layout-dependent tags
            (README, "Text mode"), at RL speed.  Embedded shops only, ``axtree_format="browsergym"``, no screenshot
            (the observation space has no ``screenshot`` key, and the screenshot modes are refused).
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        task_set: str = "all",
        task_id: str | None = None,
        data_dir: str | Path | None = None,
        tasks: str = "auto",
        num_generated: int | None = None,
        generator_seed: int = 0,
        observation_mode: str = "axtree",
        max_steps: int = 50,
        dense_reward: bool = False,
        shop_urls: list[str] | str | None = None,
        viewport: tuple[int, int] = (1280, 720),
        navigation_timeout_s: float = 10.0,
        axtree_backend: AxTreeBackend | None = None,
        axtree_format: AxTreeFormat = "browsergym",
        render_mode: str | None = None,
        host: BrowserHost | None = None,
        scoring: str = "official",
        pre_observation_delay: float | None = None,
        render: str = "browser",
        split: str = "test",
    ) -> None:
        if render not in RENDERS:
            raise InputError(f"render must be one of {RENDERS}, got {render!r}")
        if render == "text":
            if "screenshot" in observation_mode:
                raise InputError("render='text' has no screenshots: use observation_mode 'axtree' or 'axtree+memory'")
            if shop_urls is not None:
                raise InputError("render='text' runs the embedded shops only (no shop_urls)")
            if axtree_format != "browsergym":
                raise InputError("render='text' writes BrowserGym's AX-tree text only (axtree_format='browsergym')")
        self.render_backend = render
        if scoring not in SCORINGS:
            raise InputError(f"scoring must be one of {SCORINGS}, got {scoring!r}")
        if observation_mode not in OBSERVATION_MODES:
            raise InputError(f"observation_mode must be one of {OBSERVATION_MODES}, got {observation_mode!r}")
        if tasks not in ("auto", "official", "generated"):
            raise InputError(f"tasks must be 'auto', 'official' or 'generated', got {tasks!r}")
        self.observation_mode = observation_mode
        self.use_axtree = "axtree" in observation_mode
        self.use_screenshot = "screenshot" in observation_mode
        self.use_marks = observation_mode == "screenshot"
        self.use_memory = observation_mode == "axtree+memory"
        super().__init__(_action_specs(self.use_memory), max_steps=max_steps, render_mode=render_mode)
        # BrowserGym action strings (``click('11')``) as AgentLab's agents write them, besides JSON actions
        self.action_space.decoder = functools.partial(decode_browser_action, specs=self._spec_by_name)

        official_dir = resolve_data_dir(data_dir)
        if tasks == "official" and official_dir is None:
            raise MissingDataError("tasks='official' needs the official data: pass data_dir= or run "
                                    "'personal-envs data fetch webmall'")
        if shop_urls is not None and official_dir is None and tasks == "auto":
            raise InputError("shop_urls needs the official task data (generated tasks' answers do not exist on the "
                             "original shops): pass data_dir= or run 'personal-envs data fetch webmall' "
                             "(tasks='generated' for shops that serve the shipped catalog)")
        self.catalog: Catalog = load_catalog(official_dir)
        if official_dir is not None and tasks != "generated":
            all_tasks = load_official_tasks(official_dir)
            self.data_quirks, self.unresolved_references = reconcile_answer_slugs(self.catalog, all_tasks)
        else:
            all_tasks = generate_tasks(self.catalog, num_generated, seed=generator_seed)
            self.data_quirks, self.unresolved_references = [], []
        if split not in SPLITS:
            raise InputError(f"split must be one of {SPLITS}, got {split!r}")
        if split == "train":  # generated tasks sharing no product, text or buyer with the test set (webmall/splits.py)
            all_tasks = train_tasks(self.catalog, all_tasks, num_generated, seed=TRAIN_SEED + generator_seed)
        self.split = split
        self.tasks: list[WebMallTask] = select_tasks(all_tasks, task_set, task_id)
        self.task_set = task_set
        self.dense = dense_reward
        self.viewport = (int(viewport[0]), int(viewport[1]))
        self.navigation_timeout_s = navigation_timeout_s
        if axtree_backend is not None and axtree_backend not in AXTREE_BACKENDS:
            raise InputError(f"axtree_backend must be 'auto', 'cdp' or 'dom', got {axtree_backend!r}")
        self.axtree_backend: AxTreeBackend = axtree_backend or ("auto" if shop_urls else "dom")
        if axtree_format not in AXTREE_FORMATS:
            raise InputError(f"axtree_format must be 'browsergym' or 'compact', got {axtree_format!r}")
        self.axtree_format: AxTreeFormat = axtree_format
        if pre_observation_delay is not None and not 0 <= float(pre_observation_delay) <= 10:
            raise InputError(f"pre_observation_delay must be None or 0..10 seconds, got {pre_observation_delay!r}")
        self.pre_observation_delay = None if pre_observation_delay is None else float(pre_observation_delay)
        self._host = host

        obs_spaces: dict[str, spaces.Space[Any]] = {
            "instruction": UnicodeText(MAX_INSTRUCTION_CHARS),
            "url": UnicodeText(MAX_URL_CHARS),
            "open_tabs": UnicodeText(MAX_URL_CHARS * 4),
            "last_action_error": UnicodeText(MAX_ERROR_CHARS),
        }
        if self.use_axtree:
            obs_spaces["axtree"] = UnicodeText(MAX_AXTREE_CHARS)
        if self.use_screenshot:
            obs_spaces["screenshot"] = spaces.Box(0, 255, (self.viewport[1], self.viewport[0], 3), np.uint8)
        if self.use_memory:
            obs_spaces["memory"] = UnicodeText(MAX_MEMORY_CHARS)
        self.observation_space = spaces.Dict(obs_spaces)

        frontend = None
        if isinstance(shop_urls, str):
            shop_urls, frontend = _deployment_origins(shop_urls)
        #: The solution page's words: the official page's when the data (or the Docker deployment's folder) holds it.
        self.solution_texts = load_solution_texts(
            official_dir, data_home() / "webmall-docker" if data_dir is None else None)
        self.cluster = ShopCluster(self.catalog, shop_origins=shop_urls, solution_texts=self.solution_texts,
                                   solution_origin=frontend, serve=render != "text")
        self.world = WebMallWorld(self.cluster, scoring=scoring)
        self.scoring = scoring
        self._last_official_score = 0.0
        self.task: WebMallTask | None = None
        self.origins = self.cluster.origins()
        self.memories: list[tuple[int, str]] = []
        self._page: PageObservation | None = None
        #: The instruction shown, with the task it was filled for (filled once per task, not on every step).
        self._instruction: tuple[WebMallTask, str] | None = None
        self._paid_progress = 0.0
        self._closed = False

    # ------------------------------------------------------------------------------------------- properties
    @property
    def num_tasks(self) -> int:
        return len(self.tasks)

    @property
    def session(self) -> BrowserSession | TextSession | None:
        """The episode's browser session (``None`` before the first reset)."""
        return self.world.session

    @property
    def expected_urls(self) -> list[str]:
        """The current task's answer URLs (privileged: for oracles and tests, never shown to the agent)."""
        assert self.task is not None
        return self.task.expected_urls(self.origins)

    # ------------------------------------------------------------------------------------------------ hooks
    def parse(self, action: Any) -> Action:
        """Parse a JSON action or a BrowserGym action string (``fill('12', 'text')``; parsed, never run)."""
        return decode_browser_action(action, self._spec_by_name)

    def _ensure_session(self) -> BrowserSession | TextSession:
        session = self.world.session
        if self.render_backend == "text":
            if session is None or session.closed:
                allowed = [*self.cluster.shop_origins, self.cluster.solution_origin]
                session = self.world.session = TextSession(
                    self.cluster.sites(), viewport=self.viewport, allowed_origins=allowed,
                    scripts=[ShopScript(self.cluster.shop_origins), SolutionScript(self.cluster.solution_origin)])
            return session
        if session is None or session.closed:
            allowed = [*self.cluster.shop_origins, self.cluster.solution_origin]
            session = self.world.session = BrowserSession(
                self._host, viewport=self.viewport, allowed_origins=allowed,
                navigation_timeout_s=self.navigation_timeout_s, axtree_backend=self.axtree_backend,
                axtree_format=self.axtree_format,
                settle_s=BROWSERGYM_DELAY_S if self.pre_observation_delay is None else 0.0,
                fixed_delay_s=self.pre_observation_delay or 0.0,
            )
        return session

    def _reset_task(self, task_index: int, options: dict[str, Any]) -> dict[str, Any]:
        if self._closed:
            raise RuntimeError("the env is closed")
        self.task = self.tasks[task_index]
        self.cluster.ensure_running()
        info = self.task.setup(self.world, self.np_random)
        session = self._ensure_session()
        session.reset()
        self.memories = []
        self._paid_progress = 0.0
        self._last_official_score = 0.0
        error = session.goto(self.cluster.solution_origin + "/")
        self.last_action_error = self._look(error)[:MAX_ERROR_CHARS]
        return {**info, "task_set": self.task_set, "catalog": self.catalog.source}

    def _execute(self, action: Action) -> StepResult:
        self._page = None
        result = self._apply(action)
        result.error = self._look(result.error)
        if not result.terminated:
            self._read_submission(result)
        verdict_score = self._validate_official(action, result)
        if self.dense and self.scoring == "official":
            result.reward = self._last_official_score = verdict_score
        elif self.dense and not result.terminated:
            assert self.task is not None
            progress = self.task.signals(self.world, self.trace)["progress"]
            result.reward = max(0.0, progress - self._paid_progress)
            self._paid_progress = max(self._paid_progress, progress)
        return result

    def _apply(self, action: Action) -> StepResult:
        session = self._ensure_session()
        if "memory" in action.arguments:
            text = str(action.arguments["memory"])
            if text.strip():
                self.memories.append((self.steps - 1, text))
            action = Action(action.name, {k: v for k, v in action.arguments.items() if k != "memory"})
        if action.name == "report_infeasible":
            self.world.infeasible = True
            return StepResult(terminated=True, info={"infeasible": True})
        error = session.execute(action)
        if action.name == "send_msg_to_user" and "Done" not in str(action.arguments.get("text", "")):
            error = ("messages are not answers here: submit the result on the solution page "
                     f"{self.cluster.solution_origin}/ with 'Submit Final Result'" + (f"; {error}" if error else ""))
        return StepResult(error=error)

    def _read_submission(self, result: StepResult) -> None:
        """After a step on the solution page, the text it shows as submitted (as the official evaluator reads it:
        ``#submittedResult``, stripped); a non-empty one is the episode's answer and ends the episode."""
        session = self.world.session
        page_url = self._page.url if self._page is not None else ""
        if session is None or session.closed or not is_solution_url(page_url, self.cluster.solution_origin):
            return
        try:
            if isinstance(session, TextSession):
                text = submitted_text(session.page)
            else:
                text = str(session.call(read_submission, timeout=10.0))
        except Exception:  # noqa: BLE001 - an unreadable page shows no submission
            return
        if text:
            self.world.submission = self.trace.answer = text
            result.terminated = True
            result.info["submitted"] = True

    def _validate_official(self, action: Action, result: StepResult) -> float:
        """The official ``validate`` after this step: flag checkpoints from the page now shown, end the episode on a
        submission or a chat message containing "Done"; returns the weight flagged now."""
        episode = self.world.official
        session = self.world.session
        if episode is None:
            return 0.0
        page_url = self._page.url if self._page is not None else ""
        messages = session.messages if session is not None else []

        def html() -> str:
            if session is None or session.closed or not episode.needs_html(page_url):
                return ""
            if isinstance(session, TextSession):
                return session.page.html() if session.page is not None else ""
            try:
                return str(session.call(lambda page: page.content(), timeout=10.0))
            except Exception:  # noqa: BLE001 - an unreadable page shows no confirmation
                return ""

        # the text mode's document is read as it is: no need to write the page out and parse it back
        def summary() -> PageSummary:
            assert isinstance(session, TextSession) and session.page is not None
            return PageSummary(*session.page.class_names_and_links())

        def tree() -> Node | None:
            assert isinstance(session, TextSession) and session.page is not None
            return document_tree(session.page.document)

        in_text_mode = isinstance(session, TextSession) and not session.closed and session.page is not None
        submitted = self.world.submission if result.info.get("submitted") else None
        verdict = episode.validate(page_url, html, submitted=submitted, last_message=messages[-1] if messages else "",
                                   summary=summary if in_text_mode else None, tree=tree if in_text_mode else None)
        if verdict.done and not result.terminated:
            result.terminated = True
            result.info["done_message"] = True
        return verdict.score

    def _look(self, error: str) -> str:
        """Observe the page after an action (kept for the observation), remember it in the world, and return the
        action's error joined with any notice the page gave (a crash, a dialog, a blocked navigation)."""
        session = self.world.session
        if session is None or session.closed:
            return error
        page = self._page = session.observe(axtree=self.use_axtree, screenshot=self.use_screenshot,
                                            set_of_marks=self.use_marks)
        self.world.track_page(page.url)
        notice = page.error
        if session.last_error and notice.startswith(session.last_error):
            notice = notice[len(session.last_error):].lstrip("; ")  # the action's own error, already reported
        if notice and notice not in error:
            return f"{error}; {notice}" if error else notice
        return error

    def _instruction_text(self, task: WebMallTask) -> str:
        """The task's goal with the live origins, as the observation shows it."""
        if self._instruction is None or self._instruction[0] is not task:
            self._instruction = (task, task.goal(self.origins)[:MAX_INSTRUCTION_CHARS])
        return self._instruction[1]

    def _observation(self) -> dict[str, Any]:
        assert self.task is not None
        session = self.world.session
        obs: dict[str, Any] = {
            "instruction": self._instruction_text(self.task),
            "url": "",
            "open_tabs": "",
        }
        page, self._page = self._page, None
        if page is None and session is not None and not session.closed:  # no action ran: look again
            page = session.observe(axtree=self.use_axtree, screenshot=self.use_screenshot,
                                   set_of_marks=self.use_marks)
            self.world.track_page(page.url)
        if page is not None:
            obs["url"] = page.url[:MAX_URL_CHARS]
            tabs = "\n".join(f"{'*' if i == page.active_tab else ' '} [{i}] {url}" for i, url in enumerate(page.tabs))
            obs["open_tabs"] = tabs[: MAX_URL_CHARS * 4]
        self._page_elements: Mapping[str, ElementInfo] = page.elements if page is not None else {}
        if self.use_axtree:
            obs["axtree"] = (page.axtree if page is not None else "")[:MAX_AXTREE_CHARS]
        if self.use_screenshot:
            obs["screenshot"] = self._fit_screenshot(page.screenshot if page is not None else None)
        if self.use_memory:
            obs["memory"] = render_memories(self.memories)
        return obs

    def element_boxes(self) -> dict[str, tuple[float, float, float, float]]:
        """Viewport boxes ``(x, y, width, height)`` of the current page's elements by bid (for trajectory viewers)."""
        elements = getattr(self, "_page_elements", {})
        return {bid: element.bbox for bid, element in elements.items() if element.bbox is not None}

    def _fit_screenshot(self, image: np.ndarray | None) -> np.ndarray:
        height, width = self.viewport[1], self.viewport[0]
        canvas = np.zeros((height, width, 3), dtype=np.uint8)
        if image is not None and image.ndim == 3:
            h = min(height, image.shape[0])
            w = min(width, image.shape[1])
            canvas[:h, :w] = image[:h, :w, :3]
        return canvas

    # ------------------------------------------------------------------------------------------ dense reward
    def _unpaid_progress(self) -> tuple[float, float]:
        assert self.task is not None
        progress = self.task.signals(self.world, self.trace)["progress"]
        return progress, max(0.0, progress - self._paid_progress)

    def _evaluation_metrics(self, evaluation: Evaluation) -> dict[str, Any]:
        if not self.dense or self.task is None:
            return {}
        if self.scoring == "official" and self.world.official is not None:
            return {"dense_return": self.world.official.total}
        return {"dense_return": 0.8 * float(evaluation.metrics["f1"]) + self._unpaid_progress()[0]}

    def _final_reward(self, evaluation: Evaluation) -> float:
        """With ``dense_reward``, 0.8 x F1 plus the progress not paid yet (the completion score stays in
        ``info["metrics"]["completed"]``); otherwise the completion score."""
        if not self.dense or self.task is None:
            return float(evaluation.score)
        if self.scoring == "official":
            return self._last_official_score
        return 0.8 * float(evaluation.metrics["f1"]) + self._unpaid_progress()[1]

    # ----------------------------------------------------------------------------------------------- close
    def close(self) -> None:
        """Close the browser context and stop the shop servers (idempotent)."""
        if self._closed:
            return
        self._closed = True
        if self.world.session is not None:
            self.world.session.close()
            self.world.session = None
        self.cluster.close()
        super().close()


def _deployment_origins(shop_urls: str) -> tuple[list[str], str | None]:
    """The four shop origins of a running Docker deployment named by ``"docker"`` / ``"docker:<name>"``, and the
    origin of its solution page (the official frontend) when it runs."""
    kind, _, name = shop_urls.partition(":")
    if kind != "docker":
        raise InputError(f"shop_urls must be a list of four origins or 'docker[:<deployment>]', got {shop_urls!r}")
    from personal_envs.backends.deployment import running_container_origin, running_origins

    origins = running_origins(name or "webmall")
    if len(origins) != 4:
        raise InputError(f"the {name or 'webmall'} deployment has {len(origins)} shops running, WebMall needs 4")
    return origins, running_container_origin(name or "webmall", "WebMall_frontend")
