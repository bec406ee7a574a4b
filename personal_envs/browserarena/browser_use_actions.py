"""The paper's action set on browser-use 0.1.40's controller (run in browser-use's venv by the bridge).

The paper ran browser-use 0.1.41rc2 (vendored in sagnikanupam/browserarena, ``browser-use/browser_use/controller/
service.py``); its controller registers the 24 actions of the paper's Table 1.  browser-use 0.1.40, the closest
release on PyPI, registers 16 of them: :func:`install_paper_actions` gives its ``Controller`` the other eight through
its own ``registry.action`` decorator, renames ``click_element`` to the 0.1.41 name ``click_element_by_index`` (the
same function), gives ``extract_content`` the 0.1.41 parameters (``goal``, ``should_strip_link_urls``: links and
images left out of the page's Markdown on request, frame contents appended) around 0.1.40's own extraction, and
orders the registry as 0.1.41rc2 lists it (the order of the model's action list).
No ``from __future__ import annotations`` here: browser-use reads the action functions' annotations at run time
(a parameter model as the first parameter, the browser context by name).

Each new action does what 0.1.41rc2's does, reimplemented on 0.1.40's ``BrowserContext`` (which lacks 0.1.41's
element-locating helpers), with these facts of the release kept on purpose:

* ``wait_for_element``: waits for the CSS selector to be visible (``timeout`` ms, default 10000); a timeout fails the
  step (the action raises, so browser-use counts a consecutive failure);
* ``click_element_by_selector`` / ``click_element_by_xpath``: the first match, scrolled into view if visible,
  clicked with ``force`` and a 1.5 s timeout, else by a script ``click()``; **no match gives an empty result without
  an error**, as the release returns nothing then;
* ``click_element_by_text``: the ``nth`` (from 0) visible element whose text contains ``text`` (Playwright's
  ``:text()``), of tag ``element_type`` (required, may be ``null`` for any tag); none: an error;
* ``close_tab``: closes tab ``page_id`` (0.1.40's ``switch_to_tab`` checks it exists and is allowed);
* ``save_pdf``: the page printed to A4 with screen media and no backgrounds, ``<slug of the URL>.pdf``;
* ``save_html_to_file``: the release fails on every call (it calls ``now()`` on the ``datetime`` module, so the
  action returns "Failed to save HTML content: module 'datetime' has no attribute 'now'"); reproduced unless the
  bridge asks for the working variant (``<slug>_<timestamp>.html``);
* ``drag_drop``: CSS / XPath selectors (``page.locator``) or four coordinates; ``element_source_offset`` /
  ``element_target_offset`` are used **as page coordinates**, not offsets inside the element, as the release does;
  ``steps`` intermediate mouse moves with ``delay_ms`` between them.

Files go to the bridge's ``files_dir`` (the release wrote into its working directory).  The descriptions the model
reads are the project's own words for the new actions (parameter names, types and defaults are the release's).
"""

import asyncio
import contextlib
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import markdownify
from browser_use.agent.views import ActionResult
from browser_use.browser.context import BrowserContext
from browser_use.controller.registry.views import RegisteredAction
from browser_use.controller.views import NoParamsAction
from pydantic import BaseModel, Field

#: The 24 actions of browser-use 0.1.41rc2's controller (the paper's Table 1), in its registration order.
PAPER_ACTIONS: tuple[str, ...] = (
    "done", "search_google", "go_to_url", "go_back", "wait", "wait_for_element", "click_element_by_index",
    "click_element_by_selector", "click_element_by_xpath", "click_element_by_text", "input_text", "save_pdf",
    "switch_tab", "open_tab", "close_tab", "extract_content", "save_html_to_file", "scroll_down", "scroll_up",
    "send_keys", "scroll_to_text", "get_dropdown_options", "select_dropdown_option", "drag_drop",
)
#: 0.1.40's names that 0.1.41rc2 spells differently.
RENAMED = {"click_element": "click_element_by_index"}
#: The message 0.1.41rc2's ``save_html_to_file`` returns on every call.
SAVE_HTML_RELEASE_ERROR = "Failed to save HTML content: module 'datetime' has no attribute 'now'"
CLICK_TIMEOUT_MS = 1500


