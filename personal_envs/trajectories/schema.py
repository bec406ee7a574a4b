"""Schemas of the trajectory files the viewer and the plots read (pydantic), for
:mod:`personal_envs.trajectories.store`.

* ``trajectory.json`` (one episode): an object whose ``steps`` is a list of objects, with, when present, an
  ``initial_observation``, a ``result`` and an ``evaluation`` that are objects (the episode page reads them);
* ``summary.json`` (one episode, for the episode list): counts that are non-negative integers, a score that is a
  number;
* ``size.json`` (one run's trajectories folder): episodes, images and bytes as non-negative numbers;
* ``curve.csv`` rows (``examples/train_ppo.py --log-dir``): ``timesteps`` and ``mean_reward`` numbers, and
  ``random_reward`` when present.

Other keys are free (the recorder adds timings, tokens, recording errors...).
"""

from __future__ import annotations

from typing import Annotated, Any, NotRequired, Required

from pydantic import Field, StrictFloat, StrictInt
from typing_extensions import TypedDict

Count = Annotated[StrictInt, Field(ge=0)]
Amount = Annotated[StrictFloat, Field(ge=0)]


class TrajectoryFile(TypedDict, total=False):
    """``trajectory.json``."""

    steps: Required[list[dict[str, Any]]]
    initial_observation: dict[str, Any]
    result: dict[str, Any]
    evaluation: dict[str, Any]


class SummaryFile(TypedDict, total=False):
    """``summary.json``."""

    steps: Count
    action_errors: Count
    user_turns: Count
    score: StrictFloat | None
    images: Count
    image_bytes: Count


class SizeFile(TypedDict, total=False):
    """``size.json``."""

    episodes: Count
    images: Count
    bytes: Amount
    json_bytes: Amount
    bytes_per_episode: Amount


class CurveRow(TypedDict):
    """A row of a learning-curve CSV (cells are text; numbers are read from it)."""

    timesteps: float
    mean_reward: float
    random_reward: NotRequired[float]
