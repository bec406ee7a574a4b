"""TRL's ``GRPOTrainer`` environment integration for any env id of the suite.

TRL (1.16) takes ``environment_factory``: a callable returning an environment object whose public methods are the
tools the model may call (typed, with Google-style docstrings, from which transformers writes the tool schemas),
whose ``reset(**row)`` starts an episode for a dataset row, and whose ``get_reward()`` scores the finished rollout.
:func:`environment_factory` builds such a class for an env id from the env's own OpenAI tool schemas; each tool
method steps a :class:`~personal_envs.chat.ChatEnv` with that call and returns the observation text the chat env
renders (the same renderer as ``--policy llm``), so training and evaluation see the same conversation.

:func:`prompt_dataset` gives the rows: the opening messages of :meth:`ChatEnv.reset` for each seed (system with the
task context, first observation) and the seed, which :meth:`ChatToolEnvironment.reset` uses to reset the env to the
same task.  One deliberate difference with the eval: TRL executes every tool call of a turn, each as one env step
(the LLM policy executes only the first).
"""

from __future__ import annotations

import itertools
import keyword
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from personal_envs.chat.env import ChatEnv
from personal_envs.core.errors import InputError

__all__ = ["ENDED", "ChatToolEnvironment", "environment_class", "environment_factory", "evaluate_model",
           "flat_group_skipping_trainer", "prompt_dataset", "template_messages", "wall_clock_budget"]

#: What a tool call returns once the episode has ended (the env is not stepped again).
ENDED = "The episode has ended; this call was not executed."

class ChatToolEnvironment:
    """One rollout's environment for TRL: the tool methods are generated per env id by :func:`environment_class`.

    Attributes:
        chat: The chat environment (``history="full"``).
        rewards: Rewards of the steps of the current episode.
    """

    env_id: str = ""
    env_kwargs: dict[str, Any] = {}
    chat_kwargs: dict[str, Any] = {}

    def __init__(self) -> None:
        self.chat = ChatEnv(self.env_id, env_kwargs=self.env_kwargs, **{"history": "full", **self.chat_kwargs})
        self.rewards: list[float] = []
        self.last_info: dict[str, Any] = {}
        self._calls = itertools.count()

    def reset(self, seed: int | None = None, **row: Any) -> str | None:
        """Start the episode of a :func:`prompt_dataset` row (its ``seed``); the row's prompt already holds the
        opening messages, so nothing is appended to it."""
        self.chat.reset(seed=None if seed is None else int(seed))
        self.rewards = []
        self.last_info = {}
        return None

    def get_reward(self) -> float:
        """The episode's return (the sum of its rewards; PersonalWAB pays its score at the end)."""
        return float(sum(self.rewards))

    def _call(self, name: str, arguments: Mapping[str, Any]) -> str:
        if self.chat.done:
            return ENDED
        call = {"id": f"call_{next(self._calls)}", "type": "function",
                "function": {"name": name, "arguments": {k: v for k, v in arguments.items() if v is not None}}}
        step = self.chat.step({"role": "assistant", "content": None, "tool_calls": [call]})
        self.rewards.append(step.reward)
        if step.done:
            self.last_info = step.info
        return "\n\n".join(str(message.get("content") or "") for message in step.messages)


def environment_class(env_id: str, *, env_kwargs: Mapping[str, Any] | None = None,
                      chat_kwargs: Mapping[str, Any] | None = None) -> type[ChatToolEnvironment]:
    """A :class:`ChatToolEnvironment` subclass for ``env_id`` with one method per action of the env.

    Raises:
        InputError: an action or argument name that cannot be a Python name.
    """
    probe = ChatEnv(env_id, env_kwargs=env_kwargs)
    try:
        schemas = probe.tools
    finally:
        probe.close()
    namespace: dict[str, Any] = {"env_id": env_id, "env_kwargs": dict(env_kwargs or {}),
                                 "chat_kwargs": dict(chat_kwargs or {})}
    for schema in schemas:
        method = _tool_method(schema.get("function", schema))
        namespace[method.__name__] = method
    class_name = "".join(part for part in env_id.replace("-", " ").title().split() if part.isalnum()) + "Tools"
    return type(class_name, (ChatToolEnvironment,), namespace)


