"""RL on KnowU-Proactive: the act / ask / stay-silent decision as three fixed slots, and features from the logs.

What the agent decides (:class:`ProactiveCandidates`, three fixed slots, the same on every screen):

* ``finished`` (slot 0): stay silent, or stop after the user declined;
* ``ask_user`` (slot 1): propose, with the neutral consent question ``always_ask`` uses (the user decides by its
  habit, not by the words); offered once per episode;
* ``act`` (slot 2): carry out the routine's action.  Once chosen, the episode is committed: the next screens offer
  only ``act`` until its last step (``finished``).

The ``act`` slot's UI steps come from the same executor as the ``always_act`` / ``always_ask`` baselines
(:class:`~personal_envs.knowu.baselines.AlwaysActPolicy`: the routine's action, located in ``ui_xml``).  That
executor reads the task's routine parameters (which alarm, which channel, which contact); it never reads whether the
habit applies (the oracle plan, the profile's habits).  What is learned is the decision, and the comparison with
always-act / always-ask / always-silent isolates it: they use the same executor.

What the agent sees (:class:`ProactiveFeatures`): frozen MiniLM embeddings computed from the goal text the agent is
given (the activity logs and the system status) and the device context, plus the user's reply.  Per episode:

* the trigger: the status lines, the time of day, the weekday and the battery level (embedding);
* the logs at the trigger's time of day: how many entries fall within 30 / 90 minutes of it and how often the most
  repeated behaviour there recurs;
* the logs closest in meaning to the trigger: the top cosine similarities, how many pass 0.4 / 0.5 and how often the
  closest behaviour recurs;
* the logs against a fixed vocabulary of 16 phone behaviours (:data:`BEHAVIOURS`): per behaviour, how many entries
  pass cosine 0.4 / 0.5 / 0.6, how many pass 0.5 within 90 minutes of the trigger's time of day, and the mean of the
  three best cosines;
* the dialogue: asked, accepted, rejected.

Nothing here reads the hidden profile, the habit list, the oracle plan or the answer key.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np

from personal_envs.wrappers.candidates import Candidate

#: The fixed slots of the decision, in slot order.
DECISION_SLOTS: tuple[str, ...] = ("finished", "ask_user", "act")
#: The consent question (the same neutral text as ``always_ask`` on the official routines).
PROPOSAL = "I noticed something I could take care of for you right now. Shall I go ahead?"
#: MiniLM's width.
EMBED_DIM = 384
#: Cosine at which two log behaviours count as the same behaviour repeated.
SAME_BEHAVIOUR = 0.75
#: A fixed vocabulary of phone behaviours (the kinds of routine KnowU-Bench covers, written for this project): the
#: logs are counted against each, whoever the user is.  Fixed text, not read from any task or profile.
BEHAVIOURS: tuple[str, ...] = (
    "turned on Battery Saver when the battery was low", "turned off the workday alarm for the weekend",
    "turned the media volume down after the earbuds disconnected", "sent a birthday wish message",
    "posted a clock-out message in Mattermost at the end of the workday", "saved a new phone number to Contacts",
    "called family in the evening", "turned on Do Not Disturb to focus", "deleted old screenshots in Gallery",
    "opened alphaXiv and Hugging Face papers in the morning", "checked the weather forecast in the morning",
    "turned on dark mode at night", "opened the meeting document before a meeting", "blocked a scam SMS sender",
    "emailed the weekly report to the manager", "replied to an on-call alert in Mattermost",
)
_LOG_LINE = re.compile(r"^- \[(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2})\] ")
_CONTEXT_TIME = re.compile(r"time: \d{4}-\d{2}-\d{2} (\d{2}):(\d{2}) \((\w+)\)")
_BATTERY = re.compile(r"battery: (\d+)%")
_LEADING_TIME = re.compile(r"^(at|around|by)\s+\d{1,2}:\d{2},?\s*", re.IGNORECASE)
_DECISION = re.compile(r"<decision>\s*(\w+)\s*</decision>", re.IGNORECASE)


@dataclass(frozen=True)
class LogEntry:
    """One activity-log line: its minute of the day and what the user did (without time and place)."""

    minute: int
    behaviour: str


def _strip_place(rest: str) -> str:
    """``(place (with parentheses)) text`` -> ``text``."""
    if not rest.startswith("("):
        return rest
    depth = 0
    for index, char in enumerate(rest):
        depth += char == "("
        depth -= char == ")"
        if depth == 0:
            return rest[index + 1:].strip()
    return rest


def parse_goal(instruction: str) -> tuple[list[LogEntry], list[str]]:
    """The log entries of a proactive goal and its status lines (the text between the logs and the instruction,
    without the constant "Background Monitor Active")."""
    entries: list[LogEntry] = []
    status: list[str] = []
    head = instruction.split("### INSTRUCTION", 1)[0]
    for line in head.splitlines():
        match = _LOG_LINE.match(line)
        if match:
            minute = int(match.group(4)) * 60 + int(match.group(5))
            behaviour = _LEADING_TIME.sub("", _strip_place(line[match.end():]))
            entries.append(LogEntry(minute, behaviour))
            continue
        text = line.strip()
        if (entries and text and not text.startswith(("###", "The following logs"))
                and "Background Monitor Active" not in text):
            status.append(text)
    return entries, status


def trigger_text(status: list[str], context: str) -> str:
    """The situation in words: weekday, time, battery and the status lines."""
    match = _CONTEXT_TIME.search(context)
    battery = _BATTERY.search(context)
    parts = [f"It is {match.group(3)} {match.group(1)}:{match.group(2)}." if match else ""]
    if battery:
        parts.append(f"Battery {battery.group(1)}%.")
    return " ".join([*parts, *status]).strip()


def _trigger_minute(context: str) -> int | None:
    match = _CONTEXT_TIME.search(context)
    return int(match.group(1)) * 60 + int(match.group(2)) if match else None


def user_decision(reply: str) -> str | None:
    """``"accept"`` / ``"reject"`` from a reply's ``<decision>`` tag (``None`` without one)."""
    match = _DECISION.search(reply or "")
    return match.group(1).lower() if match else None


