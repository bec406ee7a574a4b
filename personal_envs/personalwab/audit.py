"""The shortcut audit's view of the PersonalWAB ids (:func:`audit_spec`).

The agent ends with ``stop``; multi-turn agents talk to the user with ``respond`` (single-turn ends unscored on
it, so it has no user to ask); there is no no-op.  The honest baseline is the registered ``heuristic`` (function
from the instruction's words, arguments from the instruction and the visible history); no oracle is registered.
PersonalWAB's own degenerate policy searches with the instruction verbatim, then stops.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from personal_envs.audit.programs import Script
from personal_envs.audit.spec import AuditSpec

FINISH: dict[str, Any] = {"action_type": "stop"}


class SearchVerbatim(Script):
    """``search_product_by_query`` with the whole instruction as the query, then ``stop``."""

    def __init__(self) -> None:
        super().__init__("search_instruction_verbatim", (), FINISH)
        self._searched = False

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        super().reset(observation, info)
        self._searched = False

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        if self._searched:
            return super().act(observation, info)
        self._searched = True
        return self._log({"action_type": "search_product_by_query", "query": str(observation.get("instruction", ""))},
                         "search the instruction verbatim")


def make_search_verbatim(env: Any, seed: int = 0, **_: Any) -> SearchVerbatim:
    """Factory of the audit's ``search_instruction_verbatim``."""
    return SearchVerbatim()


def audit_spec(env_id: str, env_kwargs: Mapping[str, Any] | None = None) -> AuditSpec:
    """The spec of ``PersonalWAB-SingleTurn-v0`` or ``PersonalWAB-MultiTurn-v0``."""
    return AuditSpec(
        finish=FINISH, ask=("respond", "content") if env_id == "PersonalWAB-MultiTurn-v0" else None,
        baselines=("heuristic",), programs={"search_instruction_verbatim": make_search_verbatim},
    )
