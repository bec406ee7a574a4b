"""Reward shaping wrappers, each named after the paper metric it shapes.

Unshaped, every env's episode return is the paper's score (the base env pays it as the final reward).  These
wrappers add dense terms for RL; the paper's score stays in ``info["score"]`` at the end of the episode, every step's
unshaped reward is in ``info["paper_reward"]``, and each wrapper's term is in ``info["shaping"][name]`` (the
episode's running total of every term in ``info["shaping_total"]``).

=================================  =====================================  ==============================================
wrapper                            paper metric                           signal
=================================  =====================================  ==============================================
:class:`EfficiencyStepCost`        efficiency (KnowU 50/avg steps;         every step costs ``cost``
                                   PersonalWAB avg steps)
:class:`InteractionEfficiencyCost` interaction efficiency (KnowU IE)       every user-turn action (``ask_user``,
                                                                           ``respond``, ``send_msg_to_user``) costs
:class:`WebMallCheckpoints`        WebMall dense reward (product-page      first visit of each answer page, first cart
                                   visits and carts)                       of each answer
:class:`PersonalWABCallAccuracy`   PersonalWAB result accuracy per         each scored task-function call pays its
                                   scored call                             result accuracy (wrong function: penalty)
:class:`KnowUProactivePenalties`   KnowU proactive Silent and Stop         acting when the routine does not apply;
                                                                           acting after the user rejected
=================================  =====================================  ==============================================

Signals come from the step ``info`` when the env provides them (keys below); otherwise from the env's documented
state, read by the wrapper only to compute rewards (never shown to the agent):

* WebMall: ``info["checkpoints"] = {"answer_pages_visited": int, "answers_carted": int}`` (counts so far);
  fallback: ``env.expected_urls``, the shops' visited and carted products.
* PersonalWAB: ``info["call_score"] = {"function": str, "correct_function": bool, "result_accuracy": float}`` on a
  step with a scored call; fallback: the env's list of scored calls.
* KnowU: ``info["user_decision"]`` (``"accept"`` / ``"reject"``) on an ``ask_user`` step, fallback: the decision
  the simulated user returned (recorded by a pass-through proxy); whether the routine applies: the task's
  ``routine_applies`` (privileged; never put into ``info``).
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym

from personal_envs.core.actions import ActionError
from personal_envs.wrappers.user_proxy import ProxyUser, install_proxy

#: Actions that do not act on the user's behalf in KnowU's proactive setting (Silent / Stop definitions).
PASSIVE_ACTIONS: frozenset[str] = frozenset({"wait", "finished", "ask_user", "answer", "status"})


class ShapingWrapper(gym.Wrapper[Any, Any, Any, Any]):
    """Base class: adds :meth:`shaping` to the env's reward and records the terms in ``info``.

    Subclasses set :attr:`metric` (the paper metric shaped) and implement :meth:`shaping`.
    """

    metric: str = "shaping"

    def __init__(self, env: gym.Env[Any, Any]) -> None:
        super().__init__(env)
        self.shaping_return = 0.0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        observation, info = self.env.reset(seed=seed, options=options)
        self.shaping_return = 0.0
        self.on_reset(observation, info)
        return observation, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        name = self.action_name(action)
        observation, reward, terminated, truncated, info = self.env.step(action)
        info = dict(info)
        term = float(self.shaping(name, observation, info, terminated or truncated))
        self.shaping_return += term
        info.setdefault("paper_reward", float(reward))
        info["shaping"] = {**info.get("shaping", {}), self.metric: term}
        info["shaping_total"] = {**info.get("shaping_total", {}), self.metric: self.shaping_return}
        return observation, float(reward) + term, terminated, truncated, info

    # ------------------------------------------------------------------------------------------ hooks
    def on_reset(self, observation: Any, info: dict[str, Any]) -> None:
        """Called after every reset."""

    def shaping(self, action_name: str | None, observation: Any, info: dict[str, Any], done: bool) -> float:
        """The shaping term of this step."""
        raise NotImplementedError

    # ------------------------------------------------------------------------------------------ helpers
    def action_name(self, action: Any) -> str | None:
        """The name of a well-formed action, ``None`` for a malformed one."""
        try:
            return str(self.env.unwrapped.parse(action).name)  # type: ignore[attr-defined]
        except (ActionError, AttributeError, TypeError, ValueError):
            return None


class EfficiencyStepCost(ShapingWrapper):
    """Efficiency: every step costs ``cost`` (fewer steps for the same score pay more)."""

    metric = "efficiency"

    def __init__(self, env: gym.Env[Any, Any], cost: float = 0.01) -> None:
        super().__init__(env)
        self.cost = cost

    def shaping(self, action_name: str | None, observation: Any, info: dict[str, Any], done: bool) -> float:
        return -self.cost


class InteractionEfficiencyCost(ShapingWrapper):
    """Interaction efficiency: every action that asks the user costs ``cost``.

    Args:
        cost: Cost per question.
        actions: Names of asking actions (default: the env's ``user_turn_actions``, else ``ask_user``,
            ``respond`` and ``send_msg_to_user``).
    """

    metric = "interaction_efficiency"

    def __init__(self, env: gym.Env[Any, Any], cost: float = 0.05, actions: frozenset[str] | None = None) -> None:
        super().__init__(env)
        self.cost = cost
        declared = frozenset(getattr(env.unwrapped, "user_turn_actions", frozenset()))
        self.asking_actions = actions or declared or frozenset({"ask_user", "respond", "send_msg_to_user"})

    def shaping(self, action_name: str | None, observation: Any, info: dict[str, Any], done: bool) -> float:
        return -self.cost if action_name in self.asking_actions else 0.0


class WebMallCheckpoints(ShapingWrapper):
    """WebMall's dense checkpoints: ``visit_bonus`` for the first visit of each answer's product page and
    ``cart_bonus`` for each answer first found in a cart (cart tasks only count carts of answers)."""

    metric = "webmall_checkpoints"

    def __init__(self, env: gym.Env[Any, Any], visit_bonus: float = 0.1, cart_bonus: float = 0.1) -> None:
        super().__init__(env)
        self.visit_bonus = visit_bonus
        self.cart_bonus = cart_bonus
        self._visited = 0
        self._carted = 0

    def on_reset(self, observation: Any, info: dict[str, Any]) -> None:
        self._visited, self._carted = 0, 0

    def shaping(self, action_name: str | None, observation: Any, info: dict[str, Any], done: bool) -> float:
        visited, carted = self.checkpoints(info)
        term = self.visit_bonus * max(0, visited - self._visited) + self.cart_bonus * max(0, carted - self._carted)
        self._visited, self._carted = max(visited, self._visited), max(carted, self._carted)
        return term

    def checkpoints(self, info: dict[str, Any]) -> tuple[int, int]:
        """(answer pages visited, answers carted) so far: ``info["checkpoints"]`` when an env supplies it, else
        the WebMall env's privileged :meth:`~personal_envs.webmall.env.WebMallEnv.checkpoint_counts`."""
        given = info.get("checkpoints")
        if isinstance(given, dict):
            return int(given.get("answer_pages_visited", 0)), int(given.get("answers_carted", 0))
        counts = getattr(self.env.unwrapped, "checkpoint_counts", None)
        if not callable(counts):
            raise TypeError("WebMallCheckpoints needs a WebMall env (one with checkpoint_counts())")
        visited, carted = counts()
        return int(visited), int(carted)