class ProactiveFeatures:
    """Observation features of the decision (see the module docstring); ``dim`` values in [-1, 1].

    Args:
        embed: ``texts -> (n, 384)`` L2-normalised rows (default: the project's memoised MiniLM).
    """

    #: Scalar features: windows (2 x 3), semantic (5 top similarities, 2 counts, 1 recurrence), vocabulary
    #: (5 per behaviour), dialogue (3).
    SCALARS = 6 + 8 + 5 * len(BEHAVIOURS) + 3

    def __init__(self, embed: Any = None) -> None:
        if embed is None:
            from personal_envs.core.embedding import embed as minilm

            embed = minilm
        self.embed = embed
        self.dim = EMBED_DIM + self.SCALARS
        self._vocabulary: np.ndarray | None = None
        self._episodes: OrderedDict[str, np.ndarray] = OrderedDict()

    def episode_vector(self, instruction: str, context: str) -> np.ndarray:
        """The part computed once per goal (memoised by the goal and context text)."""
        key = hashlib.sha1(f"{instruction}\x00{context}".encode()).hexdigest()
        cached = self._episodes.get(key)
        if cached is not None:
            return cached
        entries, status = parse_goal(instruction)
        trigger = trigger_text(status, context)
        texts = list(dict.fromkeys(entry.behaviour for entry in entries))
        vectors = self.embed([trigger, *texts]) if texts else self.embed([trigger])
        trigger_vector = vectors[0]
        by_text = {text: vectors[i + 1] for i, text in enumerate(texts)}
        rows = np.stack([by_text[e.behaviour] for e in entries]) if entries else np.zeros((0, EMBED_DIM), np.float32)
        same = rows @ rows.T >= SAME_BEHAVIOUR if len(rows) else np.zeros((0, 0), bool)
        recurrence = same.sum(axis=1).astype(np.float32) if len(rows) else np.zeros(0, np.float32)
        scalars: list[float] = []
        minute = _trigger_minute(context)
        distance = (np.array([min(abs(e.minute - minute), 1440 - abs(e.minute - minute)) for e in entries])
                    if minute is not None and entries else np.full(len(entries), 1440))
        for width in (30, 90):
            if minute is None or not entries:
                scalars += [0.0, 0.0, 0.0]
                continue
            inside = distance <= width
            within = same[np.ix_(inside, inside)].sum(axis=1) if inside.any() else np.zeros(0)
            scalars += [inside.sum() / 20.0, (within.max() if len(within) else 0) / 10.0,
                        float((within >= 3).sum()) / 10.0]
        if len(rows):
            similarity = rows @ trigger_vector
            order = np.argsort(-similarity)
            top = similarity[order[:5]]
            scalars += [*np.pad(top, (0, 5 - len(top))), float((similarity >= 0.4).sum()) / 10.0,
                        float((similarity >= 0.5).sum()) / 10.0, recurrence[order[0]] / 10.0]
        else:
            scalars += [0.0] * 8
        scalars += self._vocabulary_counts(rows, distance)
        vector = np.concatenate([trigger_vector, np.asarray(scalars, np.float32), np.zeros(3, np.float32)])
        vector = np.clip(vector, -1.0, 1.0).astype(np.float32)
        self._episodes[key] = vector
        while len(self._episodes) > 4096:
            self._episodes.popitem(last=False)
        return vector

    def _vocabulary_counts(self, rows: np.ndarray, distance: np.ndarray) -> list[float]:
        if self._vocabulary is None:
            self._vocabulary = np.asarray(self.embed(list(BEHAVIOURS)), np.float32)
        if not len(rows):
            return [0.0] * (5 * len(BEHAVIOURS))
        similarity = rows @ self._vocabulary.T
        near = (distance <= 90)[:, None]
        best = np.sort(similarity, axis=0)[-3:].mean(axis=0)
        columns = [(similarity >= 0.4).sum(axis=0) / 10.0, (similarity >= 0.5).sum(axis=0) / 10.0,
                   (similarity >= 0.6).sum(axis=0) / 10.0, ((similarity >= 0.5) & near).sum(axis=0) / 10.0, best]
        return [float(value) for value in np.concatenate(columns)]

    def __call__(self, observation: dict[str, Any]) -> np.ndarray:
        vector = self.episode_vector(str(observation.get("instruction", "")),
                                     str(observation.get("context", ""))).copy()
        reply = str(observation.get("user_reply", "") or "")
        decision = user_decision(reply)
        vector[-3:] = [1.0 if reply else 0.0, 1.0 if decision == "accept" else 0.0,
                       1.0 if decision == "reject" else 0.0]
        return vector


