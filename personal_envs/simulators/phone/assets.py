"""The page assets of the phone's screen (``static/``): its shell, stylesheet and runtime."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=8)
def static_text(name: str) -> str:
    """The text of ``static/<name>`` (``shell.html``, ``phone.css`` or ``phone.js``)."""
    return (resources.files("personal_envs.simulators.phone") / "static" / name).read_text(encoding="utf-8")
