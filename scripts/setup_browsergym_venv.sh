#!/usr/bin/env bash
# Creates the virtualenv the BrowserGym side-by-side check uses (benchmarks/browsergym_parity.py and
# tests/webmall/test_browsergym_parity.py): BrowserGym 0.14's observation code (browsergym-core, which pins an older
# Playwright) kept apart from the project's own Playwright.  No browser is downloaded: the check points BrowserGym's
# Playwright at Debian's Chromium (/usr/bin/chromium-headless-shell or /usr/bin/chromium).
#   bash scripts/setup_browsergym_venv.sh [VENV_DIR]        default: /work/venvs/bgym (or $PERSONAL_ENVS_BGYM_VENV)
set -euo pipefail
VENV="${1:-${PERSONAL_ENVS_BGYM_VENV:-/work/venvs/bgym}}"
PYTHON="${PYTHON:-python3}"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check "browsergym-core>=0.14,<0.15"
"$VENV/bin/python" -c "import browsergym.core, playwright; from browsergym.utils.obs import flatten_axtree_to_str; \
print('browsergym-core', browsergym.core.__version__, 'in $VENV')"
