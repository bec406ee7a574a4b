"""The paper's §4.4 VLM judge: a vision-language model sees both agents' GIF frames and traces and votes.

Each battle is sent ``k`` times (sampling, ``temperature``); the vote is the majority of the ``k`` answers
(majority@k; a split majority is a tie).  ``inputs`` selects what the judge sees, for the input ablations:
``("gif", "trace")`` (both), ``("gif",)`` (frames only), ``("trace",)`` (text only).  Frames are taken evenly from
each GIF (at most ``max_frames``) and sent as PNG data URLs in OpenAI's ``image_url`` content parts.
:func:`ablation_table` compares each input set's votes with people's votes on the same battles.
"""

from __future__ import annotations

import base64
import io
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from personal_envs.browserarena.arena.agreement import outcome
from personal_envs.browserarena.arena.store import ArenaStore, BattleRecord
from personal_envs.browserarena.arena.voting import Vote
from personal_envs.browserarena.judges.llm import parse_json_reply, trace_to_text
from personal_envs.core.table import format_table

VLM_SYSTEM_PROMPT = (
    "You are judging a head-to-head comparison of two web-browsing agents that were given the same user task. "
    "You see what each agent did: frames of a recording of its browser and/or the log of its steps (its evaluation "
    "of the previous goal, memory, next goal, actions and their results). Decide which agent completed the task "
    "better: it achieved what the user asked, reported it truthfully, and did not claim a success it did not "
    "reach. Answer with one JSON object: {\"winner\": \"left\" | \"right\" | \"tie\" | \"both_bad\", "
    "\"reason\": \"...\"}."
)
_WINNERS = {"left": "model_a", "right": "model_b", "tie": "tie", "both_bad": "tie (bothbad)",
            "both bad": "tie (bothbad)"}
INPUT_SETS: tuple[tuple[str, ...], ...] = (("gif", "trace"), ("gif",), ("trace",))


def gif_frames(path: str, max_frames: int = 6, width: int = 640) -> list[str]:
    """Up to ``max_frames`` frames spread evenly over the GIF, as PNG data URLs (``[]`` if it is missing)."""
    try:
        with Image.open(path) as gif:
            total = int(getattr(gif, "n_frames", 1))
            picks = sorted({round(i * (total - 1) / max(max_frames - 1, 1)) for i in range(min(max_frames, total))})
            urls = []
            for index in picks:
                gif.seek(index)
                frame = gif.convert("RGB")
                if frame.width > width:
                    frame = frame.resize((width, round(frame.height * width / frame.width)))
                buffer = io.BytesIO()
                frame.save(buffer, format="PNG")
                urls.append("data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii"))
            return urls
    except (OSError, ValueError):
        return []


@dataclass
class VLMVerdict:
    """The majority vote and the ``k`` sampled answers (errors are kept, never counted as votes)."""

    winner: str
    samples: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


