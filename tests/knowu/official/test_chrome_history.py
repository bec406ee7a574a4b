"""Chrome's history keeps "www." as the official check reads it: ways of opening the two paper sites through the
UI (typed with and without "www.", through the search page, the new-tab shortcuts) are scored by the project and by
the official ``MorningPaperReadingGeneralTask.is_successful`` (run here, its history query answered with the
simulator's visits as Chrome's ``urls`` table holds them: distinct URLs, newest first, ten at most)."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.oracle import Fill, Step, Tap, enter, finish, open_app
from tests.knowu.helpers import run_oracle
from tests.knowu.official_runtime import Anything, official_runtime

NAME = "MorningPaperReadingGeneralTask"
MODULE = "knowu_bench.tasks.definitions.general.morning_paper_reading_general"


def chrome_urls_table(visits: list[str]) -> list[str]:
    """``SELECT url FROM urls ORDER BY last_visit_time DESC LIMIT 10`` over these visits."""
    newest: list[str] = []
    for url in reversed(visits):
        if url not in newest:
            newest.append(url)
    return newest[:10]


def official_score(official_dir: Path, visits: list[str]) -> float:
    with official_runtime(official_dir) as runtime:
        task = getattr(runtime.load(MODULE), NAME)()
        task.initialized = True
        task._get_visited_urls = lambda: chrome_urls_table(visits)
        result = task.is_successful(Anything())
    return float(result[0] if isinstance(result, tuple) else result)


def typed(*urls: str) -> list[Step]:
    steps: list[Step] = [open_app("Chrome")]
    for i, url in enumerate(urls):
        steps += ([Tap(rid="url_clear")] if i else []) + [Fill("url_bar", url), enter()]
    return [*steps, finish()]


PATHS: dict[str, list[Step]] = {
    "typed as given": typed("https://www.alphaxiv.org", "https://huggingface.co/papers"),
    "typed without www": typed("alphaxiv.org", "huggingface.co/papers"),
    "typed without scheme": typed("www.alphaxiv.org", "huggingface.co/papers/"),
    "searched, then the result": [open_app("Chrome"), Fill("url_bar", "alphaxiv"), enter(),
                                  Tap(rid="link", contains="alphaXiv"), Tap(rid="url_clear"),
                                  Fill("url_bar", "https://huggingface.co/papers"), enter(), finish()],
    "only one site": typed("https://www.alphaxiv.org"),
}


@pytest.fixture(scope="module")
def env(official_dir: Path) -> Any:
    with closing(KnowUEnv(family="general", task=NAME, data_dir=str(official_dir), render="text")) as environment:
        yield environment


@pytest.mark.parametrize("path", list(PATHS))
def test_the_paper_sites_score_as_the_official_check_scores_them(env: KnowUEnv, official_dir: Path,
                                                                 path: str) -> None:
    info = run_oracle(env, NAME, PATHS[path])
    ours = float(info["metrics"]["score"])
    assert ours == official_score(official_dir, env.phone.chrome.visits), (path, env.phone.chrome.visits)
    assert ours == {"typed as given": 1.0, "typed without www": 0.0, "typed without scheme": 1.0,
                    "searched, then the result": 1.0, "only one site": 0.0}[path]
