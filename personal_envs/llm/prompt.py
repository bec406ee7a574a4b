"""Token budgets and observation rendering for LLM prompts that fit a context window and reuse the server's cache.

Token counts come from the server's tokenizer when it has one (:meth:`ChatClient.count_tokens`) or from the
documented estimate :func:`estimate_tokens`: one token per 4 characters, rounded up.  For the English, JSON and
XML the envs produce, 4 characters per token is close to what BPE tokenizers of the Llama/SmolLM/GPT families give
(3.2-4.5 on the suite's observations), so budgets are approximate when the estimate is used: keep ``context_tokens``
a little under the server's real context.

Fields are cut to a budget *in tokens* with a marker saying how much was left out.  Fields whose newest content is
at the end (the user's ``logs``, the dialogue) keep their tail; the rest keep their head.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping
from typing import Any

from personal_envs.llm.client import ChatClient

#: Characters per token of the estimate used when the server has no tokenizer endpoint.
CHARS_PER_TOKEN = 4.0

#: Observation keys rendered for the model, in the order they appear in the message.
OBSERVATION_FIELDS: tuple[str, ...] = (
    "instruction", "url", "context", "user_reply", "logs", "axtree", "ui_xml", "last_action_error",
)
#: Fields sent once, in the system message, at the start of an episode (they do not change during one); a later
#: change is sent in the turn where it happens.
PINNED_FIELDS: tuple[str, ...] = ("instruction", "context", "logs")
#: Fields whose newest content is at the end, so a cut keeps their tail.
TAIL_FIELDS: frozenset[str] = frozenset({"logs", "dialogue", "history"})
#: Fields whose start and end both matter (KnowU's official goal: the logs first, the instruction last), so a cut
#: keeps a third of the budget from the start and the rest from the end, and names what the middle left out.
HEAD_TAIL_FIELDS: frozenset[str] = frozenset({"instruction"})

#: Tokens of each field in the current observation.
DEFAULT_FIELD_TOKENS: dict[str, int] = {
    "instruction": 600, "url": 120, "context": 400, "user_reply": 500, "logs": 1800,
    "axtree": 2000, "ui_xml": 1800, "last_action_error": 250,
}
#: Tokens of a text field outside :data:`OBSERVATION_FIELDS` (an env's own field, such as ``result``).
OTHER_FIELD_TOKENS = 1000
#: Tokens of each changed field in the compact copies of earlier observations kept in the conversation.
HISTORY_FIELD_TOKENS = 60
#: Tokens of the memory provider's text per turn.
MEMORY_TOKENS = 1200


def estimate_tokens(text: str) -> int:
    """The documented estimate: ``ceil(len(text) / 4)`` tokens."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def tokenizer_counter(tokenizer: Any) -> Callable[[str], int]:
    """A function counting the tokens of a text with ``tokenizer``: a Hugging Face tokenizer (its ``encode``
    without special tokens), any object with such an ``encode``, or a function from text to a token count.

    Raises:
        TypeError: ``tokenizer`` is none of these.
    """
    encode = getattr(tokenizer, "encode", None)
    if callable(encode):
        def count(text: str) -> int:
            try:
                return len(encode(text, add_special_tokens=False))
            except TypeError:  # an encode() without the keyword (tiktoken, sentencepiece)
                return len(encode(text))
        return count
    if callable(tokenizer):
        return lambda text: int(tokenizer(text))
    raise TypeError(f"tokenizer must have an encode() method or be a function of the text, got "
                    f"{type(tokenizer).__name__}")


