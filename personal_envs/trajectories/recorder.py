"""Record what happened in each episode of an eval run: a directory per episode, written atomically at its end.

Layout, next to the results file ``RUN.jsonl``::

    RUN.trajectories/<env id>__<policy>/episode_00003/trajectory.json
    RUN.trajectories/<env id>__<policy>/episode_00003/images/<content hash>.jpg

``trajectory.json`` holds the goal, the initial observation's text fields, every step (the action as the policy gave
it and as the env parsed it, the error, the text fields that changed, the screenshot's file, the user turn, the
privileged signals, the reward, the policy's reasoning and token counts, the timings), and the end: score, metrics,
the check-by-check breakdown and the judge's verdict.  Screenshots are JPEG files named by a hash of their pixels,
so an unchanged screen is stored once.  Privileged signals are read after the policy has acted; trajectories are for
the researcher after the episode and are never shown to the policy.

An episode is built in a hidden temporary directory and renamed into place when it ends, so a killed run leaves no
torn trajectory: the next run removes the leftovers and, like the results file, redoes exactly the episodes that
have no result yet.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import logging
import os
import shutil
import time
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from personal_envs.chat.records import compress_request
from personal_envs.core.recorder import to_jsonable, write_json_atomic

logger = logging.getLogger(__name__)

#: Version of the ``trajectory.json`` layout.
FORMAT_VERSION = 1
#: Name of the per-episode file.
TRAJECTORY_FILE = "trajectory.json"
#: Name of a run's size report in its trajectories folder (episodes, images, bytes).
SIZE_FILE = "size.json"
#: Name of the per-episode summary (what the episode list shows without reading the whole trajectory).
SUMMARY_FILE = "summary.json"
#: Observation fields that hold the task statement, in order of preference (the episode page's goal).
GOAL_FIELDS: tuple[str, ...] = ("instruction", "task", "goal")
#: Keys of an action dict that carry the policy's reasoning, in order of preference.
REASONING_KEYS: tuple[str, ...] = ("thought", "thoughts", "reasoning", "current_state", "rationale")
#: Longest text field kept per step (a field longer than this is cut, with a note).
MAX_FIELD_CHARS = 200_000
_TEMP_PREFIX = ".tmp-"
_OLD_PREFIX = ".old-"


def trajectory_root(results_path: str | os.PathLike[str]) -> Path:
    """The trajectories directory of a results file: ``runs/a.jsonl`` -> ``runs/a.trajectories``."""
    path = Path(results_path)
    return path.with_name(path.stem + ".trajectories")


def episode_dirname(episode: int) -> str:
    """Directory name of episode ``episode``."""
    return f"episode_{episode:05d}"


def run_dirname(env_id: str, policy: str) -> str:
    """Directory name of one env id and policy inside a trajectories directory."""
    return f"{env_id}__{policy}".replace("/", "_")


class TrajectoryRecorder:
    """Writes the trajectories of one env id and policy of a run under ``directory``.

    Args:
        directory: ``<results>.trajectories/<env id>__<policy>`` (see :meth:`for_run`).
        jpeg_quality: JPEG quality of the screenshots (1-95).
    """

    def __init__(self, directory: str | os.PathLike[str], *, jpeg_quality: int = 75) -> None:
        self.directory = Path(directory)
        self.jpeg_quality = jpeg_quality

    @classmethod
    def for_run(cls, results_path: str | os.PathLike[str], env_id: str, policy: str) -> TrajectoryRecorder:
        """The recorder of ``env_id`` / ``policy`` for the results file ``results_path``."""
        return cls(trajectory_root(results_path) / run_dirname(env_id, policy))

    def episode_dir(self, episode: int) -> Path:
        """Where episode ``episode``'s trajectory lives once written."""
        return self.directory / episode_dirname(episode)

    def remove_leftovers(self) -> list[Path]:
        """Delete temporary directories left by a killed run (never a finished trajectory); return them."""
        removed: list[Path] = []
        if not self.directory.is_dir():
            return removed
        for child in self.directory.iterdir():
            if child.name.startswith((_TEMP_PREFIX, _OLD_PREFIX)):
                shutil.rmtree(child, ignore_errors=True)
                removed.append(child)
        return removed

    def start(self, env: gym.Env[Any, Any], policy: Any, *, env_id: str, policy_name: str, episode: int,
              seed: int) -> EpisodeWriter:
        """Begin recording episode ``episode`` (call before ``env.reset``)."""
        return EpisodeWriter(self, env, policy, env_id=env_id, policy_name=policy_name, episode=episode, seed=seed)

    def size_report(self) -> dict[str, Any]:
        """Episodes, images and bytes on disk of this recorder's trajectories."""
        episodes = images = total = json_bytes = 0
        if self.directory.is_dir():
            for child in self.directory.iterdir():
                if not child.name.startswith("episode_") or not (child / TRAJECTORY_FILE).is_file():
                    continue
                episodes += 1
                for path in child.rglob("*"):
                    if path.is_file():
                        size = path.stat().st_size
                        total += size
                        if path.parent.name == "images":
                            images += 1
                        else:
                            json_bytes += size
        return {
            "directory": str(self.directory), "episodes": episodes, "images": images, "bytes": total,
            "json_bytes": json_bytes, "bytes_per_episode": round(total / episodes) if episodes else 0,
        }

    def write_size_report(self) -> dict[str, Any]:
        """Compute :meth:`size_report` and store it as ``size.json`` in the directory."""
        report = self.size_report()
        if self.directory.is_dir():
            write_json_atomic(self.directory / SIZE_FILE, report, indent=1)
        return report


