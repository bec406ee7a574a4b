"""Any env id of the suite served as an OpenEnv environment (``openenv-core``): ``personal-envs openenv serve``.

OpenEnv's server speaks HTTP and WebSocket (``/reset``, ``/step``, ``/state``, ``/ws``); each WebSocket session gets
its own :class:`ChatOpenEnv`, a :class:`~personal_envs.chat.ChatEnv` of the id, so a trainer on another machine
drives whole episodes in the chat format with OpenEnv's own clients
(``GenericEnvClient(base_url=...)``):

* ``reset(seed=..., options=...)`` gives the opening ``messages`` (system, user) and the ``tools``;
* ``step({"message": <assistant message or text>})`` gives the ``messages`` that follow the reply, the ``reward``
  and ``done``; ``info`` holds the env id, the task id, the action the reply was read as, and, when the episode
  ends, its ``score`` and ``metrics``.

A step after the episode ended, or before any reset, is answered with ``done`` and the problem in
``info["error"]``, never a server error.  Envs run on one thread each (browser-backed envs need it).
"""

from __future__ import annotations

import functools
import uuid
from typing import Any

from openenv.core.env_server.http_server import create_fastapi_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

from personal_envs.chat.env import ChatEnv
from personal_envs.core.errors import InputError
from personal_envs.core.recorder import to_jsonable

__all__ = ["ChatAction", "ChatObservation", "ChatOpenEnv", "make_app", "serve"]


class ChatAction(Action):
    """The model's reply: an OpenAI assistant message (``tool_calls`` or ``content``) or its text."""

    message: dict[str, Any] | str = Field(description="the assistant message, or the reply's text")


class ChatObservation(Observation):
    """The messages that follow (at reset: the opening messages) and the tools to offer."""

    messages: list[dict[str, Any]] = Field(default_factory=list)
    tools: list[dict[str, Any]] = Field(default_factory=list)
    #: The env id, the task id, the action the reply was read as, the end's score and metrics, or an ``error``
    #: (OpenEnv sends ``metadata`` to no client, so these travel here).
    info: dict[str, Any] = Field(default_factory=dict)


class ChatOpenEnv(Environment[ChatAction, ChatObservation, State]):
    """One OpenEnv session: a chat environment of ``env_id``."""

    SUPPORTS_CONCURRENT_SESSIONS = True
    REQUIRES_SINGLE_THREAD_EXECUTOR = True

    def __init__(self, env_id: str, env_kwargs: dict[str, Any] | None = None,
                 chat_kwargs: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.env_id = env_id
        self.chat = ChatEnv(env_id, env_kwargs=env_kwargs, **dict(chat_kwargs or {}))
        self._state = State(episode_id=None, step_count=0)
        self._task_id: str | None = None

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> ChatObservation:
        """Reset the env (``options`` passed on) and give the opening messages and the tools."""
        opening = self.chat.reset(seed=seed, options=kwargs.get("options"))
        self._state = State(episode_id=episode_id or uuid.uuid4().hex, step_count=0)
        task_id = opening.info.get("task_id")
        self._task_id = None if task_id is None else str(task_id)
        return ChatObservation(messages=opening.messages, tools=opening.tools, done=False, reward=None,
                               info={"env_id": self.env_id, "task_id": self._task_id})

    def step(self, action: ChatAction, timeout_s: float | None = None, **kwargs: Any) -> ChatObservation:
        """Act on the reply; a reply outside an episode is answered with ``info["error"]``."""
        info: dict[str, Any] = {"env_id": self.env_id, "task_id": self._task_id}
        try:
            step = self.chat.step(action.message)
        except InputError as exc:
            return ChatObservation(done=True, reward=0.0, info={**info, "error": str(exc)})
        self._state.step_count += 1
        info["action"] = to_jsonable(step.action)
        if step.done:
            info.update(terminated=step.terminated, truncated=step.truncated,
                        score=to_jsonable(step.info.get("score")), metrics=to_jsonable(step.info.get("metrics")))
        return ChatObservation(messages=step.messages, done=step.done, reward=step.reward, info=info)

    @property
    def state(self) -> State:
        """The episode id and the steps taken."""
        return self._state

    def close(self) -> None:
        """Close the env."""
        self.chat.close()


def make_app(env_id: str, *, env_kwargs: dict[str, Any] | None = None, chat_kwargs: dict[str, Any] | None = None,
             max_sessions: int = 4) -> Any:
    """The OpenEnv FastAPI app serving ``env_id`` (at most ``max_sessions`` concurrent sessions)."""
    from personal_envs.core.registration import entry_for

    entry_for(env_id)  # an unknown id is an InputError now, not at the first session
    factory = functools.partial(ChatOpenEnv, env_id, env_kwargs, chat_kwargs)
    return create_fastapi_app(factory, ChatAction, ChatObservation, max_concurrent_envs=max_sessions)


def serve(env_id: str, *, host: str = "127.0.0.1", port: int = 8000, env_kwargs: dict[str, Any] | None = None,
          max_sessions: int = 4) -> int:
    """Serve ``env_id`` until interrupted (uvicorn)."""
    import uvicorn

    app = make_app(env_id, env_kwargs=env_kwargs, max_sessions=max_sessions)
    print(f"serving {env_id} as an OpenEnv environment at http://{host}:{port} (ws://{host}:{port}/ws)", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0
