"""``--policy browser-use``: the paper's agent, browser-use 0.1.40's own ``Agent``, on BrowserArena's tasks.

browser-use pins langchain and an older ``packaging`` than the project's environment has (installing it next to the
project downgrades ``packaging`` below what ``virtualenv`` / Ray need), so it lives in its own virtualenv
(``bash scripts/setup_browser_use.sh``; default ``~/.cache/personal-envs/browser-use-0.1.40``, or
``$PERSONAL_ENVS_BROWSER_USE_PYTHON`` naming that venv's Python).  For each episode the policy starts
:mod:`personal_envs.browserarena.browser_use_bridge` in that Python: browser-use's ``Agent`` with its own system
prompt, element indexing (its ``buildDomTree.js``), controller actions, vision (its labelled screenshots) and step
loop (``max_steps`` = the env's, 15 as in the paper), talking to any OpenAI-compatible endpoint through langchain's
``ChatOpenAI``, and browsing Debian's Chromium through the env's local-web proxy (so nothing leaves loopback on the
local tasks; Google searches go to the local search engine there) or, on open tasks, the env's allowed origins as
browser-use's ``allowed_domains``.  Telemetry is off.

Each browser-use step comes back as an :class:`~personal_envs.browserarena.external.ExternalStep` that the env
records like its own steps (agent state, actions with results and URLs, captcha / banner flags, screenshot), so the
judges, GIFs, vote page and annotations work unchanged.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import urllib.request
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import gymnasium as gym
import numpy as np

from personal_envs.browser.host import CHROMIUM_ARGS, DEFAULT_CHROMIUM
from personal_envs.browserarena.dom import INDEX_ELEMENTS_JS
from personal_envs.browserarena.external import ExternalStep
from personal_envs.llm.client import API_KEY_ENV, BASE_URL_ENV, MODEL_ENV, MODEL_FALLBACK_ENV
from personal_envs.policies.base import Policy

BROWSER_USE_VERSION = "0.1.40"
PYTHON_ENV = "PERSONAL_ENVS_BROWSER_USE_PYTHON"
DEFAULT_VENV = Path.home() / ".cache" / "personal-envs" / f"browser-use-{BROWSER_USE_VERSION}"
INSTALL_HINT = "install it with `bash scripts/setup_browser_use.sh` (its own virtualenv, about a minute)"
BRIDGE = Path(__file__).with_name("browser_use_bridge.py")
#: browser-use 0.1.40's ``ToolCallingMethod`` values; ``raw`` is how the paper ran every model.
TOOL_CALLING_METHODS = ("raw", "function_calling", "json_mode", "auto")


def browser_use_python() -> Path:
    """The Python of browser-use's virtualenv: ``$PERSONAL_ENVS_BROWSER_USE_PYTHON`` or the default venv's."""
    configured = os.environ.get(PYTHON_ENV)
    return Path(configured) if configured else DEFAULT_VENV / "bin" / "python"


@lru_cache(maxsize=4)
def _probe(python: str) -> str | None:
    if not Path(python).exists():
        return f"browser-use's virtualenv is missing ({python} does not exist); {INSTALL_HINT}"
    code = "import importlib.metadata as m, browser_use, langchain_openai; print(m.version('browser-use'))"
    try:
        done = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "ANONYMIZED_TELEMETRY": "false"})
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"cannot run {python}: {exc}; {INSTALL_HINT}"
    version = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    if done.returncode != 0:
        return f"browser-use does not import in {python}: {done.stderr.strip().splitlines()[-1:]}; {INSTALL_HINT}"
    if version != BROWSER_USE_VERSION:
        return f"{python} has browser-use {version}, not {BROWSER_USE_VERSION}; {INSTALL_HINT}"
    return None


def browser_use_missing(python: str | os.PathLike[str] | None = None) -> str | None:
    """Why browser-use 0.1.40 cannot run here (``None`` when it can)."""
    return _probe(str(python or browser_use_python()))


class BrowserUseUnavailable(RuntimeError):
    """browser-use's virtualenv is not installed (the message says how to install it)."""


