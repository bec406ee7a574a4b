"""PersonalWAB env ids, with their report, baselines, RL action candidates and shaping signals."""

from personal_envs.core.registration import EnvEntry

_POLICIES = {"heuristic": "personal_envs.personalwab.policies:make_heuristic",
             "official-agent": "personal_envs.personalwab.agents:make_agent"}
_REPORT = "personal_envs.personalwab.scoring:report"
_CANDIDATES = "personal_envs.personalwab.candidates:make_candidates"
#: Each scored call pays its result accuracy when it is the task's function (the paper's per-call metric).
_SIGNALS = {"correct_call_accuracy": 1.0}
_AUDIT = "personal_envs.personalwab.audit:audit_spec"

ENVS: list[EnvEntry] = [
    EnvEntry("PersonalWAB-SingleTurn-v0", "personal_envs.personalwab.env:PersonalWABEnv", {"mode": "single"},
             report=_REPORT, policies=_POLICIES, candidates=_CANDIDATES, signal_weights=_SIGNALS,
             audit=_AUDIT),
    EnvEntry("PersonalWAB-MultiTurn-v0", "personal_envs.personalwab.env:PersonalWABEnv", {"mode": "multi"},
             report=_REPORT, policies=_POLICIES, candidates=_CANDIDATES, signal_weights=_SIGNALS,
             audit=_AUDIT),
]
