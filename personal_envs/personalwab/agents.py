"""The paper's agent baselines that need only an LLM endpoint, driving the env with the official agents' protocol.

Each agent sends what the official agent sends (HongruCai/PersonalWAB at 23ff65c, ``PersonalWAB/agents/`` and
``run.py``), with the official prompts, templates and tool descriptions read from the release at run time
(:class:`personal_envs.personalwab.official_texts.Release`; ``personal-envs data fetch personalwab``):

* ``function_calling`` (``GPTFunctionCallingAgent``): the env's system prompt plus the memory text, the observation
  as the user message, the four official tools (no ``get_product_details_by_asin``), temperature 0, the first tool
  call of a reply as the action, a reply without a call as ``respond``; tool results go back as ``tool`` messages,
  user replies as ``user`` messages.  Memory ``none``, ``last``, ``relevant``, ``random`` or ``taskspe`` (the
  task-specific memory with ``TS_AGENT_PROMPT`` / ``TS_AGENT_MT_PROMPT``).
* ``recmind`` (RecMind): the same agent with all five tools (the env needs ``details_function=True``), the RecMind
  prompts and RecMind's memory (the 10 newest records, short form).
* ``interecagent`` (InteRecAgent): the same agent with ``INTEREC_PROMPT`` and a per-user memory of liked, disliked
  and expected items: built once from the user's history by the LLM (``init_interecagent_memory.py``'s prompt) and
  updated by the LLM from each finished conversation (``INTEREC_UPDATE_MEM_PROMPT``).
* ``react`` / ``reflexion`` (``ChatReActAgent``, ``react`` / ``react_reflect``): the tools described in the system
  prompt with ``REACT_INST``, replies in the Thought / Action / Arguments format parsed as the official agent parses
  them, tool results prefixed ``API output: ``; ``reflexion`` adds a reflection (``REFLECTION_INST``) after every
  message to the user.  Single-turn episodes get at most 3 model calls, as officially.
* ``puma`` (PUMA with an LLM endpoint instead of the fine-tuned LLaMA): the function chosen by the model from
  PUMA's ``FUNCTION_PROMPT``, the argument generated from ``PARAM_PORMPT`` with the task-specific memory cut to
  ``memory_tokens`` (768 as officially; counted at 4 characters per token, where the official code used the LLaMA
  tokenizer).

Without the release files the agents refuse to start (their prompts are official texts, not shipped).  Endpoint
failures are recorded in :attr:`OfficialAgent.errors` and end the episode with ``stop``.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import gymnasium as gym

from personal_envs.core.errors import InputError
from personal_envs.llm.client import ChatClient, ChatResponse, LLMError
from personal_envs.personalwab import functions as fn
from personal_envs.personalwab.memory import (
    PRODUCT_MARKER,
    TASK_TOOLS,
    HistoryMemory,
    fill_template,
    parse_logs,
    task_sentence,
)
from personal_envs.personalwab.official_texts import Release
from personal_envs.policies.base import Policy

logger = logging.getLogger(__name__)

STRATEGIES = ("function_calling", "recmind", "interecagent", "react", "reflexion", "puma")
#: Memory kinds of the official ``--agent_memory`` option that each strategy accepts.
MEMORIES: dict[str, tuple[str, ...]] = {
    "function_calling": ("none", "last", "relevant", "random", "taskspe"),
    "recmind": ("recmind",), "interecagent": ("interecagent",),
    "react": ("none", "last", "relevant", "random"), "reflexion": ("none", "last", "relevant", "random"),
    "puma": ("taskspe",),
}
#: The official agents retry a request (and a ReAct reply that does not parse) up to 10 times.
ATTEMPTS = 10
#: PUMA's memory budget (``--mem_token_length``) and the characters per token used to apply it.
PUMA_MEMORY_TOKENS = 768
CHARS_PER_TOKEN = 4


class ReleaseMissing(RuntimeError):
    """The official agents' texts are not in the data directory (run ``personal-envs data fetch personalwab``)."""


