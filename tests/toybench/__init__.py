"""A toy benchmark built only from the public contract (core Task, PersonalEnv, EnvEntry), registered from outside
the package tree.  CONTRIBUTING.md walks through it; tests/core/test_plugin_benchmark.py checks that it gets the
eval CLI, the RL wrappers and the shaping wrapper without any edit to ``personal_envs``."""