def environment_factory(env_id: str, **kwargs: Any) -> Callable[[], ChatToolEnvironment]:
    """``environment_factory=`` for ``GRPOTrainer``: the class of :func:`environment_class` (called once per
    rollout environment)."""
    return environment_class(env_id, **kwargs)


def prompt_dataset(env_id: str, seeds: Sequence[int], *, env_kwargs: Mapping[str, Any] | None = None,
                   chat_kwargs: Mapping[str, Any] | None = None) -> Any:
    """A ``datasets.Dataset`` with one row per seed: ``prompt`` (the chat env's opening messages), ``seed``,
    ``task_id``."""
    import datasets

    chat = ChatEnv(env_id, env_kwargs=env_kwargs, **{"history": "full", **dict(chat_kwargs or {})})
    rows = []
    try:
        for seed in seeds:
            opening = chat.reset(seed=int(seed))
            rows.append({"prompt": [{"role": m["role"], "content": m["content"]} for m in opening.messages],
                         "seed": int(seed), "task_id": str(opening.info.get("task_id", ""))})
    finally:
        chat.close()
    return datasets.Dataset.from_list(rows)


def wall_clock_budget(minutes: float) -> Any:
    """A ``transformers.TrainerCallback`` that ends training at the first step end after ``minutes`` of training
    (the step in progress finishes; what follows ``trainer.train()``, such as an evaluation, still runs).

    The callback's ``stopped_at_step`` is the step training stopped at (``None`` while within the budget).
    """
    from transformers import TrainerCallback

    class WallClockBudget(TrainerCallback):
        def __init__(self) -> None:
            self.minutes = float(minutes)
            self.deadline: float | None = None
            self.stopped_at_step: int | None = None

        def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
            self.deadline = time.monotonic() + self.minutes * 60.0
            return control

        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
            if self.deadline is not None and time.monotonic() >= self.deadline and not control.should_training_stop:
                control.should_training_stop = True
                self.stopped_at_step = int(state.global_step)
            return control

    return WallClockBudget()


def flat_group_skipping_trainer() -> type[Any]:
    """TRL's ``GRPOTrainer``, except that a micro-batch whose advantages are all zero skips the policy's forward and
    backward pass.

    When every completion of each group earned the same reward (on a small model, typically all 0), every advantage
    is 0, and with ``beta=0`` and no entropy bonus or router loss TRL's loss is ``0 * log-probabilities``: exactly 0,
    with exactly zero gradients.  This subclass returns that zero directly, as ``0 * sum(parameters)`` so every
    trainable parameter still gets a zero gradient and the optimizer steps as it would have (AdamW's moments decay
    the same way).  The forward and backward over prompt and completion are most of a CPU step's time.  Any other
    micro-batch, or any other loss configuration, goes through TRL's own loss unchanged.

    The trainer counts skipped micro-batches in ``flat_groups_skipped`` and logs ``flat_group_skipped`` (the share of
    the step's micro-batches skipped).
    """
    import torch
    from trl import GRPOTrainer

    class FlatGroupSkippingGRPOTrainer(GRPOTrainer):
        flat_groups_skipped = 0

        def _loss_is_exactly_zero(self, inputs: Mapping[str, Any]) -> bool:
            # attributes of TRL 1.16; if a later TRL renames them, nothing is skipped
            exact = (self.beta == 0.0 and not getattr(self, "_entropy_bonus_enabled", True)
                     and not getattr(self, "aux_loss_enabled", True))
            return exact and not bool(torch.any(inputs["advantages"] != 0))

        def compute_loss(self, model: Any, inputs: Any, return_outputs: bool = False,
                         num_items_in_batch: Any = None) -> Any:
            mode = "train" if model.training else "eval"
            if return_outputs or not self._loss_is_exactly_zero(inputs):
                self._metrics[mode]["flat_group_skipped"].append(0.0)
                return super().compute_loss(model, inputs, return_outputs, num_items_in_batch)
            self.flat_groups_skipped += 1
            self._metrics[mode]["flat_group_skipped"].append(1.0)
            trainable = [parameter for parameter in model.parameters() if parameter.requires_grad]
            return torch.stack([parameter.sum() for parameter in trainable]).sum() * 0.0

    return FlatGroupSkippingGRPOTrainer