def _need(value: Any, what: str) -> Any:
    if value is None:
        raise ReleaseMissing(f"the official PersonalWAB {what} is missing; run 'personal-envs data fetch personalwab' "
                             "(the agents' prompts are read from the release, not shipped)")
    return value


def function_call_text(name: str, arguments: str) -> str:
    """A tool call as the official agents print it in a transcript (``str`` of the OpenAI ``Function`` object)."""
    return f"Function(arguments={arguments!r}, name={name!r})"


def card_field(instruction: str, *labels: str) -> str:
    """A field of the product card in a review task's instruction (the first of ``labels`` found, any case)."""
    card = instruction.split(PRODUCT_MARKER, 1)[-1] if PRODUCT_MARKER in instruction else ""
    for label in labels:
        for line in card.splitlines():
            if line.lower().startswith(f"- {label.lower()}: "):
                return line.split(": ", 1)[1]
    return ""


class OfficialAgent(Policy):
    """An official PersonalWAB agent baseline (see the module docstring) as a policy of the env.

    Args:
        env: The PersonalWAB env (wrapped or not).
        strategy: One of :data:`STRATEGIES`.
        memory: The official memory kind (:data:`MEMORIES`; default the strategy's first).
        client: The chat client (default configured from the environment).
        memory_length: Records kept in memory (the official ``act`` default, 10).
        temperature: Sampling temperature of the agent's requests (official 0.0).
        interec_memory_file: InteRecAgent's memory file (created from the histories by the LLM when absent).
        memory_tokens: PUMA's memory budget in tokens.
    """

    name = "official-agent"

    def __init__(self, env: gym.Env[Any, Any], strategy: str = "function_calling", memory: str | None = None,
                 client: ChatClient | None = None, memory_length: int = 10, temperature: float = 0.0,
                 seed: int = 0, interec_memory_file: str | Path | None = None,
                 memory_tokens: int = PUMA_MEMORY_TOKENS) -> None:
        if strategy not in STRATEGIES:
            raise InputError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
        memory = memory or MEMORIES[strategy][0]
        if memory not in MEMORIES[strategy]:
            raise InputError(f"strategy {strategy!r} takes memory {MEMORIES[strategy]}, got {memory!r}")
        unwrapped: Any = env.unwrapped
        self.env = unwrapped
        self.release: Release = getattr(self.env, "release", None) or Release()
        self.strategy = strategy
        self.memory = memory
        self.memory_length = memory_length
        self.temperature = temperature
        self.memory_tokens = memory_tokens
        self.client = client if client is not None else ChatClient()
        self.client.require_configured()
        self.multi = getattr(self.env, "mode", "single") == "multi"
        self.max_steps = int(getattr(self.env, "max_steps", 10))
        self.seed = seed
        infos = _need(self.release.function_infos(), "function modules (functions/*.py)")
        if strategy == "recmind":
            if fn.DETAILS not in {spec.name for spec in unwrapped.action_specs}:
                raise InputError("RecMind uses get_product_details_by_asin: make the env with details_function=True")
            self.tools = infos
        else:
            self.tools = [info for info in infos if info["function"]["name"] != fn.DETAILS]
        self.system_prompt = self._system_prompt()
        self.interec_memory_file = Path(interec_memory_file) if interec_memory_file else None
        self.interec: dict[str, dict[str, list[str]]] | None = None
        self.messages: list[dict[str, Any]] = []
        #: Every endpoint failure, as ``"episode E: message"``.
        self.errors: list[str] = []
        self._episode = -1
        self._user_id = ""
        self._pending: dict[str, Any] | None = None
        self._calls = 0
        self._puma_function: str | None = None

    # ------------------------------------------------------------------------------------------ prompts
    def _system_prompt(self) -> str:
        release, steps = self.release, str(self.max_steps if self.multi else -1)
        if self.strategy == "recmind":
            name = "RECMIND_MT_PROPMT" if self.multi else "RECMIND_ST_PROMPT"
            return _need(release.agent_text(name), "agents/utils.py").replace("<NUM>", steps)
        if self.strategy == "interecagent":
            return _need(release.agent_text("INTEREC_PROMPT"), "agents/utils.py").replace("<NUM>", steps)
        if self.memory == "taskspe" and self.strategy == "function_calling":
            name = "TS_AGENT_MT_PROMPT" if self.multi else "TS_AGENT_PROMPT"
            return _need(release.agent_text(name), "agents/utils.py").replace("<NUM>", steps)
        base = _need(release.system_prompt(self.multi, self.max_steps), "env module (envs/pwab/__init__.py)")
        if self.strategy in ("react", "reflexion"):
            instruction = _need(release.agent_text("REACT_INST"), "agents/utils.py")
            return base + "\n#Available tools\n" + json.dumps(self.tools) + instruction
        return str(base)

    def memory_text(self, observation: dict[str, Any]) -> str:
        """The memory the official agent appends to its system prompt for this observation ('' for none)."""
        if self.memory == "none" or self.strategy == "puma":
            return ""
        if self.memory == "interecagent":
            return self._interec_text(observation)
        kind = "task" if self.memory == "taskspe" else self.memory
        agent = "chat_react_agent" if self.strategy in ("react", "reflexion") else "gpt_function_calling_agent"
        provider = HistoryMemory(kind, k=self.memory_length, seed=self.seed + self._episode, release=self.release)
        chosen, task_type = provider._choose(observation)
        pieces = _need(self.release.memory_pieces(kind if kind != "task" else "taskspe", agent) or None,
                       f"agents/{agent}.py")
        if kind == "task":
            return provider.official_text(chosen, task_type) or ""
        name = "MINI_HISTORY_PROMPT" if kind == "recmind" else "HISTORY_PROMPT"
        template = _need(self.release.agent_text(name), "agents/utils.py")
        return pieces[0] + "\n".join(fill_template(template, name, r, i) for i, r in enumerate(chosen))

    # ------------------------------------------------------------------------------------------ policy
    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        """A new conversation: the system prompt with the memory, the observation as the first user message."""
        self.finish()
        self._episode += 1
        self._calls = 0
        self._pending = None
        self._puma_function = None
        self._user_id = str(info.get("user_id", ""))
        system = self.system_prompt
        memory = self.memory_text(observation)
        if memory and memory != "none":
            system += memory
        self.messages = [{"role": "system", "content": system},
                         {"role": "user", "content": str(observation.get("instruction", ""))}]
        self._observation = observation

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        """The next action: the env's answer to the previous one goes into the conversation, then the model."""
        if self._episode < 0:
            self.reset(observation, info)
        self._record_outcome(observation)
        if self.strategy in ("react", "reflexion") and not self.multi and self._calls >= 3:
            return {"action_type": fn.STOP}
        self._calls += 1
        try:
            if self.strategy in ("react", "reflexion"):
                return self._react_step()
            if self.strategy == "puma":
                return self._puma_step(observation)
            return self._function_calling_step()
        except LLMError as error:
            self.errors.append(f"episode {self._episode}: {error}")
            self._pending = None
            return {"action_type": fn.STOP}

    def _record_outcome(self, observation: dict[str, Any]) -> None:
        pending, self._pending = self._pending, None
        if pending is None:
            return
        error = str(observation.get("last_action_error", ""))
        if pending["name"] == fn.RESPOND:
            reply = str(observation.get("user_reply", ""))
            self.messages += [{"role": "assistant", "content": pending["text"]}, {"role": "user", "content": reply}]
            if self.strategy == "reflexion":
                self.messages.append({"role": "assistant", "content": self._reflection()})
            return
        result = error or str(observation.get("result", ""))
        if self.strategy in ("react", "reflexion"):
            self.messages += [{"role": "assistant", "content": pending["text"]},
                              {"role": "user", "content": "API output: " + result}]
        elif self.strategy == "puma":
            self.messages += [{"role": "assistant", "content": pending["text"]},
                              {"role": "tool", "name": pending["name"], "content": result}]
        else:
            self.messages += [pending["message"], {"role": "tool", "tool_call_id": pending["id"],
                                                   "name": pending["name"], "content": result}]

    def _chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
              temperature: float | None = None) -> ChatResponse:
        extra: dict[str, Any] = {"tool_choice": "auto"} if tools else {}
        return self.client.chat(messages, tools=tools, temperature=self.temperature if temperature is None
                                else temperature, **extra)

    # ------------------------------------------------------------------------------------------ strategies
    def _function_calling_step(self) -> dict[str, Any]:
        response = self._chat(self.messages, self.tools)
        if response.tool_calls:
            call = response.tool_calls[0]
            message = {"role": "assistant", "content": response.content or None, "tool_calls": [call.to_openai()]}
            self._pending = {"name": call.name, "id": call.id, "message": message}
            return {"action_type": call.name, **call.arguments}
        self._pending = {"name": fn.RESPOND, "text": response.content}
        return {"action_type": fn.RESPOND, "content": response.content}

    def _react_step(self) -> dict[str, Any]:
        last_error: Exception | None = None
        for _ in range(ATTEMPTS):
            response = self._chat(self.messages)
            message = response.content
            name = message.split("Action:")[-1].split("Arguments:")[0].strip()
            raw = message.split("Arguments:")[-1].strip().split("\n")[0]
            if name in ("respond", ""):
                self._pending = {"name": fn.RESPOND, "text": message}
                return {"action_type": fn.RESPOND, "content": raw}
            try:
                arguments = json.loads(raw)
            except json.JSONDecodeError as error:
                last_error = error
                continue
            self._pending = {"name": name, "text": message}
            return {"action_type": name, **arguments} if isinstance(arguments, dict) else {"action_type": name}
        self.errors.append(f"episode {self._episode}: the model's arguments never parsed ({last_error})")
        return {"action_type": fn.STOP}

    def _reflection(self) -> str:
        template = _need(self.release.agent_text("REFLECTION_INST"), "agents/utils.py")
        actions = "".join(f"{m['role']}:{m['content']}\n" for m in self.messages[1:-1])
        prompt = template.replace("<TASK>", task_sentence(str(self._observation.get("instruction", ""))))
        prompt = prompt.replace("<ACTIONS>", actions).replace("<FEEDBACK>", str(self.messages[-1]["content"]))
        return self._chat([{"role": "system", "content": prompt}], temperature=1.0).content

    def _puma_step(self, observation: dict[str, Any]) -> dict[str, Any]:
        utils_puma = "PUMA/utils.py"
        if self._puma_function is None:
            prompt = _need(self.release.constant(utils_puma, "FUNCTION_PROMPT"), utils_puma)
            instruction = task_sentence(str(observation.get("instruction", "")))
            reply = self._chat([{"role": "user", "content": prompt.replace("<Instruction>", instruction)}]).content
            answer = reply.split("### Tool:\n")[-1]
            self._puma_function = next((name for name in TASK_TOOLS.values() if name in answer), fn.SEARCH)
        function = self._puma_function
        task_type = next(kind for kind, name in TASK_TOOLS.items() if name == function)
        records = parse_logs(str(observation.get("logs", "")))
        memory = HistoryMemory("task", k=self.memory_length, release=self.release, function=task_type)
        chosen = memory.most_relevant(task_sentence(str(observation.get("instruction", ""))), records)
        if task_type == "recommend":  # PUMA's agent keeps the newest items first (to survive the cut)
            chosen = sorted(chosen, key=lambda r: float(r.get("timestamp") or 0), reverse=True)
        template_name = {"search": "TS_SEARCH_PROMPT", "recommend": "TS_REC_PROMPT", "review": "TS_REV_PROMPT"}
        template = _need(self.release.agent_text(template_name[task_type]), "agents/utils.py")
        memory_text = "|".join(fill_template(template, template_name[task_type], r) for r in chosen) or "none"
        memory_text = memory_text[: self.memory_tokens * CHARS_PER_TOKEN]
        instruction = task_sentence(str(observation.get("instruction", "")))
        if task_type == "review":
            product = _need(self.release.agent_text("PRODUCT_PROMPT"), "agents/utils.py")
            card = str(observation.get("instruction", ""))
            for placeholder, labels in (("<Title>", ("Title",)), ("<Price>", ("Price",)), ("<Store>", ("Store",)),
                                        ("<Main Category>", ("Category", "main_category"))):
                product = product.replace(placeholder, card_field(card, *labels))
            instruction += product
        prompt = _need(self.release.agent_text("PARAM_PORMPT"), "agents/utils.py")
        prompt = prompt.replace("<Insturction>", instruction).replace("<Memory>", memory_text)
        prompt = prompt.replace("<Tool>", function)
        param = self._chat([{"role": "user", "content": prompt}]).content.strip()
        param = param.split("### Tool Parameter:\n")[-1]
        if param.startswith("Say:"):
            self._pending = {"name": fn.RESPOND, "text": param}
            return {"action_type": fn.RESPOND, "content": param.split("Say: ")[-1]}
        if param.startswith("stop"):
            return {"action_type": fn.STOP}
        self._pending = {"name": function, "text": param}
        if function == fn.RECOMMEND:
            items = list(dict.fromkeys(item.strip() for item in param.split(",")))
            return {"action_type": function, "product_sequence": items}
        key = "query" if function == fn.SEARCH else "review"
        return {"action_type": function, key: param}

    # ------------------------------------------------------------------------------------------ InteRecAgent
    def _interec_text(self, observation: dict[str, Any]) -> str:
        pieces = _need(self.release.memory_pieces("interecagent") or None, "agents/gpt_function_calling_agent.py")
        template = _need(self.release.agent_text("INTEREC_MEMORY_PROMPT"), "agents/utils.py")
        records = sorted(parse_logs(str(observation.get("logs", ""))),
                         key=lambda r: float(r.get("timestamp") or 0), reverse=True)[: self.memory_length]
        profile = self._interec_memory().get(self._user_id, {"like": [], "dislike": [], "expect": []})
        text = pieces[0] + "\n".join(fill_template(template, "INTEREC_MEMORY_PROMPT", r) for r in records)
        text += pieces[1] + str(profile.get("like", [])) + pieces[2] + str(profile.get("dislike", []))
        return text + pieces[3] + str(profile.get("expect", []))

    def _interec_memory(self) -> dict[str, dict[str, list[str]]]:
        if self.interec is None:
            path = self.interec_memory_file
            if path is not None and path.is_file():
                self.interec = json.loads(path.read_text(encoding="utf-8"))
            else:
                self.interec = build_interec_memory(self.env, self.client, self.release)
                self._save_interec()
        assert self.interec is not None
        return self.interec

    def _save_interec(self) -> None:
        if self.interec_memory_file is not None and self.interec is not None:
            self.interec_memory_file.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.interec_memory_file.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.interec, indent=2), encoding="utf-8")
            tmp.replace(self.interec_memory_file)

    def finish(self, observation: dict[str, Any] | None = None) -> None:
        """End of an episode: InteRecAgent updates the user's like / dislike / expect lists from the conversation.

        Called by :meth:`reset` for the previous episode (then the last call's result is not known: the policy API
        does not pass the final observation); call it with the final observation after an episode to give the
        conversation its last result, as the official agent has it."""
        if self._pending is not None:
            if observation is not None:
                self._record_outcome(observation)
            elif "message" in self._pending:
                self.messages.append(self._pending["message"])
            self._pending = None
        if self.strategy != "interecagent" or len(self.messages) < 2 or not self._user_id:
            return
        messages, self.messages = self.messages, []
        template = _need(self.release.agent_text("INTEREC_UPDATE_MEM_PROMPT"), "agents/utils.py")
        conversation = ""
        for message in messages[1:]:
            if message["role"] in ("user", "tool"):
                conversation += f"{message['role']}:{message['content']}\n"
            elif message.get("tool_calls"):
                call = message["tool_calls"][0]["function"]
                conversation += "assistant:" + function_call_text(call["name"], call["arguments"]) + "\n"
            else:
                conversation += f"assistant:{message['content']}\n"
        try:
            reply = self.client.chat([{"role": "system", "content": template.replace("{conversation}", conversation)}],
                                     temperature=1.0).content
            update = json.loads(reply.replace("```json", "").replace("```", "").replace("\n", ""))
        except (LLMError, json.JSONDecodeError) as error:
            self.errors.append(f"episode {self._episode}: InteRecAgent memory update failed ({error})")
            return
        memory = self._interec_memory().setdefault(self._user_id, {"like": [], "dislike": [], "expect": []})
        like, dislike, expect = set(memory["like"]), set(memory["dislike"]), set(memory["expect"])
        like = (like - set(update.get("dislike", []))) | set(update.get("like", []))
        dislike = (dislike - set(update.get("like", []))) | set(update.get("dislike", []))
        expect |= set(update.get("expect", []))
        memory.update(like=sorted(like), dislike=sorted(dislike), expect=sorted(expect)[-30:])
        self._save_interec()


