"""The preference-judge protocol, for any OpenAI-compatible endpoint.

What the official judge (``BasePrefrenceTask.query_user_agent_judge`` of the pinned release) sees and does, rebuilt
by the project (the texts come from the task source: the release's f-strings, read in
:func:`~personal_envs.knowu.official.texts.official_judge_protocol`, or the embedded cards' frames):

* the prompt: the judge prompt (:class:`JudgeProtocol`) filled with the persona text (the source's ``persona``
  slot), the request (``GOAL_REQUEST``), the
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

import base64
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from personal_envs.llm.client import ChatClient, LLMError

OnError = Literal["fallback", "official-0.5", "raise"]
ON_ERROR_CHOICES: tuple[str, ...] = ("fallback", "official-0.5", "raise")
#: The score the official code returns when the judge call fails (only with ``on_error="official-0.5"``).
OFFICIAL_ERROR_SCORE = 0.5
_MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".webp": "image/webp", ".gif": "image/gif"}


class JudgeFailed(RuntimeError):
    """The judge endpoint failed and ``on_error="raise"`` was asked for."""


@dataclass(frozen=True)
class JudgeProtocol:
    """The official judge texts and request settings, read from a release.

    Attributes:
        eval_prompt: Renders the prompt from ``persona_text``, ``goal_text``, ``history_block``, ``eval_json_str``,
            ``rubric`` and ``image_hint`` (officially an f-string of the release).
        history_header: Text before the dialogue lines.
        history_footer: Text after them.
        turn_line: Renders one dialogue line from ``role`` and ``turn``.
        agent_label: Label of the agent's turns (official role ``"user"``).
        user_label: Label of the user's turns.
        image_hint: The paragraph added when images are sent.
        system_prompt: The system message.
        temperature: Sampling temperature of the official request.
        max_tokens: Completion token limit of the official request.
    """

    eval_prompt: Callable[[Mapping[str, Any]], str]
    history_header: str
    history_footer: str
    turn_line: Callable[[Mapping[str, Any]], str]
    agent_label: str
    user_label: str
    image_hint: str
    system_prompt: str
    temperature: float
    max_tokens: int

    @classmethod
    def from_release(cls, root: str | Path) -> JudgeProtocol:
        """The protocol of the release directory ``root`` (read once per directory)."""
        from personal_envs.knowu.official.texts import official_judge_protocol

        return official_judge_protocol(str(Path(root).resolve()))

    # ------------------------------------------------------------------------------------------ building
    def history_block(self, chat_history: Sequence[Mapping[str, Any]] | None) -> str:
        """The dialogue section (empty without a dialogue); official roles: ``"user"`` is the GUI agent."""
        if not chat_history:
            return ""
        lines = []
        for turn in chat_history:
            label = self.agent_label if turn.get("role") == "user" else self.user_label
            lines.append(self.turn_line({"role": label, "turn": dict(turn)}))
        return self.history_header + "\n".join(lines) + self.history_footer

    def prompt(self, *, persona: str, goal: str, eval_data: Mapping[str, Any], rubric: str,
               chat_history: Sequence[Mapping[str, Any]] | None = None, with_images: bool = False) -> str:
        """The official judge prompt text."""
        namespace = {"persona_text": persona, "goal_text": goal.strip(), "history_block": self.history_block(
            chat_history), "eval_json_str": json.dumps(dict(eval_data), indent=2, ensure_ascii=False, default=str),
            "rubric": rubric, "image_hint": self.image_hint if with_images else ""}
        return self.eval_prompt(namespace)

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