class EpisodeWriter:
    """Collects one episode from the runner's loop and writes it with :meth:`finish`.

    The runner calls :meth:`reset` after ``env.reset``, :meth:`act` instead of ``policy.act`` (to time the policy),
    :meth:`step` after every ``env.step`` and :meth:`finish` with the result record.  No method raises: a recording
    problem is logged and noted in the trajectory, the episode goes on.
    """

    def __init__(self, recorder: TrajectoryRecorder, env: gym.Env[Any, Any], policy: Any, *, env_id: str,
                 policy_name: str, episode: int, seed: int) -> None:
        self.recorder = recorder
        self.env = env
        self.policy = policy
        self.episode = episode
        self.temp_dir = recorder.directory / f"{_TEMP_PREFIX}{episode_dirname(episode)}-{os.getpid()}"
        shutil.rmtree(self.temp_dir, ignore_errors=True)
        (self.temp_dir / "images").mkdir(parents=True, exist_ok=True)
        self.data: dict[str, Any] = {
            "format": FORMAT_VERSION, "env_id": env_id, "policy": policy_name, "episode": episode, "seed": seed,
            "started": time.time(), "steps": [], "recording_errors": [],
        }
        self._last_text: dict[str, str] = {}
        self._last_messages: list[dict[str, Any]] | None = None
        self._images: dict[str, str] = {}
        self._image_bytes = 0
        self._usage = _usage_of(policy)
        self._act_started = 0.0
        self._act_s = 0.0
        self._env_started = time.perf_counter()
        self._record_s = 0.0
        self._page_boxes: dict[str, list[float]] = {}
        self._encoder: ThreadPoolExecutor | None = None
        self._pending: list[Future[int]] = []

    # ------------------------------------------------------------------------------------------ runner hooks
    def reset(self, obs: Any, info: Mapping[str, Any]) -> None:
        """Record the reset: the goal, the task info, the initial observation."""
        began = time.perf_counter()
        try:
            unwrapped = self.env.unwrapped
            self.data["reset_s"] = round(began - self._env_started, 4)
            self.data["task_id"] = info.get("task_id")
            self.data["task_info"] = to_jsonable(dict(info))
            fields = obs if isinstance(obs, Mapping) else {"observation": obs}
            self.data["goal"] = next((str(fields[k]) for k in GOAL_FIELDS if isinstance(fields.get(k), str)), "")
            self.data["initial_observation"] = self._observation(fields, changed_only=False)
            space = getattr(unwrapped, "coordinate_space", None)
            if space is not None:
                self.data["coordinate_space"] = [int(space[0]), int(space[1])]
            self.data["initial_signals"] = self._signals()
            schemas = getattr(unwrapped, "tool_schemas", None)
            if callable(schemas):
                self.data["tools"] = to_jsonable(schemas())
            self._page_boxes = self._boxes()
        except Exception as exc:
            self._note("reset", exc)
        self._record_s += time.perf_counter() - began

    def act(self, policy: Any, obs: Any, info: Any) -> Any:
        """Call ``policy.act(obs, info)`` and time it."""
        self._act_started = time.perf_counter()
        try:
            return policy.act(obs, info)
        finally:
            self._act_s = time.perf_counter() - self._act_started
            self._env_started = time.perf_counter()

    def step(self, action: Any, obs: Any, reward: Any, terminated: bool, truncated: bool,
             info: Mapping[str, Any]) -> None:
        """Record one step (call right after ``env.step``)."""
        env_s = time.perf_counter() - self._env_started
        began = time.perf_counter()
        try:
            fields = obs if isinstance(obs, Mapping) else {"observation": obs}
            number = len(self.data["steps"]) + 1
            entry: dict[str, Any] = {
                "step": number, "action": to_jsonable(action), "reward": float(reward),
                "terminated": bool(terminated), "truncated": bool(truncated),
                "policy_s": round(self._act_s, 4), "env_s": round(env_s, 4),
            }
            traced = self._trace_step(number)
            if traced is not None:
                entry["parsed_action"] = to_jsonable(traced.action)
                entry["error"] = traced.error
                if traced.user_turn is not None:
                    entry["user_turn"] = to_jsonable(dataclasses.asdict(traced.user_turn))
                if traced.record:
                    entry["record"] = to_jsonable(traced.record)
            else:
                entry["parsed_action"] = entry["action"] if isinstance(entry["action"], dict) else None
                entry["error"] = str(fields.get("last_action_error", "") or info.get("action_error", "") or "")
                reply = fields.get("user_reply")
                if isinstance(reply, str) and reply and reply != self._last_text.get("user_reply"):
                    entry["user_turn"] = {"action": _action_name(action), "message": _message_of(action),
                                          "reply": reply, "decision": None, "step": number}
            self._record_request(entry)
            reasoning = _reasoning(action, self.policy)
            if reasoning:
                entry["reasoning"] = reasoning
            usage = _usage_of(self.policy)
            if usage is not None and self._usage is not None:
                entry["tokens"] = {k: usage[k] - self._usage.get(k, 0) for k in usage
                                   if isinstance(usage[k], int | float)}
                self._usage = usage
            boxes = {key: self._page_boxes[key] for key in _target_ids(action) if key in self._page_boxes}
            if boxes:
                entry["boxes"] = boxes
            entry["observation"] = self._observation(fields, changed_only=True)
            entry["signals"] = self._signals()
            entry["info"] = to_jsonable({k: v for k, v in info.items() if k not in ("metrics", "evaluation")})
            if not (terminated or truncated):
                self._page_boxes = self._boxes()
            self.data["steps"].append(entry)
            if terminated or truncated:
                self.data["end_info"] = to_jsonable({k: info[k] for k in ("metrics", "evaluation", "score")
                                                     if k in info})
        except Exception as exc:
            self._note(f"step {len(self.data['steps'])}", exc)
        self._record_s += time.perf_counter() - began

    def finish(self, record: Mapping[str, Any]) -> Path | None:
        """Add the episode's result and evaluation, then write the trajectory into place atomically."""
        began = time.perf_counter()
        try:
            self._drain_images()
            self.data["ended"] = time.time()
            self.data["result"] = to_jsonable(dict(record))
            self.data["evaluation"] = self._evaluation()
            self.data["trace"] = self._trace_summary()
            self.data["record_s"] = round(self._record_s + time.perf_counter() - began, 4)
            self.data["image_bytes"] = self._image_bytes
            write_json_atomic(self.temp_dir / TRAJECTORY_FILE, self.data)
            steps = self.data["steps"]
            write_json_atomic(self.temp_dir / SUMMARY_FILE, {
                "steps": len(steps), "action_errors": sum(1 for s in steps if s.get("error")),
                "user_turns": sum(1 for s in steps if s.get("user_turn")), "score": self.data["evaluation"]["score"],
                "failed_checks": [c["name"] for c in self.data["evaluation"]["checks"] if not c["passed"]],
                "images": len(self._images), "image_bytes": self._image_bytes,
            })
            _fsync_dir(self.temp_dir / "images")
            return self._commit()
        except Exception as exc:
            logger.warning("could not write the trajectory of episode %s: %s", self.episode, exc)
            if self._encoder is not None:
                self._encoder.shutdown(wait=True, cancel_futures=True)
                self._encoder = None
            shutil.rmtree(self.temp_dir, ignore_errors=True)
            return None

    # ------------------------------------------------------------------------------------------ internals
    def _record_request(self, entry: dict[str, Any]) -> None:
        """Keep the exact messages the policy sent for this step (an LLM policy's ``last_request``), stored as
        what changed since the previous step's (:func:`personal_envs.chat.records.compress_request`), its
        sampling settings and the reply (the env's tools are kept once, at reset)."""
        request = getattr(self.policy, "last_request", None)
        if not isinstance(request, Mapping) or not isinstance(request.get("messages"), list):
            return
        messages = to_jsonable(request["messages"])
        stored = compress_request(self._last_messages, messages)
        for key in ("sampling", "reply"):
            if request.get(key) is not None:
                stored[key] = to_jsonable(request[key])
        entry["request"] = stored
        self._last_messages = messages

    def _commit(self) -> Path:
        final = self.recorder.episode_dir(self.episode)
        old = self.recorder.directory / f"{_OLD_PREFIX}{final.name}-{os.getpid()}"
        if final.exists():
            os.replace(final, old)
        os.replace(self.temp_dir, final)
        _fsync_dir(self.recorder.directory)
        shutil.rmtree(old, ignore_errors=True)
        return final

    def _note(self, where: str, exc: Exception) -> None:
        logger.warning("trajectory recording failed at %s: %s", where, exc)
        self.data["recording_errors"].append(f"{where}: {type(exc).__name__}: {exc}")

    def _observation(self, fields: Mapping[str, Any], *, changed_only: bool) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in fields.items():
            if isinstance(value, np.ndarray) and value.ndim == 3 and value.size:
                out[key] = {"image": self._image(value), "width": int(value.shape[1]),
                            "height": int(value.shape[0])}
                continue
            text = value if isinstance(value, str) else json.dumps(to_jsonable(value), ensure_ascii=False)
            if changed_only and self._last_text.get(key) == text:
                continue
            self._last_text[key] = text
            out[key] = text if len(text) <= MAX_FIELD_CHARS else text[:MAX_FIELD_CHARS] + "\n[cut by the recorder]"
        return out

    def _image(self, array: np.ndarray) -> str:
        """The file name of a screenshot: a hash of its pixels (SHA-256, hardware-accelerated); a new screen is
        encoded to JPEG on a background thread (PIL releases the GIL), overlapping the policy and the env."""
        pixels = np.ascontiguousarray(array[:, :, :3], dtype=np.uint8)
        digest = hashlib.sha256(pixels.data.cast("B")).hexdigest()[:20]
        digest = f"{digest}-{pixels.shape[1]}x{pixels.shape[0]}"
        if digest in self._images:
            return self._images[digest]
        name = f"images/{digest}.jpg"
        self._images[digest] = name
        if self._encoder is None:
            self._encoder = ThreadPoolExecutor(max_workers=1, thread_name_prefix="trajectory-jpeg")
        self._pending.append(self._encoder.submit(self._write_jpeg, pixels.copy(), self.temp_dir / name))
        return name

    def _write_jpeg(self, pixels: np.ndarray, path: Path) -> int:
        from PIL import Image

        buffer = io.BytesIO()
        Image.fromarray(pixels).save(buffer, format="JPEG", quality=self.recorder.jpeg_quality)
        data = buffer.getvalue()
        with open(path, "wb") as handle:
            handle.write(data)
        return len(data)

    def _drain_images(self) -> None:
        """Wait for the screenshots being encoded (raises the first encoding error)."""
        pending, self._pending = self._pending, []
        try:
            for future in pending:
                self._image_bytes += future.result()
        finally:
            if self._encoder is not None:
                self._encoder.shutdown(wait=True)
                self._encoder = None

    def _signals(self) -> dict[str, float]:
        method = getattr(self.env.unwrapped, "privileged_signals", None)
        if not callable(method):
            return {}
        try:
            return {str(k): float(v) for k, v in dict(method()).items()}
        except Exception as exc:
            self._note("privileged_signals", exc)
            return {}

    def _boxes(self) -> dict[str, list[float]]:
        """Element boxes of the current page (envs with an ``element_boxes()`` method), for drawing actions."""
        method = getattr(self.env.unwrapped, "element_boxes", None)
        if not callable(method):
            return {}
        try:
            return {str(k): [round(float(v), 1) for v in box] for k, box in dict(method()).items()}
        except Exception as exc:
            self._note("element_boxes", exc)
            return {}

    def _trace_step(self, number: int) -> Any:
        trace = getattr(self.env.unwrapped, "trace", None)
        steps = getattr(trace, "steps", None)
        if not isinstance(steps, list) or not steps:
            return None
        last = steps[-1]
        return last if getattr(last, "step", None) == number and hasattr(last, "error") else None

    def _trace_summary(self) -> dict[str, Any]:
        trace = getattr(self.env.unwrapped, "trace", None)
        if trace is None:
            return {}
        return {"answer": to_jsonable(getattr(trace, "answer", None)),
                "finished": bool(getattr(trace, "finished", False))}

    def _evaluation(self) -> dict[str, Any]:
        """Score, metrics, checks and judge verdict: the env's Evaluation, else the final info, else the record."""
        end = self.data.get("end_info", {})
        result = self.data.get("result", {})
        metrics = end.get("metrics") or result.get("metrics") or {}
        evaluation = getattr(self.env.unwrapped, "evaluation", None)
        out: dict[str, Any] = {"score": result.get("score", end.get("score")), "metrics": metrics,
                               "checks": [], "reason": "", "source": "record"}
        if evaluation is not None and hasattr(evaluation, "checks"):
            out.update(score=float(evaluation.score), reason=str(getattr(evaluation, "reason", "")),
                       checks=[{"name": str(c.name), "passed": bool(c.passed), "detail": str(c.detail)}
                               for c in evaluation.checks], source="evaluation")
            out["metrics"] = to_jsonable({**dict(getattr(evaluation, "metrics", {}) or {}), **metrics})
            for extra in ("judge", "judge_input", "judge_output"):
                if getattr(evaluation, extra, None) is not None:
                    out[extra] = to_jsonable(getattr(evaluation, extra))
        elif isinstance(end.get("evaluation"), Mapping):
            out.update(checks=list(end["evaluation"].get("checks", [])),
                       reason=str(end["evaluation"].get("reason", "")), source="info")
        elif isinstance(metrics.get("checks"), Mapping):  # older envs: {check name: passed}
            out.update(checks=[{"name": str(k), "passed": bool(v), "detail": ""}
                               for k, v in metrics["checks"].items()],
                       reason=str(metrics.get("reason", "")), source="metrics")
        judge = {k: v for k, v in out["metrics"].items()
                 if "judge" in k or k in ("s_llm", "s_rule", "lambda", "rule_weight")}
        if judge and "judge" not in out:
            out["judge"] = judge
        return out


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _usage_of(policy: Any) -> dict[str, Any] | None:
    try:
        usage = getattr(policy, "usage", None)
    except Exception:
        return None
    return dict(usage) if isinstance(usage, Mapping) else None


