"""Training with a learning curve and a wall-clock budget, shared by the SB3 examples (``examples/train_*.py``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def learn_with_curve(model: Any, timesteps: int, *, point: Callable[[], None], eval_every: int, deadline: float,
                     tb_log_name: str) -> None:
    """``model.learn(timesteps)``, calling ``point()`` (one point of the curve: an evaluation on the test split)
    before training, every ``eval_every`` steps and after the last step; training stops at ``deadline``
    (a ``time.perf_counter()`` value)."""
    from stable_baselines3.common.callbacks import BaseCallback

    measured_at: list[int] = []

    def measure() -> None:
        point()
        measured_at.append(model.num_timesteps)

    class Curve(BaseCallback):
        def _on_step(self) -> bool:
            if self.num_timesteps % eval_every == 0:
                measure()
            return time.perf_counter() < deadline

    measure()
    model.learn(timesteps, callback=Curve(), tb_log_name=tb_log_name)
    if measured_at[-1] != model.num_timesteps:
        measure()
