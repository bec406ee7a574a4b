"""The WebMall solution page, built as the official one is (``docker_all/index.html`` of WebMall v1.0).

The official page is a static page: a heading, one paragraph of instructions, a ``textarea`` (named by its
placeholder), a "Submit Final Result" button and an empty ``aria-live="polite"`` result box.  Its script submits
*in place*: the field's value, trimmed, is written into the result box and the field and the button are disabled;
an empty or whitespace-only value does nothing.  Nothing is sent anywhere, and the page links to no shop.  The
official evaluator reads the submission from the page (the trimmed text of ``#submittedResult`` on the solution
page's own URL), and so does the env (:func:`read_submission`).

The page is rendered here with the project's own markup and script, in the official page's structure (so the
accessibility tree, which is what the agents read, has the same lines).  Its words are the official page's, read at
run time from the official file when the data directory (or the Docker deployment's folder) holds it
(:func:`load_solution_texts`); otherwise the project's own words in the same places.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from personal_envs.webmall.official_html import Node, parse_html

#: Where the official page lies in a data directory (``personal-envs data fetch webmall`` puts it there).
OFFICIAL_PAGE = Path("docker_all") / "index.html"

#: Element ids of the official page, which the official evaluator reads (``#submittedResult``).
FIELD_ID = "finalInput"
BUTTON_ID = "submitBtn"
RESULT_ID = "submittedResult"


@dataclass(frozen=True)
class SolutionTexts:
    """The words of the solution page and where they came from (``"official"`` or ``"project"``)."""

    title: str
    heading: str
    instructions: str
    placeholder: str
    button: str
    source: str = "project"


#: The project's words, used without the official file.
PROJECT_TEXTS = SolutionTexts(
    title="WebMall solution page",
    heading="WebMall",
    instructions="Type the final result into the field below and press the \"Submit Final Result\" button; "
                 "when there is nothing to report, type \"Done\".",
    placeholder="Final result",
    button="Submit Final Result",
)


def find_official_page(*directories: Path | None) -> Path | None:
    """The official ``index.html`` in the first directory that holds it (as ``docker_all/index.html``,
    ``config/index.html`` or ``index.html``), else None."""
    for directory in directories:
        if directory is None:
            continue
        for relative in (OFFICIAL_PAGE, Path("config") / "index.html", Path("index.html")):
            path = Path(directory) / relative
            if path.is_file():
                return path
    return None


def _text(node: Node | None) -> str:
    return " ".join(node.get_text(" ").split()) if node is not None else ""


def texts_from_official_page(html: str) -> SolutionTexts:
    """The words of the official page (title, heading, instructions, placeholder, button).

    Raises:
        ValueError: the page is not the official solution page (one of its parts is missing).
    """
    doc = parse_html(html)
    title = next(iter(doc.select("title")), None)
    main = next(iter(doc.select("main")), doc)
    heading = next(iter(main.select("h1")), None)
    paragraph = next(iter(main.select("p")), None)
    field = next((n for n in main.select("textarea") if n.attrs.get("id") == FIELD_ID), None)
    button = next((n for n in main.select("button") if n.attrs.get("id") == BUTTON_ID), None)
    if not (title and heading and paragraph and field is not None and button is not None
            and any(n.attrs.get("id") == RESULT_ID for n in main.elements(lambda n: True))):
        raise ValueError("not the official WebMall solution page (title, h1, p, #finalInput, #submitBtn and "
                         "#submittedResult expected)")
    return SolutionTexts(_text(title), _text(heading), _text(paragraph), field.attrs.get("placeholder", ""),
                         _text(button), source="official")


def load_solution_texts(*directories: Path | None) -> SolutionTexts:
    """The official page's words when one of ``directories`` holds the official file, else :data:`PROJECT_TEXTS`."""
    path = find_official_page(*directories)
    if path is None:
        return PROJECT_TEXTS
    return texts_from_official_page(path.read_text(encoding="utf-8"))


#: The in-place submission, as the official page's script behaves (written here, not copied).
_SCRIPT = (
    "(function(){var field=document.getElementById('" + FIELD_ID + "'),button=document.getElementById('"
    + BUTTON_ID + "'),shown=document.getElementById('" + RESULT_ID + "');"
    "button.addEventListener('click',function(){var value=field.value.trim();if(!value){return;}"
    "shown.textContent=value;field.disabled=true;button.disabled=true;});})();"
)

_STYLE = (
    "*{box-sizing:border-box;margin:0;padding:0;font-family:sans-serif}"
    "body{color:#1f2937;background:#fff;line-height:1.6;padding:2rem}"
    ".container{max-width:800px;margin:0 auto;text-align:center}h1{font-size:2.5rem;margin-bottom:1rem}"
    "p{color:#6b7280;margin-bottom:3rem;font-size:1.1rem}"
    ".form-group{display:flex;flex-direction:column;gap:1rem;align-items:stretch}"
    "textarea{width:100%;padding:1rem;font-size:1rem;border:1px solid #e5e7eb;border-radius:.25rem;"
    "min-height:200px;resize:vertical}"
    "button{padding:.75rem 1.5rem;font-size:1rem;background:#4f46e5;color:#fff;border:none;border-radius:.25rem;"
    "cursor:pointer;font-weight:500}"
    "#" + RESULT_ID + "{margin-top:2rem;font-size:1.1rem;font-weight:bold;white-space:pre-wrap;word-wrap:break-word}"
)


def render_solution_page(texts: SolutionTexts) -> str:
    """The page's HTML: the official page's structure and behaviour with ``texts`` in their places."""
    e = escape
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8"><meta name="viewport" '
        f'content="width=device-width, initial-scale=1.0"><title>{e(texts.title)}</title><style>{_STYLE}</style>'
        f'</head><body><main class="container"><h1>{e(texts.heading)}</h1><p>{e(texts.instructions)}</p>'
        f'<div class="form-group"><textarea id="{FIELD_ID}" placeholder="{e(texts.placeholder)}"></textarea>'
        f'<button id="{BUTTON_ID}">{e(texts.button)}</button></div>'
        f'<div id="{RESULT_ID}" aria-live="polite"></div></main><script>{_SCRIPT}</script></body></html>'
    )


#: Reads what the official evaluator reads: the text of ``#submittedResult`` ("" when the page has none).
READ_SUBMISSION_JS = (
    "() => { const shown = document.querySelector('#" + RESULT_ID + "'); "
    "return shown ? (shown.textContent || '') : ''; }"
)


def is_solution_url(page_url: str, solution_origin: str) -> bool:
    """True when ``page_url`` is the solution page itself (the official check: equal once trailing ``/`` are
    stripped)."""
    return bool(page_url) and page_url.rstrip("/") == solution_origin.rstrip("/")


def read_submission(page: Any) -> str:
    """The submitted text the solution page shows (stripped, as the official evaluator strips it); "" if none."""
    return str(page.evaluate(READ_SUBMISSION_JS) or "").strip()
