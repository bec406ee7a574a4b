"""Measure the prompts :class:`~personal_envs.policies.llm.LLMPolicy` sends on a real episode, without a model.

A scripted policy decides each action; a :class:`~personal_envs.llm.testing.ScriptedChatServer` answers the LLM
policy's request with that action as a tool call, so the LLM policy drives the real env through its real prompt
building while the figures are recorded: prompt tokens per step (the policy's count and the server's 4-characters-
per-token count of the whole request, tools included) and how much of the previous request is a prefix of the next
one (what a server's prefix cache can reuse).  ``benchmarks/llm_prompts.py`` prints them per env; a test checks that
KnowU-Proactive's prompts fit an 8k context for a whole 50-step episode.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

from personal_envs.llm.client import ChatClient
from personal_envs.llm.prompt import common_prefix_chars
from personal_envs.llm.testing import ScriptedChatServer
from personal_envs.policies.llm import LLMPolicy

ActionSource = Callable[[dict[str, Any], dict[str, Any], int], Any]


@dataclass(frozen=True)
class StepFigures:
    """One request: the policy's prompt estimate, the server's count, and the share of the previous request reused."""

    step: int
    estimated_tokens: int
    server_tokens: int
    prefix_reuse: float
    left_out_turns: int


def phone_explorer(observation: dict[str, Any], info: dict[str, Any], step: int) -> dict[str, Any]:
    """A phone loop for KnowU episodes that never finishes on its own: open apps, scroll, tap, go back and home."""
    apps = ("Contacts", "Messages", "Calendar", "Settings", "Clock")
    phase = step % 6
    if phase == 0:
        return {"action_type": "open_app", "app_name": apps[(step // 6) % len(apps)]}
    if phase == 1:
        return {"action_type": "scroll", "direction": "down"}
    if phase == 2:
        return {"action_type": "click", "x": 540, "y": 600 + 40 * (step % 10)}
    if phase == 3:
        return {"action_type": "navigate_back"}
    if phase == 4:
        return {"action_type": "wait"}
    return {"action_type": "navigate_home"}


def policy_source(env_id: str, policy_name: str, env: gym.Env[Any, Any], seed: int = 0) -> tuple[Any, ActionSource]:
    """A registered scripted policy of ``env_id`` as an action source (and the policy, to reset and attach)."""
    from personal_envs.runner import make_policy

    policy = make_policy(env_id, policy_name, env, seed=seed)
    return policy, lambda observation, info, step: policy.act(observation, info)


def _as_tool_call(action: Any) -> dict[str, Any]:
    if isinstance(action, str):
        action = json.loads(action)
    action = dict(action)
    if "function" in action and isinstance(action["function"], dict):
        action = dict(action["function"])
    name = action.pop("action_type", None) or action.pop("name", None) or action.pop("action", None)
    arguments = action.pop("arguments", None)
    if isinstance(arguments, str):
        arguments = json.loads(arguments or "{}")
    return {"name": str(name), "arguments": dict(arguments or action)}


def measure_episode(
    env: gym.Env[Any, Any], source: ActionSource, *, steps: int, task_index: int = 0, scripted: Any = None,
    context_tokens: int = 8192, max_tokens: int = 512, **policy_kwargs: Any,
) -> list[StepFigures]:
    """Run one episode of ``env`` (at most ``steps`` steps) with ``source`` deciding and :class:`LLMPolicy` building
    the prompts; return the figures of every request."""
    pending: list[dict[str, Any]] = []
    with ScriptedChatServer(lambda request: {"tool_calls": [pending[-1]]}) as server:
        client = ChatClient(base_url=server.base_url, model="prompt-bench", max_retries=0, timeout=30)
        policy = LLMPolicy(env, client=client, context_tokens=context_tokens, max_tokens=max_tokens,
                           tokenizer="estimate", **policy_kwargs)
        observation, info = env.reset(seed=task_index, options={"task_index": task_index})
        if scripted is not None:
            scripted.attach(env.unwrapped)
            scripted.reset(observation, info)
        policy.reset(observation, info)
        for step in range(steps):
            pending.append(_as_tool_call(source(observation, info, step)))
            action = policy.act(observation, info)
            observation, _reward, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                break
        requests = list(server.requests)
    if len(requests) != len(policy.trace):
        raise RuntimeError(f"expected one request per step, got {len(requests)} for {len(policy.trace)} steps")
    figures: list[StepFigures] = []
    previous = ""
    for request, entry in zip(requests, policy.trace, strict=True):
        text = json.dumps({"tools": request.get("tools"), "messages": request["messages"]}, ensure_ascii=False)
        reuse = common_prefix_chars(previous, text) / len(previous) if previous else 0.0
        figures.append(StepFigures(int(entry["step"]), int(entry.get("estimated_prompt_tokens") or 0),
                                   int(entry.get("prompt_tokens") or 0), round(reuse, 4),
                                   int(entry.get("left_out_turns") or 0)))
        previous = text
    return figures
