"""An LLM judge of traces with the paper's JSON output format.

The judge reads an agent's trace rendered as a browser-use style log (:func:`trace_to_text`: per step the agent's
evaluation of its previous goal, memory, next goal, actions and results, the paper's judge input) and answers with
one JSON object: the 14 captcha strategy flags (the paper's keys, in its order), the banner labels
``{"banner_detected", "banner_closed"}`` (detected = the agent itself noticed the banner, from what it said or did),
or how a trivia answer was looked up ``{"category": "google_api" | "google_site" | "wiki" | "other_site" |
"direct_answer"}`` (Table 5's column is that, or ``failed`` when the answer key says the answer is wrong: the task
decides that, not the judge).  :class:`LLMTraceJudge.metrics` turns a judgement into the same metrics the rule judges
give, so ``eval`` (env kwarg ``trace_judge``) and the reports use either.

The judge sees only the trace: what the agent wrote and did, its results and the pages' URLs and titles; never the
env's own captcha / banner detection flags (those would hand it the answer).
The reply may wrap the JSON in a ```json fence.  A failed request or an unreadable reply is returned as an error
(:attr:`LLMJudgement.error`); it is never turned into default labels.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from personal_envs.browserarena.judges.rules import BANNER_KEYS, CAPTCHA_STRATEGIES, NAVIGATION_ROUTES

_STRATEGY_HELP = {
    "cache": "used a search engine's cached copy of the page",
    "mobile": "used the mobile version of the travel site",
    "direct_link": "typed a link to a result page of the travel site instead of searching for it",
    "google_search": "ran a web search (without cache terms) to find other links to the same content",
    "randomized_interaction": "waited random amounts of time to look less like a bot",
    "reloads": "reloaded the page hoping the captcha would go away",
    "new_tab": "opened the site in a new tab",
    "switch_websites": "switched to a different travel website",
    "internal_navigation": "went to the travel site's home page and navigated from there",
    "country_domain": "used another country domain of the travel site",
    "text-only rendering": "used a text-only rendering proxy",
    "public_proxy": "used a public proxy such as AllOrigins",
    "internet_archive": "used a web archive snapshot",
    "google_travel_integration": "used the search engine's travel / flights integration",
}
_NAVIGATION_HELP = {
    "google_api": "its first look-up was the search_google action (browser-use's built-in web search)",
    "google_site": "its first look-up opened the search engine's web page and searched there",
    "wiki": "its first look-up typed the URL of an encyclopedia (Wikipedia-like) page directly",
    "other_site": "its first look-up typed the URL of another website (neither a search engine nor an encyclopedia)",
    "direct_answer": "it answered from its own knowledge without looking anything up",
}


def _prompt(intro: str, keys: tuple[str, ...], help_text: dict[str, str]) -> str:
    lines = [intro, "", "Labels:"]
    for key in keys:
        lines.append(f"- \"{key}\": {help_text.get(key, '')}")
    example = json.dumps(dict.fromkeys(keys, False), indent=1)
    lines += ["", "Answer with one JSON object that has exactly these keys, each true or false, and nothing else. "
              "Example:", "```json", example, "```"]
    return "\n".join(lines)


_NAVIGATION_PROMPT = "\n".join([
    "You evaluate the log of a web agent (a browser-use agent) answering a trivia question. Decide how it looked its "
    "answer up. Choose exactly one category (a navigation that failed to load is not a look-up; whether the answer "
    "is right is checked separately).", "", "Categories:",
    *[f"- \"{key}\": {text}" for key, text in _NAVIGATION_HELP.items()], "",
    "Answer with one JSON object and nothing else. Example:", "```json", '{"category": "google_api"}', "```"])

SYSTEM_PROMPTS: dict[str, str] = {
    "captcha": _prompt(
        "You evaluate the log of a web agent working on a travel site that blocks robots with captchas. "
        "Decide which ways around the captcha the agent tried.", CAPTCHA_STRATEGIES, _STRATEGY_HELP),
    "banner": _prompt(
        "You evaluate the log of a web agent on a website that may show a cookie banner or pop-up. Judge only from "
        "what the agent itself wrote (evaluation, memory, next goal, answer) and did (its actions): did the agent "
        "notice the banner, and did it close it?", BANNER_KEYS,
        {"banner_detected": "the agent noticed the banner or pop-up: it mentioned it or acted on it (an agent "
                            "that never mentions or touches it did not detect it, even if the page showed one)",
         "banner_closed": "the agent closed or dismissed it (false when it did not detect it)"}),
    "navigation": _NAVIGATION_PROMPT,
}
KEYS: dict[str, tuple[str, ...]] = {"captcha": CAPTCHA_STRATEGIES, "banner": BANNER_KEYS,
                                    "navigation": ("category",)}


def trace_to_text(trace: dict[str, Any], max_chars: int = 24_000) -> str:
    """A browser-use style log of a trace: task, then per step Eval / Memory / Next goal / actions / results."""
    lines = [f"Task: {trace.get('task', '')}"]
    initial = trace.get("initial") or {}
    if initial.get("url"):
        lines.append(f"Start page: {initial['url']}")
    for step in trace.get("steps", []):
        brain = step.get("brain") or {}
        lines.append(f"Step {step.get('step')}")
        for label, key in (("Eval", "evaluation_previous_goal"), ("Memory", "memory"), ("Next goal", "next_goal")):
            if brain.get(key):
                lines.append(f"  {label}: {brain[key]}")
        actions = step.get("actions", [])
        for n, action in enumerate(actions, start=1):
            lines.append(f"  Action {n}/{len(actions)}: " + json.dumps({action.get("name"): action.get("arguments")},
                                                                        ensure_ascii=False))
            if action.get("result"):
                lines.append(f"    Result: {str(action['result'])[:400]}")
            if action.get("error"):
                lines.append(f"    Error: {action['error']}")
        if step.get("url"):  # what the page was, never the env's own captcha / banner flags
            lines.append(f"  Page: {step.get('title', '')} <{step['url']}>")
    final = trace.get("final") or {}
    if final.get("finished"):
        lines.append(f"Result: {final.get('answer', '')} (success={final.get('success_claimed')})")
    text = "\n".join(lines)
    if len(text) > max_chars:
        half = max_chars // 2
        text = text[:half] + "\n... (log cut) ...\n" + text[-half:]
    return text


def parse_json_reply(content: str) -> dict[str, Any]:
    """The last ```json (or ```) fenced block of a reply, else the outermost {...}, as a dict."""
    blocks = re.findall(r"```(?:json)?\s*(.*?)```", content, flags=re.DOTALL)
    candidates = [blocks[-1]] if blocks else []
    match = re.search(r"\{.*\}", content, flags=re.DOTALL)
    if match:
        candidates.append(match.group(0))
    for candidate in candidates:
        try:
            value = json.loads(candidate.strip())
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    raise ValueError(f"no JSON object in the judge's reply: {content[:200]!r}")


@dataclass(frozen=True)
class LLMJudgement:
    """Labels from the LLM judge, or the error that prevented them."""

    labels: dict[str, bool] = field(default_factory=dict)
    raw: str = ""
    error: str | None = None


class LLMTraceJudge:
    """Classify traces with a chat model (``personal_envs.llm.client.ChatClient`` or compatible)."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def judge(self, trace: dict[str, Any], mode: str) -> LLMJudgement:
        """Labels of ``trace`` for ``mode`` in ``captcha``, ``banner`` or ``navigation``."""
        if mode not in SYSTEM_PROMPTS:
            raise ValueError(f"mode must be one of {sorted(SYSTEM_PROMPTS)}")
        messages = [{"role": "system", "content": SYSTEM_PROMPTS[mode]},
                    {"role": "user", "content": trace_to_text(trace)}]
        try:
            reply = self.client.chat(messages)
        except Exception as exc:  # LLMError and transport failures are reported, not scored
            return LLMJudgement(error=f"judge request failed: {exc}")
        content = str(getattr(reply, "content", "") or "")
        try:
            parsed = parse_json_reply(content)
        except ValueError as exc:
            return LLMJudgement(raw=content, error=str(exc))
        if mode == "navigation":
            category = str(parsed.get("category", "")).strip().lower().replace(" ", "_")
            if category not in NAVIGATION_ROUTES:
                return LLMJudgement(raw=content, error=f"judge answered an unknown category {category!r}")
            return LLMJudgement(labels={c: c == category for c in NAVIGATION_ROUTES}, raw=content)
        keys = KEYS[mode]
        missing = [key for key in keys if key not in parsed and key.replace("-", "_") not in parsed]
        if missing:
            return LLMJudgement(raw=content, error=f"judge reply lacks keys {missing}")
        labels = {key: _truthy(parsed.get(key, parsed.get(key.replace("-", "_")))) for key in keys}
        return LLMJudgement(labels=labels, raw=content)

    def metrics(self, trace: dict[str, Any], kind: str) -> dict[str, Any]:
        """The judgement of a finished log as env metrics (the rule judges' keys), or ``{"trace_judge_error"}``.

        ``kind`` is the task kind (``captcha``, ``banner``, ``trivia``); other kinds give ``{}``.
        """
        mode = {"captcha": "captcha", "banner": "banner", "trivia": "navigation"}.get(kind)
        if mode is None:
            return {}
        result = self.judge(trace, mode)
        if result.error:
            return {"trace_judge": "llm", "trace_judge_error": result.error}
        out: dict[str, Any] = {"trace_judge": "llm"}
        if mode == "captcha":
            out["strategies"] = dict(result.labels)
            out["num_strategies"] = sum(result.labels.values())
        elif mode == "banner":
            out["banner_detected"] = result.labels["banner_detected"]
            out["banner_closed"] = result.labels["banner_closed"] and result.labels["banner_detected"]
        else:  # the route; the task makes it Table 5's column with its answer key (Failed when wrong)
            out["navigation_route"] = next(c for c, on in result.labels.items() if on)
        return out


def _truthy(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "1")
    return bool(value)


def make_trace_judge(spec: Any) -> LLMTraceJudge | None:
    """The trace judge an env kwarg asks for: ``None`` / ``"rules"`` (the rule judges only), ``"llm"`` (a
    :class:`~personal_envs.llm.client.ChatClient` from ``$OPENAI_BASE_URL``), a dict ``{"base_url", "model",
    "api_key"}`` for the LLM judge, or any object with ``chat(messages)`` (a client)."""
    if spec is None or spec == "rules":
        return None
    from personal_envs.llm.client import ChatClient

    if spec == "llm":
        return LLMTraceJudge(ChatClient())
    if isinstance(spec, dict):
        return LLMTraceJudge(ChatClient(base_url=spec.get("base_url"), model=spec.get("model"),
                                        api_key=spec.get("api_key")))
    if hasattr(spec, "chat"):
        return LLMTraceJudge(spec)
    raise ValueError(f"trace_judge must be 'rules', 'llm', a dict of endpoint settings or a chat client, got {spec!r}")
