"""``WebMall-v0``: comparison shopping across four shops in a real browser, scored as in the WebMall paper.

The env starts the four shops and the solution page on loopback (:class:`~personal_envs.webmall.server.ShopCluster`)
or uses the URLs of the original WooCommerce shops (``shop_urls``), opens a fresh Chromium context per episode on
the solution page, and drives it with BrowserGym-style actions.  The episode ends when the agent presses
"Submit Final Result" on the solution page (or reports the task infeasible), or after ``max_steps`` (50).

Observation modes (``observation_mode``): ``"axtree"``, ``"screenshot"`` (screenshot with set-of-marks),
``"axtree+screenshot"`` and ``"axtree+memory"`` (the paper's AX tree plus a memory the agent writes with the
``update_memory`` action).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

from personal_envs.browser import BROWSER_ACTION_SPECS, BrowserHost, BrowserSession
from personal_envs.browser.session import AXTREE_BACKENDS, AxTreeBackend
from personal_envs.core.actions import Action, ActionSpec, Param
from personal_envs.core.download import data_home
from personal_envs.core.env import MAX_ERROR_CHARS, EpisodeOutcome, PersonalEnv, StepResult
from personal_envs.core.spaces import UnicodeText
from personal_envs.webmall.catalog import Catalog, find_product_csvs, html_to_text, load_catalog
from personal_envs.webmall.evaluator import (
    TaskScore,
    dense_reward,
    normalize_url,
    ordered_urls,
    parse_submission,
    score_found,
    score_string,
)
from personal_envs.webmall.generator import generate_tasks
from personal_envs.webmall.reconcile import reconcile_answer_slugs
from personal_envs.webmall.server import ShopCluster
from personal_envs.webmall.tasks import WebMallTask, find_task_file, load_official_tasks, select_tasks

OBSERVATION_MODES: tuple[str, ...] = ("axtree", "screenshot", "axtree+screenshot", "axtree+memory")
MAX_AXTREE_CHARS = 1 << 20
MAX_MEMORY_CHARS = 20_000
MAX_INSTRUCTION_CHARS = 20_000
MAX_URL_CHARS = 8192

MEMORY_SPEC = ActionSpec.make(
    "update_memory",
    "Replace the content of your memory (shown in every observation) with the given text.",
    text=Param("string", "New memory content.", max_length=MAX_MEMORY_CHARS),
)

#: Value of ``data_dir`` that forces the shipped catalog even if official data is in the cache.
SHIPPED = "shipped"

#: Longest wait a ``noop`` may ask for here (the browser allows more; 3 s is plenty for these pages).
MAX_NOOP_WAIT_MS = 3000


def _action_specs(memory: bool) -> tuple[ActionSpec, ...]:
    specs = tuple(
        ActionSpec.make("noop", spec.description, wait_ms=Param(
            "integer", "Milliseconds to wait.", required=False, minimum=0, maximum=MAX_NOOP_WAIT_MS))
        if spec.name == "noop" else spec
        for spec in BROWSER_ACTION_SPECS
    )
    return specs + ((MEMORY_SPEC,) if memory else ())


def resolve_data_dir(data_dir: str | Path | None) -> Path | None:
    """The official data directory to use: ``data_dir``, else the fetch cache if it holds the files, else None."""
    if data_dir is not None:
        if str(data_dir) == SHIPPED:
            return None
        path = Path(data_dir).expanduser()
        if not path.is_dir():
            raise FileNotFoundError(f"WebMall data_dir {path} does not exist; run 'personal-envs data fetch webmall'")
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
        num_generated: Number of generated tasks (default: the official 91 per-category counts).
        generator_seed: Seed of the task generator.
        observation_mode: One of :data:`OBSERVATION_MODES`.
        max_steps: Step limit (50 in the paper).
        dense_reward: Per-step shaping: 0.2 x progress on product-page visits and carts during the episode, and
            0.8 x answer F1 at the end (the final reward then is the remainder, not the completion score).
        shop_urls: Origins of the four original WooCommerce shops; no embedded shop is started then.
        viewport: Browser viewport ``(width, height)``.
        navigation_timeout_s: Limit for a page to load.
        axtree_backend: How the AX tree is built (see :class:`~personal_envs.browser.BrowserSession`): ``"cdp"``
            or ``"auto"`` (Chromium's own tree, the one BrowserGym agents see) or ``"dom"`` (one DOM walk).  Default:
            ``"dom"`` on the embedded shops, where it gives the same text as Chromium's tree on every page type
            (``tests/webmall/test_axtree_backends.py``) at under half the cost; ``"auto"`` on external shops.
        render_mode: ``None`` or ``"ansi"``.
        host: Browser host (default: the process-wide shared one).
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
        shop_urls: list[str] | None = None,
        viewport: tuple[int, int] = (1280, 720),
        navigation_timeout_s: float = 10.0,
        axtree_backend: AxTreeBackend | None = None,
        render_mode: str | None = None,
        host: BrowserHost | None = None,
    ) -> None:
        if observation_mode not in OBSERVATION_MODES:
            raise ValueError(f"observation_mode must be one of {OBSERVATION_MODES}, got {observation_mode!r}")
        if tasks not in ("auto", "official", "generated"):
            raise ValueError(f"tasks must be 'auto', 'official' or 'generated', got {tasks!r}")
        self.observation_mode = observation_mode
        self.use_axtree = "axtree" in observation_mode
        self.use_screenshot = "screenshot" in observation_mode
        self.use_marks = observation_mode == "screenshot"
        self.use_memory = observation_mode == "axtree+memory"
        super().__init__(_action_specs(self.use_memory), max_steps=max_steps, render_mode=render_mode)

        official_dir = resolve_data_dir(data_dir)
        if tasks == "official" and official_dir is None:
            raise FileNotFoundError("tasks='official' needs the official data: pass data_dir= or run "
                                    "'personal-envs data fetch webmall'")
        self.catalog: Catalog = load_catalog(official_dir)
        if official_dir is not None and tasks != "generated":
            all_tasks = load_official_tasks(official_dir)
            self.data_quirks, self.unresolved_references = reconcile_answer_slugs(self.catalog, all_tasks)
        else:
            all_tasks = generate_tasks(self.catalog, num_generated, seed=generator_seed)
            self.data_quirks, self.unresolved_references = [], []
        self.tasks: list[WebMallTask] = select_tasks(all_tasks, task_set, task_id)
        self.task_set = task_set
        self.dense = dense_reward
        self.viewport = (int(viewport[0]), int(viewport[1]))
        self.navigation_timeout_s = navigation_timeout_s
        if axtree_backend is not None and axtree_backend not in AXTREE_BACKENDS:
            raise ValueError(f"axtree_backend must be 'auto', 'cdp' or 'dom', got {axtree_backend!r}")
        self.axtree_backend: AxTreeBackend = axtree_backend or ("auto" if shop_urls else "dom")
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

        self.cluster = ShopCluster(self.catalog, shop_origins=shop_urls)
        self.session: BrowserSession | None = None
        self.task: WebMallTask | None = None
        self.origins = self.cluster.origins()
        self.memory = ""
        self.submission: str | None = None
        self.infeasible = False
        self._seen_urls: set[str] = set()
        self._order_pages: list[tuple[str, str]] = []
        self._paid_progress = 0.0
        self._closed = False

    # ------------------------------------------------------------------------------------------- properties
    @property
    def num_tasks(self) -> int:
        return len(self.tasks)

    @property
    def expected_urls(self) -> list[str]:
        """The current task's answer URLs (privileged: for oracles and tests, never shown to the agent)."""
        assert self.task is not None
        return self.task.expected_urls(self.origins)

    # ------------------------------------------------------------------------------------------------ hooks
    def _ensure_session(self) -> BrowserSession:
        if self.session is None or self.session.closed:
            allowed = [*self.cluster.shop_origins, self.cluster.solution_origin]
            self.session = BrowserSession(
                self._host, viewport=self.viewport, allowed_origins=allowed,
                navigation_timeout_s=self.navigation_timeout_s, axtree_backend=self.axtree_backend,
            )
        return self.session

    def _reset_task(self, task_index: int, options: dict[str, Any]) -> dict[str, Any]:
        if self._closed:
            raise RuntimeError("the env is closed")
        self.task = self.tasks[task_index]
        self.cluster.ensure_running()
        self.cluster.reset_state()
        session = self._ensure_session()
        session.reset()
        self.memory = ""
        self.submission = None
        self.infeasible = False
        self._seen_urls = set()
        self._order_pages = []
        self._paid_progress = 0.0
        error = session.goto(self.cluster.solution_origin + "/")
        self.last_action_error = error[:MAX_ERROR_CHARS]
        return {
            "task_id": self.task.task_id,
            "category": self.task.category,
            "split": self.task.split,
            "task_set": self.task_set,
            "task_source": self.task.source,
            "catalog": self.catalog.source,
            "solution_url": self.cluster.solution_origin + "/",
            "shop_urls": list(self.cluster.shop_origins),
        }

    def _execute(self, action: Action) -> StepResult:
        session = self._ensure_session()
        if action.name == "update_memory":
            self.memory = str(action.arguments["text"])
            return StepResult()
        if action.name == "report_infeasible":
            self.infeasible = True
            return StepResult(terminated=True, info={"infeasible": True})
        error = session.execute(action)
        if action.name == "send_msg_to_user":
            error = ("messages are not answers here: submit the result on the solution page "
                     f"{self.cluster.solution_origin}/ with 'Submit Final Result'" + (f"; {error}" if error else ""))
        latest = self.cluster.solution_state.latest()
        if latest is not None:
            self.submission = latest.text
            return StepResult(terminated=True, error=error, info={"submitted": True})
        reward = self._progress_reward() if self.dense else 0.0
        return StepResult(reward=reward, error=error)

    def _observation(self) -> dict[str, Any]:
        assert self.task is not None
        session = self.session
        obs: dict[str, Any] = {
            "instruction": self.task.goal(self.origins)[:MAX_INSTRUCTION_CHARS],
            "url": "",
            "open_tabs": "",
        }
        page = None
        if session is not None and not session.closed:
            page = session.observe(axtree=self.use_axtree, screenshot=self.use_screenshot,
                                   set_of_marks=self.use_marks)
            obs["url"] = page.url[:MAX_URL_CHARS]
            self._track_page(session, page.url)
            tabs = "\n".join(f"{'*' if i == page.active_tab else ' '} [{i}] {url}" for i, url in enumerate(page.tabs))
            obs["open_tabs"] = tabs[: MAX_URL_CHARS * 4]
            notice = page.error
            if session.last_error and notice.startswith(session.last_error):
                notice = notice[len(session.last_error):].lstrip("; ")  # the action's own error, already reported
            if notice and notice not in self.last_action_error:
                joined = f"{self.last_action_error}; {notice}" if self.last_action_error else notice
                self.last_action_error = joined[:MAX_ERROR_CHARS]
        if self.use_axtree:
            obs["axtree"] = (page.axtree if page is not None else "")[:MAX_AXTREE_CHARS]
        if self.use_screenshot:
            obs["screenshot"] = self._fit_screenshot(page.screenshot if page is not None else None)
        if self.use_memory:
            obs["memory"] = self.memory
        return obs

    def _fit_screenshot(self, image: np.ndarray | None) -> np.ndarray:
        height, width = self.viewport[1], self.viewport[0]
        canvas = np.zeros((height, width, 3), dtype=np.uint8)
        if image is not None and image.ndim == 3:
            h = min(height, image.shape[0])
            w = min(width, image.shape[1])
            canvas[:h, :w] = image[:h, :w, :3]
        return canvas

    # ------------------------------------------------------------------------------------------ evaluation
    def _track_page(self, session: BrowserSession, url: str) -> None:
        """Remember pages and order confirmations seen in the browser (used for external shops)."""
        if not url:
            return
        self._seen_urls.add(normalize_url(url))
        if self.cluster.external and re.search(r"/checkout/order-received/", url):
            try:
                text = session.call(lambda page: page.content(), timeout=10.0)
            except Exception:  # noqa: BLE001 - a failed read only loses evidence for an external shop
                text = ""
            self._order_pages.append((url, str(text)))

    def _carted_urls(self) -> set[str]:
        if not self.cluster.external:
            return {
                normalize_url(f"{origin}/product/{slug}")
                for origin, state in zip(self.cluster.shop_origins, self.cluster.states, strict=True)
                for slug in state.carted_slugs()
            }
        return self._external_cart_urls()

    def _external_cart_urls(self) -> set[str]:
        """Read each external shop's cart page through the episode's browser context (its cookies)."""
        session = self.session
        urls: set[str] = set()
        if session is None or session.closed:
            return urls
        for origin in self.cluster.shop_origins:
            def fetch(page: Any, origin: str = origin) -> str:
                response = page.context.request.get(origin.rstrip("/") + "/cart/", timeout=10_000)
                return str(response.text())
            try:
                html = session.call(fetch, timeout=15.0)
            except Exception:  # noqa: BLE001 - an unreachable shop has no cart to count
                continue
            for path in re.findall(r'href="(?:https?://[^/"]+)?(/product/[^"?#]+)', html):
                urls.add(normalize_url(origin.rstrip("/") + path))
        return urls

    def _ordered_urls(self) -> set[str]:
        assert self.task is not None
        if not self.cluster.external:
            orders = [
                (origin, order)
                for origin, state in zip(self.cluster.shop_origins, self.cluster.states, strict=True)
                for order in state.order_list()
            ]
            return {normalize_url(u) for u in ordered_urls(orders, self.task.user_details)}
        found: set[str] = set()
        details = self.task.user_details
        keys = ("name", "street", "house_number", "zip", "email")
        for url, html in self._order_pages:
            text = " ".join(html_to_text(html).lower().split())
            origin = re.match(r"https?://[^/]+", url)
            if origin is None or not all(details.get(k, "").lower() in text for k in keys):
                continue
            for path in re.findall(r'href="(?:https?://[^/"]+)?(/product/[^"?#]+)', html):
                found.add(normalize_url(origin.group(0) + path))
        return found

    def score_task(self) -> TaskScore:
        """Score the current episode's state against the answer key."""
        assert self.task is not None
        expected = self.expected_urls
        if self.task.requires_checkout:
            return score_found(self._ordered_urls(), expected)
        if self.task.requires_cart:
            return score_found(self._carted_urls(), expected)
        submitted = parse_submission(self.submission or "")
        if self.task.answer_type == "cart":  # typed "cart" but the text never asks for the cart: accept both
            wanted = {normalize_url(u) for u in expected}
            submitted = list(dict.fromkeys([*submitted, *(self._carted_urls() & wanted)]))
        return score_string(submitted, expected)

    def checkpoint_counts(self) -> tuple[int, int]:
        """``(answer product pages visited, answers in a cart)`` this episode (privileged: for reward shaping, never
        shown to the agent).  Carts count only for cart and checkout tasks."""
        if self.task is None:
            return 0, 0
        wanted = {normalize_url(url) for url in self.expected_urls}
        carted: set[str] = set()
        if self.task.requires_cart or self.task.requires_checkout:
            carted = self._carted_urls()
        return len(wanted & self._visited_urls()), len(wanted & carted)

    def _visited_urls(self) -> set[str]:
        """Product pages the shops served this episode plus every page seen in the browser (normalised)."""
        served = {normalize_url(f"{o}/product/{s}") for o, st in zip(self.cluster.shop_origins, self.cluster.states,
                                                                      strict=True) for s in st.visited_slugs()}
        return served | self._seen_urls

    def _progress(self) -> float:
        assert self.task is not None
        visited = self._visited_urls()
        uses_cart = self.task.requires_cart or self.task.requires_checkout
        carted = self._carted_urls() if uses_cart else set()
        if self.task.requires_checkout:
            carted |= self._ordered_urls()  # placing the order empties the cart
        return dense_reward(0.0, visited, carted, self.expected_urls, uses_cart)

    def _progress_reward(self) -> float:
        progress = self._progress()
        gain = max(0.0, progress - self._paid_progress)
        self._paid_progress = max(self._paid_progress, progress)
        return gain

    def _episode_metrics(self) -> EpisodeOutcome:
        assert self.task is not None
        result = self.score_task()
        metrics: dict[str, Any] = {
            **result.metrics(),
            "task_id": self.task.task_id,
            "category": self.task.category,
            "split": self.task.split,
            "answer_type": self.task.answer_type,
            "submitted": self.submission is not None,
            "infeasible": self.infeasible,
            "num_expected": len(self.task.answers),
        }
        score = float(result.completed)
        if self.dense:
            final_progress = self._progress()
            metrics["dense_return"] = 0.8 * result.f1 + final_progress
            score = 0.8 * result.f1 + max(0.0, final_progress - self._paid_progress)
        return EpisodeOutcome(score=score, metrics=metrics)

    # ----------------------------------------------------------------------------------------------- close
    def close(self) -> None:
        """Close the browser context and stop the shop servers (idempotent)."""
        if self._closed:
            return
        self._closed = True
        if self.session is not None:
            self.session.close()
            self.session = None
        self.cluster.close()
        super().close()
