#!/usr/bin/env bash
# Installs browser-use 0.1.40 (the paper's agent, --policy browser-use) in its own virtualenv.
# browser-use pins langchain and packaging<26, which the project's environment must not get (virtualenv and Ray need
# packaging>=26), so it never goes into the project's Python.  About a minute on 2 cores.
#   bash scripts/setup_browser_use.sh              -> ~/.cache/personal-envs/browser-use-0.1.40
#   BROWSER_USE_VENV=/some/dir bash scripts/setup_browser_use.sh   (then export PERSONAL_ENVS_BROWSER_USE_PYTHON=/some/dir/bin/python)
set -euo pipefail
PYTHON="${PYTHON:-python3}"
VENV="${BROWSER_USE_VENV:-$HOME/.cache/personal-envs/browser-use-0.1.40}"
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
if [ "$("$VENV/bin/python" -c "import importlib.metadata as m; print(m.version('browser-use'))" 2>/dev/null)" != "0.1.40" ]; then
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check "browser-use==0.1.40"
fi
ANONYMIZED_TELEMETRY=false "$VENV/bin/python" -c "import importlib.metadata as m, browser_use; print('browser-use', m.version('browser-use'), 'is installed in $VENV')"
