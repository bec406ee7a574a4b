#!/usr/bin/env bash
# Creates the virtualenv the BrowserGym side-by-side check uses (benchmarks/browsergym_parity.py and
# tests/webmall/test_browsergym_parity.py): BrowserGym 0.14's observation code (browsergym-core, which pins an older
# Playwright) kept apart from the project's own Playwright.  No browser is downloaded: the check points BrowserGym's
# Playwright at Debian's Chromium (/usr/bin/chromium-headless-shell or /usr/bin/chromium).
#   bash scripts/setup_browsergym_venv.sh [VENV_DIR]
#   default: ~/.cache/personal-envs/browsergym-0.14 (or $PERSONAL_ENVS_BGYM_VENV); skipped when already installed.
set -euo pipefail
VENV="${1:-${PERSONAL_ENVS_BGYM_VENV:-$HOME/.cache/personal-envs/browsergym-0.14}}"
PYTHON="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c "import browsergym.core" 2>/dev/null; then
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check "browsergym-core>=0.14,<0.15"
fi
"$VENV/bin/python" -c "import browsergym.core, playwright; from browsergym.utils.obs import flatten_axtree_to_str; \
print('browsergym-core', browsergym.core.__version__, 'in $VENV')"