class TokenCounter:
    """Counts tokens with a given tokenizer (the model's own, e.g. a Hugging Face tokenizer), the server's tokenizer
    (``mode="auto"`` when it has one, ``"server"``) or the estimate.

    Counts are cached by text, so the unchanged parts of a conversation are tokenized once.
    """

    def __init__(self, client: ChatClient | None = None, mode: str = "auto", *, tokenizer: Any = None) -> None:
        if mode not in ("auto", "server", "estimate"):
            raise ValueError(f"tokenizer must be 'auto', 'server' or 'estimate', got {mode!r}")
        self.client = client
        self.mode = mode
        self._local = tokenizer_counter(tokenizer) if tokenizer is not None else None
        self._server_ok: bool | None = None if mode != "estimate" and client is not None else False
        self._cache: dict[str, int] = {}

    @property
    def source(self) -> str:
        """``"tokenizer"`` with a given tokenizer, ``"server"`` once the server's tokenizer answered,
        ``"estimate"`` otherwise."""
        if self._local is not None:
            return "tokenizer"
        return "server" if self._server_ok else "estimate"

    def count(self, text: str) -> int:
        """Tokens of ``text``."""
        if not text:
            return 0
        if self._local is None and (self._server_ok is False or self.client is None):
            return estimate_tokens(text)
        key = hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=16).hexdigest()
        if key in self._cache:
            return self._cache[key]
        if self._local is not None:
            local = self._local(text)
            self._remember(key, local)
            return local
        assert self.client is not None
        counted = self.client.count_tokens(text)
        if counted is None:
            self._server_ok = False
            return estimate_tokens(text)
        self._server_ok = True
        self._remember(key, counted)
        return counted

    def _remember(self, key: str, counted: int) -> None:
        if len(self._cache) > 4096:
            self._cache.clear()
        self._cache[key] = counted

    def cut(self, text: str, budget: int, *, keep_tail: bool = False) -> str:
        """``text`` within ``budget`` tokens; what was left out is named in a marker (never silently)."""
        tokens = self.count(text)
        if tokens <= budget:
            return text
        chars = max(0, int(len(text) * budget / tokens * 0.97))
        for _ in range(3):
            kept = text[len(text) - chars:] if keep_tail else text[:chars]
            if self.count(kept) <= budget or chars == 0:
                break
            chars = int(chars * 0.9)
        left_out = len(text) - chars
        if keep_tail:
            return f"…[the {left_out} oldest characters (about {tokens - budget} tokens) not shown]\n{kept}"
        return f"{kept}\n…[{left_out} more characters (about {tokens - budget} tokens) not shown]"


def message_text(message: Mapping[str, Any]) -> str:
    """The text of a chat message that a tokenizer sees: its content (JSON for non-text content) and tool calls."""
    content = message.get("content")
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False) if content else ""
    if message.get("tool_calls"):
        text += json.dumps(message["tool_calls"], ensure_ascii=False)
    return text


def field_text(value: Any) -> str:
    """An observation value as text ('' for arrays such as screenshots)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, (Mapping, list, tuple)):
        try:
            return json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            return str(value)
    if isinstance(value, (int, float, bool)):
        return str(value)
    return ""


def ordered_fields(observation: Mapping[str, Any]) -> list[str]:
    """Keys in rendering order: standard fields, then env-specific ones, ``last_action_error`` last."""
    standard = [key for key in OBSERVATION_FIELDS if key != "last_action_error"]
    extra = [key for key in observation if key not in OBSERVATION_FIELDS]
    return [*standard, *extra, "last_action_error"]


def render_fields(
    observation: Mapping[str, Any],
    counter: TokenCounter,
    budgets: Mapping[str, int],
    *,
    keys: list[str] | None = None,
    default_budget: int = OTHER_FIELD_TOKENS,
    scale: float = 1.0,
) -> list[str]:
    """``## field`` sections of the observation's non-empty text fields, each cut to its token budget."""
    sections: list[str] = []
    for key in keys if keys is not None else ordered_fields(observation):
        text = field_text(observation.get(key))
        if not text:
            continue
        budget = max(16, int(budgets.get(key, default_budget) * scale))
        if key in HEAD_TAIL_FIELDS and counter.count(text) > budget:
            head = counter.cut(text, max(8, budget // 3)).rsplit("\n", 1)[0]
            tail = counter.cut(text, budget - budget // 3, keep_tail=True).split("\n", 1)[-1]
            left_out = max(0, len(text) - len(head) - len(tail))
            sections.append(f"## {key}\n{head}\n…[{left_out} characters in the middle not shown]\n{tail}")
            continue
        sections.append(f"## {key}\n{counter.cut(text, budget, keep_tail=key in TAIL_FIELDS)}")
    return sections


def common_prefix_chars(previous: str, current: str) -> int:
    """Length of the common prefix of two serialized prompts (what a prefix cache can reuse)."""
    limit = min(len(previous), len(current))
    low, high = 0, limit
    while low < high:  # binary search on prefix equality: O(n log n) instead of a Python loop per character
        middle = (low + high + 1) // 2
        if previous[:middle] == current[:middle]:
            low = middle
        else:
            high = middle - 1
    return low
