"""Candidate actions for the discrete RL wrapper: the concrete JSON actions available in the current observation.

A candidate provider turns an observation into a list of :class:`Candidate` (family, label, JSON action).  The
family is the kind of choice (a function, ``click``, a canned reply); :class:`~personal_envs.wrappers.discrete.
DiscreteActions` numbers the candidates into ``Discrete`` / ``MultiDiscrete`` slots.

Generic providers live here; a benchmark with its own action vocabulary ships its provider in its package and names
its factory in its registration entry (``EnvEntry.candidates``), which :func:`default_candidates` loads:

* :class:`BrowserCandidates`: ``click`` on each interactive element of a BrowserGym-style AX tree (``fill`` with
  canned text for text boxes), navigation, scrolling and canned messages;
* :class:`PhoneCandidates`: ``click`` at the centre of each clickable node of a uiautomator hierarchy, ``open_app``
  for the apps, system keys, scrolling, ``wait``, ``finished`` and canned questions;
* :class:`ArgumentFreeCandidates`: one candidate per action that needs no argument.

Fixed slots: a provider lists its control actions in ``fixed_slots`` (keys ``"<family>"`` or ``"<family>/<name>"``,
in slot order) and marks the candidates that fill them with ``Candidate.slot``; the discrete wrapper keeps each of
them in the same slot on every screen and never cuts them.  The phone's ``finished``, ``ask_user`` and ``wait``, the
browsers' finishing message, waiting, going back and scrolling, and every PersonalWAB call are fixed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from personal_envs.browser.axtree import parse_line
from personal_envs.core.registration import entry_of, load_object
from personal_envs.core.text import content_words

#: Messages the browser provider offers for ``send_msg_to_user``.
BROWSER_MESSAGES: tuple[str, ...] = ("I could not find what you asked for.", "Done.")
#: Questions the phone provider offers for ``ask_user``.
PHONE_QUESTIONS: tuple[str, ...] = ("Shall I go ahead with that for you?",)

_CLICKABLE_ROLES = frozenset({"button", "link", "checkbox", "radio", "option", "menuitem", "tab", "switch",
                              "combobox", "treeitem", "menuitemcheckbox", "menuitemradio"})
_TEXT_ROLES = frozenset({"textbox", "searchbox", "textarea", "textField"})


@dataclass(frozen=True)
class Candidate:
    """One concrete action: its family (kind of choice), a human-readable label, the JSON action and, for a
    control action, the key of its fixed slot (one of the provider's ``fixed_slots``)."""

    family: str
    label: str
    action: dict[str, Any]
    slot: str | None = None


def slot_family(key: str) -> str:
    """The family of a fixed-slot key (``"respond/0"`` -> ``"respond"``)."""
    return key.split("/", 1)[0]


class CandidateProvider(Protocol):
    """Turns an observation into the candidate actions available now.

    A provider may also have ``fixed_slots: tuple[str, ...]``, the keys of its control actions that keep one slot
    each (see the module docstring); one without it has none.
    """

    #: Every family the provider can produce, in a fixed order (the first MultiDiscrete component).
    families: tuple[str, ...]

    def __call__(self, observation: dict[str, Any]) -> list[Candidate]: ...


# ---------------------------------------------------------------------------------------------- browser
class BrowserCandidates:
    """BrowserGym-style candidates from the AX tree (``click`` / ``fill`` by bid) plus page-level actions.

    Args:
        max_elements: Most element candidates taken from the tree (document order).
        messages: Canned ``send_msg_to_user`` texts (only when the env has that action).
        action_names: The env's action names (candidates for missing actions are left out).
    """

    families: tuple[str, ...] = ("click", "fill", "go_back", "scroll", "send_msg_to_user", "noop")

    def __init__(self, action_names: Sequence[str], max_elements: int = 48,
                 messages: Sequence[str] = BROWSER_MESSAGES) -> None:
        self.action_names = frozenset(action_names)
        self.max_elements = max_elements
        self.messages = tuple(messages)
        #: Page-level actions first: the finishing messages, waiting, going back, scrolling.
        self.fixed_slots: tuple[str, ...] = tuple(
            [f"send_msg_to_user/{i}" for i in range(len(self.messages)) if "send_msg_to_user" in self.action_names]
            + [name for name in ("noop", "go_back") if name in self.action_names]
            + (["scroll/down", "scroll/up"] if "scroll" in self.action_names else []))

    def __call__(self, observation: dict[str, Any]) -> list[Candidate]:
        candidates: list[Candidate] = []
        for line in str(observation.get("axtree", "")).splitlines():
            if len(candidates) >= self.max_elements:
                break
            parsed = parse_line(line.lstrip("\t"))
            if parsed is None or "disabled" in parsed.flags:
                continue
            bid, role, name = parsed.bid, parsed.role, parsed.name
            if role in _CLICKABLE_ROLES and "click" in self.action_names:
                candidates.append(Candidate("click", f"click {role} '{name[:50]}'", {"action_type": "click", "bid": bid}))
            elif role in _TEXT_ROLES and "fill" in self.action_names:
                text = content_words(str(observation.get("instruction", ""))) or name or "search"
                candidates.append(Candidate("fill", f"fill {role} '{name[:40]}' with '{text[:30]}'",
                                            {"action_type": "fill", "bid": bid, "value": text}))
        if "goto" in self.action_names:  # the sites the instruction names (WebMall's shops and solution page)
            for url in instruction_urls(str(observation.get("instruction", ""))):
                candidates.append(Candidate("goto", f"go to {url}", {"action_type": "goto", "url": url}))
        if "send_msg_to_user" in self.action_names:
            for i, text in enumerate(self.messages):
                candidates.append(Candidate("send_msg_to_user", f"say '{text}'",
                                            {"action_type": "send_msg_to_user", "text": text},
                                            slot=f"send_msg_to_user/{i}"))
        if "noop" in self.action_names:
            candidates.append(Candidate("noop", "wait", {"action_type": "noop"}, slot="noop"))
        if "go_back" in self.action_names:
            candidates.append(Candidate("go_back", "go back", {"action_type": "go_back"}, slot="go_back"))
        if "scroll" in self.action_names:
            candidates.append(Candidate("scroll", "scroll down", {"action_type": "scroll", "delta_x": 0, "delta_y": 600},
                                        slot="scroll/down"))
            candidates.append(Candidate("scroll", "scroll up", {"action_type": "scroll", "delta_x": 0, "delta_y": -600},
                                        slot="scroll/up"))
        return candidates


_URL = re.compile(r"https?://[^\s'\"<>]+")


def instruction_urls(instruction: str, limit: int = 8) -> list[str]:
    """The distinct site addresses an instruction names (scheme and host only, in order), at most ``limit``.

    Example URLs inside an instruction (``.../product/some-product``) count by their site, so only sites come out."""
    sites: list[str] = []
    for match in _URL.findall(instruction):
        site = "/".join(match.rstrip(".,;:)").split("/")[:3])
        if site not in sites:
            sites.append(site)
    return sites[:limit]


# ---------------------------------------------------------------------------------------------- phone
_SPLIT = re.compile(r"[^0-9a-z]+")
_RELEVANCE_STOPWORDS = frozenset(
    ["a", "an", "the", "and", "or", "of", "to", "in", "on", "for", "with", "my", "me", "i", "it", "is", "are", "be", "this", "that", "at", "from", "by", "as", "please", "turn", "make", "set"]
)


def relevance_tokens(text: str) -> set[str]:
    """Lower-cased word stems of ``text`` (underscores and camel-free ids split), without stop words."""
    words = [w for w in _SPLIT.split(text.lower()) if w and w not in _RELEVANCE_STOPWORDS]
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words}


