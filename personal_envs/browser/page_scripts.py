"""JavaScript run inside pages: stamping stable element ids and inspecting one element before acting on it.

The scripts are the ``.js`` files of ``personal_envs/browser/js/`` (one function expression each), read once at
import by :func:`load_script`.
"""

from __future__ import annotations

from importlib import resources


def load_script(name: str, package: str = "personal_envs.browser") -> str:
    """The text of ``js/<name>`` in ``package`` (a function expression, for ``page.evaluate`` or CDP)."""
    return resources.files(package).joinpath("js", name).read_text(encoding="utf-8").strip()

#: Attribute that carries an element's bid.  Stays on the element for the life of the document.
BID_ATTRIBUTE = "data-pe-bid"

#: Stamps every element (open shadow roots included) that has no bid yet with the next free number, repairs
#: duplicated bids (cloned nodes), and returns the page facts an observation needs.
STAMP_BIDS_JS = load_script("stamp_bids.js")

#: Describes the element with a given bid (or returns null): what it is and whether it can be acted on.
INSPECT_ELEMENT_JS = load_script("inspect_element.js")

#: Resolves at the next animation frame, or after 100 ms if no frame comes: a wheel scroll Playwright has delivered
#: is applied to the document by then (measured: ``scrollY`` moves after one frame, not before).
NEXT_FRAMES_JS = load_script("next_frames.js")

#: Init script counting the document's fetch/XHR calls (``window.__peScriptRequests.n``), read when settling.
COUNT_REQUESTS_JS = load_script("count_requests.js")
#: Reads that count (0 in a document without the init script).
SCRIPT_REQUESTS_STARTED_JS = "() => (window.__peScriptRequests || {n: 0}).n"

#: The bids BrowserGym flags for its set-of-marks overlay (see :mod:`personal_envs.browser.bgym_marks`).
SOM_FLAGS_JS = load_script("som_flags.js")

#: Sets a long value directly (typing a megabyte through the input pipeline takes seconds) and fires the events
#: a framework listens to.
SET_VALUE_JS = load_script("set_value.js")


def _compact_js(source: str) -> str:
    """``source`` without indentation, blank lines and whole-line ``//`` comments (line breaks are kept).

    Scripts sent with every observation are parsed each time, so their size shows in the observe time.
    """
    lines = (line.strip() for line in source.splitlines())
    return "\n".join(line for line in lines if line and not line.startswith("//"))


#: Walks the rendered DOM (after stamping bids) and returns one record per node an accessibility tree would
#: show: ``[depth, bid, role, name, value, props, bbox, interactive]``.  A close approximation of Chromium's AX
#: tree (implicit ARIA roles, accessible names from labels/aria/alt/content, states, table and landmark rules)
#: that costs one evaluate and stays fast on pages with megabytes of text, where Chromium's own tree (one node
#: per text line) does not.  Sent compacted (see :func:`_compact_js`).
DOM_AXTREE_JS = _compact_js(load_script("dom_axtree.js"))
