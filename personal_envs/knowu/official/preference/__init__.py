"""The official KnowU-Bench preference family (26 templates, 86 variants of KnowU-Personalized-v0).

* the texts (request, rubric, user context, judge prompt, persona) come from the task source
  (:mod:`personal_envs.knowu.official.texts`).
* :mod:`.judge`: the official preference-judge protocol (prompt, images, request, output parsing) for any
  OpenAI-compatible endpoint, with visible failures and a labelled deterministic fallback.
* :mod:`.scoring`: per official class, the rule base, lambda and the special combinations of ``is_successful``.
"""