# ---------------------------------------------------------------------------------------------- tool methods
def _annotation(schema: Mapping[str, Any]) -> Any:
    if "enum" in schema and schema["enum"]:
        return Literal[tuple(schema["enum"])]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "array":
        items = schema.get("items") or {}
        return list[_annotation(items)] if items.get("type") or items.get("enum") else list  # type: ignore[misc]
    return {"string": str, "integer": int, "number": float, "boolean": bool, "object": dict}.get(str(kind), str)


def _one_line(text: Any) -> str:
    return " ".join(str(text or "").split()).replace('"""', "'''") or "(no description)"


def _tool_method(function: Mapping[str, Any]) -> Callable[..., str]:
    """A method ``name(self, **arguments) -> str`` whose signature, annotations and Google-style docstring say what
    the tool schema says (transformers' ``get_json_schema`` reads them back)."""
    import inspect

    name = str(function.get("name") or "")
    parameters = function.get("parameters") or {}
    properties: Mapping[str, Any] = parameters.get("properties") or {}
    required = set(parameters.get("required") or [])
    for identifier in (name, *properties):
        if not identifier.isidentifier() or keyword.iskeyword(identifier):
            raise InputError(f"tool {name!r}: {identifier!r} cannot be a Python name, so TRL cannot expose it")
    ordered = sorted(properties, key=lambda key: key not in required)
    signature_parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    for key in ordered:
        annotation = _annotation(properties[key])
        if key not in required:
            annotation = annotation | None
        annotations[key] = annotation
        signature_parameters.append(inspect.Parameter(
            key, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=annotation,
            default=inspect.Parameter.empty if key in required else None))
    annotations["return"] = str

    def method(self: ChatToolEnvironment, *args: Any, **kwargs: Any) -> str:
        bound = method.__signature__.bind(self, *args, **kwargs)  # type: ignore[attr-defined]
        arguments = {key: value for key, value in bound.arguments.items() if key != "self"}
        return self._call(name, arguments)

    method.__name__ = method.__qualname__ = name
    method.__signature__ = inspect.Signature(signature_parameters, return_annotation=str)  # type: ignore[attr-defined]
    method.__annotations__ = annotations
    lines = [_one_line(function.get("description")), "", "Args:"]
    lines += [f"    {key}: {_one_line(properties[key].get('description'))}" for key in ordered]
    # no "Returns:" section: it would add the same ``"return"`` entry to every tool schema of the prompt (about 20
    # tokens per tool) and says nothing the model can use
    method.__doc__ = "\n".join(lines) if ordered else lines[0]
    return method


