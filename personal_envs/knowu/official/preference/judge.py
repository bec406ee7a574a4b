"""The official preference-judge protocol, for any OpenAI-compatible endpoint.

What the official judge (``BasePrefrenceTask.query_user_agent_judge`` of the pinned release) sees and does, rebuilt
by the project:

* the prompt: the official f-string read from the release (:class:`JudgeProtocol`) filled with the persona text
  (:func:`~personal_envs.knowu.official.preference.persona.persona_text`), the request (``GOAL_REQUEST``), the
  dialogue (agent questions as "GUI Agent", user replies as "User"), the evaluation facts as indented JSON, the
  task's weighted rubric and, when images are sent, the official image hint;
* the request: the official system message, the prompt as text, or as text plus ``data:`` image URLs (base64) when
  images are given, at the official temperature and token limit;
* the output parsing (:func:`parse_output`): reasoning from ``<think>``, else the first 200 characters; the score
  from ``<score>``, 0.0 when that tag holds no number, the last number of the reply when there is no tag; clamped
  to [0, 1].

Deviations kept on purpose: a failed call is never silently scored 0.5.  :class:`OfficialPreferenceJudge` records
the error in the verdict and, by default, scores with the task's deterministic fallback (labelled
``"fallback-after-error"``); ``on_error="official-0.5"`` gives the official 0.5 (labelled
``"official-0.5-after-error"``); ``on_error="raise"`` raises :class:`JudgeFailed`.  Without an endpoint the
deterministic fallback is used and labelled ``"fallback"``.
"""

from __future__ import annotations

import ast
import base64
import functools
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from personal_envs.knowu.official.preference import fstrings
from personal_envs.llm.client import ChatClient, LLMError

#: Repository path and class of the official preference base.
BASE_FILE = "src/knowu_bench/tasks/definitions/preference/base_prefrence_task.py"
BASE_CLASS = "BasePrefrenceTask"
OnError = Literal["fallback", "official-0.5", "raise"]
ON_ERROR_CHOICES: tuple[str, ...] = ("fallback", "official-0.5", "raise")
#: The score the official code returns when the judge call fails (only with ``on_error="official-0.5"``).
OFFICIAL_ERROR_SCORE = 0.5
_MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".webp": "image/webp", ".gif": "image/gif"}


class JudgeFailed(RuntimeError):
    """The judge endpoint failed and ``on_error="raise"`` was asked for."""


