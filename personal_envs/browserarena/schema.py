"""Schema of the tasks a user gives BrowserArena (pydantic), for :mod:`personal_envs.browserarena.tasks`.

``BrowserArena-Open-v0`` takes its tasks as a list whose items are a task text, or an object with a ``text`` and
an optional ``start_url`` (both strings; the text is not empty).  Which start URLs are allowed is decided where the
task runs, not here.
"""

from __future__ import annotations

from typing import Annotated, Any, NotRequired

from pydantic import BeforeValidator, Field, StrictStr
from typing_extensions import TypedDict


class OpenTaskItem(TypedDict):
    """An open-web task."""

    text: Annotated[StrictStr, Field(min_length=1)]
    start_url: NotRequired[StrictStr]


def _as_item(value: Any) -> Any:
    """A task given as its text."""
    return {"text": value} if isinstance(value, str) else value


#: The ``tasks=`` list of open-web tasks.
OpenTaskItems = list[Annotated[OpenTaskItem, BeforeValidator(_as_item)]]
