"""What the local sites' scripts do, for the text mode (:mod:`personal_envs.textmode`).

The browser runs the pages' own JavaScript (their ``onclick`` attributes); the text mode runs these instead:

* the news site's consent banner (:data:`~personal_envs.browserarena.web.news.BANNER_SCRIPT`): ``setConsent(value)``
  stores the consent cookie for the site (``path=/``) and reloads the page, which then shows no banner;
* the travel site's captcha (:data:`~personal_envs.browserarena.web.travel.CAPTCHA_SCRIPT`):
  ``failVerification()`` counts the tries of the page and writes "Verification failed (n). ..." into the status
  line; the checkbox still toggles and the button does nothing else.

A click reaches the handler of the element clicked or of an ancestor (the event bubbles), and a click on a label
reaches its control's handler (the browser clicks the control for it).  Unknown handlers do nothing, as a
``ReferenceError`` does nothing to the page.
"""

from __future__ import annotations

import re

from personal_envs.browserarena.web.news import CONSENT_COOKIE
from personal_envs.textmode.dom import Element
from personal_envs.textmode.page_script import PageScript
from personal_envs.textmode.session import TextPage, TextSession

_CALL = re.compile(r"^\s*(\w+)\s*\(\s*(?:'([^']*)'|\"([^\"]*)\")?\s*\)\s*;?\s*$")
_TRIES = re.compile(r"^Verification failed \((\d+)\)")
STATUS_ID = "captcha-status"


class ArenaScript(PageScript):
    """The local sites' two scripts (``setConsent``, ``failVerification``), on every page that has a handler."""

    def applies(self, page: TextPage) -> bool:
        return True

    def on_click(self, session: TextSession, page: TextPage, target: Element) -> bool:
        handler = target.closest(lambda e: "onclick" in e.attrs) or _label_control(page, target)
        if handler is None:
            return False
        call = _CALL.match(handler.attrs.get("onclick", ""))
        if call is None:
            return False
        name, argument = call.group(1), call.group(2) if call.group(2) is not None else call.group(3) or ""
        if name == "failVerification":
            _fail_verification(page)
            return False  # the default action follows (the checkbox toggles)
        if name == "setConsent":
            session.set_cookie(page.url, CONSENT_COOKIE, argument)
            scroll_y = page.scroll_y
            session.navigate(page.url, replace=True)  # location.reload(), which keeps the scroll position
            reloaded = session.page
            if reloaded is not None and scroll_y:
                limit = reloaded.layout(session.viewport).height - session.viewport[1]
                reloaded.scroll_y = max(0.0, min(scroll_y, limit))
            return True
        return False


def _label_control(page: TextPage, target: Element) -> Element | None:
    """The control a click on a label activates, when it has a click handler."""
    label = target.closest(lambda e: e.tag == "label")
    if label is None:
        return None
    for_id = label.attrs.get("for")
    control = page.document.get_element_by_id(for_id) if for_id else label.find(
        lambda e: e.tag in ("input", "select", "textarea", "button"))
    return control if control is not None and "onclick" in control.attrs and not control.disabled else None


def _fail_verification(page: TextPage) -> None:
    status = page.document.get_element_by_id(STATUS_ID)
    if status is None:
        return  # the page's script throws on the missing element
    match = _TRIES.match(status.text_content)
    tries = int(match.group(1)) + 1 if match else 1
    status.set_text(f"Verification failed ({tries}). Please try again. If the problem persists, contact support.")
    page.modified()
