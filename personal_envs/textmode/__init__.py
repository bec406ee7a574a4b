"""The browserless text mode: pages parsed, styled, laid out and read as BrowserGym's AX text in this process.

``COMPILED`` is True when the hot modules run as the mypyc build of ``scripts/build_native.py`` (see
:mod:`personal_envs.textmode.native`).
"""

from pathlib import Path

from personal_envs.textmode.native import choose_build

#: True when :data:`~personal_envs.textmode.native.COMPILED_MODULES` run compiled (a fresh
#: ``scripts/build_native.py`` build).
COMPILED: bool = choose_build(Path(__file__).resolve().parent)