class VLMJudge:
    """A vision-language judge over an OpenAI-compatible chat client (``client.chat(messages, temperature=...)``).

    Args:
        client: The chat client.
        k: Samples per battle (majority@k).
        inputs: What the judge sees: any of ``"gif"`` and ``"trace"``.
        max_frames: Frames per GIF.
        temperature: Sampling temperature of the ``k`` requests.
        name: Voter name stored with its votes (the inputs are appended).
    """

    def __init__(self, client: Any, *, k: int = 5, inputs: Sequence[str] = ("gif", "trace"), max_frames: int = 6,
                 temperature: float = 0.7, name: str = "vlm-judge") -> None:
        if k < 1:
            raise ValueError("k must be at least 1")
        unknown = set(inputs) - {"gif", "trace"}
        if unknown or not inputs:
            raise ValueError(f"inputs must be a non-empty subset of ('gif', 'trace'), got {tuple(inputs)}")
        self.client, self.k, self.inputs = client, int(k), tuple(inputs)
        self.max_frames, self.temperature = int(max_frames), float(temperature)
        self.name = f"{name}[{'+'.join(self.inputs)}]@{self.k}"

    def messages(self, record: BattleRecord, trace_a: dict[str, Any], trace_b: dict[str, Any]) -> list[dict[str, Any]]:
        """The request: the task, then per side its frames and / or its log."""
        content: list[dict[str, Any]] = [{"type": "text", "text": f"Task: {record.task_text}"}]
        for label, trace, gif in (("LEFT", trace_a, record.gif_a), ("RIGHT", trace_b, record.gif_b)):
            content.append({"type": "text", "text": f"=== {label} AGENT ==="})
            if "gif" in self.inputs:
                frames = gif_frames(gif, self.max_frames)
                content.append({"type": "text", "text": f"{len(frames)} frames of its recording, in order:"})
                content += [{"type": "image_url", "image_url": {"url": url}} for url in frames]
            if "trace" in self.inputs:
                content.append({"type": "text", "text": trace_to_text(trace, 8000)})
        return [{"role": "system", "content": VLM_SYSTEM_PROMPT}, {"role": "user", "content": content}]

    def verdict(self, record: BattleRecord, trace_a: dict[str, Any], trace_b: dict[str, Any]) -> VLMVerdict:
        """Ask ``k`` times and take the majority (a split top is a tie); all-failed raises ``RuntimeError``."""
        messages = self.messages(record, trace_a, trace_b)
        samples, errors = [], []
        for _ in range(self.k):
            try:
                reply = self.client.chat(messages, temperature=self.temperature)
                parsed = parse_json_reply(str(getattr(reply, "content", "") or ""))
                winner = _WINNERS.get(str(parsed.get("winner", "")).strip().lower())
                if winner is None:
                    raise ValueError(f"unknown winner {parsed.get('winner')!r}")
                samples.append(winner)
            except Exception as exc:  # a failed sample is reported, not counted
                errors.append(f"{type(exc).__name__}: {exc}")
        if not samples:
            raise RuntimeError(f"the VLM judge gave no usable answer in {self.k} tries: {errors[:2]}")
        return VLMVerdict(majority(samples), samples, errors)

    def vote(self, record: BattleRecord, trace_a: dict[str, Any], trace_b: dict[str, Any]) -> Vote:
        """The majority@k vote (the arena's voter interface)."""
        result = self.verdict(record, trace_a, trace_b)
        return Vote(result.winner, self.name, f"samples: {', '.join(result.samples)}", "judge")


def majority(samples: Sequence[str]) -> str:
    """The most frequent answer; when the top is shared, ``tie``."""
    counts = Counter(samples).most_common()
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return "tie"
    return counts[0][0]


def load_trace(path: str) -> dict[str, Any]:
    """A stored trace JSON (``{}`` when missing or unreadable)."""
    import json

    try:
        with open(path, encoding="utf-8") as handle:
            value = json.load(handle)
        return value if isinstance(value, dict) else {}
    except (OSError, ValueError):
        return {}


def judge_battles(store: ArenaStore, judge: VLMJudge,
                  battle_ids: Iterable[str] | None = None) -> list[tuple[str, Vote]]:
    """The judge votes on stored battles it has not judged yet (default: all); the votes are stored under the
    judge's name as judge votes, apart from people's (their own leaderboard, see ``ArenaStore.voted_battles``)."""
    wanted = set(battle_ids) if battle_ids is not None else None
    judged = {v.battle_id for v in store.votes(source="judge") if v.voter == judge.name}
    out = []
    for record in store.battles():
        if (wanted is not None and record.battle_id not in wanted) or record.battle_id in judged:
            continue
        vote = judge.vote(record, load_trace(record.trace_a), load_trace(record.trace_b))
        store.record_vote(record.battle_id, vote.winner, vote.voter, vote.reason, source="judge")
        out.append((record.battle_id, vote))
    return out


def ablation_table(store: ArenaStore, judges: Sequence[VLMJudge], humans: Sequence[str] | None = None) -> str:
    """Each judge's agreement with people's votes (with and without ties) on the battles both voted on."""
    votes = store.votes()
    human: dict[str, str] = {}
    for vote in votes:
        if vote.source == "human" and (humans is None or vote.voter in humans):
            human.setdefault(vote.battle_id, outcome(vote.winner))
    rows = []
    for judge in judges:
        pairs = [(human[v.battle_id], outcome(v.winner)) for v in votes
                 if v.voter == judge.name and v.battle_id in human]
        strict = [(h, j) for h, j in pairs if "tie" not in (h, j)]
        rows.append([judge.name, "+".join(judge.inputs), judge.k, len(pairs),
                     100.0 * sum(h == j for h, j in pairs) / len(pairs) if pairs else 0.0, len(strict),
                     100.0 * sum(h == j for h, j in strict) / len(strict) if strict else 0.0])
    return format_table(["judge", "inputs", "k", "battles", "agree % (with ties)", "battles w/o ties",
                         "agree % (w/o ties)"], rows, title="VLM judge vs. people (§4.4 input ablations)", digits=1)
