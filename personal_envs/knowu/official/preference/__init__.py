"""The official KnowU-Bench preference family (26 templates, 86 variants of KnowU-Personalized-v0).

* :mod:`.fstrings`: official prompt and rubric texts read from the release with :mod:`ast` and their f-string slots
  filled with values the project computes (the official code is never imported or executed).
* :mod:`.persona`: the persona text as the official prompt builder builds it from a profile.
* :mod:`.judge`: the official preference-judge protocol (prompt, images, request, output parsing) for any
  OpenAI-compatible endpoint, with visible failures and a labelled deterministic fallback.
* :mod:`.scoring`: per official class, the rule base, lambda and the special combinations of ``is_successful``.
"""