def rank_by_relevance(candidates: list[Candidate], texts: list[str], query: str, top_k: int) -> list[Candidate]:
    """The ``top_k`` candidates whose texts share most stems with ``query`` (ties keep document order)."""
    wanted = relevance_tokens(query)
    scored = [(-len(relevance_tokens(text) & wanted), index) for index, text in enumerate(texts)]
    return [candidates[index] for _, index in sorted(scored)[:top_k]]


class PhoneCandidates:
    """Phone candidates: tap each clickable node of the UI hierarchy, ``open_app`` per app, and system actions.

    Args:
        apps: App names offered to ``open_app`` (empty: no ``open_app`` candidates).
        max_elements: Most tap candidates (document order).
        top_k: When set, keep only the ``top_k`` taps and the ``top_k`` apps whose labels (text, description,
            resource id) share most words with the instruction; a small, relevant action set for RL.
        questions: Canned ``ask_user`` questions.
        terminal: Offer ``finished`` (ends the episode).
        system: Offer home, back, scrolling and ``wait``.
    """

    families: tuple[str, ...] = (
        "open_app", "click", "navigate_home", "navigate_back", "scroll", "wait", "ask_user", "finished",
    )

    def __init__(self, apps: Sequence[str] = (), max_elements: int = 40, top_k: int | None = None,
                 questions: Sequence[str] = PHONE_QUESTIONS, terminal: bool = True, system: bool = True) -> None:
        self.apps = tuple(apps)
        self.max_elements = max_elements
        self.top_k = top_k
        self.questions = tuple(questions)
        self.terminal = terminal
        self.system = system
        #: The control actions first, always in these slots: finished, each question, wait, then home and back.
        self.fixed_slots: tuple[str, ...] = tuple(
            (["finished"] if terminal else []) + [f"ask_user/{i}" for i in range(len(self.questions))]
            + (["wait", "navigate_home", "navigate_back", "scroll/down", "scroll/up"] if system else []))

    def __call__(self, observation: dict[str, Any]) -> list[Candidate]:
        from personal_envs.simulators.phone.uixml import parse_ui_xml

        instruction = str(observation.get("instruction", ""))
        taps: list[Candidate] = []
        tap_texts: list[str] = []
        try:
            nodes = parse_ui_xml(str(observation.get("ui_xml", "")))
        except ValueError:
            nodes = []
        seen: set[tuple[int, int]] = set()
        for node in nodes:
            if len(taps) >= self.max_elements:
                break
            left, top, right, bottom = node.bounds
            if not node.clickable or right <= left or bottom <= top:
                continue
            x, y = node.center
            if (x, y) in seen:
                continue
            seen.add((x, y))
            label = node.text or node.content_desc or node.short_id or node.class_name
            taps.append(Candidate("click", f"tap '{label[:50]}'", {"action_type": "click", "x": x, "y": y}))
            tap_texts.append(f"{node.text} {node.content_desc} {node.short_id}")
        opens = [Candidate("open_app", f"open {app}", {"action_type": "open_app", "app_name": app}) for app in self.apps]
        if self.top_k is not None:
            taps = rank_by_relevance(taps, tap_texts, instruction, self.top_k)
            opens = rank_by_relevance(opens, list(self.apps), instruction, self.top_k)
        candidates: list[Candidate] = []
        if self.terminal:
            candidates.append(Candidate("finished", "finished", {"action_type": "finished"}, slot="finished"))
        for i, text in enumerate(self.questions):
            candidates.append(Candidate("ask_user", f"ask '{text}'", {"action_type": "ask_user", "text": text},
                                        slot=f"ask_user/{i}"))
        if self.system:
            candidates += [
                Candidate("wait", "wait", {"action_type": "wait"}, slot="wait"),
                Candidate("navigate_home", "home", {"action_type": "navigate_home"}, slot="navigate_home"),
                Candidate("navigate_back", "back", {"action_type": "navigate_back"}, slot="navigate_back"),
                Candidate("scroll", "scroll down", {"action_type": "scroll", "direction": "down"}, slot="scroll/down"),
                Candidate("scroll", "scroll up", {"action_type": "scroll", "direction": "up"}, slot="scroll/up"),
            ]
        return [*candidates, *opens, *taps]