class WaitForElementParams(BaseModel):
    selector: str
    timeout: int | None = 10000


class ClickSelectorParams(BaseModel):
    css_selector: str


class ClickXpathParams(BaseModel):
    xpath: str


class ClickTextParams(BaseModel):
    text: str
    element_type: str | None
    nth: int = 0


class CloseTabParams(BaseModel):
    page_id: int


class Position(BaseModel):
    x: int
    y: int


class DragDropParams(BaseModel):
    element_source: str | None = Field(None, description="CSS selector or XPath of the element to pick up")
    element_target: str | None = Field(None, description="CSS selector or XPath of the element to drop it on")
    element_source_offset: Position | None = Field(None, description="Exact point to start the drag at, in pixels")
    element_target_offset: Position | None = Field(None, description="Exact point to drop at, in pixels")
    coord_source_x: int | None = Field(None, description="Page x of the drag start, in pixels")
    coord_source_y: int | None = Field(None, description="Page y of the drag start, in pixels")
    coord_target_x: int | None = Field(None, description="Page x of the drop point, in pixels")
    coord_target_y: int | None = Field(None, description="Page y of the drop point, in pixels")
    steps: int | None = Field(10, description="Mouse moves between start and drop (5 to 20 move smoothly)")
    delay_ms: int | None = Field(5, description="Pause between two moves in milliseconds (0 is fastest)")


def install_paper_actions(controller: Any, *, files_dir: str | Path, save_html_fails: bool = True) -> None:
    """Give a browser-use 0.1.40 ``Controller`` the paper's 24 actions (see the module docstring)."""
    registry = controller.registry
    actions = registry.registry.actions
    for old, new in RENAMED.items():
        if old in actions:
            entry = actions.pop(old)
            actions[new] = RegisteredAction(name=new, description=entry.description, function=entry.function,
                                            param_model=entry.param_model)
    _install_extract_content(registry)
    folder = Path(files_dir)

    @registry.action("Wait until the element matching a CSS selector is visible (timeout in milliseconds)",
                     param_model=WaitForElementParams)
    async def wait_for_element(params: WaitForElementParams, browser: BrowserContext) -> ActionResult:
        page = await browser.get_current_page()
        try:
            await page.wait_for_selector(params.selector, state="visible", timeout=params.timeout)
        except Exception as exc:
            raise RuntimeError(f"The element {params.selector!r} did not become visible within {params.timeout} ms: "
                               f"{exc}") from exc
        return _done(f"The element {params.selector!r} is visible")

    @registry.action("Click the element that matches a CSS selector", param_model=ClickSelectorParams)
    async def click_element_by_selector(params: ClickSelectorParams, browser: BrowserContext) -> ActionResult | None:
        page = await browser.get_current_page()
        return await _click_first(await _query(page, params.css_selector), f"CSS selector {params.css_selector!r}")

    @registry.action("Click the element that matches an XPath", param_model=ClickXpathParams)
    async def click_element_by_xpath(params: ClickXpathParams, browser: BrowserContext) -> ActionResult | None:
        page = await browser.get_current_page()
        return await _click_first(await _query(page, f"xpath={params.xpath}"), f"XPath {params.xpath!r}")

    @registry.action("Click a visible element by its text (nth match from 0, optionally of one tag)",
                     param_model=ClickTextParams)
    async def click_element_by_text(params: ClickTextParams, browser: BrowserContext) -> ActionResult | None:
        page = await browser.get_current_page()
        element = await _visible_text_match(page, params.text, params.element_type, params.nth)
        if element is None:
            return ActionResult(error=f"No visible element with the text {params.text!r}")
        return await _click_first(element, f"the text {params.text!r}")

    @registry.action("Save the current page as a PDF file")
    async def save_pdf(browser: BrowserContext) -> ActionResult:
        page = await browser.get_current_page()
        path = folder / f"{url_slug(page.url)}.pdf"
        await page.emulate_media(media="screen")
        await page.pdf(path=str(path), format="A4", print_background=False)
        return _done(f"Saved the page {page.url} as a PDF file: {path}")

    @registry.action("Close the tab with the given id", param_model=CloseTabParams)
    async def close_tab(params: CloseTabParams, browser: BrowserContext) -> ActionResult:
        await browser.switch_to_tab(params.page_id)  # raises for an unknown id or a tab outside the allowed domains
        session = await browser.get_session()
        page = session.context.pages[params.page_id]
        url = page.url
        await page.close()
        return _done(f"Closed tab {params.page_id} ({url})")

    @registry.action("Save the HTML source of the current page to a file", param_model=NoParamsAction)
    async def save_html_to_file(_: NoParamsAction, browser: BrowserContext) -> ActionResult:
        try:
            page = await browser.get_current_page()
            html = await page.content()
            if save_html_fails:
                return ActionResult(error=SAVE_HTML_RELEASE_ERROR, extracted_content="")
            path = folder / f"{url_slug(page.url)[:64]}_{time.strftime('%Y%m%d_%H%M%S')}.html"
            path.write_text(html, encoding="utf-8")
            return _done(f"Saved the HTML of {page.url} to {path}")
        except Exception as exc:
            return ActionResult(error=f"Failed to save HTML content: {exc}", extracted_content="")

    @registry.action("Drag from one element or point to another: selectors of both elements, or four page "
                     "coordinates (for sliders, sortable lists, canvases)", param_model=DragDropParams)
    async def drag_drop(params: DragDropParams, browser: BrowserContext) -> ActionResult:
        page = await browser.get_current_page()
        try:
            points = await _drag_points(page, params)
            if isinstance(points, str):
                return ActionResult(error=points, include_in_memory=True)
            (x0, y0), (x1, y1) = points
            steps, delay = max(1, params.steps or 10), max(0, params.delay_ms or 5)
            error = await _drag(page, (x0, y0), (x1, y1), steps, delay)
            if error:
                return ActionResult(error=error, include_in_memory=True)
        except Exception as exc:
            return ActionResult(error=f"drag_drop failed: {exc}", include_in_memory=True)
        if params.element_source and params.element_target:
            return _done(f"Dragged {params.element_source!r} onto {params.element_target!r}")
        return _done(f"Dragged from ({x0}, {y0}) to ({x1}, {y1})")

    registry.registry.actions = {**{name: actions[name] for name in PAPER_ACTIONS if name in actions},
                                 **{name: a for name, a in actions.items() if name not in PAPER_ACTIONS}}


