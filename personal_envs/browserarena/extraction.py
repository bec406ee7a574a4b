"""``extract_content`` with a model, as browser-use does: the page's text and the agent's goal go to the configured
chat model, and its extraction is the action's result.

Without a model the action returns the page's raw text, labelled as such, so an agent (and a reader of the trace)
knows that nothing was extracted.  The prompt is the project's own wording of browser-use's instruction (extract
everything relevant to the goal; summarise the page when the goal is vague).
"""

from __future__ import annotations

import os
from typing import Any

from personal_envs.llm.client import BASE_URL_ENV, ChatClient, LLMError

#: Characters of page text sent to the model.
MAX_PAGE_CHARS = 30_000

EXTRACTION_PROMPT = (
    "You extract information from a web page for a browsing agent. You get the agent's extraction goal and the "
    "page's text. Return every piece of information on the page that is relevant to the goal, keeping names, "
    "numbers, dates and links exact. If the goal is vague, summarise the page. Answer with the extraction only."
)

RAW_LABEL = "Raw page text (no extraction model is configured; nothing was extracted)"


class PageExtractor:
    """Asks ``client`` to extract what an ``extract_content`` goal needs from a page's text."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def __call__(self, goal: str, page_text: str) -> str:
        """The action result: the model's extraction, or the raw text with the reason when the call failed."""
        messages = [{"role": "system", "content": EXTRACTION_PROMPT},
                    {"role": "user", "content": f"Extraction goal: {goal}\n\nPage text:\n{page_text[:MAX_PAGE_CHARS]}"}]
        try:
            reply = self.client.chat(messages, temperature=0.0)
        except LLMError as exc:
            return (f"Raw page text (the extraction model failed: {str(exc)[:300]}) for goal {goal!r}:\n"
                    f"{page_text}")
        model = getattr(self.client, "model", None) or "the model"
        return f"Extracted from page for goal {goal!r} (by {model}):\n{reply.content.strip()}"


def raw_extraction(goal: str, page_text: str) -> str:
    """The result of ``extract_content`` without a model: the page's text, labelled."""
    return f"{RAW_LABEL} for goal {goal!r}:\n{page_text}"


def resolve_extractor(option: Any) -> PageExtractor | None:
    """The extractor for an env's ``extraction_model`` option: ``"auto"`` (a :class:`ChatClient` from
    ``$OPENAI_BASE_URL`` when set), ``None`` (raw text), a base URL, or a client with a ``chat`` method."""
    if option is None or option is False:
        return None
    if option == "auto":
        return PageExtractor(ChatClient()) if os.environ.get(BASE_URL_ENV) else None
    if isinstance(option, str):
        return PageExtractor(ChatClient(base_url=option))
    if callable(getattr(option, "chat", None)):
        return PageExtractor(option)
    raise ValueError("extraction_model must be 'auto', None, a base URL or a chat client")
