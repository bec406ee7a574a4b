"""``personal-envs knowu serve``: the simulated phone behind the official KnowU server API.

One phone, one task at a time, as the official server has: ``/task/init`` builds the official variant on the
simulator (the official release is the data directory), ``/step`` applies official JSON actions, ``/screenshot``
and ``/xml`` show the screen (1080x2400 PNG, the UI hierarchy as XML), ``/task/goal`` answers the official goal (a
preference variant's carries the user logs), ``/task/eval`` scores the variant with the project's reimplementation of
its official check (a routine on the ``actions`` the client sends, as the official server does), and
``/suite_family/switch`` picks the logs the goals carry (memory mode, top-k, clean or noisy source) as the official
server's ``set_user_log_config`` does.  The official client (``runtime/client.py``) and runners drive it unchanged.  Loopback only by default; a request whose ``Host`` is not this machine, and a POST from a web page of
another origin or with a body that is not JSON, are refused (:mod:`personal_envs.core.http_guard`).
"""

from __future__ import annotations

import base64
import io
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

from personal_envs.core.http_guard import host_allowed, write_refusal
from personal_envs.core.task import EpisodeTrace, TraceStep
from personal_envs.knowu.official_api.protocol import DEFAULT_DEVICE, SPLIT_TAG, from_official
from personal_envs.simulators.phone.geometry import SCREEN_HEIGHT, SCREEN_WIDTH