def _action_name(action: Any) -> str:
    if isinstance(action, Mapping):
        return str(action.get("action_type") or action.get("name") or "")
    return ""


def _message_of(action: Any) -> str:
    if not isinstance(action, Mapping):
        return ""
    nested = action.get("arguments")
    arguments: Mapping[str, Any] = nested if isinstance(nested, Mapping) else action
    return next((str(arguments[k]) for k in ("content", "text", "message") if isinstance(arguments.get(k), str)), "")


def _target_ids(action: Any) -> list[str]:
    """Element ids an action addresses (``bid``, ``index``, ``element_index`` at any depth)."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, Mapping):
            if "tab" in str(value.get("action_type", "")):  # tab_focus's index is a tab, not an element
                return
            for key, item in value.items():
                if key in ("bid", "index", "element_index") and isinstance(item, str | int):
                    found.append(str(item))
                else:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    if isinstance(action, str):
        try:
            action = json.loads(action)
        except ValueError:
            return found
    walk(action)
    return found


def _reasoning(action: Any, policy: Any) -> str:
    """The policy's reasoning for this action: a reasoning key of the action, else an LLM reply's text."""
    if isinstance(action, str):
        try:
            action = json.loads(action)
        except ValueError:
            action = None
    if isinstance(action, Mapping):
        for key in REASONING_KEYS:
            value = action.get(key)
            if value:
                return value if isinstance(value, str) else json.dumps(to_jsonable(value), ensure_ascii=False,
                                                                       indent=1)
    response = getattr(policy, "last_response", None)
    content = getattr(response, "content", None)
    return content.strip() if isinstance(content, str) else ""


def recorder_for(config: Any) -> TrajectoryRecorder | None:
    """The recorder of an :class:`~personal_envs.runner.EvalConfig` (``None`` when ``config.trajectories`` is off)."""
    if not getattr(config, "trajectories", True):
        return None
    return TrajectoryRecorder.for_run(config.results_path(), config.env_id, config.policy)
