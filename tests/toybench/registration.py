"""The toy benchmark's id: everything the suite needs to know about it, in one entry."""

from personal_envs.core.registration import EnvEntry

ENVS = [
    EnvEntry(
        env_id="ToyShelf-v0",
        entry_point="tests.toybench.env:ShelfEnv",
        report="tests.toybench.policies:report",
        policies={"hint_follower": "tests.toybench.policies:make_hint_follower"},
        candidates="tests.toybench.policies:make_candidates",
        signal_weights={"useful_hints": 0.5, "steps": -0.1},
    ),
]
