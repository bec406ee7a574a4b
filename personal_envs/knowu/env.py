"""``KnowUEnv``: a phone (simulated or Android) + a list of KnowU tasks + a simulated user, as a Gymnasium env.

One class serves every family: the 42 general classes, the 86 preference and the 64 routine variants, from an
official release or the package's embedded cards on a persona set (:mod:`personal_envs.knowu.official.resolve`;
``personas=``, ``profile=`` / ``logs=``, ``split="train"``).  Every task is a core :class:`~personal_envs.core.task.Task`
over a :class:`~personal_envs.knowu.task.PhoneWorld`: the env builds the world, lets the task seed it, drives the
backend and builds observations; the base env records the trace, routes ``ask_user`` to the simulated user and
scores the episode with ``task.evaluate``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from personal_envs.core.actions import Action, ActionError
from personal_envs.core.env import MAX_ERROR_CHARS, PersonalEnv, StepResult
from personal_envs.core.errors import InputError
from personal_envs.core.spaces import UnicodeText
from personal_envs.core.task import Evaluation, UserTurn
from personal_envs.knowu.actions import (
    KNOWU_ACTIONS,
    OFFICIAL_COORDINATE_ARGS,
    official_coordinate_actions,
    official_to_pixels,
)
from personal_envs.knowu.official.guard import redact, secret_values
from personal_envs.knowu.personas import PersonaSet
from personal_envs.knowu.task import PhoneBackend, PhoneTask, PhoneWorld
from personal_envs.simulators.phone.geometry import SCREEN_HEIGHT, SCREEN_WIDTH
from personal_envs.simulators.phone.phone import Phone
from personal_envs.simulators.phone.sim import DEVICE_ACTIONS
from personal_envs.simulators.users.base import SimulatedUser

#: Step limit of the paper.
MAX_STEPS = 50

#: The task families (the three ids).
FAMILIES: tuple[str, ...] = ("general", "personalized", "proactive")

MAX_XML_CHARS = 1_000_000
#: Simulated-user kinds the ``user=`` argument accepts by name.
USER_KINDS: frozenset[str] = frozenset({"profile", "llm"})
MAX_TEXT_CHARS = 200_000


def phone_observation_space(screenshot_shape: tuple[int, ...] | None) -> spaces.Dict:
    """The observation space of every KnowU env (any backend): text fields, plus the screenshot when its shape is
    given."""
    obs_spaces: dict[str, spaces.Space[Any]] = {
        "instruction": UnicodeText(MAX_TEXT_CHARS),
        "ui_xml": UnicodeText(MAX_XML_CHARS),
        "context": UnicodeText(MAX_ERROR_CHARS),
        "logs": UnicodeText(MAX_TEXT_CHARS),
        "user_reply": UnicodeText(MAX_TEXT_CHARS),
        "last_action_error": UnicodeText(MAX_ERROR_CHARS * 2),
    }
    if screenshot_shape is not None:
        obs_spaces["screenshot"] = spaces.Box(0, 255, screenshot_shape, np.uint8)
    return spaces.Dict(obs_spaces)


#: The persona splits: ``"test"`` (the official roles with a release, else the default personas) and ``"train"``
#: (generated personas, disjoint from both).
SPLITS: tuple[str, ...] = ("test", "train")
#: Generated personas of the train split unless ``train_personas=`` says otherwise.
TRAIN_PERSONAS = 64


def check_split(split: str) -> str:
    """``split`` if it is a persona split; an :class:`InputError` naming ``family=`` for a family name."""
    if split in FAMILIES:
        raise InputError(f"split={split!r} names a task family: pass family={split!r} (split= selects the personas: "
                         f"one of {SPLITS})")
    if split not in SPLITS:
        raise InputError(f"split must be one of {SPLITS}, got {split!r}")
    return split


def make_knowu_env(family: str = "general", backend: str = "sim", split: str = "test", **kwargs: Any) -> PersonalEnv:
    """The KnowU env for ``gym.make``: :class:`KnowUEnv` on the simulator or a device, or with ``backend="official"``
    :class:`~personal_envs.knowu.official_api.remote_env.KnowUServerEnv` on a server speaking the official API
    (``server_url=``)."""
    check_split(split)
    if backend == "official":
        from personal_envs.knowu.official_api.remote_env import KnowUServerEnv

        return KnowUServerEnv(family=family, **kwargs)
    return KnowUEnv(family=family, backend=backend, split=split, **kwargs)


#: ``render`` values: Chromium shows the phone, or the text mode computes its screen without a browser.
RENDERS: tuple[str, ...] = ("browser", "text")


def make_backend(
    backend: str, screenshot_scale: float, image_format: str, device_serial: str | None, share_browser: bool = False,
    render: str = "browser",
) -> PhoneBackend:
    """The phone for ``backend`` (``"sim"`` or ``"android"``); ``render="text"``: the simulator without Chromium."""
    if backend == "sim" and render == "text":
        from personal_envs.simulators.phone.sim import PhoneSimulator
        from personal_envs.simulators.phone.textscreen import TextScreen

        return PhoneSimulator(TextScreen(screenshot_scale=screenshot_scale))
    if backend == "sim":
        from personal_envs.browser.host import BrowserHost
        from personal_envs.simulators.phone.screen import PhoneScreen
        from personal_envs.simulators.phone.sim import PhoneSimulator

        host = BrowserHost.acquire() if share_browser else None
        return PhoneSimulator(PhoneScreen(host, screenshot_scale=screenshot_scale, image_format=image_format,
                                          release_host=share_browser))
    if backend == "android":
        from personal_envs.knowu.android import AndroidBackend

        return AndroidBackend(serial=device_serial, screenshot_scale=screenshot_scale)
    raise InputError(f"backend must be 'sim' or 'android', got {backend!r}")


def paper_preset(protocol: str | None, log_source: str, memory: str, screenshot: bool,
                 ui_hierarchy: bool | None, screenshot_scale: float | None = None,
                 image_format: str | None = None) -> dict[str, Any]:
    """The settings of ``protocol``: ``None`` keeps the arguments (a 360x800 JPEG screenshot unless given);
    ``"paper"`` is the paper's main setting (noisy logs with all memory or the official RAG, the official goal, the
    device's 1080x2400 PNG screenshot without the UI hierarchy unless ``ui_hierarchy=True``)."""
    if protocol is None:
        return {"log_source": log_source, "screenshot": screenshot,
                "ui_hierarchy": True if ui_hierarchy is None else ui_hierarchy,
                "screenshot_scale": 1 / 3 if screenshot_scale is None else screenshot_scale,
                "image_format": image_format or "jpeg"}
    if protocol != "paper":
        raise InputError(f"protocol must be None or 'paper', got {protocol!r}")
    if memory not in ("all", "rag"):
        raise InputError(f"memory must be 'all' or 'rag', got {memory!r}")
    return {"log_source": "noise", "screenshot": True, "ui_hierarchy": bool(ui_hierarchy),
            "screenshot_scale": 1.0 if screenshot_scale is None else screenshot_scale,
            "image_format": image_format or "png"}


