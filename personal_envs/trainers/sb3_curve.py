"""Training with a learning curve and a wall-clock budget, shared by the SB3 examples (``examples/train_*.py``)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from personal_envs.core.recorder import write_json_atomic


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


def write_outputs(log_dir: Path, table: str, results: Any) -> None:
    """``table.md`` (the final table) and ``results.json`` (curve and tables) in ``log_dir``, each written
    atomically: a run stopped mid-write leaves the previous file whole."""
    write_json_atomic(log_dir / "results.json", results, indent=1)
    partial = log_dir / ".table.md.tmp"
    partial.write_text(table + "\n", encoding="utf-8")
    os.replace(partial, log_dir / "table.md")
