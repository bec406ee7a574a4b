"""Any env id of the suite as a chat environment: messages in, messages out.

:class:`ChatEnv` wraps a Gymnasium env of the suite.  :meth:`ChatEnv.reset` gives the opening messages (system,
user) and the env's OpenAI tool schemas; :meth:`ChatEnv.step` takes the model's reply (an OpenAI assistant message
with ``tool_calls`` or a legacy ``function_call``, a :class:`~personal_envs.llm.client.ChatResponse`, or plain text
holding a JSON action) and returns the messages that follow it (the tool result or the next user message: the
env's observation, simulated-user turns included), the Gymnasium reward and whether the episode ended.

Rendering and reply reading are the LLM policy's own (:class:`~personal_envs.chat.render.ChatRenderer`,
:func:`~personal_envs.chat.replies.read_reply`), so a model trained here sees what ``--policy llm`` evaluates.
Observation fields are cut to token budgets counted with the model's own tokenizer when one is given
(``tokenizer=``), else estimated.  The conversation defaults to ``history="full"``: each prompt is a prefix of the
next, which is what trainers that score whole conversations need.

A reply that holds no action, or is not a message at all, is not an error: it becomes an action no env defines, the
env rejects it visibly (its error is in the next observation), the step counts and a note tells the model.  Each
step keeps the exact messages the reply answered (:attr:`ChatEnv.steps`).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from personal_envs.chat.render import ChatRenderer
from personal_envs.chat.replies import NO_TOOL_CALL_ACTION, ReadReply, read_reply
from personal_envs.core.errors import InputError
from personal_envs.llm.client import ChatResponse, LLMError, parse_assistant_message
from personal_envs.llm.prompt import DEFAULT_FIELD_TOKENS, TokenCounter

__all__ = ["TOOL_MODES", "ChatEnv", "ChatReset", "ChatStep", "make"]

#: ``"native"``: actions are OpenAI tools, observations after a call are ``tool`` messages; ``"text"``: the
#: actions are listed in the system message, the model answers with one JSON action, observations are ``user``
#: messages.
TOOL_MODES: tuple[str, ...] = ("native", "text")


@dataclass
class ChatReset:
    """The opening of an episode: the messages to send first, the tools to offer, the env's reset info."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    info: dict[str, Any]


@dataclass
class ChatStep:
    """What follows a reply: the new messages (after the assistant message), the reward, whether it ended."""

    messages: list[dict[str, Any]]
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]
    #: The env action the reply was read as (``{"action_type": name, **arguments}``).
    action: dict[str, Any] = field(default_factory=dict)

    @property
    def done(self) -> bool:
        """True once the episode ended (terminated or truncated)."""
        return self.terminated or self.truncated


