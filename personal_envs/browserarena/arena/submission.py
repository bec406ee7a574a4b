"""What a submitted task may be: which env runs it, how long its text may be, which start URL it may carry.

Only an env whose tasks are the user's own (``BrowserArena-Open-v0``: its registration's ``tasks="open"``) runs a
submitted text; the failure-mode envs run their own generated tasks, so a submission for them is refused instead of
being silently replaced by one of their tasks.  A text longer than the env's limit is refused (never cut), and the
start URL must pass :func:`~personal_envs.browser.start_url.check_start_url`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from personal_envs.browser.start_url import StartUrlError, check_start_url
from personal_envs.browserarena.tasks import MAX_TASK_CHARS

#: The env a submission runs on when none is named.
DEFAULT_ENV = "BrowserArena-Open-v0"


class SubmissionError(ValueError):
    """A submission that cannot run; the message says why."""


@dataclass(frozen=True)
class Submission:
    """A checked submission."""

    text: str
    env_id: str
    start_url: str


def runs_submitted_tasks(env_id: str) -> bool:
    """True if ``env_id`` is registered and runs task texts given at reset (its task list is ``"open"``)."""
    import gymnasium as gym

    import personal_envs  # noqa: F401  (registers the env ids)

    try:
        spec = gym.spec(env_id)
    except gym.error.Error:
        return False
    return spec.kwargs.get("tasks") == "open"


def check_env(env_id: str) -> None:
    """Raise :class:`SubmissionError` unless ``env_id`` runs submitted tasks."""
    if runs_submitted_tasks(env_id):
        return
    import gymnasium as gym

    if env_id not in gym.registry:
        raise SubmissionError(f"unknown env id {env_id!r}; submitted tasks run on {DEFAULT_ENV}")
    raise SubmissionError(f"{env_id} runs its own tasks, not submitted ones; submit to {DEFAULT_ENV}, or run "
                          f"`personal-envs arena battle --env {env_id} --battles N` for battles on its tasks")


def check_submission(text: str, *, env_id: str = DEFAULT_ENV, start_url: str = "",
                     allowed_origins: Sequence[str] | None = None, probe: bool = True) -> Submission:
    """The submission to store, or :class:`SubmissionError` saying what is wrong.

    Args:
        text: The task text.
        env_id: The env to run it on.
        start_url: Optional start URL (see :func:`~personal_envs.browser.start_url.check_start_url`).
        allowed_origins: The env's allowed origins (``None``: the open web).
        probe: Check that the start URL's server can be reached.
    """
    body = text.strip()
    if not body:
        raise SubmissionError("a task needs a text")
    if len(body) > MAX_TASK_CHARS:
        raise SubmissionError(f"the task is {len(body):,} characters long; at most {MAX_TASK_CHARS:,} are accepted "
                              "(it is not cut: shorten it)")
    check_env(env_id)
    try:
        url = check_start_url(start_url, allowed_origins=allowed_origins, probe=probe)
    except StartUrlError as exc:
        raise SubmissionError(str(exc)) from None
    return Submission(body, env_id, url)