class BrowserUsePolicy(Policy):
    """browser-use's own Agent as a policy (one bridge process per episode).

    Args:
        env: The BrowserArena env (its unwrapped form is attached before each episode).
        base_url: OpenAI-compatible API root (default ``$OPENAI_BASE_URL``).
        model: Model name (default ``$PERSONAL_ENVS_LLM_MODEL`` / ``$OPENAI_MODEL``, else the first listed model).
        api_key: Bearer token (default ``$OPENAI_API_KEY``).
        use_vision: Send browser-use's labelled screenshot with each step (browser-use's default, as the paper).
        max_actions_per_step: browser-use's cap of actions per step (10).
        tool_calling_method: browser-use's ``tool_calling_method``: ``raw`` (default, as the paper ran every model:
            JSON in the reply's text), ``function_calling``, ``json_mode`` or ``auto`` (browser-use's choice:
            function calling for ChatOpenAI, ``raw`` for DeepSeek-R1 names).
        temperature: Sampling temperature of ``ChatOpenAI``.
        step_timeout_s: Longest wait for one browser-use step before the episode is stopped.
        python: The browser-use venv's Python (default :func:`browser_use_python`).
        save_html_fails: Reproduce 0.1.41rc2's ``save_html_to_file``, which fails on every call (default); ``False``
            saves the page's HTML as the paper's Table 1 describes.
        files_dir: Where ``save_pdf`` / ``save_html_to_file`` write (default: the env's files folder, the one its
            own actions use).
    """

    name = "browser-use"

    def __init__(self, env: gym.Env[Any, Any], seed: int = 0, *, base_url: str | None = None,
                 model: str | None = None, api_key: str | None = None, use_vision: bool = True,
                 max_actions_per_step: int = 10, tool_calling_method: str = "raw", temperature: float = 0.0,
                 step_timeout_s: float = 300.0, python: str | os.PathLike[str] | None = None,
                 save_html_fails: bool = True, files_dir: str | os.PathLike[str] | None = None) -> None:
        if tool_calling_method not in TOOL_CALLING_METHODS:
            raise ValueError(f"tool_calling_method must be one of {', '.join(TOOL_CALLING_METHODS)} (browser-use "
                             f"{BROWSER_USE_VERSION}), got {tool_calling_method!r}")
        self.python = str(python or browser_use_python())
        missing = browser_use_missing(self.python)
        if missing:
            raise BrowserUseUnavailable(missing)
        self.base_url = (base_url or os.environ.get(BASE_URL_ENV) or "").rstrip("/")
        if not self.base_url:
            raise ValueError(f"--policy browser-use needs an OpenAI-compatible endpoint: set ${BASE_URL_ENV} or "
                             "pass base_url")
        self.api_key = api_key if api_key is not None else os.environ.get(API_KEY_ENV)
        self.model = model or os.environ.get(MODEL_ENV) or os.environ.get(MODEL_FALLBACK_ENV) or ""
        self.use_vision = use_vision
        self.max_actions_per_step = max_actions_per_step
        self.tool_calling_method = tool_calling_method
        self.temperature = temperature
        self.step_timeout_s = step_timeout_s
        self.save_html_fails = save_html_fails
        self.files_dir = str(files_dir) if files_dir is not None else None
        self._temporary_files: tempfile.TemporaryDirectory[str] | None = None
        self.seed = seed
        self._env: Any = getattr(env, "unwrapped", env)
        self._process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._stderr: list[str] = []
        self._report: dict[str, Any] = {}
        self._calls: list[dict[str, Any]] = []
        self._ended = False

    # ------------------------------------------------------------------------------------------ episode
    def attach(self, env: gym.Env[Any, Any]) -> None:
        """Receive the env before ``reset``: the policy hands it the steps browser-use ran."""
        self._env = getattr(env, "unwrapped", env)
        self._env.accept_external_steps(self)

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        """Start browser-use on this episode's task."""
        self._stop_bridge()
        if not self.model:
            self.model = _first_model(self.base_url, self.api_key)
        env = self._env
        env.accept_external_steps(self)
        web = getattr(env, "web", None)
        task = getattr(env, "task", None)
        config = {
            "task": str(info.get("task") or observation.get("task") or ""),
            "start_url": str(getattr(task, "start_url", "") or ""),
            "base_url": self.base_url, "model": self.model, "api_key": self.api_key,
            "max_steps": int(getattr(env, "max_steps", 15)), "use_vision": self.use_vision,
            "max_actions_per_step": self.max_actions_per_step, "tool_calling_method": self.tool_calling_method,
            "temperature": self.temperature, "proxy": web.proxy_url if web is not None else None,
            "allowed_domains": _domains(getattr(env, "allowed_origins", None)),
            "chromium": os.environ.get("PERSONAL_ENVS_CHROMIUM") or DEFAULT_CHROMIUM,
            "chromium_args": list(CHROMIUM_ARGS), "viewport": list(getattr(env, "viewport", (1280, 720))),
            "detect_js": INDEX_ELEMENTS_JS,
            "search_redirect": getattr(env, "search_url", None) if web is not None else None,
            "files_dir": self._files_dir(env), "save_html_fails": self.save_html_fails,
        }
        self._lines = queue.Queue()
        self._stderr = []
        self._calls = []
        self._ended = False
        self._report = {"agent": f"browser-use {BROWSER_USE_VERSION}", "model": self.model,
                        "endpoint": self.base_url, "steps": 0, "errors": [], "dropped_actions": [],
                        "tool_mode": {"configured": self.tool_calling_method,
                                      "effective": f"browser-use {self.tool_calling_method}"}}
        self._process = subprocess.Popen(
            [self.python, str(BRIDGE)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, encoding="utf-8", env={**os.environ, "ANONYMIZED_TELEMETRY": "false",
                                              "PYTHONUNBUFFERED": "1"},
        )
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps(config) + "\n")
        self._process.stdin.close()
        threading.Thread(target=self._read_stdout, args=(self._process, self._lines, self._calls),
                         daemon=True).start()
        threading.Thread(target=self._read_stderr, args=(self._process, self._stderr), daemon=True).start()

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> ExternalStep:
        """The next browser-use step (blocks until browser-use has run it)."""
        if self._ended:
            return ExternalStep(self, stop=True, error="browser-use's run has ended")
        try:
            message = self._lines.get(timeout=self.step_timeout_s)
        except queue.Empty:
            message = {"type": "error", "error": f"no browser-use step within {self.step_timeout_s:.0f} s"}
        if message is None:
            tail = " | ".join(self._stderr[-3:])
            message = {"type": "error", "error": f"browser-use exited without finishing ({tail[:1500]})"}
        kind = message.get("type")
        if kind == "step":
            self._report["steps"] += 1
            self._report["dropped_actions"] += [{"step": message.get("step"), "name": d.get("name"),
                                                 "reason": d.get("reason")} for d in message.get("dropped") or []]
            if message.get("error"):
                self._report["errors"].append(str(message["error"])[:500])
            return self._to_step(message)
        self._ended = True
        if kind == "end":
            self._report.update({k: message.get(k) for k in ("done", "failures")})
            # browser-use's own estimate of its prompts (the counted tokens are the replies' usage)
            self._report["estimated_prompt_tokens"] = int(message.get("input_tokens") or 0)
            return ExternalStep(self, stop=True, error="" if message.get("done") else
                                "browser-use stopped without calling done "
                                f"({message.get('failures')} consecutive failures)")
        error = str(message.get("error", "unknown bridge message"))
        self._report["errors"].append(error[:500])
        return ExternalStep(self, stop=True, error=f"browser-use failed: {error}"[:4000])

    def episode_report(self) -> dict[str, Any]:
        """Model, endpoint, browser-use version, steps and errors of the latest episode, and its model calls:
        ``calls`` (every request sent, retries and failed ones included), ``ok_calls``, ``prompt_tokens`` /
        ``completion_tokens`` (summed from the replies' ``usage``), ``retries``, ``calls_by_purpose`` (``agent``:
        browser-use's steps; ``action``: ``extract_content``'s extraction model), ``error_kinds`` and ``trace`` (one
        entry per request)."""
        calls = list(self._calls)
        ok = [c for c in calls if c.get("status") == 200 and not c.get("error_kind")]
        kinds: dict[str, int] = {}
        purposes: dict[str, int] = {}
        for call in calls:
            purposes[str(call.get("purpose"))] = purposes.get(str(call.get("purpose")), 0) + 1
            if call.get("error_kind"):
                kinds[str(call["error_kind"])] = kinds.get(str(call["error_kind"]), 0) + 1
        return {**self._report, "calls": len(calls), "ok_calls": len(ok),
                "prompt_tokens": sum(int(c.get("prompt_tokens") or 0) for c in ok),
                "completion_tokens": sum(int(c.get("completion_tokens") or 0) for c in ok),
                "retries": sum(1 for c in calls if c.get("retry")), "calls_by_purpose": purposes,
                "error_kinds": kinds, "trace": calls}

    def close(self) -> None:
        """Stop the bridge process of the current episode (if it still runs) and remove this policy's temporary
        files folder (only made when the env has none)."""
        self._stop_bridge()
        if self._temporary_files is not None:
            self._temporary_files.cleanup()
            self._temporary_files = None

    def _stop_bridge(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=15)

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # interpreter shutdown
            self.close()

    # ------------------------------------------------------------------------------------------ helpers
    def _files_dir(self, env: Any) -> str:
        """``files_dir``, else the env's files folder (its driver's), else a temporary folder of this policy."""
        if self.files_dir is not None:
            return self.files_dir
        driver_dir = getattr(getattr(env, "driver", None), "files_dir", None)
        if callable(driver_dir):
            return str(driver_dir())
        if self._temporary_files is None:
            self._temporary_files = tempfile.TemporaryDirectory(prefix="browser-use-files-")
        return self._temporary_files.name

    def _to_step(self, message: dict[str, Any]) -> ExternalStep:
        actions = [dict(action) for action in message.get("actions") or []]
        done = next((a for a in actions if a.get("is_done")), None)
        return ExternalStep(
            self, brain=dict(message.get("brain") or {}), actions=actions, url=str(message.get("url", "")),
            title=str(message.get("title", "")), tabs=[str(t) for t in message.get("tabs") or []],
            active_tab=int(message.get("active_tab") or 0), captcha=bool(message.get("captcha")),
            banner=bool(message.get("banner")), screenshot=_decode_png(str(message.get("screenshot_png_b64", ""))),
            error=str(message.get("error", "")), answer=str(done.get("result", "")) if done else None,
            success=bool(done.get("success", True)) if done else True,
            extra={"agent": "browser-use", "planned_actions": message.get("planned", []),
                   "dropped_actions": list(message.get("dropped") or [])},
        )

    @staticmethod
    def _read_stdout(process: subprocess.Popen[str], lines: queue.Queue[dict[str, Any] | None],
                     calls: list[dict[str, Any]]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(message, dict):
                continue
            if message.get("type") == "llm_call":  # counted at once: a run stopped mid-step keeps its calls
                calls.append({k: v for k, v in message.items() if k != "type"})
            else:
                lines.put(message)
        lines.put(None)

    @staticmethod
    def _read_stderr(process: subprocess.Popen[str], sink: list[str]) -> None:
        assert process.stderr is not None
        for line in process.stderr:
            sink.append(line.rstrip())
            del sink[:-200]


def _decode_png(data: str) -> np.ndarray | None:
    if not data:
        return None
    from PIL import Image

    try:
        with Image.open(io.BytesIO(base64.b64decode(data))) as image:
            return np.asarray(image.convert("RGB"), dtype=np.uint8)
    except Exception:
        return None


def _domains(origins: Any) -> list[str] | None:
    if not origins:
        return None
    hosts = [urlsplit(o if "://" in o else f"http://{o}").hostname or "" for o in origins]
    return [h for h in hosts if h] or None


def _first_model(base_url: str, api_key: str | None) -> str:
    request = urllib.request.Request(f"{base_url}/models")
    if api_key:
        request.add_header("Authorization", f"Bearer {api_key}")
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            data = json.loads(reply.read().decode("utf-8"))
        return str(data["data"][0]["id"])
    except Exception as exc:
        raise ValueError(f"no model given and {base_url}/models did not list one ({exc}); set ${MODEL_ENV}") from None


def make_browser_use_policy(env: gym.Env[Any, Any], seed: int = 0, **kwargs: Any) -> BrowserUsePolicy:
    """Factory for ``--policy browser-use`` (keyword arguments as :class:`BrowserUsePolicy`)."""
    return BrowserUsePolicy(env, seed=seed, **kwargs)


if __name__ == "__main__":  # `python -m personal_envs.browserarena.browser_use_policy`: is browser-use usable?
    reason = browser_use_missing()
    print(reason or f"browser-use {BROWSER_USE_VERSION} is ready at {browser_use_python()}")
    sys.exit(1 if reason else 0)