class ChatEnv:
    """A chat environment over one env of the suite (see the module docstring).

    Args:
        env: A registered env id (made with ``gym.make(env, **env_kwargs)``) or a made env (then owned: closed by
            :meth:`close`).
        tokenizer: The model's tokenizer (a Hugging Face tokenizer or anything with ``encode``, or a function from
            text to a token count); ``None``: 4 characters per token.
        field_budgets: Token budget per observation field (default: the LLM policy's).
        system_prompt: Instructions (default: the LLM policy's).
        tool_mode: ``"native"`` or ``"text"`` (:data:`TOOL_MODES`).
        history: ``"full"`` (earlier observations as sent) or ``"compact"`` (the LLM policy's default).
        env_kwargs: Constructor arguments when ``env`` is an id.
    """

    def __init__(
        self, env: str | gym.Env[Any, Any], *, tokenizer: Any = None, field_budgets: Mapping[str, int] | None = None,
        system_prompt: str | None = None, tool_mode: str = "native", history: str = "full",
        env_kwargs: Mapping[str, Any] | None = None,
    ) -> None:
        if tool_mode not in TOOL_MODES:
            raise InputError(f"tool_mode must be one of {', '.join(TOOL_MODES)}, got {tool_mode!r}")
        if isinstance(env, str):
            self.env_id = env
            self.env: gym.Env[Any, Any] = gym.make(env, **dict(env_kwargs or {}))
        else:
            self.env = env
            spec = getattr(env, "spec", None)
            self.env_id = getattr(spec, "id", None) or type(env.unwrapped).__name__
        self.counter = TokenCounter(None, "estimate", tokenizer=tokenizer)
        self.renderer = ChatRenderer(
            env_id=self.env_id, tools=self._tool_schemas, counter=self.counter,
            field_budgets=dict(DEFAULT_FIELD_TOKENS if field_budgets is None else field_budgets),
            system_prompt=system_prompt, history=history)
        self.renderer.native_tools = self.renderer.tool_messages = tool_mode == "native"
        self.tool_mode = tool_mode
        #: One entry per step: ``messages`` (the exact conversation the reply answered), ``reply`` (as kept),
        #: ``action``, ``reward``, ``terminated``, ``truncated``.
        self.steps: list[dict[str, Any]] = []
        self._notes: list[str] = []
        self._done = True
        self._started = False

    # ------------------------------------------------------------------------------------------ episode
    @property
    def tools(self) -> list[dict[str, Any]]:
        """The tools to offer the model: the env's OpenAI tool schemas (empty in the text protocol, where the
        system message lists the actions)."""
        return self._tool_schemas() if self.tool_mode == "native" else []

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The whole conversation so far (what the next request sends)."""
        return self.renderer.messages()

    @property
    def done(self) -> bool:
        """True before the first reset and once the episode ended."""
        return self._done

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> ChatReset:
        """Reset the env; the opening messages are the system message and the first observation."""
        observation, info = self.env.reset(seed=seed, options=options)
        self.renderer.reset(observation)
        self.renderer.observe(observation)
        self.steps = []
        self._notes = []
        self._done = False
        self._started = True
        return ChatReset(messages=self.messages, tools=self.tools, info=dict(info))

    def step(self, reply: Mapping[str, Any] | ChatResponse | str) -> ChatStep:
        """Act on the model's reply and return what follows it.

        Raises:
            InputError: before :meth:`reset` or after the episode ended.
        """
        if not self._started:
            raise InputError("ChatEnv.step() before reset(): call reset() first")
        if self._done:
            raise InputError("the episode has ended; call reset() to start another")
        sent = self.messages
        response, problem = _as_response(reply)
        read = read_reply(response, native=self.tool_mode == "native")
        notes = [problem] if problem else []
        notes += read.notes
        self.renderer.record_reply(_kept_reply(response, read), str(read.action.get("action_type", "")))
        observation, reward, terminated, truncated, info = self.env.step(read.action)
        before = len(self.renderer.messages())
        self.renderer.observe(observation, notes=notes)
        new_messages = self.renderer.messages()[before:]
        self._done = bool(terminated or truncated)
        step = ChatStep(messages=new_messages, reward=float(reward), terminated=bool(terminated),
                        truncated=bool(truncated), info=dict(info), action=read.action)
        self.steps.append({"messages": sent, "reply": copy.deepcopy(self.renderer.turns[-2].reply),
                           "action": read.action, "reward": step.reward, "terminated": step.terminated,
                           "truncated": step.truncated, **({"repairs": read.repairs} if read.repairs else {})})
        return step

    def close(self) -> None:
        """Close the env."""
        self.env.close()

    def __enter__(self) -> ChatEnv:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ------------------------------------------------------------------------------------------ internals
    def _tool_schemas(self) -> list[dict[str, Any]]:
        return list(self.env.unwrapped.tool_schemas())  # type: ignore[attr-defined]


def make(env_id: str, **kwargs: Any) -> ChatEnv:
    """``ChatEnv(env_id, **kwargs)``: the chat environment of a registered id."""
    return ChatEnv(env_id, **kwargs)


def _as_response(reply: Any) -> tuple[ChatResponse, str]:
    """The reply as a :class:`ChatResponse`, and a note for the model when it was not a message."""
    if isinstance(reply, ChatResponse):
        return reply, ""
    if isinstance(reply, str):
        return ChatResponse(content=reply, tool_calls=[], usage={}, raw={}, finish_reason="", model=""), ""
    try:
        return parse_assistant_message(reply), ""
    except LLMError as exc:
        empty = ChatResponse(content="", tool_calls=[], usage={}, raw={}, finish_reason="", model="")
        return empty, f"Your reply could not be read ({exc}); answer with an assistant message."


def _kept_reply(response: ChatResponse, read: ReadReply) -> dict[str, Any]:
    """The assistant message kept in the conversation (tool calls with their ids, arguments as JSON text)."""
    message = response.assistant_message()
    if read.action.get("action_type") == NO_TOOL_CALL_ACTION and not message.get("content"):
        message["content"] = ""
    return message