def _constants(node: ast.AST) -> list[str]:
    """String constants of a ``+`` chain, left to right, outside calls."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _constants(node.left) + _constants(node.right)
    return []


@dataclass(frozen=True)
class JudgeProtocol:
    """The official judge texts and request settings, read from a release.

    Attributes:
        eval_prompt: The official prompt expression (an f-string over ``self.persona_text``, ``goal_text``,
            ``history_block``, ``eval_json_str``, ``rubric`` and ``image_hint``).
        history_header: Text before the dialogue lines.
        history_footer: Text after them.
        turn_line: The f-string of one dialogue line (over ``role`` and ``turn``).
        agent_label: Label of the agent's turns (official role ``"user"``).
        user_label: Label of the user's turns.
        image_hint: The paragraph added when images are sent.
        system_prompt: The system message.
        temperature: Sampling temperature of the official request.
        max_tokens: Completion token limit of the official request.
    """

    eval_prompt: ast.expr
    history_header: str
    history_footer: str
    turn_line: ast.expr
    agent_label: str
    user_label: str
    image_hint: str
    system_prompt: str
    temperature: float
    max_tokens: int

    @classmethod
    def from_file(cls, path: Path) -> JudgeProtocol:
        """Parse the official preference base file (never executed)."""
        func = fstrings.method(fstrings.parse(path), BASE_CLASS, "query_user_agent_judge")
        prompt = fstrings.assigned(func, "eval_prompt")
        history = fstrings.assigned(func, "history_block")
        role = [v for v in fstrings.assigned(func, "role") if isinstance(v, ast.IfExp)]
        hint = [v for v in fstrings.assigned(func, "image_hint") if isinstance(v, ast.IfExp)]
        if not (prompt and history and role and hint):
            raise ValueError(f"{path}: the official judge prompt is not where the project reads it "
                             "(eval_prompt, history_block, role, image_hint)")
        parts = [p for value in history for p in _constants(value) if p]
        turn_lines = [node.args[0] for node in ast.walk(func) if isinstance(node, ast.Call)
                      and isinstance(node.func, ast.Attribute) and node.func.attr == "append" and node.args
                      and isinstance(node.args[0], ast.JoinedStr)]
        system = ""
        for node in ast.walk(func):
            if isinstance(node, ast.Dict):
                entries = {ast.literal_eval(k): v for k, v in zip(node.keys, node.values, strict=True)
                           if isinstance(k, ast.Constant)}
                role_node = entries.get("role")
                if isinstance(role_node, ast.Constant) and role_node.value == "system":
                    system = fstrings.render(entries["content"], {})
        temperature = fstrings.keyword_args(func, "create", "temperature")
        max_tokens = fstrings.keyword_args(func, "create", "max_tokens")
        if len(parts) < 2 or not turn_lines or not system or not temperature or not max_tokens:
            raise ValueError(f"{path}: the official judge request is not where the project reads it")
        return cls(prompt[0], parts[0], parts[-1], turn_lines[0], fstrings.render(role[0].body, {}),
                   fstrings.render(role[0].orelse, {}), fstrings.render(hint[0].body, {}), system,
                   float(ast.literal_eval(temperature[0])), int(ast.literal_eval(max_tokens[0])))

    @classmethod
    def from_release(cls, root: str | Path) -> JudgeProtocol:
        """The protocol of the release directory ``root`` (cached per directory)."""
        return _protocol_cached(str(Path(root).resolve()))

    # ------------------------------------------------------------------------------------------ building
    def history_block(self, chat_history: Sequence[Mapping[str, Any]] | None) -> str:
        """The dialogue section (empty without a dialogue); official roles: ``"user"`` is the GUI agent."""
        if not chat_history:
            return ""
        lines = []
        for turn in chat_history:
            label = self.agent_label if turn.get("role") == "user" else self.user_label
            lines.append(fstrings.render(self.turn_line, {"role": label, "turn": dict(turn)}))
        return self.history_header + "\n".join(lines) + self.history_footer

    def prompt(self, *, persona: str, goal: str, eval_data: Mapping[str, Any], rubric: str,
               chat_history: Sequence[Mapping[str, Any]] | None = None, with_images: bool = False) -> str:
        """The official judge prompt text."""
        namespace = {"persona_text": persona, "goal_text": goal.strip(), "history_block": self.history_block(
            chat_history), "eval_json_str": json.dumps(dict(eval_data), indent=2, ensure_ascii=False, default=str),
            "rubric": rubric, "image_hint": self.image_hint if with_images else ""}
        return fstrings.render(self.eval_prompt, namespace)

    def messages(self, *, persona: str, goal: str, eval_data: Mapping[str, Any], rubric: str,
                 chat_history: Sequence[Mapping[str, Any]] | None = None,
                 images: Sequence[str | Path] = ()) -> list[dict[str, Any]]:
        """The official chat request: system message, then the prompt (with ``data:`` image parts if any)."""
        text = self.prompt(persona=persona, goal=goal, eval_data=eval_data, rubric=rubric,
                           chat_history=chat_history, with_images=bool(images))
        content: str | list[dict[str, Any]] = text
        if images:
            parts: list[dict[str, Any]] = [{"type": "text", "text": text}]
            for path in images:
                url = image_data_url(path)
                if url:
                    parts.append({"type": "image_url", "image_url": {"url": url}})
            content = parts if len(parts) > 1 else text
        return [{"role": "system", "content": self.system_prompt}, {"role": "user", "content": content}]


@functools.lru_cache(maxsize=8)
def _protocol_cached(root: str) -> JudgeProtocol:
    path = Path(root) / BASE_FILE
    if not path.is_file():
        raise FileNotFoundError(f"no official preference base {BASE_FILE} under {root}")
    return JudgeProtocol.from_file(path)


def image_data_url(path: str | Path) -> str | None:
    """``data:<mime>;base64,...`` of an image file (``None`` when missing or empty, as the official code skips it)."""
    file = Path(path)
    if not file.is_file() or file.stat().st_size == 0:
        return None
    mime = _MIME.get(file.suffix.lower(), "image/jpeg")
    return f"data:{mime};base64,{base64.b64encode(file.read_bytes()).decode('ascii')}"


_NUMBER = re.compile(r"(\d+(?:\.\d+)?)")


def parse_output(text: str) -> tuple[float, str, str | None]:
    """``(score, reasoning, note)`` from a judge reply, as the official code parses it.

    ``note`` says when the official parsing fell back (no ``<score>`` tag: last number used; an invalid tag: 0.0);
    it is ``None`` on a well-formed reply.
    """
    reasoning = "Parse Error"
    score = 0.0
    note: str | None = None
    think = re.search(r"<think>(.*?)</think>", text, re.DOTALL)
    if think:
        reasoning = think.group(1).strip()
    elif text.strip():
        reasoning = text.strip()[:200]
    tag = re.search(r"<score>(.*?)</score>", text, re.DOTALL)
    if tag:
        try:
            score = float(tag.group(1).strip())
        except ValueError:
            note = f"invalid <score> text {tag.group(1).strip()[:40]!r}: scored 0.0 (official parsing)"
    else:
        numbers = _NUMBER.findall(text)
        if numbers:
            score = float(numbers[-1])
            note = "no <score> tag: the last number of the reply was used (official parsing)"
        else:
            note = "no <score> tag and no number: scored 0.0 (official parsing)"
    return min(max(score, 0.0), 1.0), reasoning, note


@dataclass(frozen=True)
class JudgeVerdict:
    """One judge call as the record shows it.

    Attributes:
        score: In [0, 1].
        reasoning: The judge's reasoning (or the fallback's explanation).
        kind: ``"llm"``, ``"fallback"`` (no endpoint), ``"fallback-after-error"`` or ``"official-0.5-after-error"``.
        error: Why the endpoint call failed (``None`` when it did not fail or was not made).
        parse_note: When the official parsing fell back (see :func:`parse_output`).
        model: The model that answered.
        images: How many images were sent.
        prompt: The prompt text the judge saw.
    """

    score: float
    reasoning: str
    kind: str
    error: str | None = None
    parse_note: str | None = None
    model: str = ""
    images: int = 0
    prompt: str = field(default="", repr=False)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


Fallback = Callable[[], tuple[float, str]]


class OfficialPreferenceJudge:
    """Scores with the official judge protocol on an OpenAI-compatible endpoint.

    Args:
        protocol: The official judge texts (:meth:`JudgeProtocol.from_release`).
        client: The endpoint; ``None`` or an unconfigured client means no endpoint (the fallback is used).
        on_error: What a failed call gives: ``"fallback"`` (default; error recorded), ``"official-0.5"`` (the
            official silent 0.5, labelled) or ``"raise"``.
    """

    def __init__(self, protocol: JudgeProtocol, client: ChatClient | None = None, on_error: OnError = "fallback"):
        if on_error not in ON_ERROR_CHOICES:
            raise ValueError(f"on_error must be one of {ON_ERROR_CHOICES}, got {on_error!r}")
        self.protocol = protocol
        self.client = client
        self.on_error = on_error

    @property
    def has_endpoint(self) -> bool:
        """True when calls go to a model."""
        return self.client is not None and self.client.configured

    def judge(self, *, persona: str, goal: str, eval_data: Mapping[str, Any], rubric: str, fallback: Fallback,
              chat_history: Sequence[Mapping[str, Any]] | None = None,
              images: Sequence[str | Path] = ()) -> JudgeVerdict:
        """One official judge call (or the labelled fallback)."""
        messages = self.protocol.messages(persona=persona, goal=goal, eval_data=eval_data, rubric=rubric,
                                          chat_history=chat_history, images=images)
        content = messages[1]["content"]
        prompt = content if isinstance(content, str) else str(content[0]["text"])
        sent_images = 0 if isinstance(content, str) else len(content) - 1
        if not self.has_endpoint:
            score, why = fallback()
            return JudgeVerdict(score, why, "fallback", images=sent_images, prompt=prompt)
        assert self.client is not None
        try:
            response = self.client.chat(messages, temperature=self.protocol.temperature,
                                        max_tokens=self.protocol.max_tokens)
        except LLMError as exc:
            error = f"{type(exc).__name__}: {exc}"
            if self.on_error == "raise":
                raise JudgeFailed(error) from exc
            if self.on_error == "official-0.5":
                return JudgeVerdict(OFFICIAL_ERROR_SCORE, f"Judge Error: {error}", "official-0.5-after-error",
                                    error=error, images=sent_images, prompt=prompt)
            score, why = fallback()
            return JudgeVerdict(score, why, "fallback-after-error", error=error, images=sent_images, prompt=prompt)
        score, reasoning, note = parse_output(response.content or "")
        return JudgeVerdict(score, reasoning, "llm", parse_note=note, model=self.client.model or "",
                            images=sent_images, prompt=prompt)