def build_interec_memory(env: Any, client: ChatClient, release: Release) -> dict[str, dict[str, list[str]]]:
    """InteRecAgent's initial memory: for each user, the LLM's like / dislike lists from the user's history
    (``init_interecagent_memory.py``: the history entries of split ``history``, the last 200, with the product's
    title, ASIN and categories and the user's rating and text; temperature 0), ``expect`` empty."""
    script = "tools/init_interecagent_memory.py"
    product = _need(release.constant(script, "PRODUCT_PROMPT"), script)
    prompt = _need(release.constant(script, "USER_PROFILE_PROMPT"), script)
    memory: dict[str, dict[str, list[str]]] = {}
    for user_id, entries in env.backend.data.histories.items():
        texts = []
        for entry in entries:
            if entry.get("split", "history") != "history":
                continue
            info, review = entry["product_info"], entry["review"]
            text = product.replace("<TITLE>", str(info.get("title"))).replace("<CATEGORIES>", str(info.get("categories")))
            text = text.replace("<PARENT_ASIN>", str(info.get("parent_asin")))
            texts.append(text.replace("<RATING>", str(review.get("rating"))).replace("<REVIEW_TEXT>",
                                                                                    str(review.get("text"))))
        system = prompt.replace("{History}", "".join(texts[-200:]))
        try:
            reply = client.chat([{"role": "system", "content": system}], temperature=0.0, max_tokens=5000).content
            profile = json.loads(reply[reply.find("{"):].replace("```json", "").replace("```", "").replace("\n", ""))
        except (LLMError, json.JSONDecodeError) as error:
            logger.warning("InteRecAgent memory of user %s not built: %s", user_id, error)
            profile = {}
        memory[user_id] = {"like": list(profile.get("like", [])), "dislike": list(profile.get("dislike", [])),
                           "expect": []}
    return memory


def make_agent(env: gym.Env[Any, Any], seed: int = 0, **kwargs: Any) -> OfficialAgent:
    """Factory for ``--policy official-agent`` (``strategy``, ``memory`` and client settings as policy kwargs)."""
    client_keys = ("base_url", "model", "api_key", "timeout", "max_retries")
    client_kwargs = {key: kwargs.pop(key) for key in client_keys if key in kwargs}
    client = kwargs.pop("client", None) or ChatClient(**client_kwargs)
    return OfficialAgent(env, client=client, seed=seed, **kwargs)
