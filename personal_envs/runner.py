"""Evaluation runner behind ``personal-envs eval``.

Runs episodes ``0..N-1`` of an env id with a named policy (episode ``i`` uses task ``i`` and seed ``seed + i``),
in this process or in ``workers`` processes, and appends one JSON line per episode to the results file as soon as it
ends.  Episodes already in the file (same env id, policy and episode number) are skipped, so an interrupted run
resumes where it stopped, provided the configuration is the one that wrote the file (:mod:`personal_envs.run_config`).
Each record also carries the model calls, judge and simulated user behind it (:mod:`personal_envs.run_extras`); a
run whose LLM endpoint cannot serve a single call stops after that episode with :class:`LLMRunAborted`.  The
benchmark's report function turns the records into the paper's table.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import multiprocessing as mp
import os
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
from tqdm import tqdm

from personal_envs.core.arguments import check_keywords
from personal_envs.core.errors import InputError, ReportedError, UnknownNameError
from personal_envs.core.recorder import JsonlLog
from personal_envs.core.registration import entry_for, load_object
from personal_envs.policies.base import Policy, PolicyGaveUp
from personal_envs.run_config import (
    ServedModelChanged,
    check_and_store,
    fingerprint,
    record_served_model,
    served_model_on_file,
    store_served_model,
)
from personal_envs.run_extras import (
    episode_extras,
    exclusion_lines,
    fatal_llm_failure,
    llm_episode_failure,
    partial_failure_line,
    split_failed,
    summary_lines,
)
from personal_envs.run_records import print_warning, read_records
from personal_envs.trajectories.recorder import TrajectoryRecorder, recorder_for

#: Where episodes run: ``local`` processes or Ray actors (``personal_envs.ray_backend``; Ray is imported only then).
BACKENDS: tuple[str, ...] = ("local", "ray")

#: ``--policy sb3:PATH`` runs a policy saved by :func:`personal_envs.policies.sb3.save_policy`.
SB3_PREFIX = "sb3:"
#: Policies every env offers, in addition to its benchmark's own.
GENERIC_POLICIES: dict[str, str] = {
    "random": "personal_envs.policies.base:RandomPolicy",
    "llm": "personal_envs.policies.llm:make_llm_policy",
}


@dataclass
class EvalConfig:
    """What to evaluate and where to write it."""

    env_id: str
    policy: str
    episodes: int | None = None
    workers: int = 1
    out: Path | None = None
    seed: int = 0
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    policy_kwargs: dict[str, Any] = field(default_factory=dict)
    progress: bool = True
    max_env_steps: int = 10_000
    #: ``"local"`` (this process, or ``workers`` processes) or ``"ray"`` (``workers`` Ray actors).
    backend: str = "local"
    #: Ray cluster address for ``backend="ray"`` (``None``: start a local Ray, or join ``$RAY_ADDRESS``).
    ray_address: str | None = None
    #: Write each episode's trajectory next to the results file (``personal_envs.trajectories``).
    trajectories: bool = True
    #: The model the results file's episodes came from, set by :func:`evaluate` when resuming; a policy with an
    #: ``expected_model`` attribute (the LLM policy) gives up at its first reply from another model.
    expected_model: str | None = None

    def results_path(self) -> Path:
        """The results file (default ``results/<env id>__<policy>.jsonl``)."""
        return self.out or Path("results") / f"{self.env_id}__{self.policy}.jsonl".replace("/", "_")


def policy_names(env_id: str) -> list[str]:
    """Policy names available for ``env_id``."""
    return sorted({*GENERIC_POLICIES, *entry_for(env_id).policies})


def policy_factory(env_id: str, name: str) -> Any:
    """The factory of policy ``name`` for ``env_id`` (:class:`~personal_envs.core.errors.UnknownNameError` listing
    the available ones); ``sb3:PATH`` is a saved Stable-Baselines3 policy."""
    if name.startswith(SB3_PREFIX):
        return functools.partial(load_object("personal_envs.policies.sb3:make_sb3_policy"),
                                 path=name[len(SB3_PREFIX):])
    factories = {**GENERIC_POLICIES, **entry_for(env_id).policies}
    if name not in factories:
        raise UnknownNameError(f"unknown policy {name!r} for {env_id}; available: {', '.join(sorted(factories))}")
    return load_object(factories[name])


def make_policy(env_id: str, name: str, env: gym.Env[Any, Any], seed: int = 0, **kwargs: Any) -> Policy:
    """Instantiate the policy ``name`` for ``env``.

    Raises:
        UnknownNameError: no policy of that name for ``env_id``.
        InputError: ``kwargs`` holds a keyword the policy does not take.
    """
    factory = policy_factory(env_id, name)
    check_keywords(factory, kwargs, f"policy {name!r}", skip=("env", "seed"))
    try:
        return factory(env, seed=seed, **kwargs)
    except TypeError as exc:  # a factory that passes **kwargs on: the class refused one of the user's keys
        if "unexpected keyword argument" in str(exc) and any(f"'{key}'" in str(exc) for key in kwargs):
            raise InputError(f"policy {name!r}: {exc}") from None
        raise


def _make_run_policy(config: EvalConfig, env: gym.Env[Any, Any]) -> Policy:
    policy = make_policy(config.env_id, config.policy, env, seed=config.seed, **config.policy_kwargs)
    if config.expected_model and hasattr(policy, "expected_model"):
        policy.expected_model = config.expected_model
    return policy


class EpisodeObserver:
    """Watches the episodes of an in-process run as they happen (the notebook prints and shows screens with it).
    Every method is optional; an observer must not change the env."""

    def on_reset(self, env: gym.Env[Any, Any], episode: int, observation: dict[str, Any], info: dict[str, Any]
                 ) -> None:
        """After ``env.reset`` of ``episode``."""

    def on_step(self, env: gym.Env[Any, Any], step: int, action: Any, observation: dict[str, Any], reward: float,
                info: dict[str, Any]) -> None:
        """After each ``env.step`` (``step`` counts from 1)."""

    def on_end(self, env: gym.Env[Any, Any], record: dict[str, Any]) -> None:
        """When the episode's record is complete (before it is written), the env still open."""