def phone_app_names() -> tuple[str, ...]:
    """Apps installed on the simulated phone (empty if the simulator is unavailable)."""
    try:
        from personal_envs.simulators.phone.phone import Phone

        return tuple(Phone().app_names())
    except Exception:  # noqa: BLE001 - the provider then offers taps only
        return ()


# ---------------------------------------------------------------------------------------------- generic
class ArgumentFreeCandidates:
    """Fallback: one candidate per action that needs no arguments."""

    def __init__(self, specs: Sequence[Any]) -> None:
        self.specs = [spec for spec in specs if not any(param.required for _, param in spec.params)]
        if not self.specs:
            raise ValueError("the env has no argument-free action; pass a candidate provider")
        self.families = tuple(spec.name for spec in self.specs)
        self.fixed_slots: tuple[str, ...] = self.families

    def __call__(self, observation: dict[str, Any]) -> list[Candidate]:
        return [Candidate(spec.name, spec.name, {"action_type": spec.name}, slot=spec.name) for spec in self.specs]


def browser_candidates(env: Any) -> BrowserCandidates:
    """Factory for registration entries: :class:`BrowserCandidates` over the env's actions."""
    return BrowserCandidates(tuple(getattr(env.unwrapped.action_space, "action_names", ())))


def phone_candidates(env: Any) -> PhoneCandidates:
    """Factory for registration entries: :class:`PhoneCandidates` with the simulated phone's apps."""
    return PhoneCandidates(apps=phone_app_names())


def default_candidates(env: Any) -> CandidateProvider:
    """The provider the env's id declares (``EnvEntry.candidates``); for an env built without an id, a generic
    one chosen by its observation (AX tree, phone hierarchy) or its argument-free actions."""
    entry = entry_of(env)
    if entry is not None and entry.candidates:
        provider: CandidateProvider = load_object(entry.candidates)(env)
        return provider
    base = env.unwrapped
    names = tuple(getattr(base.action_space, "action_names", ()))
    keys = set(getattr(base.observation_space, "spaces", {}))
    if "ui_xml" in keys:
        return PhoneCandidates(apps=phone_app_names())
    if "axtree" in keys and "click" in names:
        return BrowserCandidates(names)
    return ArgumentFreeCandidates(getattr(base, "action_specs", ()))