class PersonalWABCallAccuracy(ShapingWrapper):
    """PersonalWAB result accuracy per scored call: each task-function call pays its result accuracy when it is
    the right function, and ``-wrong_function_penalty`` otherwise.

    The paper's episode score (best result accuracy among correct calls) stays in ``info["score"]``; with the
    default ``replace_final=True`` the final score is removed from the reward so that the return is the sum of the
    per-call terms (``False`` keeps both).
    """

    metric = "personalwab_result_accuracy"

    def __init__(
        self, env: gym.Env[Any, Any], wrong_function_penalty: float = 0.0, replace_final: bool = True
    ) -> None:
        super().__init__(env)
        self.wrong_function_penalty = wrong_function_penalty
        self.replace_final = replace_final

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = super().step(action)
        if self.replace_final and (terminated or truncated):
            reward = float(reward) - float(info.get("paper_reward", 0.0))
        return observation, reward, terminated, truncated, info

    def shaping(self, action_name: str | None, observation: Any, info: dict[str, Any], done: bool) -> float:
        total = 0.0
        for call in self.new_calls(info):
            if call["correct_function"]:
                total += float(call["result_accuracy"])
            else:
                total -= self.wrong_function_penalty
        return total

    def new_calls(self, info: dict[str, Any]) -> list[dict[str, Any]]:
        """Scored calls made in this step."""
        given = info.get("call_score")
        return [given] if isinstance(given, dict) else []


class KnowUProactivePenalties(ShapingWrapper):
    """KnowU proactive Silent and Stop: penalise acting when the user has no such routine, and acting after the
    user rejected a proposal.  "Acting" is any action outside :data:`PASSIVE_ACTIONS`.

    Args:
        no_routine_penalty: Per acting step when the task's routine does not apply.
        after_rejection_penalty: Per acting step after the user answered a question with a rejection.
    """

    metric = "knowu_proactive"

    def __init__(
        self, env: gym.Env[Any, Any], no_routine_penalty: float = 0.2, after_rejection_penalty: float = 0.5
    ) -> None:
        super().__init__(env)
        self.no_routine_penalty = no_routine_penalty
        self.after_rejection_penalty = after_rejection_penalty
        self.recorder = ProxyUser()
        self.rejected = False
        self.routine_applies: bool | None = None

    def on_reset(self, observation: Any, info: dict[str, Any]) -> None:
        base = self.env.unwrapped
        if getattr(base, "user_turn_actions", None) and getattr(base, "simulated_user", None) is not None:
            install_proxy(base, self.recorder)
        self.recorder.last_reply = None
        self.rejected = False
        task = getattr(base, "task", None)
        applies = getattr(task, "routine_applies", None)
        if applies is None:
            applies = getattr(getattr(task, "spec", None), "routine_applies", None)
        if applies is None and self.recorder.context is not None:
            routine = self.recorder.context.task.get("routine")
            applies = routine.get("applies") if isinstance(routine, dict) else None
        self.routine_applies = None if applies is None else bool(applies)

    def shaping(self, action_name: str | None, observation: Any, info: dict[str, Any], done: bool) -> float:
        term = 0.0
        acting = action_name is not None and action_name not in PASSIVE_ACTIONS and not info.get("action_error")
        if acting and self.routine_applies is False:
            term -= self.no_routine_penalty
        if acting and self.rejected:
            term -= self.after_rejection_penalty
        if action_name in PASSIVE_ACTIONS and self.decision(info) == "reject":
            self.rejected = True
        self.recorder.last_reply = None
        return term

    def decision(self, info: dict[str, Any]) -> str | None:
        """The user's decision on this step's question, if any."""
        given = info.get("user_decision")
        if given in ("accept", "reject"):
            return str(given)
        reply = self.recorder.last_reply
        return reply.decision if reply is not None else None