class ApiError(Exception):
    """An error answered as ``{"detail": ...}`` with an HTTP status."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status, self.detail = status, detail


#: The one suite family of the official server (``AVD_MAPPING`` of ``core/server.py``).
SUITE_FAMILY = "knowu_bench"
#: The official log settings (``user_log_context._log_config``) at start: all entries, clean logs.
DEFAULT_LOG_CONFIG: dict[str, Any] = {"mode": "all", "top_k": 10, "rag_backend": "tfidf", "source": "clean"}


def log_config(query: dict[str, str]) -> dict[str, Any]:
    """The log settings a ``/suite_family/switch`` asks for (the official query parameters and defaults)."""
    config: dict[str, Any] = {"mode": query.get("user_log_mode", "all"),
                              "rag_backend": query.get("rag_backend", "tfidf"),
                              "source": query.get("user_log_source", "clean")}
    try:
        config["top_k"] = int(query.get("rag_top_k", "10"))
    except ValueError:
        raise ApiError(422, f"rag_top_k must be an integer, got {query.get('rag_top_k')!r}") from None
    if config["mode"] not in ("all", "rag"):
        raise ApiError(422, f"user_log_mode must be 'all' or 'rag', got {config['mode']!r}")
    if config["source"] not in ("clean", "noise"):
        raise ApiError(422, f"user_log_source must be 'clean' or 'noise', got {config['source']!r}")
    if config["top_k"] < 1:
        raise ApiError(422, f"rag_top_k must be at least 1, got {config['top_k']}")
    if config["rag_backend"] != "tfidf":
        raise ApiError(400, f"rag_backend {config['rag_backend']!r} is not available on this server (the official "
                            "'embedding' backend needs its multilingual MiniLM cache); use 'tfidf'")
    return config


def client_trace(recorded: EpisodeTrace, actions: list[Any]) -> EpisodeTrace:
    """The trace of the ``actions`` a client sends to ``/task/eval``: its actions in order (official JSON actions,
    the terminal ones the runner never sends to ``/step`` included), with the user's replies the server recorded
    attached to its ``ask_user`` actions in turn."""
    turns = iter(recorded.dialogue)
    trace = EpisodeTrace(answer=recorded.answer)
    for number, action in enumerate(actions, start=1):
        if not isinstance(action, dict):
            raise ApiError(422, f"actions[{number - 1}] is not a JSON object")
        flat = from_official(action)
        turn = next(turns, None) if flat.get("action_type") == "ask_user" else None
        trace.steps.append(TraceStep(number, flat, user_turn=turn))
        if flat.get("action_type") == "answer":
            trace.answer = str(flat.get("text", ""))
    trace.finished = bool(trace.steps) and trace.steps[-1].name in ("finished", "answer", "status")
    return trace


class SimulatedPhoneService:
    """The state behind the API: one simulated phone, the official task list, the running task."""

    def __init__(self, data_dir: str | None = None) -> None:
        from personal_envs.knowu.official.registry import FAMILY_SPLIT, persona_ids
        from personal_envs.knowu.official.release import find_release
        from personal_envs.knowu.official.source import parse_release
        from personal_envs.knowu.personas import official_personas

        release = find_release(data_dir)
        if release is None:
            raise ValueError("knowu serve needs the official KnowU-Bench release: pass --data-dir, set "
                             "PERSONAL_ENVS_DATA, or run `personal-envs data fetch knowu`")
        self.data_dir = str(release.root)
        self.release_label = release.label
        source, personas = parse_release(release), official_personas(release.root)
        self._split: dict[str, str] = {}
        self._tags: dict[str, list[str]] = {}
        self._apps: dict[str, list[str]] = {}
        for cls in source.tasks():
            split = FAMILY_SPLIT[cls.family]
            roles = persona_ids(source, personas, cls.name)
            for name in [f"{cls.name}@{role}" for role in roles] or [cls.name]:
                self._split[name] = split
                self._tags[name] = sorted(cls.tags | {SPLIT_TAG[split]})
                self._apps[name] = list(cls.app_names)
        self._envs: dict[str, Any] = {}
        self.lock = threading.RLock()
        self.devices: set[str] = set()
        self.running: str | None = None
        self.last_obs: dict[str, Any] | None = None
        self.actions: list[dict[str, Any]] = []
        #: The log settings of the goals (changed by ``/suite_family/switch``).
        self.log_config: dict[str, Any] = dict(DEFAULT_LOG_CONFIG)

    # ------------------------------------------------------------------------------------------ tasks
    def switch(self, target_family: str, config: dict[str, Any]) -> dict[str, Any]:
        """``/suite_family/switch``: the one family stays; new log settings rebuild the tasks (as the official
        server re-creates its registry), which ends the running task."""
        if target_family != SUITE_FAMILY:
            raise ApiError(400, f"Invalid suite_family: {target_family}. Must be '{SUITE_FAMILY}'")
        changed = config != self.log_config
        if changed:
            self.log_config = config
            for env in self._envs.values():
                env.close()
            self._envs.clear()
            self.running, self.last_obs, self.actions = None, None, []
        return {"message": f"Already on suite_family {target_family}", "suite_family": target_family,
                "switched": changed}

    def task_names(self) -> list[str]:
        return list(self._split)

    def listing(self) -> list[dict[str, Any]]:
        return [{"name": n, "tags": self._tags[n], "apps": self._apps[n]} for n in self._split]

    def _env(self, name: str) -> Any:
        if name not in self._split:
            raise ApiError(404, f"unknown task {name!r}")
        split = self._split[name]
        env = self._envs.get(split)
        if env is None:
            from personal_envs.knowu.env import KnowUEnv

            config = self.log_config
            env = KnowUEnv(family=split, data_dir=self.data_dir, screenshot=True, screenshot_scale=1.0,
                           image_format="png", ui_hierarchy=True, log_source=config["source"],
                           memory=config["mode"], top_k=config["top_k"])
            self._envs[split] = env
        return env

    def goal(self, name: str) -> str:
        """The official goal of ``name`` (a preference variant's with the logs of the current settings)."""
        env = self._env(name)
        return str(next(t for t in env.tasks if t.task_id == name).official_goal())

    def init_task(self, name: str) -> None:
        env = self._env(name)
        index = next(i for i, t in enumerate(env.tasks) if t.task_id == name)
        self.last_obs, _ = env.reset(seed=0, options={"task_index": index})
        self.running, self.actions = name, []

    def current(self, name: str | None = None) -> Any:
        if self.running is None:
            raise ApiError(400, "no task is running: POST /task/init first")
        if name is not None and name != self.running:
            raise ApiError(400, f"task {name!r} is not the running task ({self.running!r})")
        return self._envs[self._split[self.running]]

    def step(self, action: dict[str, Any]) -> Any:
        env = self.current()
        flat = from_official(action)
        if flat.get("action_type") is None:
            raise ApiError(400, "missing param: 'action_type'")
        if env.episode_over:
            return "the task has ended: evaluate it or initialise the next one"
        self.actions.append(flat)
        self.last_obs, _, _, _, info = env.step(flat)
        if info.get("action_error"):
            raise ApiError(400, str(info["action_error"]))
        if flat["action_type"] == "ask_user":
            return str(self.last_obs.get("user_reply", ""))
        return flat.get("goal_status") if flat["action_type"] == "status" else "OK"

    def evaluate(self, name: str, actions: list[Any] | None = None) -> dict[str, Any]:
        """The score of the running task: a routine's on the client's ``actions`` when it sends them (the official
        server passes them to a routine's check only), every other task's on the device and the server's record."""
        env = self.current(name)
        evaluation = env.evaluation
        if actions is not None and env.task.split == "proactive":
            evaluation = env.task.evaluate(env.world, client_trace(env.trace, actions))
        elif evaluation is None:  # scored now, as the official server scores the device whenever it is asked
            evaluation = env.task.evaluate(env.world, env.trace)
        return {"score": float(evaluation.score), "reason": str(evaluation.reason)}

    def tear_down(self, name: str) -> None:
        self.current(name)
        self.running, self.last_obs = None, None

    def screenshot_png(self) -> bytes:
        from PIL import Image

        if self.last_obs is None or "screenshot" not in self.last_obs:
            image = Image.new("RGB", (SCREEN_WIDTH, SCREEN_HEIGHT), "black")
        else:
            image = Image.fromarray(self.last_obs["screenshot"])
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        return buffer.getvalue()

    def xml(self) -> str:
        return str(self.last_obs.get("ui_xml", "")) if self.last_obs else "<hierarchy rotation=\"0\"/>"

    def close(self) -> None:
        for env in self._envs.values():
            env.close()
        self._envs.clear()


def _handler(service: SimulatedPhoneService, host_names: tuple[str, ...] = ()) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def _reply(self, status: int, payload: Any) -> None:
            body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _body(self) -> dict[str, Any]:
            length = int(self.headers.get("Content-Length") or 0)
            if not length:
                return {}
            try:
                data = json.loads(self.rfile.read(length).decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise ApiError(422, f"request body is not JSON: {exc}") from None
            if not isinstance(data, dict):
                raise ApiError(422, "request body must be a JSON object")
            return data

        def _refusal(self, method: str) -> str:
            """Why this request must not reach the phone: a foreign ``Host`` (DNS rebinding), or a POST from a web
            page of another origin or with a body that is not JSON (what a page can send without permission)."""
            headers = dict(self.headers.items())
            if method == "POST":
                return write_refusal(headers, host_names=host_names, require_json=True)
            if not host_allowed(self.headers.get("Host", ""), host_names):
                return f"host {self.headers.get('Host', '')[:200]!r} is not this machine"
            return ""

        def _handle(self, method: str) -> None:
            url = urlparse(self.path)
            query = {key: values[-1] for key, values in parse_qs(url.query).items()}
            refusal = self._refusal(method)
            if refusal:
                self.close_connection = True
                self._reply(403, {"detail": refusal})
                return
            try:
                body = self._body()
                with service.lock:
                    self._reply(200, route(service, method, url.path, query, body))
            except ApiError as exc:
                self._reply(exc.status, {"detail": exc.detail})
            except Exception as exc:  # noqa: BLE001 - the server answers every request, as the official one does
                self._reply(500, {"detail": f"{type(exc).__name__}: {exc}"})

        def do_GET(self) -> None:  # noqa: N802
            self._handle("GET")

        def do_POST(self) -> None:  # noqa: N802
            self._handle("POST")

    return Handler


def route(service: SimulatedPhoneService, method: str, path: str, query: dict[str, str],
          body: dict[str, Any]) -> Any:
    """The answer to one request (raises :class:`ApiError` for the error answers)."""
    device = str(body.get("device") or body.get("req_device") or query.get("device") or DEFAULT_DEVICE)
    task_name = str(body.get("task_name") or query.get("task_name") or "")
    if (method, path) == ("GET", "/health"):
        return {"ok": True, "devices": sorted(service.devices), "device_status": dict.fromkeys(service.devices, True)}
    if path == "/init":
        service.devices.add(device)
        return {"device": device, "viewport_size": [SCREEN_WIDTH, SCREEN_HEIGHT]}
    if (method, path) == ("GET", "/screenshot"):
        png = service.screenshot_png()
        answer: dict[str, Any] = {"device": device, "path": f"/virtual/{device}/screen.png"}
        if query.get("return_b64", "").lower() in ("1", "true"):
            answer["b64_png"] = base64.b64encode(png).decode("ascii")
        return answer
    if (method, path) == ("GET", "/xml"):
        answer = {"device": device, "mode": query.get("mode", "uia"), "path": f"/virtual/{device}/ui.xml"}
        if query.get("return_content", "").lower() in ("1", "true"):
            answer["content"] = service.xml()
        return answer
    if (method, path) == ("POST", "/step"):
        action = body.get("action")
        if not isinstance(action, dict):
            raise ApiError(422, "body needs an 'action' object")
        return {"device": device, "action": action, "result": service.step(action)}
    if (method, path) == ("GET", "/task/list"):
        return service.listing()
    if path in ("/task/goal", "/task/metadata", "/task/complexity", "/task/init") and task_name not in (
            service.task_names()):
        raise ApiError(404 if task_name else 422, f"unknown task {task_name!r}" if task_name else "task_name is needed")
    if (method, path) == ("GET", "/task/goal"):
        return service.goal(task_name)
    if (method, path) == ("GET", "/task/metadata"):
        return next(entry for entry in service.listing() if entry["name"] == task_name)
    if (method, path) == ("GET", "/task/complexity"):
        return 1.0 if "hard" in next(e for e in service.listing() if e["name"] == task_name)["tags"] else 0.5
    if (method, path) == ("POST", "/task/init"):
        service.init_task(task_name)
        return "OK"
    if (method, path) == ("GET", "/task/eval"):
        actions = body.get("actions")
        if actions is not None and not isinstance(actions, list):
            raise ApiError(422, "'actions' must be a list of actions")
        return service.evaluate(task_name or (service.running or ""), actions)
    if (method, path) == ("POST", "/suite_family/switch"):
        if not query.get("target_family"):
            raise ApiError(422, "target_family is needed")
        return service.switch(query["target_family"], log_config(query))
    if (method, path) == ("POST", "/task/tear_down"):
        service.tear_down(task_name or (service.running or ""))
        return "OK"
    raise ApiError(404, f"no route {method} {path}")


class KnowUApiServer:
    """The API on ``host:port`` in a background thread (``port=0`` picks a free port); a context manager."""

    def __init__(self, data_dir: str | None = None, host: str = "127.0.0.1", port: int = 0) -> None:
        self.service = SimulatedPhoneService(data_dir)
        self.httpd = ThreadingHTTPServer((host, port), _handler(self.service, (host,)))
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host.decode() if isinstance(host, bytes) else host}:{port}"

    def start(self) -> KnowUApiServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="knowu-api", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.service.close()

    def __enter__(self) -> KnowUApiServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def serve(data_dir: str | None, host: str, port: int) -> int:
    """Run the server in the foreground until Ctrl-C (``personal-envs knowu serve``)."""
    try:
        server = KnowUApiServer(data_dir, host, port)
    except ValueError as exc:
        print(f"error: {exc}")
        return 1
    print(f"KnowU official API on {server.url} ({server.service.release_label}, "
          f"{len(server.service.task_names())} tasks); Ctrl-C stops it")
    try:
        server.httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.httpd.server_close()
        server.service.close()
    return 0
