"""Registers the builders of the 26 official preference classes with the official registry.

Env options used: ``judge`` (``None`` / ``"fallback"``: the official judge protocol without an endpoint, scored by
the labelled deterministic fallback; ``"llm"``: the official protocol on the endpoint of ``$OPENAI_BASE_URL``;
``"llm:official-0.5"``: the same with the official 0.5 on a failed call (labelled); a
:class:`~personal_envs.llm.client.ChatClient` or an
:class:`~personal_envs.knowu.official.preference.judge.OfficialPreferenceJudge`), and ``memory``, ``top_k`` for the
agent's log memory.
"""

from __future__ import annotations

from typing import Any

from personal_envs.knowu.official.preference.judge import JudgeProtocol, OfficialPreferenceJudge
from personal_envs.knowu.official.preference.rubric_fallback import BUILDERS
from personal_envs.knowu.official.preference.variants import build_variant
from personal_envs.knowu.official.registry import BuildContext, official_task
from personal_envs.knowu.official.texts import PREFERENCE_JUDGE
from personal_envs.knowu.task import PhoneTask
from personal_envs.llm.client import ChatClient


def make_judge(option: Any, protocol: JudgeProtocol) -> OfficialPreferenceJudge:
    """The judge an env option asks for (see the module docstring)."""
    if isinstance(option, OfficialPreferenceJudge):
        return option
    if isinstance(option, ChatClient):
        return OfficialPreferenceJudge(protocol, option)
    if option is None or option == "fallback":
        return OfficialPreferenceJudge(protocol)
    if option == "llm":
        return OfficialPreferenceJudge(protocol, ChatClient())
    if option == "llm:official-0.5":
        return OfficialPreferenceJudge(protocol, ChatClient(), on_error="official-0.5")
    raise ValueError(f"judge must be 'fallback', 'llm', 'llm:official-0.5', a ChatClient or an "
                     f"OfficialPreferenceJudge for official preference tasks, got {option!r}")


@official_task(*BUILDERS)
def build_preference(ctx: BuildContext) -> PhoneTask:
    """One official preference variant (``ctx.cls.name`` for ``ctx.role`` and its profile and logs)."""
    options = ctx.options
    judge = make_judge(options.get("judge"), ctx.source.text(ctx.cls.name, PREFERENCE_JUDGE, {}))
    assert ctx.role is not None and ctx.profile is not None
    return build_variant(ctx.source, ctx.cls.name, ctx.role, ctx.profile, ctx.logs, judge=judge,
                         memory=str(options.get("memory") or "all"), top_k=int(options.get("top_k") or 10),
                         personas=ctx.personas)
