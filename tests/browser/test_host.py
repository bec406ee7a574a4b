"""Which Chromium the host launches."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from personal_envs.browser import host as host_module
from personal_envs.browser.host import DEFAULT_CHROMIUM, BrowserHost, default_executable


def test_configured_binary_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PERSONAL_ENVS_CHROMIUM", "/opt/my-chromium")
    assert default_executable() == "/opt/my-chromium"
    assert BrowserHost().executable_path == "/opt/my-chromium"


def test_headless_shell_is_preferred_for_headless_runs_only(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PERSONAL_ENVS_CHROMIUM", raising=False)
    shell = tmp_path / "chromium-headless-shell"
    shell.write_text("#!/bin/sh\n")
    monkeypatch.setattr(host_module, "DEFAULT_HEADLESS_SHELL", str(shell))
    assert default_executable(headless=True) == str(shell)
    assert default_executable(headless=False) == DEFAULT_CHROMIUM, "the shell cannot open a window"
    assert BrowserHost(headless=False).executable_path == DEFAULT_CHROMIUM
    shell.unlink()
    assert default_executable() == DEFAULT_CHROMIUM, "without the shell, Debian's full Chromium"


def test_the_binary_this_machine_uses_exists() -> None:
    assert os.path.exists(default_executable()), "scripts/setup.sh installs Debian's chromium packages"
