"""KnowU-Bench: a phone agent acting for a user it has to get to know.

The benchmark (ZJU-REAL/KnowU-Bench) has three task families on an Android phone: *general* tasks (42 classes:
do what is asked), *preference* tasks (26 classes over the personas they support: a vague request that the user's
profile, logs and replies make precise) and *routine* tasks (16 classes x every persona: decide from the logs
whether the user has the habit and act, ask, or stay silent).  Here the phone is simulated (``simulators/phone``,
rendered in Chromium or as text) or a real device, and :class:`~personal_envs.knowu.env.KnowUEnv` serves the ids
``KnowU-General-v0``, ``KnowU-Personalized-v0`` and ``KnowU-Proactive-v0``.

One task model: the official classes, scored by the official rules, built from a *task source* (the official release
read with ``ast``, or the package's embedded cards in ``data/tasks/``) and a *persona set* (the official roles, the
default personas in ``data/personas/default/``, generated personas, or any folder in the official layout).  Without
a release the ids run the embedded cards on the default personas; ``split="train"`` runs them on generated personas
(``personal-envs knowu generate``).  docs/knowu.md has the map of the modules.
"""