def make_features(env: gym.Env[Any, Any] | None = None) -> ProactiveFeatures:
    """Factory for ``make_rl_env(features="personal_envs.knowu.rl:make_features")`` and saved policies."""
    return ProactiveFeatures()


def _same_action(done: dict[str, Any] | None, offered: dict[str, Any]) -> bool:
    if not done:
        return False
    return all(done.get(key) == value for key, value in offered.items())


class ProactiveCandidates:
    """The three decision slots for the current observation (see the module docstring).

    It follows the episode through the env it was built for: the step counter (a new episode), the last action the
    env executed (whether the ``act`` step it offered was taken, whether the user was asked).
    """

    families: tuple[str, ...] = ("finished", "ask_user", "act")
    fixed_slots: tuple[str, ...] = DECISION_SLOTS

    def __init__(self, env: gym.Env[Any, Any]) -> None:
        from personal_envs.knowu.baselines import AlwaysActPolicy

        self.env = env
        self.executor = AlwaysActPolicy(env)
        self._committed: tuple[list[Any], int] = ([], 0)
        self._pending: tuple[dict[str, Any], list[Any], int] | None = None
        self.acting = False
        self.asked = False

    def _follow(self, observation: dict[str, Any]) -> None:
        base: Any = self.env.unwrapped
        if int(getattr(base, "steps", 0)) == 0:
            self.executor.reset(observation, {})
            self._committed = (list(self.executor._queue), 0)
            self._pending, self.acting, self.asked = None, False, False
            return
        steps = base.trace.steps
        last = steps[-1].action if steps else None
        if self._pending is not None and _same_action(last, self._pending[0]):
            self._committed = (self._pending[1], self._pending[2])
            self.acting = True
        elif last and last.get("action_type") == "ask_user":
            self.asked = True
        self._pending = None

    def _next_act(self, observation: dict[str, Any]) -> dict[str, Any]:
        queue, scrolls = self._committed
        self.executor._queue, self.executor._scrolls = list(queue), scrolls
        action: dict[str, Any] = dict(self.executor.act(observation, {}))
        self._pending = (dict(action), list(self.executor._queue), self.executor._scrolls)
        return action

    def __call__(self, observation: dict[str, Any]) -> list[Candidate]:
        self._follow(observation)
        act = Candidate("act", "carry out the routine's action", self._next_act(observation), "act")
        if self.acting:
            return [act]
        candidates = [Candidate("finished", "stay silent / stop", {"action_type": "finished"}, "finished")]
        if not self.asked:
            candidates.append(Candidate("ask_user", "propose (consent question)",
                                        {"action_type": "ask_user", "text": PROPOSAL}, "ask_user"))
        candidates.append(act)
        return candidates


def make_candidates(env: gym.Env[Any, Any]) -> ProactiveCandidates:
    """Factory for ``make_rl_env(provider=...)`` and saved policies (``"personal_envs.knowu.rl:make_candidates"``)."""
    return ProactiveCandidates(env)


def warm_features(env: gym.Env[Any, Any], features: ProactiveFeatures | None = None) -> None:
    """Compute the features of every task of ``env`` once (fills the MiniLM memo, or the shared service's cache in
    a vector-env worker, and ``features``' per-goal memo)."""
    extractor = features if features is not None else ProactiveFeatures()
    base: Any = env.unwrapped
    for index in range(base.num_tasks):
        observation, _ = base.reset(options={"task_index": index})
        extractor(observation)


#: ``make_rl_env`` arguments of the proactive decision policy (also what a saved policy records).
RL_ENV_OPTIONS: dict[str, Any] = {"provider": "personal_envs.knowu.rl:make_candidates", "max_actions": 3,
                                  "features": "personal_envs.knowu.rl:make_features"}