def url_slug(url: str) -> str:
    """The file name stem 0.1.41rc2 derives from a URL: scheme, ``www.`` and a final slash dropped, runs of other
    characters than letters and digits as ``-``, lower case."""
    short = re.sub(r"^https?://(?:www\.)?|/$", "", url)
    return re.sub(r"[^a-zA-Z0-9]+", "-", short).strip("-").lower()


def _done(message: str) -> ActionResult:
    return ActionResult(extracted_content=message, include_in_memory=True)


# ---------------------------------------------------------------------------------------------- extract_content
def _install_extract_content(registry: Any) -> None:
    original = registry.registry.actions.pop("extract_content", None)
    if original is None:
        return
    run_0140 = original.function

    @registry.action(original.description)
    async def extract_content(goal: str, should_strip_link_urls: bool, browser: BrowserContext,
                              page_extraction_llm: Any) -> Any:
        page = await browser.get_current_page()
        frames = []
        for frame in page.frames:  # 0.1.41rc2 appends every other frame's content (cross-origin ones included)
            if frame.url != page.url and not frame.url.startswith("data:"):
                frames.append(f"\n\nIFRAME {frame.url}:\n" + markdownify.markdownify(await frame.content()))
        with _page_markdown(["a", "img"] if should_strip_link_urls else [], "".join(frames)):
            return await run_0140(goal=goal, browser=browser, page_extraction_llm=page_extraction_llm)


@contextlib.contextmanager
def _page_markdown(strip: list[str], appendix: str) -> Iterator[None]:
    """While 0.1.40's ``extract_content`` runs, its page-to-Markdown call strips ``strip`` tags and appends
    ``appendix`` (0.1.41rc2's additions; the extraction prompt and model call stay 0.1.40's own)."""
    convert = markdownify.markdownify

    def page_to_markdown(html: str, **options: Any) -> str:
        return str(convert(html, **{**options, "strip": strip})) + appendix

    setattr(markdownify, "markdownify", page_to_markdown)  # noqa: B010 - a module attribute, swapped back below
    try:
        yield
    finally:
        setattr(markdownify, "markdownify", convert)  # noqa: B010


