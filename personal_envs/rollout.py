"""Batched asynchronous rollouts: N episodes of a chat environment against an OpenAI-compatible endpoint.

:func:`rollout` (or :func:`rollout_async` inside a running event loop) plays ``episodes`` episodes of
:class:`~personal_envs.chat.ChatEnv` over a pool of at most ``concurrency`` envs, with at most ``concurrency`` model
requests in flight.  asyncio schedules the episodes; each env lives on its own thread (env code is synchronous and
browser-backed envs must stay on one thread) and model requests run on a shared thread pool through the suite's
:class:`~personal_envs.llm.client.ChatClient` (retries, deadlines, lenient parsing).

Seeded: episode ``i`` resets its env with ``seed + i`` and sends that seed in every request (a server that honours
``seed`` samples reproducibly), so the records do not depend on ``concurrency`` or on the order episodes finish in.

Resumable: with ``out`` every finished episode is appended to a JSON-lines file as one record (one ``write`` and an
``fsync``); a later call with the same file skips the episodes recorded without error, and refuses a file written
for another env id or seed.  Records hold the episode's whole conversation (``messages``), the ``tools``, the
``actions``, the ``rewards`` and their sum ``reward``, the end-of-episode ``score`` and ``metrics``, the model's
token counts and ``error`` (``""`` for a complete episode): a results-file record
(:class:`~personal_envs.run_records.EpisodeRecord`, ``policy`` ``"rollout"``): what ``personal-envs export`` turns into a dataset.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from personal_envs.chat.env import ChatEnv
from personal_envs.core.errors import InputError
from personal_envs.core.recorder import JsonlLog, read_jsonl, to_jsonable
from personal_envs.llm.client import ChatClient, ChatResponse, LLMError

__all__ = ["TIMING_KEYS", "RolloutConfig", "comparable", "rollout", "rollout_async"]

T = TypeVar("T")

#: Record keys that depend on the machine and the schedule (excluded by :func:`comparable`).
TIMING_KEYS: tuple[str, ...] = ("seconds", "model_seconds", "env_seconds")


@dataclass
class RolloutConfig:
    """What to roll out.

    Attributes:
        env_id: A registered env id.
        episodes: How many episodes (numbered ``0 .. episodes-1``).
        base_url: The OpenAI-compatible endpoint (default ``$OPENAI_BASE_URL``).
        model: The model to ask for (default: the client's, else the server's first).
        api_key: Bearer token, if the endpoint needs one.
        concurrency: Envs in the pool and model requests in flight, at most.
        seed: Episode ``i`` uses ``seed + i``.
        env_kwargs: Constructor arguments of the env.
        chat_kwargs: Arguments of :class:`~personal_envs.chat.ChatEnv` (``tool_mode``, ``history``,
            ``field_budgets``, ``system_prompt``, ``tokenizer``).
        temperature: Sampling temperature.
        max_tokens: Completion tokens per reply at most.
        max_turns: Model replies per episode at most (the env's own step limit usually ends it first).
        timeout: Seconds per model request.
        out: JSON-lines file of the records (resumable); ``None``: keep them in memory only.
    """

    env_id: str
    episodes: int
    base_url: str | None = None
    model: str | None = None
    api_key: str | None = None
    concurrency: int = 8
    seed: int = 0
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    chat_kwargs: dict[str, Any] = field(default_factory=dict)
    temperature: float = 0.0
    max_tokens: int | None = 512
    max_turns: int = 64
    timeout: float = 120.0
    out: Path | None = None

    def __post_init__(self) -> None:
        if self.episodes < 0:
            raise InputError(f"episodes must be >= 0, got {self.episodes}")
        if self.concurrency < 1:
            raise InputError(f"concurrency must be at least 1, got {self.concurrency}")
        if self.max_turns < 1:
            raise InputError(f"max_turns must be at least 1, got {self.max_turns}")
        if self.out is not None:
            self.out = Path(self.out)


def rollout(config: RolloutConfig, *, client: ChatClient | None = None) -> list[dict[str, Any]]:
    """Run :func:`rollout_async` in a new event loop; the records of every episode, in episode order."""
    return asyncio.run(rollout_async(config, client=client))


async def rollout_async(config: RolloutConfig, *, client: ChatClient | None = None) -> list[dict[str, Any]]:
    """Play the episodes of ``config`` (see the module docstring); the records of every episode (those of a
    resumed file included), in episode order.

    Raises:
        InputError: ``config.out`` holds records of another env id or seed.
        LLMError: no endpoint is configured.
    """
    client = client or ChatClient(config.base_url, config.model, config.api_key, timeout=config.timeout)
    if not client.configured:
        raise LLMError("no endpoint: pass base_url or set OPENAI_BASE_URL")
    kept = _resumed(config)
    todo = [episode for episode in range(config.episodes) if episode not in kept]
    log = JsonlLog(config.out) if config.out is not None else None
    records = dict(kept)
    if todo:
        with _EnvPool(config, min(config.concurrency, len(todo))) as pool, \
                ThreadPoolExecutor(config.concurrency, thread_name_prefix="rollout-llm") as requests:
            runner = _EpisodeRunner(config, client, pool, requests)
            for finished in asyncio.as_completed([runner.run(episode) for episode in todo]):
                record = await finished
                records[record["episode"]] = record
                if log is not None:
                    log.append(record)
    return [records[episode] for episode in sorted(records)]


def comparable(record: Mapping[str, Any]) -> dict[str, Any]:
    """The record without its timings (:data:`TIMING_KEYS`): what two runs with the same seeds must share."""
    return {key: value for key, value in record.items() if key not in TIMING_KEYS}


# ---------------------------------------------------------------------------------------------- internals
def _resumed(config: RolloutConfig) -> dict[int, dict[str, Any]]:
    """The complete episodes already in ``config.out`` (latest record per episode)."""
    if config.out is None or not config.out.exists():
        return {}
    kept: dict[int, dict[str, Any]] = {}
    for record in read_jsonl(config.out):
        if record.get("env_id") != config.env_id or record.get("seed") != config.seed + int(record.get("episode", 0)):
            raise InputError(f"{config.out} holds rollouts of {record.get('env_id')!r} with seed "
                             f"{record.get('seed')!r} for episode {record.get('episode')!r}; this run is "
                             f"{config.env_id!r} with seed {config.seed}: use another --out")
        episode = int(record["episode"])
        if record.get("error"):
            kept.pop(episode, None)
        else:
            kept[episode] = record
    return {episode: record for episode, record in kept.items() if episode < config.episodes}


class _Slot:
    """One env of the pool and the thread it always runs on."""

    def __init__(self, config: RolloutConfig, index: int) -> None:
        self.thread = ThreadPoolExecutor(1, thread_name_prefix=f"rollout-env-{index}")
        self.config = config
        self.env: ChatEnv | None = None

    async def run(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.thread, functools.partial(function, *args, **kwargs))

    async def chat_env(self) -> ChatEnv:
        if self.env is None:
            self.env = await self.run(ChatEnv, self.config.env_id, env_kwargs=self.config.env_kwargs,
                                      **self.config.chat_kwargs)
        return self.env

    def close(self) -> None:
        if self.env is not None:
            with contextlib.suppress(Exception):
                self.thread.submit(self.env.close).result(timeout=60)
        self.thread.shutdown(wait=True)


class _EnvPool:
    """At most ``size`` envs, each made on first use and lent to one episode at a time."""

    def __init__(self, config: RolloutConfig, size: int) -> None:
        self.slots = [_Slot(config, index) for index in range(size)]
        self.free: asyncio.Queue[_Slot] = asyncio.Queue()
        for slot in self.slots:
            self.free.put_nowait(slot)

    def __enter__(self) -> _EnvPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        for slot in self.slots:
            slot.close()

    @contextlib.asynccontextmanager
    async def borrow(self) -> Any:
        slot = await self.free.get()
        try:
            yield slot
        finally:
            self.free.put_nowait(slot)


class _EpisodeRunner:
    def __init__(self, config: RolloutConfig, client: ChatClient, pool: _EnvPool, requests: ThreadPoolExecutor
                 ) -> None:
        self.config = config
        self.client = client
        self.pool = pool
        self.requests = requests

    async def run(self, episode: int) -> dict[str, Any]:
        config = self.config
        seed = config.seed + episode
        record: dict[str, Any] = {"env_id": config.env_id, "policy": "rollout", "episode": episode, "seed": seed,
                                  "error": ""}
        started = time.perf_counter()
        model_seconds = 0.0
        async with self.pool.borrow() as slot:
            try:
                chat = await slot.chat_env()
                opening = await slot.run(chat.reset, seed=seed)
            except Exception as exc:  # an env that cannot start: this episode's error, the others go on
                record.update(error=f"env: {type(exc).__name__}: {exc}", seconds=round(time.perf_counter() - started,
                                                                                        4))
                return record
            info = opening.info
            record.update(task_id=_text(info.get("task_id")), split=_split(info), tools=opening.tools)
            rewards: list[float] = []
            actions: list[dict[str, Any]] = []
            usage = {"prompt_tokens": 0, "completion_tokens": 0, "calls": 0}
            served = ""
            terminated = truncated = False
            final_info: dict[str, Any] = {}
            for _turn in range(config.max_turns):
                request_started = time.perf_counter()
                try:
                    response = await self._ask(chat.messages, chat.tools, seed)
                except LLMError as exc:
                    record["error"] = f"model: {exc}"
                    break
                finally:
                    model_seconds += time.perf_counter() - request_started
                usage["calls"] += 1
                for key in ("prompt_tokens", "completion_tokens"):
                    value = response.usage.get(key)
                    if isinstance(value, int) and not isinstance(value, bool):
                        usage[key] += value
                served = served or response.model
                try:
                    step = await slot.run(chat.step, response)
                except Exception as exc:  # the env broke on a valid action: recorded, the episode ends
                    record["error"] = f"env: {type(exc).__name__}: {exc}"
                    break
                rewards.append(step.reward)
                actions.append(step.action)
                if step.done:
                    terminated, truncated, final_info = step.terminated, step.truncated, step.info
                    break
            else:
                truncated = True
                record["stopped"] = f"max_turns ({config.max_turns}) reached"
            record.update(
                messages=chat.messages, actions=actions, rewards=rewards, reward=float(sum(rewards)),
                steps=len(actions), terminated=terminated, truncated=truncated,
                score=_number(final_info.get("score")) or 0.0, metrics=to_jsonable(final_info.get("metrics") or {}),
                model=served, **usage,
            )
        record["model_seconds"] = round(model_seconds, 4)
        record["seconds"] = round(time.perf_counter() - started, 4)
        return to_jsonable(record)

    async def _ask(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], seed: int) -> ChatResponse:
        loop = asyncio.get_running_loop()
        request = functools.partial(self.client.chat, messages, tools=tools or None,
                                    temperature=self.config.temperature, max_tokens=self.config.max_tokens, seed=seed)
        return await loop.run_in_executor(self.requests, request)


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _split(info: Mapping[str, Any]) -> str:
    """The episode's split: ``info["split"]``, else the prefix of a ``split:index`` task id, else ``"all"``."""
    split = info.get("split")
    if isinstance(split, str) and split:
        return split
    task_id = info.get("task_id")
    if isinstance(task_id, str) and ":" in task_id:
        return task_id.split(":", 1)[0]
    return "all"


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