def run_episode(
    env: gym.Env[Any, Any], policy: Policy, *, env_id: str, policy_name: str, episode: int, seed: int,
    max_env_steps: int = 10_000, recorder: TrajectoryRecorder | None = None, observer: EpisodeObserver | None = None,
) -> dict[str, Any]:
    """Run one episode and return its record (never raises: failures are recorded in ``error``)."""
    started = time.perf_counter()
    record: dict[str, Any] = {
        "env_id": env_id, "episode": episode, "task_index": None, "task_id": None, "seed": seed,
        "policy": policy_name, "reward": 0.0, "score": 0.0, "steps": 0, "metrics": {}, "runtime_s": 0.0, "error": "",
    }
    writer = recorder.start(env, policy, env_id=env_id, policy_name=policy_name, episode=episode,
                            seed=seed) if recorder is not None else None
    try:
        policy.attach(env.unwrapped)
        obs, info = env.reset(seed=seed, options={"task_index": episode})
        record["task_index"] = info.get("task_index", episode)
        record["task_id"] = info.get("task_id", str(episode))
        record["task_info"] = {k: v for k, v in info.items() if k not in ("task_index", "task_id")}
        policy.reset(obs, info)
        if writer is not None:
            writer.reset(obs, info)
        if observer is not None:
            observer.on_reset(env, episode, obs, info)
        total = 0.0
        for _ in range(max_env_steps):
            action = policy.act(obs, info) if writer is None else writer.act(policy, obs, info)
            obs, reward, terminated, truncated, info = env.step(action)
            if writer is not None:
                writer.step(action, obs, reward, terminated, truncated, info)
            total += float(reward)
            record["steps"] += 1
            if observer is not None:
                observer.on_step(env, record["steps"], action, obs, float(reward), info)
            if terminated or truncated:
                record["metrics"] = info.get("metrics", {})
                record["score"] = float(info.get("score", reward))
                break
        else:
            record["error"] = f"episode did not end within {max_env_steps} steps"
        record["reward"] = total
    except PolicyGaveUp as exc:  # e.g. no valid model reply: an error, never a score
        record["error"] = str(exc)
    except Exception as exc:  # a failing episode is recorded, the run goes on
        record["error"] = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}"
    _add_extras(env, policy, record)
    _unscore_without_model_reply(record)
    record["runtime_s"] = round(time.perf_counter() - started, 4)
    if observer is not None:
        observer.on_end(env, record)
    if writer is not None:
        writer.finish(record)
    return record


