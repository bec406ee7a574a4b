"""WebMall env ids: ``WebMall-v0`` (``task_set`` = basic / advanced / all, ``task_id``) and the two split aliases.

Shaping (:class:`~personal_envs.wrappers.shaping.SignalShaping`) pays 0.1 for each answer page first visited and
0.1 for each answer first carted (the task's signals ``answer_pages_visited`` and ``answers_carted``).
"""

from personal_envs.core.registration import EnvEntry

_ENTRY = "personal_envs.webmall.env:WebMallEnv"
_REPORT = "personal_envs.webmall.report:report"
_SIGNALS = {"answer_pages_visited": 0.1, "answers_carted": 0.1}
_AUDIT = "personal_envs.webmall.audit:audit_spec"
_POLICIES = {
    "oracle": "personal_envs.webmall.oracle:make_oracle",
    "random": "personal_envs.policies.base:RandomPolicy",
}

ENVS: list[EnvEntry] = [
    EnvEntry("WebMall-v0", _ENTRY, {"task_set": "all"}, report=_REPORT, policies=_POLICIES, nondeterministic=True,
             signal_weights=_SIGNALS, audit=_AUDIT),
    EnvEntry("WebMall-Basic-v0", _ENTRY, {"task_set": "basic"}, report=_REPORT, policies=_POLICIES,
             nondeterministic=True, signal_weights=_SIGNALS, audit=_AUDIT),
    EnvEntry("WebMall-Advanced-v0", _ENTRY, {"task_set": "advanced"}, report=_REPORT, policies=_POLICIES,
             nondeterministic=True, signal_weights=_SIGNALS, audit=_AUDIT),
]
