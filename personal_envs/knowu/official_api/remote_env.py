"""``backend="official"``: a KnowU env that drives a phone server through the official HTTP API.

The server is the official KnowU / MobileWorld image (``personal-envs backend up knowu`` where KVM exists) or our
own ``personal-envs knowu serve``.  Tasks are the server's (``/task/list``, filtered by the split's family tag),
goals come from ``/task/goal`` and scores from ``/task/eval``: nothing is scored on this side.  Observations have
the simulator's keys (``instruction``, ``ui_xml``, ``context``, ``logs``, ``user_reply``, ``last_action_error``,
``screenshot``) and actions its format, so a policy runs unchanged on either backend.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlencode

import numpy as np

from personal_envs.core.actions import Action, ActionError
from personal_envs.core.env import EpisodeOutcome, PersonalEnv, StepResult
from personal_envs.core.task import Check, Evaluation
from personal_envs.knowu.actions import KNOWU_ACTIONS, TERMINAL_ACTIONS
from personal_envs.knowu.env import MAX_TEXT_CHARS, MAX_XML_CHARS, phone_observation_space
from personal_envs.knowu.official_api.protocol import DEFAULT_DEVICE, SPLIT_TAG, to_official
from personal_envs.simulators.phone.geometry import SCREEN_HEIGHT, SCREEN_WIDTH


class ServerError(RuntimeError):
    """The phone server could not be reached or refused a request the episode needs."""


class KnowUServerEnv(PersonalEnv):
    """A KnowU split on a server speaking the official API.

    Args:
        family: ``"general"``, ``"personalized"`` or ``"proactive"`` (the server's tasks tagged ``general``,
            ``preference`` or ``routine``).
        server_url: The server's base URL (the official server listens on 6800).
        task: One official task name or several; default every task of the split the server lists.
        device: The device id the server drives.
        screenshot_scale: Scale of the screenshot observation (1.0: the device's 1080x2400).
        ui_hierarchy: Include the server's UI hierarchy XML in ``ui_xml``.
        timeout_s: Limit for one request (task initialisation can take minutes on a real emulator).
    """

    def __init__(self, family: str = "general", server_url: str = "http://127.0.0.1:6800",
                 task: str | Sequence[str] | None = None, device: str = DEFAULT_DEVICE, max_steps: int = 50,
                 screenshot: bool = True, screenshot_scale: float = 1 / 3, ui_hierarchy: bool = True,
                 timeout_s: float = 600.0, render_mode: str | None = None, **_: Any) -> None:
        super().__init__(KNOWU_ACTIONS, max_steps, render_mode=render_mode)
        if family not in SPLIT_TAG:
            raise ValueError(f"family must be one of {sorted(SPLIT_TAG)}, got {family!r}")
        self.split = split = family
        self.server_url, self.device = server_url.rstrip("/"), device
        self.timeout_s = timeout_s
        self.include_screenshot, self.ui_hierarchy = screenshot, ui_hierarchy
        self.screenshot_scale = screenshot_scale
        listed = self._call("GET", "/task/list")
        names = [entry["name"] for entry in listed if SPLIT_TAG[split] in entry.get("tags", [])]
        if task is not None:
            wanted = [task] if isinstance(task, str) else list(task)
            unknown = [name for name in wanted if name not in names]
            if unknown:
                raise ValueError(f"the server at {self.server_url} has no {split} task(s) {unknown}")
            names = wanted
        if not names:
            raise ValueError(f"the server at {self.server_url} lists no {split} tasks")
        self.task_names: list[str] = names
        self.task_set_label = f"server {self.server_url}"
        self.task: Any = None
        self.goal = ""
        self._actions: list[dict[str, Any]] = []
        self._screenshot: np.ndarray | None = None
        self._initialised = False
        width, height = round(SCREEN_WIDTH * screenshot_scale), round(SCREEN_HEIGHT * screenshot_scale)
        self._screen_shape = (height, width, 3)
        self.observation_space = phone_observation_space(self._screen_shape if screenshot else None)

    # ------------------------------------------------------------------------------------------ HTTP
    def _call(self, method: str, path: str, body: dict[str, Any] | None = None,
              query: dict[str, Any] | None = None) -> Any:
        url = f"{self.server_url}{path}" + (f"?{urlencode(query)}" if query else "")
        data = json.dumps(body).encode("utf-8") if body is not None else None
        request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                return json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode("utf-8", "replace")[:500]
            raise ServerError(f"{method} {path} -> HTTP {exc.code}: {detail}") from None
        except (urllib.error.URLError, OSError) as exc:
            raise ServerError(f"the phone server at {self.server_url} is not reachable ({exc}); start it "
                              "(personal-envs knowu serve, or personal-envs backend up knowu)") from None

    # ------------------------------------------------------------------------------------------ hooks
    @property
    def num_tasks(self) -> int:
        return len(self.task_names)

    def _reset_task(self, task_index: int, options: dict[str, Any]) -> dict[str, Any]:
        if not self._initialised:
            self._call("POST", "/init", {"device": self.device})
            self._initialised = True
        if self.task is not None:
            self._tear_down()
        self.task = self.task_names[task_index]
        self._call("POST", "/task/init", {"task_name": self.task, "req_device": self.device})
        self.goal = str(self._call("GET", "/task/goal", query={"task_name": self.task}))
        self._actions = []
        return {"task_id": self.task, "backend": "official", "server": self.server_url, "max_steps": self.max_steps}

    def _execute(self, action: Action) -> StepResult:
        flat = {"action_type": action.name, **action.arguments}
        self._actions.append(flat)
        try:
            answer = self._call("POST", "/step", {"device": self.device, "action": to_official(flat)})
        except ServerError as exc:
            raise ActionError(str(exc)) from None
        if action.name == "ask_user":
            self.user_reply = str(answer.get("result", ""))
        elif action.name == "status":
            return StepResult(terminated=True, record={"status": str(action.arguments.get("goal_status", ""))})
        return StepResult(terminated=action.name in TERMINAL_ACTIONS)

    def _observation(self) -> dict[str, Any]:
        obs: dict[str, Any] = {
            "instruction": self.goal[:MAX_TEXT_CHARS],
            "ui_xml": "",
            "context": f"official server {self.server_url}, device {self.device}; screen: {SCREEN_WIDTH}x"
                       f"{SCREEN_HEIGHT} pixels (actions use these), screenshot scale {self.screenshot_scale:.4g}",
            "logs": "",
            "user_reply": self.user_reply[:MAX_TEXT_CHARS],
        }
        if self.ui_hierarchy and self.task is not None:
            answer = self._call("GET", "/xml", query={"device": self.device, "mode": "uia", "return_content": "true"})
            obs["ui_xml"] = str(answer.get("content", ""))[:MAX_XML_CHARS]
        if self.include_screenshot:
            obs["screenshot"] = self._screen()
        return obs

    def _screen(self) -> np.ndarray:
        from PIL import Image

        height, width = self._screen_shape[:2]
        if self.task is None:
            return np.zeros((height, width, 3), np.uint8)
        answer = self._call("GET", "/screenshot", query={"device": self.device, "return_b64": "true"})
        image = Image.open(io.BytesIO(base64.b64decode(str(answer["b64_png"]).split(",")[-1]))).convert("RGB")
        if image.size != (width, height):
            image = image.resize((width, height))
        return np.asarray(image, dtype=np.uint8)

    def _episode_metrics(self) -> EpisodeOutcome:
        try:
            answer = self._call("GET", "/task/eval", {"task_name": self.task, "req_device": self.device,
                                                      "actions": self._actions})
            score, reason = float(answer.get("score", 0.0)), str(answer.get("reason", ""))
        except ServerError as exc:  # an unreachable evaluator is reported, never scored silently
            score, reason = 0.0, f"evaluation error: {exc}"
        self.evaluation = Evaluation(score, {"score": score, "success": float(score >= 1.0), "reason": reason},
                                     [Check("official server evaluation", score >= 1.0, reason)], reason)
        return EpisodeOutcome(score=score, metrics={**self.evaluation.metrics, "steps": self.steps})

    def _tear_down(self) -> None:
        with contextlib.suppress(ServerError):  # the next task's init resets the device anyway
            self._call("POST", "/task/tear_down", {"task_name": self.task, "req_device": self.device})

    def close(self) -> None:
        if self.task is not None and self._initialised:
            self._tear_down()
            self.task = None
        super().close()