# ---------------------------------------------------------------------------------- output and resume checks
class OutputPathError(InputError, ReportedError):
    """The results file cannot be written (read-only folder, a file where a folder should be, ...)."""


def check_output_path(path: Path) -> None:
    """Make sure ``path`` is (or can become) a regular file that can be appended to and that its folder takes the
    files written beside it (the configuration sidecar, the trajectories), creating the folder; raise
    :class:`OutputPathError` (one line) otherwise.  Called before the first episode so a bad ``--out`` costs
    nothing."""
    def refuse(exc: OSError, what: str) -> OutputPathError:
        return OutputPathError(f"cannot write {what}: {exc.strerror or type(exc).__name__}")

    if path.is_dir():
        raise OutputPathError(f"cannot write the results file {path}: it is a folder; --out names a .jsonl file")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        existed = path.exists()
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        os.close(fd)
        if not existed:
            path.unlink()
    except OSError as exc:
        raise refuse(exc, f"the results file {path}") from None
    try:
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", suffix=".check"):
            pass
    except OSError as exc:
        raise refuse(exc, f"the files kept beside the results file {path} (its configuration and trajectories) "
                          f"in {path.parent}") from None


def resumable_records(path: Path, *, warn: bool = True) -> list[dict[str, Any]]:
    """The records of a results file that a run can resume from (``[]`` if there is no file yet).  A line that is
    not a valid record (:class:`~personal_envs.run_records.EpisodeRecord`) is reported on stderr with its line
    number (when ``warn``) and skipped, never fatal: its episode runs again."""
    if not path.exists():
        return []
    return read_records(path, warn=print_warning if warn else None)


class LLMRunAborted(ReportedError):
    """The policy's LLM endpoint failed every call of an episode for a reason that will not go away."""


def _add_extras(env: gym.Env[Any, Any], policy: Policy, record: dict[str, Any]) -> None:
    """Add the ``llm`` / ``judge`` / ``user`` entries of :func:`personal_envs.run_extras.episode_extras`."""
    try:
        record.update(episode_extras(env, policy, record))
    except Exception as exc:  # reporting must never lose the episode
        record["extras_error"] = f"{type(exc).__name__}: {exc}"


def _unscore_without_model_reply(record: dict[str, Any]) -> None:
    """An episode without a valid model reply is an error: no score, and the env's metrics (a policy that never
    spoke may look like one that rightly stayed silent) are kept aside under ``unscored_metrics``."""
    failure = llm_episode_failure(record)
    if failure is None:
        return
    record["error"] = record.get("error") or failure
    record["score"] = None
    if record.get("metrics"):
        record["unscored_metrics"] = record["metrics"]
    record["metrics"] = {}


def _check_configuration(config: EvalConfig, has_records: bool) -> None:
    """Refuse to resume a results file written with another configuration (see :mod:`personal_envs.run_config`)."""
    check_and_store(config.results_path(), fingerprint(config.env_id, config.policy, config.env_kwargs,
                                                       config.policy_kwargs, config.seed), has_records)


# ---------------------------------------------------------------------------------------------- workers
#: ``prctl`` option that sends a signal to this process when its parent dies (``<linux/prctl.h>``).
PR_SET_PDEATHSIG = 1

#: How often a worker checks that its parent is still there (the portable fallback of the parent-death signal).
PARENT_POLL_S = 1.0


