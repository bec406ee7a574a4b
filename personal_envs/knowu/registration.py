"""KnowU-Bench ids.

* ``KnowU-General-v0``: the 42 general classes.
* ``KnowU-Personalized-v0``: 86 preference variants (26 classes x their supported personas).
* ``KnowU-Proactive-v0``: 64 routine variants (16 classes x 4 personas).

With an official release they are the official variants on the official roles; without one, the same classes on
the package's embedded cards and default personas (:mod:`personal_envs.knowu.official.resolve`).
All three run :class:`personal_envs.knowu.env.KnowUEnv` on the embedded phone and report the paper's tables by the
official script's rules (:func:`personal_envs.knowu.official.paper_metrics.report_records`); the personalized and
proactive ids offer the reference policies of :mod:`personal_envs.knowu.baselines`.  The proactive id's shaping
defaults penalise acting (any action outside :data:`~personal_envs.knowu.actions.PASSIVE_ACTIONS`) when the user has
no such routine (-0.2 per step) and after the user rejected a proposal (-0.5 per step); the signals are those of
:meth:`personal_envs.knowu.task.PhoneTask.signals`.
"""

from __future__ import annotations

from personal_envs.core.registration import EnvEntry

#: Reference policies of the personalized and proactive ids.
PERSONAL_POLICIES: dict[str, str] = {
    "oracle": "personal_envs.knowu.oracle:make_oracle",
    "always_act": "personal_envs.knowu.baselines:make_always_act",
    "always_silent": "personal_envs.knowu.baselines:make_always_silent",
    "always_ask": "personal_envs.knowu.baselines:make_always_ask",
}

#: The report of the three ids: one summariser, the official metrics script's rules.
REPORT = "personal_envs.knowu.official.paper_metrics:report_records"

#: The shortcut audit's spec of the three ids.
AUDIT = "personal_envs.knowu.audit:audit_spec"


def _entry(env_id: str, family: str, policies: dict[str, str], signals: dict[str, float] | None = None) -> EnvEntry:
    return EnvEntry(env_id=env_id, entry_point="personal_envs.knowu.env:make_knowu_env", kwargs={"family": family},
                    report=REPORT, policies=policies, nondeterministic=True, audit=AUDIT, signal_weights=signals or {})


ENVS: list[EnvEntry] = [
    _entry("KnowU-General-v0", "general", {"oracle": "personal_envs.knowu.oracle:make_oracle"}),
    _entry("KnowU-Personalized-v0", "personalized", dict(PERSONAL_POLICIES)),
    _entry("KnowU-Proactive-v0", "proactive", dict(PERSONAL_POLICIES),
           {"acts_without_routine": -0.2, "acts_after_rejection": -0.5}),
]