class KnowUEnv(PersonalEnv):
    """KnowU-Bench on a phone.

    Args:
        family: ``"general"``, ``"personalized"`` or ``"proactive"``.
        split: The personas: ``"test"`` (default; the official roles when a release is found, else the default
            personas) or ``"train"`` (``train_personas`` generated personas from ``train_seed``, made on first use
            in the data cache and reused; disjoint from the test personas).  ``personas=`` replaces either.
        train_personas: Number of generated personas of the train split.
        train_seed: Seed of the train split's personas.
        task: A task id (or list of ids) to restrict the env to; ``None`` keeps the whole family.  Ids are the
            official class names: ``"BatterySaverGeneralTask"``, ``"X@persona"`` (``"WeekendSleeperTask@engineer"``);
            a bare preference / routine class selects it for every persona.
        profile: The persona of the personalized / proactive families: an id of the persona set (``"engineer"``)
            or a profile YAML in the official format (``logs=`` its log JSON); ``None``: every persona.
        logs: Path to the log JSON of a ``profile`` given as a file.
        log_source: ``"clean"`` or ``"noise"`` user logs (personalized / proactive).
        memory: ``"all"`` (full logs in the observation) or ``"rag"`` (the ``top_k`` most relevant entries).
        top_k: Entries retrieved with ``memory="rag"``.
        embedder: RAG similarity: ``"tfidf"`` (default) or ``"minilm"``.
        judge: Rubric judge for S_llm: ``"fallback"`` (deterministic, labelled in the metrics), ``"llm"`` (an
            OpenAI-compatible endpoint from the environment) or a judge object.
        backend: ``"sim"`` (embedded Chromium phone) or ``"android"`` (uiautomator2 device).
        screenshot: Include the screenshot in observations (False makes steps cheaper; default True, False with
            ``render="text"``).
        screenshot_scale: Screenshot size relative to 1080x2400 (default 1/3: 360x800, the page's native size; 0.5 or
            1.0 give sharper, slower captures; 1.0 under ``protocol="paper"``).
        image_format: ``"jpeg"`` or ``"png"`` capture (default ``"jpeg"``; ``"png"`` under ``protocol="paper"``).
        user: The simulated user: ``"profile"`` (the family's deterministic user, default), ``"llm"`` (the
            official LLM user protocol on an OpenAI-compatible endpoint), or a :class:`SimulatedUser` replacing it.
        data_dir: Directory with official data (personalized / proactive splits).
        device_serial: Android device serial (android backend).
        share_browser: Use the process-wide Chromium instead of one per env (``close`` then leaves it running).
        max_steps: Step limit (50 in the paper).
        render_mode: ``None``, ``"ansi"`` or ``"rgb_array"``.
        protocol: ``"paper"``: the paper's main setting (``log_source="noise"``, the given ``memory``, the official
            goal as ``instruction`` (a preference variant's with its logs, ``logs`` then empty), 1080x2400 PNG
            screenshots, ``ui_xml`` empty unless ``ui_hierarchy=True``); ``None``: the arguments as given.
        ui_hierarchy: Include the UI hierarchy in ``ui_xml`` (default True; False under ``protocol="paper"``).
        coords: ``"pixels"`` (default: ``x``, ``y`` in screen pixels) or ``"official"`` (the official agents'
            convention: ``coordinate`` ``[x, y]`` in 0..999 of the screen, converted as they convert it).
        render: ``"browser"`` (default): the simulator's screen in Chromium.  ``"text"``: no browser; the same
            ``ui_xml`` and touch handling computed in Python (:mod:`personal_envs.simulators.phone.textscreen`),
            no screenshot (``screenshot`` defaults to False and True is refused).
        task_set: ``"official"`` (the official variants of a release, by official name), ``"embedded"`` (the
            official classes on the package's embedded cards) or ``None``: official when a release is found
            (``data_dir``, ``$PERSONAL_ENVS_DATA``, the ``personal-envs data fetch knowu`` cache), else embedded
            (:mod:`personal_envs.knowu.official.resolve`).
        personas: A persona set for the official classes (personalized / proactive): a folder in the official
            layout (``user_profile/<id>.yaml`` + ``user_logs/``, e.g. ``personal-envs knowu generate`` output) or
            ``"default"``; the release's classes when one is found, else the embedded cards.
    """

    #: Pixel space of the actions' coordinates (the screenshot is scaled from it; viewers scale actions back).
    coordinate_space: tuple[int, int] = (SCREEN_WIDTH, SCREEN_HEIGHT)

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}
    #: ``ask_user`` hands the turn to the simulated user (see :meth:`PersonalEnv.set_simulated_user`).
    user_turn_actions: frozenset[str] = frozenset({"ask_user"})

    def __init__(
        self,
        family: str = "general",
        task: str | Sequence[str] | None = None,
        profile: str | os.PathLike[str] | None = None,
        logs: str | os.PathLike[str] | None = None,
        log_source: str = "clean",
        memory: str = "all",
        top_k: int = 10,
        embedder: str = "tfidf",
        judge: Any = "fallback",
        backend: str = "sim",
        screenshot: bool | None = None,
        screenshot_scale: float | None = None,
        image_format: str | None = None,
        user: SimulatedUser | str | None = None,
        data_dir: str | None = None,
        device_serial: str | None = None,
        share_browser: bool = False,
        max_steps: int = MAX_STEPS,
        render_mode: str | None = None,
        tasks: Sequence[PhoneTask] | None = None,
        task_set: str | None = None,
        protocol: str | None = None,
        ui_hierarchy: bool | None = None,
        coords: str = "pixels",
        render: str = "browser",
        personas: str | os.PathLike[str] | PersonaSet | None = None,
        split: str = "test",
        train_personas: int = TRAIN_PERSONAS,
        train_seed: int = 0,
    ) -> None:
        if family not in FAMILIES:
            raise InputError(f"family must be one of {sorted(FAMILIES)}, got {family!r}")
        #: ``"test"`` or ``"train"`` (see the ``split`` argument).
        self.split = check_split(split)
        #: ``"general"``, ``"personalized"`` or ``"proactive"``.
        self.family = family
        if split == "train" and personas is None and tasks is None:
            if isinstance(train_personas, bool) or not isinstance(train_personas, int) or train_personas < 1:
                raise InputError(f"train_personas must be a positive integer, got {train_personas!r}")
            from personal_envs.knowu.personas import generated_personas

            personas = generated_personas(train_personas, train_seed)
        if coords not in ("pixels", "official"):
            raise InputError(f"coords must be 'pixels' or 'official', got {coords!r}")
        if render not in RENDERS:
            raise InputError(f"render must be one of {RENDERS}, got {render!r}")
        if render == "text" and (screenshot or protocol is not None or backend != "sim" or
                                 render_mode == "rgb_array"):
            raise InputError("render='text' runs the embedded phone (backend='sim') without screenshots: drop "
                             "screenshot=True, protocol='paper' and render_mode='rgb_array'")
        screenshot = render != "text" if screenshot is None else screenshot
        #: ``"browser"`` or ``"text"`` (see the ``render`` argument).
        self.render_backend = render
        #: How actions give screen positions: ``"pixels"`` (x, y of the 1080x2400 screen) or ``"official"``
        #: (``coordinate`` [x, y] in 0..999, as the official agents give them).
        self.coords = coords
        super().__init__(official_coordinate_actions() if coords == "official" else KNOWU_ACTIONS, max_steps,
                         render_mode=None)
        preset = paper_preset(protocol, log_source, memory, screenshot, ui_hierarchy, screenshot_scale, image_format)
        log_source, screenshot = preset["log_source"], preset["screenshot"]
        screenshot_scale, image_format = preset["screenshot_scale"], preset["image_format"]
        #: Whether observations carry the UI hierarchy (``ui_xml``; the official agents get the screenshot only).
        self.ui_hierarchy: bool = preset["ui_hierarchy"]
        self.protocol = protocol
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InputError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.render_mode = render_mode
        if log_source not in ("clean", "noise"):
            raise InputError(f"log_source must be 'clean' or 'noise', got {log_source!r}")
        if memory not in ("all", "rag"):
            raise InputError(f"memory must be 'all' or 'rag', got {memory!r}")
        official = None
        if tasks is None:
            from personal_envs.knowu.official.resolve import resolve_official

            official = resolve_official(family, task, profile=profile, logs=logs, data_dir=data_dir,
                                        task_set=task_set, log_source=log_source, memory=memory, top_k=top_k,
                                        embedder=embedder, judge=judge, personas=personas)
        all_tasks: Sequence[PhoneTask] = list(tasks) if tasks is not None else official  # type: ignore[assignment]
        if tasks is not None and task is not None:  # given tasks, restricted by id
            known = {t.task_id: t for t in all_tasks}
            wanted = [task] if isinstance(task, str) else list(task)
            missing = [w for w in wanted if w not in known]
            if missing:
                raise InputError(f"unknown task id(s) {missing}; known ids: {', '.join(known)}")
            all_tasks = [known[w] for w in wanted]
        if not all_tasks:
            raise InputError("KnowUEnv needs at least one task")
        #: The episodes' tasks (official variants are built on first use: see
        #: :class:`~personal_envs.knowu.official.resolve.LazyVariants`).
        self.tasks: Sequence[PhoneTask] = all_tasks
        #: The task set that runs (records and tables print it).
        self.task_set_label: str = all_tasks[0].task_set
        self.include_screenshot = screenshot
        self.backend: PhoneBackend = make_backend(backend, screenshot_scale, image_format, device_serial, share_browser,
                                                  render)
        if backend == "android" and official is not None:  # the official image's packages and keyboard route
            from personal_envs.knowu.official.android_apps import official_packages
            from personal_envs.knowu.official.release import find_release

            release = find_release(data_dir)
            if release is not None:
                self.backend.packages = official_packages(str(release.root))  # type: ignore[attr-defined]
                self.backend.adb_keyboard = True  # type: ignore[attr-defined]
                self.backend.official_root = str(release.root)  # type: ignore[attr-defined]
        if isinstance(user, str) and user not in USER_KINDS:
            raise InputError(f"user must be one of {sorted(USER_KINDS)} or a SimulatedUser, got {user!r}")
        self._custom_user = user
        self.user: SimulatedUser = user if isinstance(user, SimulatedUser) else self.tasks[0].make_user()
        self._secrets: list[str] = []  # the episode profile's identity secrets, kept out of every reply
        self.task: PhoneTask = self.tasks[0]
        self.world = PhoneWorld(Phone(), self.backend)
        self._screenshot: np.ndarray | None = None
        self.observation_space = phone_observation_space(self.backend.screenshot_shape if screenshot else None)

    # --------------------------------------------------------------------------------------------- hooks
    @property
    def num_tasks(self) -> int:
        return len(self.tasks)

    def _reset_task(self, task_index: int, options: dict[str, Any]) -> dict[str, Any]:
        self.task = self.tasks[task_index]
        self.task.protocol = self.protocol  # the protocol's scoring (the routine consent parser reads it)
        self.world = PhoneWorld(Phone(now=self.task.start), self.backend)
        info = self.task.setup(self.world, self.np_random)
        self.user = self._make_user()  # the base env starts it with task.user_context(world)
        self._secrets = secret_values(self.task.user_profile())
        self.backend.reset(self.world.phone)
        place = self.task.gps_fix()
        if place is not None and getattr(self.backend, "official_root", None) is not None:
            self.backend.set_official_location(*place)  # type: ignore[attr-defined]
        info.update(task_index=task_index, backend=self.backend.name, max_steps=self.max_steps)
        return info

    def _execute(self, action: Action) -> StepResult:
        name, args = action.name, action.arguments
        if self.coords == "official" and name in OFFICIAL_COORDINATE_ARGS:
            try:
                args = official_to_pixels(name, args)
            except ValueError as exc:
                raise ActionError(str(exc)) from None
        if name in DEVICE_ACTIONS:
            self.backend.execute(name, args)
            return StepResult()
        if name == "answer":
            self.trace.answer = str(args.get("text", ""))
        elif name == "status":
            return StepResult(terminated=True, record={"status": str(args.get("goal_status", ""))})
        elif name != "finished":
            raise ActionError(f"action {name!r} is not supported by this env")
        return StepResult(terminated=True)

    def _observation(self) -> dict[str, Any]:
        screenshot, xml = self._observe_backend()
        context = self.backend.context()
        shape = self.backend.screenshot_shape
        extra = self.task.context_extra()
        context_text = (
            f"{context.get('text', '')}{'; ' + extra if extra else ''}; "
            + (f"screen: {SCREEN_WIDTH}x{SCREEN_HEIGHT} pixels (actions use these), " if self.coords == "pixels" else
               "positions: coordinate [x, y] in 0..999 of the screen, ")
            + f"screenshot scale {self.backend.screenshot_scale:.4g} ({shape[1]}x{shape[0]})"
        )
        instruction, logs = self.task.instruction, self.task.agent_logs()
        if self.protocol == "paper":  # the official goal; logs it already carries are not repeated
            instruction = self.task.official_goal()
            logs = "" if logs and logs in instruction else logs
        obs: dict[str, Any] = {
            "instruction": instruction,
            "ui_xml": xml[:MAX_XML_CHARS] if self.ui_hierarchy else "",
            "context": context_text[:MAX_ERROR_CHARS],
            "logs": logs[:MAX_TEXT_CHARS],
            "user_reply": self.user_reply[:MAX_TEXT_CHARS],
        }
        if self.include_screenshot:
            shape = self.backend.screenshot_shape
            self._screenshot = screenshot if screenshot is not None else np.zeros(shape, dtype=np.uint8)
            obs["screenshot"] = self._screenshot
        return obs

    def _observe_backend(self) -> tuple[np.ndarray | None, str]:
        """The backend's observation; a browser fault becomes part of ``last_action_error``, never an exception."""
        try:
            screenshot, xml = self.backend.observe(self.include_screenshot)
        except Exception as exc:  # the phone's browser could not be brought back: report it, keep the episode
            screenshot, xml = None, ""
            notice = f"the phone screen could not be observed: {type(exc).__name__}: {str(exc)[:300]}"
        else:
            take_notice = getattr(self.backend, "take_notice", None)
            notice = take_notice() if callable(take_notice) else ""
        if notice:
            joined = "; ".join(part for part in (self.last_action_error, notice) if part)
            self.last_action_error = joined[:MAX_ERROR_CHARS * 2]
        return screenshot, xml

    def _evaluation_metrics(self, evaluation: Evaluation) -> dict[str, Any]:
        return {"steps": self.steps}

    @property
    def phone(self) -> Phone:
        """The current episode's app state."""
        return self.world.phone

    @property
    def last_user_decision(self) -> str | None:
        """The user's decision (``"accept"`` / ``"reject"`` / ``None``) on the latest ``ask_user``."""
        dialogue = self.trace.dialogue
        return dialogue[-1].decision if dialogue else None

    def _after_user_turn(self, action: Action, turn: UserTurn) -> StepResult:
        """Every reply, an LLM user's included, reaches the agent (and the trace) without the profile's identity
        secrets (:mod:`~personal_envs.knowu.official.guard`); the user's own dialogue keeps its raw reply."""
        shown = redact(turn.reply, self._secrets)
        if shown != turn.reply:
            turn = dataclasses.replace(turn, reply=shown)
            self._step_turn, self.user_reply = turn, shown
        return super()._after_user_turn(action, turn)

    def _make_user(self) -> SimulatedUser:
        """The episode's simulated user: an installed one, a kind by name (the task's protocol for it), or the
        task's default."""
        if isinstance(self._custom_user, SimulatedUser):
            return self._custom_user
        user_of_kind = getattr(self.task, "user_of_kind", None)
        if isinstance(self._custom_user, str) and callable(user_of_kind):
            return user_of_kind(self._custom_user)
        return self.task.make_user()

    def set_simulated_user(self, user: Any) -> None:
        """Replace the simulated user for this and later episodes (the user-as-agent wrappers use this)."""
        super().set_simulated_user(user)
        self._custom_user = user

    # --------------------------------------------------------------------------------------------- extras
    def render(self) -> Any:
        """``"ansi"``: text parts of the observation; ``"rgb_array"``: the last screenshot."""
        if self.render_mode == "rgb_array":
            if self._screenshot is None:
                self._screenshot = self.backend.observe(True)[0]
            return self._screenshot
        if self.render_mode == "ansi":
            self.render_mode = "ansi"
            return super().render()
        return None

    def close(self) -> None:
        """Close the phone's page (the shared Chromium stays for other envs of the process until exit)."""
        self.backend.close()
        super().close()
