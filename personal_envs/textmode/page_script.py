"""What a page's own script does, done in Python (a text-mode site's clicks and changes)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from personal_envs.textmode.dom import Element
    from personal_envs.textmode.session import TextPage, TextSession


class PageScript:
    """What a page's own script does, done in Python.  Override what the page's script handles."""

    def applies(self, page: TextPage) -> bool:
        """True if this script runs on ``page``."""
        return False

    def listeners(self, page: TextPage) -> list[Element]:
        """Elements the script listens to for clicks (Chromium flags them ``clickable``)."""
        return []

    def on_click(self, session: TextSession, page: TextPage, target: Element) -> bool:
        """A click reached ``target``; True when the script prevented the default action."""
        return False

    def on_change(self, session: TextSession, page: TextPage, target: Element) -> None:
        """The value of ``target`` changed (a ``change`` event)."""