def die_with_parent(parent_pid: int) -> None:
    """Make this worker process exit when ``parent_pid`` (the eval process) dies: the kernel's parent-death
    signal on Linux, plus a daemon thread that polls the parent pid (for other systems, and for a parent that
    died before the signal was armed)."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass

    def watch() -> None:
        while True:
            if os.getppid() != parent_pid:
                os._exit(3)
            time.sleep(PARENT_POLL_S)

    if os.getppid() != parent_pid:
        os._exit(3)
    threading.Thread(target=watch, name="personal-envs-parent-watch", daemon=True).start()


def _worker_main(config: EvalConfig, tasks: Any, results: Any, parent_pid: int | None = None) -> None:
    """Worker process: build one env and policy, run episodes from ``tasks`` until ``None``, close the env."""
    if parent_pid is not None:
        die_with_parent(parent_pid)
    import personal_envs  # noqa: F401  (registers the ids in the spawned process)

    try:
        env = gym.make(config.env_id, **config.env_kwargs)
    except InputError as exc:
        results.put({"worker_error": str(exc), "input_error": True})
        return
    try:
        policy = _make_run_policy(config, env)
        while (episode := tasks.get()) is not None:
            results.put(
                run_episode(
                    env, policy, env_id=config.env_id, policy_name=config.policy, episode=episode,
                    seed=config.seed + episode, max_env_steps=config.max_env_steps, recorder=recorder_for(config),
                )
            )
    except InputError as exc:  # bad input: the parent reports it as such, in one line
        results.put({"worker_error": str(exc), "input_error": True})
    except Exception as exc:
        results.put({"worker_error": f"{type(exc).__name__}: {exc}"})
    finally:
        env.close()


def _run_parallel(config: EvalConfig, episodes: Sequence[int]) -> Iterator[dict[str, Any]]:
    context = mp.get_context("spawn")
    tasks: Any = context.Queue()
    results: Any = context.Queue()
    for episode in episodes:
        tasks.put(episode)
    workers = [context.Process(target=_worker_main, args=(config, tasks, results, os.getpid()), daemon=False)
               for _ in range(config.workers)]
    for _ in workers:
        tasks.put(None)
    for worker in workers:
        worker.start()
    received = 0
    try:
        while received < len(episodes):
            try:
                record = results.get(timeout=5.0)
            except Exception:
                if not any(w.is_alive() for w in workers):
                    raise RuntimeError("all evaluation workers exited before finishing the episodes") from None
                continue
            if "worker_error" in record:
                if record.get("input_error"):
                    raise InputError(record["worker_error"])
                raise RuntimeError(f"an evaluation worker failed to start: {record['worker_error']}")
            received += 1
            yield record
    finally:
        _stop_workers(workers, tasks, results, early=received < len(episodes))


#: Seconds stopping workers may take before they are terminated (each finishes its current episode meanwhile).
WORKER_STOP_S = 60.0


def _stop_workers(workers: Sequence[Any], tasks: Any, results: Any, *, early: bool) -> None:
    """Let the workers finish: after an early stop (a fatal error) the episodes not started are withdrawn; the
    results still arriving are read and dropped (a worker cannot exit while its results fill the pipe), and a
    worker still running after :data:`WORKER_STOP_S` is terminated."""
    if early:
        while True:
            try:
                tasks.get_nowait()
            except Exception:
                break
        for _ in workers:
            tasks.put(None)
    deadline = time.monotonic() + WORKER_STOP_S
    while any(w.is_alive() for w in workers) and time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            results.get(timeout=0.2)
    for worker in workers:
        worker.join(timeout=max(0.0, deadline - time.monotonic()))
        if worker.is_alive():
            worker.terminate()
            worker.join(timeout=10)


def _run_local(config: EvalConfig, episodes: Sequence[int], env: gym.Env[Any, Any],
               observer: EpisodeObserver | None = None) -> Iterator[dict[str, Any]]:
    policy = _make_run_policy(config, env)
    for episode in episodes:
        yield run_episode(
            env, policy, env_id=config.env_id, policy_name=config.policy, episode=episode,
            seed=config.seed + episode, max_env_steps=config.max_env_steps, recorder=recorder_for(config),
            observer=observer,
        )


class _LocalEnv:
    """The in-process env of a run, built on first use and shared by task counting and the local runner."""

    def __init__(self, config: EvalConfig) -> None:
        self.config = config
        self.env: gym.Env[Any, Any] | None = None

    def get(self) -> gym.Env[Any, Any]:
        if self.env is None:
            self.env = gym.make(self.config.env_id, **self.config.env_kwargs)
        return self.env

    def close(self) -> None:
        if self.env is not None:
            self.env.close()
            self.env = None


def check_config(config: EvalConfig) -> None:
    """Refuse a configuration that cannot run as asked (:class:`~personal_envs.core.errors.InputError`): fewer than
    one episode or worker, an unknown backend or policy, policy keywords the policy's factory does not take (the env
    checks its own keywords when it is built)."""
    if config.episodes is not None and (isinstance(config.episodes, bool) or config.episodes < 1):
        raise InputError(f"--episodes must be at least 1, got {config.episodes}")
    if config.workers < 1:
        raise InputError(f"--workers must be at least 1, got {config.workers}")
    if config.backend not in BACKENDS:
        raise InputError(f"unknown backend {config.backend!r}; choose one of {', '.join(BACKENDS)}")
    check_keywords(policy_factory(config.env_id, config.policy), config.policy_kwargs, f"policy {config.policy!r}",
                   skip=("env", "seed"))


def count_tasks(env_id: str, env_kwargs: dict[str, Any]) -> int:
    """Number of tasks of an env configuration (the default episode count)."""
    env = gym.make(env_id, **env_kwargs)
    try:
        return int(env.unwrapped.num_tasks)  # type: ignore[attr-defined]
    finally:
        env.close()


def evaluate(config: EvalConfig, observer: EpisodeObserver | None = None) -> list[dict[str, Any]]:
    """Run the evaluation; return every record of this env id and policy in the results file.

    ``observer`` watches the episodes as they run (in-process runs only: one worker, local backend)."""
    entry_for(config.env_id)  # fail early, with the known ids, on a typo
    check_config(config)
    if observer is not None and (config.workers != 1 or config.backend != "local"):
        raise InputError("an observer needs an in-process run (workers=1, backend='local')")
    check_output_path(config.results_path())  # before the first episode, not after it
    log = JsonlLog(config.results_path())

    def mine(record: dict[str, Any]) -> bool:
        return record.get("env_id") == config.env_id and record.get("policy") == config.policy

    existing = [r for r in resumable_records(log.path) if mine(r)]
    _check_configuration(config, has_records=bool(existing))
    file_model = served_model_on_file(log.path, config.env_id, config.policy, existing)
    config.expected_model = file_model
    done = {int(r["episode"]) for r in existing if not r.get("error")}
    in_process = config.backend != "ray" and config.workers == 1
    local = _LocalEnv(config)
    try:
        if config.episodes is not None:
            total = config.episodes
        elif in_process:  # count on the env the run will use instead of building a second one
            total = int(local.get().unwrapped.num_tasks)  # type: ignore[attr-defined]
        else:
            total = count_tasks(config.env_id, config.env_kwargs)
        todo = [i for i in range(total) if i not in done]
        if (recorder := recorder_for(config)) is not None:
            recorder.remove_leftovers()
        if todo:
            records: Iterator[dict[str, Any]]
            if config.backend == "ray":
                from personal_envs.ray_backend import run_ray

                records = run_ray(config, todo)
            elif in_process:
                records = _run_local(config, todo, local.get(), observer)
            else:
                records = _run_parallel(config, todo)
            bar = tqdm(total=len(todo), desc=f"{config.env_id} / {config.policy}", unit="ep",
                       disable=not config.progress)
            for record in records:
                model = record_served_model(record)
                if model and file_model and model != file_model:
                    bar.close()
                    getattr(records, "close", lambda: None)()
                    raise ServedModelChanged(
                        f"the endpoint answered episode {record.get('episode')} with model {model!r}, but the "
                        f"episodes in {config.results_path()} came from {file_model!r}; the episode was not "
                        "added: serve the same model, or use another --out")
                log.append(record)
                if model and not file_model:
                    file_model = model
                    store_served_model(log.path, config.env_id, config.policy, model)
                bar.update(1)
                score = record.get("score")
                bar.set_postfix(score="error" if record.get("error") or score is None else f"{score:.2f}",
                                refresh=False)
                fatal = fatal_llm_failure(record)
                if fatal is not None:
                    bar.close()
                    getattr(records, "close", lambda: None)()
                    raise LLMRunAborted(f"{fatal} (records so far are in {config.results_path()})")
            bar.close()
    finally:
        local.close()
    latest: dict[int, dict[str, Any]] = {}
    for record in resumable_records(log.path, warn=False):
        if mine(record) and int(record["episode"]) < total:
            latest[int(record["episode"])] = record
    return [latest[i] for i in sorted(latest)]


def report(env_id: str, records: Sequence[dict[str, Any]]) -> str:
    """The benchmark's table over the scored episodes; failed episodes (an error, such as no valid model reply) are
    left out of it and counted below it with their reasons, next to the partial failures of the scored ones."""
    entry = entry_for(env_id)
    scored, _ = split_failed(records)
    if not scored:
        text = f"no scored episode: all {len(records)} failed"
    else:
        text = str(load_object(entry.report)(list(scored)) if entry.report else f"{len(scored)} episodes")
    lines = exclusion_lines(records)
    partial = partial_failure_line(records)
    if partial:
        lines.append(partial)
    lines += summary_lines(records)
    if lines:
        text = text + "\n" + "\n".join(lines)
    return text
