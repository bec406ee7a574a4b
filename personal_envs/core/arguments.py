"""Checking the keyword arguments a user gives an env or a policy against the signature that receives them.

:func:`check_keywords` refuses names the function does not take; :func:`check_types` refuses values whose type
breaks the parameter's annotation, the way a JSON value from ``--env-kwargs`` would be read (pydantic's strict JSON
mode: ``"ten"`` is not an ``int``, ``5`` is not a ``str``, a list is a fine ``tuple``).  Values that are not JSON
(a ``Path``, a simulated-user object, a dataset) are left to the function itself.  Both raise
:class:`~personal_envs.core.errors.InputError` with one line naming the argument.
"""

from __future__ import annotations

import functools
import inspect
import json
import logging
import typing
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ConfigDict, PydanticUserError, TypeAdapter, ValidationError

from personal_envs.core.errors import InputError
from personal_envs.core.schema import describe_validation

logger = logging.getLogger(__name__)


def keyword_names(function: Callable[..., Any]) -> list[str] | None:
    """The keyword arguments ``function`` accepts, or ``None`` when it takes any (``**kwargs``).  A catch-all named
    ``_`` (``**_``) declares that extra keywords are ignored: it accepts none of them."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: nothing to check against
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD and p.name != "_" for p in parameters):
        return None
    return [p.name for p in parameters if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                      inspect.Parameter.KEYWORD_ONLY) and p.name != "self"]


def check_keywords(function: Callable[..., Any], given: Mapping[str, Any], what: str,
                   skip: tuple[str, ...] = ()) -> None:
    """Raise :class:`InputError` naming every key of ``given`` that ``function`` does not accept (and listing the
    ones it does, ``skip`` left out); nothing when ``function`` takes ``**kwargs``."""
    accepted = keyword_names(function)
    if accepted is None:
        return
    unknown = [key for key in given if key not in accepted]
    if unknown:
        offered = [name for name in accepted if name not in skip]
        listed = ", ".join(offered) if offered else "none"
        raise InputError(f"{what} got unknown argument(s) {', '.join(repr(k) for k in unknown)}; it takes: {listed}")


def check_types(function: Callable[..., Any], given: Mapping[str, Any], what: str) -> None:
    """Raise :class:`InputError` for the first JSON value of ``given`` that breaks its parameter's annotation
    (``<what> argument max_steps: expected an integer, got 'ten'``).  Parameters without a usable annotation are
    not checked."""
    adapters = _adapters(function)
    for name, value in given.items():
        adapter = adapters.get(name)
        if adapter is None:
            continue
        try:
            text = json.dumps(value, allow_nan=False)
        except (TypeError, ValueError):  # not a JSON value: a Python object the function checks itself
            continue
        try:
            adapter.validate_json(text, strict=True)
        except ValidationError as exc:
            raise InputError(describe_validation(exc, f"{what} argument {name}")) from None


@functools.lru_cache(maxsize=64)
def _adapters(function: Callable[..., Any]) -> dict[str, TypeAdapter[Any]]:
    """A pydantic adapter per annotated parameter of ``function`` (those pydantic cannot read are left out)."""
    try:
        hints = typing.get_type_hints(function)
    except (NameError, TypeError, AttributeError) as exc:  # an annotation that names what only type checkers see
        logger.debug("no argument types checked for %s: %s", function, exc)
        return {}
    config = ConfigDict(arbitrary_types_allowed=True)
    adapters: dict[str, TypeAdapter[Any]] = {}
    for name, hint in hints.items():
        if name == "return" or hint is Any:
            continue
        try:
            adapters[name] = TypeAdapter(hint, config=config)
        except PydanticUserError as exc:  # a type pydantic has no schema for
            logger.debug("argument %s of %s not type-checked: %s", name, function, exc)
    return adapters
