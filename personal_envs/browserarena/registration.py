"""Gymnasium ids of BrowserArena: one env class on four task lists, with their report functions and scripted
policies."""

from personal_envs.core.registration import EnvEntry

_P = "personal_envs.browserarena.policies"
_R = "personal_envs.browserarena.reports"
_ENV = "personal_envs.browserarena.env:BrowserArenaEnv"
_A = "personal_envs.browserarena.audit:audit_spec"
_C = "personal_envs.browserarena.candidates:make_candidates"

ENVS: list[EnvEntry] = [
    EnvEntry(
        env_id="BrowserArena-Open-v0", entry_point=_ENV, kwargs={"tasks": "open"}, report=f"{_R}:open_report",
        policies={"open_reader": f"{_P}:make_open_reader"}, nondeterministic=True, audit=_A, candidates=_C,
    ),
    EnvEntry(
        env_id="BrowserArena-Captcha-v0", entry_point=_ENV, kwargs={"tasks": "captcha"}, report=f"{_R}:captcha_report",
        policies={"captcha_explorer": f"{_P}:make_captcha_explorer", "captcha_mobile": f"{_P}:make_captcha_mobile",
                  "captcha_stuck": f"{_P}:make_captcha_stuck"},
        nondeterministic=True, audit=_A, candidates=_C,
    ),
    EnvEntry(
        env_id="BrowserArena-PopupBanner-v0", entry_point=_ENV, kwargs={"tasks": "banner"},
        report=f"{_R}:banner_report",
        policies={"banner_closer": f"{_P}:make_banner_closer", "banner_ignorer": f"{_P}:make_banner_ignorer"},
        nondeterministic=True, audit=_A, candidates=_C,
    ),
    EnvEntry(
        env_id="BrowserArena-DirectNavigation-v0", entry_point=_ENV, kwargs={"tasks": "trivia"},
        report=f"{_R}:navigation_report",
        policies={"trivia_google_api": f"{_P}:make_trivia_google_api",
                  "trivia_google_site": f"{_P}:make_trivia_google_site",
                  "trivia_wiki": f"{_P}:make_trivia_wiki",
                  "trivia_direct_answer": f"{_P}:make_trivia_direct_answer"},
        nondeterministic=True, audit=_A, candidates=_C,
    ),
]

# The paper's agent (browser-use 0.1.40's own Agent, in its own virtualenv) on every BrowserArena task list.
for _entry in ENVS:
    _entry.policies["browser-use"] = "personal_envs.browserarena.browser_use_policy:make_browser_use_policy"