# ---------------------------------------------------------------------------------------------- evaluation
def template_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Chat-env messages as chat templates (and TRL's own conversations) hold them: tool-call ``arguments`` as
    objects, not JSON text."""
    import json

    converted = []
    for message in messages:
        message = dict(message)
        if message.get("tool_calls"):
            calls = []
            for call in message["tool_calls"]:
                function = dict(call.get("function") or {})
                if isinstance(function.get("arguments"), str):
                    try:
                        function["arguments"] = json.loads(function["arguments"])
                    except ValueError:
                        function["arguments"] = {"_raw": function["arguments"]}
                calls.append({**call, "function": function})
            message["tool_calls"] = calls
        converted.append(message)
    return converted


def evaluate_model(model: Any, tokenizer: Any, env_id: str, seeds: Sequence[int], *,
                   env_kwargs: Mapping[str, Any] | None = None, chat_kwargs: Mapping[str, Any] | None = None,
                   max_turns: int = 4, max_new_tokens: int = 96, batch_size: int = 1) -> list[dict[str, Any]]:
    """Greedy episodes of a Hugging Face causal LM on the chat env (the tools of :func:`environment_class`, the
    reply read by TRL's ``parse_response``, as in training); one dict per seed, in the seeds' order, with the
    reward, the end-of-episode metrics and the number of turns.

    ``batch_size`` episodes run side by side (one chat env each): each turn, the prompts of the episodes still
    running are left-padded into one ``generate`` call, and each completion is cut at its first end-of-sequence
    token.  On a CPU this mostly saves decoding passes; padding can change a greedy token where two logits almost
    tie, so results are compared at one batch size.
    """
    import torch
    from trl.chat_template_utils import parse_response

    tool_class = environment_class(env_id, env_kwargs=env_kwargs, chat_kwargs=chat_kwargs)
    tools = [getattr(tool_class, name) for name in _tool_names(tool_class)]
    stops = _end_token_ids(model, tokenizer)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else min(stops)
    chats = [ChatEnv(env_id, env_kwargs=env_kwargs, tokenizer=tokenizer,
                     **{"history": "full", **dict(chat_kwargs or {})}) for _ in range(max(1, batch_size))]
    results = []
    try:
        for start in range(0, len(seeds), len(chats)):
            group = [int(seed) for seed in seeds[start:start + len(chats)]]
            playing = chats[:len(group)]
            for chat, seed in zip(playing, group, strict=True):
                chat.reset(seed=seed)
            rewards, turns = [0.0] * len(group), [0] * len(group)
            infos: list[Mapping[str, Any]] = [{} for _ in group]
            for _ in range(max_turns):
                running = [index for index, chat in enumerate(playing) if not chat.done]
                if not running:
                    break
                prompts = [list(tokenizer.apply_chat_template(
                    template_messages(playing[index].messages), tools=tools, add_generation_prompt=True,
                    return_dict=True)["input_ids"]) for index in running]
                width = max(len(prompt) for prompt in prompts)
                input_ids = torch.tensor([[pad] * (width - len(prompt)) + prompt for prompt in prompts])
                attention_mask = torch.tensor([[0] * (width - len(prompt)) + [1] * len(prompt) for prompt in prompts])
                with torch.no_grad():
                    output = model.generate(input_ids=input_ids, attention_mask=attention_mask,
                                            max_new_tokens=max_new_tokens, do_sample=False, pad_token_id=pad)
                for row, (index, prompt) in enumerate(zip(running, prompts, strict=True)):
                    completion = _through_first(output[row][width:].tolist(), stops)
                    # TRL's own reader (its fallback for an unreadable reply is the reply's text)
                    reply: Any = parse_response(tokenizer, completion, prefix=prompt, tools=tools)
                    step = playing[index].step(reply)
                    turns[index] += 1
                    rewards[index] += step.reward
                    infos[index] = step.info
            results += [{"seed": seed, "reward": rewards[index], "turns": turns[index], "done": playing[index].done,
                         "metrics": dict(infos[index].get("metrics") or {})} for index, seed in enumerate(group)]
    finally:
        for chat in chats:
            chat.close()
    return results


def _end_token_ids(model: Any, tokenizer: Any) -> set[int]:
    """The token ids that end a generation (the model's generation config, else the tokenizer's EOS)."""
    configured = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
    if configured is None:
        configured = tokenizer.eos_token_id
    return {int(token) for token in (configured if isinstance(configured, list) else [configured])}


def _through_first(tokens: list[int], stops: set[int]) -> list[int]:
    """``tokens`` up to and including the first stop token (what ``generate`` pads after it is dropped)."""
    for position, token in enumerate(tokens):
        if token in stops:
            return tokens[:position + 1]
    return tokens


def _tool_names(tool_class: type[ChatToolEnvironment]) -> list[str]:
    return [name for name, value in vars(tool_class).items() if callable(value) and not name.startswith("_")]