# ---------------------------------------------------------------------------------------------- element helpers
async def _query(page: Any, selector: str) -> Any:
    """The first element matching ``selector`` (scrolled into view when visible), or ``None`` (also for a selector
    Playwright rejects)."""
    try:
        element = await page.query_selector(selector)
        if element is not None and not await element.is_hidden():
            await element.scroll_into_view_if_needed()
        return element
    except Exception:
        return None


async def _visible_text_match(page: Any, text: str, element_type: str | None, nth: int) -> Any:
    try:
        found = await page.query_selector_all(f'{element_type or "*"}:text("{text}")')
        visible = [element for element in found if await element.is_visible()]
        if not 0 <= nth < len(visible):
            return None
        element = visible[nth]
        if not await element.is_hidden():
            await element.scroll_into_view_if_needed()
        return element
    except Exception:
        return None


async def _click_first(element: Any, described: str) -> ActionResult | None:
    """Click ``element`` as 0.1.41rc2 does (forced, 1.5 s, then a script click); ``None`` when there is none."""
    if element is None:
        return None  # the release's selector / XPath clicks return nothing when nothing matches
    try:
        if not await element.is_hidden():
            await element.scroll_into_view_if_needed()
        await element.click(timeout=CLICK_TIMEOUT_MS, force=True)
    except Exception:
        try:
            await element.evaluate("el => el.click()")
        except Exception as exc:
            return ActionResult(error=f"Could not click the element matching {described}: {exc}")
    return _done(f"Clicked the element matching {described}")


# ---------------------------------------------------------------------------------------------- drag and drop
async def _drag_points(page: Any, params: DragDropParams) -> tuple[tuple[int, int], tuple[int, int]] | str:
    if params.element_source and params.element_target:
        source = await _first_handle(page, params.element_source)
        target = await _first_handle(page, params.element_target)
        if source is None or target is None:
            return f"Failed to find the {'source' if source is None else 'target'} element"
        start = await _point(source, params.element_source_offset)
        end = await _point(target, params.element_target_offset)
        if start is None or end is None:
            return f"Failed to find the {'source' if start is None else 'target'} position"
        return start, end
    coords = (params.coord_source_x, params.coord_source_y, params.coord_target_x, params.coord_target_y)
    if all(value is not None for value in coords):
        x0, y0, x1, y1 = (int(value) for value in coords if value is not None)
        return (x0, y0), (x1, y1)
    return "drag_drop needs element_source and element_target, or all four coordinates"


async def _first_handle(page: Any, selector: str) -> Any:
    try:
        locator = page.locator(selector)
        return await locator.first.element_handle() if await locator.count() > 0 else None
    except Exception:
        return None


async def _point(element: Any, position: Position | None) -> tuple[int, int] | None:
    if position is not None:  # 0.1.41rc2 takes the "offset" as the point itself
        return position.x, position.y
    box = await element.bounding_box()
    if not box:
        return None
    return int(box["x"] + box["width"] / 2), int(box["y"] + box["height"] / 2)


async def _drag(page: Any, start: tuple[int, int], end: tuple[int, int], steps: int, delay_ms: int) -> str:
    try:
        await page.mouse.move(*start)
    except Exception as exc:
        return f"Could not move the mouse to the drag start: {exc}"
    try:
        await page.mouse.down()
        for i in range(1, steps + 1):
            await page.mouse.move(int(start[0] + (end[0] - start[0]) * i / steps),
                                  int(start[1] + (end[1] - start[1]) * i / steps))
            if delay_ms > 0:
                await asyncio.sleep(delay_ms / 1000)
        await page.mouse.move(*end)
        await page.mouse.move(*end)  # again, so that dragover fires on the target
        await page.mouse.up()
    except Exception as exc:
        return f"The drag failed: {exc}"
    return ""
