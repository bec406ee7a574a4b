"""Crash-safe writing of results and trajectories.

* :func:`write_json_atomic` writes a whole file through a temporary file and ``os.replace``: readers see the old
  file or the new one, never half of one.
* :class:`JsonlLog` appends one complete line per record with a single ``write`` and ``fsync``; :func:`read_jsonl`
  skips a torn last line, so an interrupted run loses at most the record being written and can resume.
* :class:`EpisodeRecorder` is a wrapper that records every step of every episode and writes each trajectory as one
  JSON file atomically when the episode ends.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np


def to_jsonable(value: Any) -> Any:
    """Convert numpy values and arrays (arrays become a shape summary) to JSON-serialisable values."""
    if isinstance(value, dict):
        return {str(key): to_jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(item) for item in value]
    if isinstance(value, np.ndarray):
        return {"ndarray_shape": list(value.shape), "dtype": str(value.dtype)}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)


def write_json_atomic(path: str | os.PathLike[str], obj: Any, *, indent: int | None = None) -> None:
    """Write ``obj`` as JSON to ``path`` atomically (temporary file in the same folder, fsync, rename)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(to_jsonable(obj), handle, ensure_ascii=False, indent=indent)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


def read_jsonl(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """Yield the JSON objects of a JSON-lines file, skipping blank and torn (unparseable) lines silently.  Results
    files of ``eval`` are read with :func:`personal_envs.run_records.read_records`, which checks each record and
    reports the lines it skips."""
    target = Path(path)
    if not target.exists():
        return
    with target.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            line = line.strip()
            if not line:
                continue
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):  # torn, not JSON, too many digits, nested too deeply
                continue
            if isinstance(record, dict):
                yield record


class JsonlLog:
    """Append-only JSON-lines file; each record is written with one ``write`` call and flushed to disk."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._repair_torn_tail()

    def append(self, record: dict[str, Any]) -> None:
        """Append one record as one line."""
        line = (json.dumps(to_jsonable(record), ensure_ascii=False) + "\n").encode("utf-8")
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)

    def records(self) -> list[dict[str, Any]]:
        """All complete records in the file."""
        return list(read_jsonl(self.path))

    def _repair_torn_tail(self) -> None:
        """Terminate a last line left without a newline by a crash, so the next append starts a fresh line."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return
        with self.path.open("rb") as handle:
            handle.seek(-1, os.SEEK_END)
            last = handle.read(1)
        if last != b"\n":
            with self.path.open("ab") as handle:
                handle.write(b"\n")


class EpisodeRecorder(gym.Wrapper[Any, Any, Any, Any]):
    """Record each episode's actions, observations (text parts), rewards and errors to ``directory``.

    One file ``episode_{n:06d}.json`` per episode, written atomically at episode end (and on ``close`` for an
    episode left unfinished, marked ``"finished": false``).
    """

    def __init__(self, env: gym.Env[Any, Any], directory: str | os.PathLike[str]) -> None:
        super().__init__(env)
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.episode_count = 0
        self._trajectory: dict[str, Any] | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        if self._trajectory is not None:
            self._flush(finished=False)
        obs, info = self.env.reset(seed=seed, options=options)
        self._trajectory = {
            "env_id": self.env.spec.id if self.env.spec else type(self.env.unwrapped).__name__,
            "seed": seed,
            "options": options,
            "started": time.time(),
            "reset_info": info,
            "initial_observation": _text_parts(obs),
            "steps": [],
        }
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        if self._trajectory is not None:
            self._trajectory["steps"].append(
                {
                    "action": action,
                    "reward": float(reward),
                    "terminated": terminated,
                    "truncated": truncated,
                    "observation": _text_parts(obs),
                    "info": info,
                }
            )
            if terminated or truncated:
                self._trajectory["metrics"] = info.get("metrics", {})
                self._flush(finished=True)
        return obs, reward, terminated, truncated, info

    def close(self) -> None:
        if self._trajectory is not None:
            self._flush(finished=False)
        super().close()

    def _flush(self, *, finished: bool) -> None:
        assert self._trajectory is not None
        self._trajectory["finished"] = finished
        self._trajectory["ended"] = time.time()
        write_json_atomic(self.directory / f"episode_{self.episode_count:06d}.json", self._trajectory)
        self.episode_count += 1
        self._trajectory = None


def _text_parts(obs: Any) -> Any:
    if isinstance(obs, dict):
        return {key: to_jsonable(value) for key, value in obs.items()}
    return to_jsonable(obs)
