"""The paper's Figure 2, computed and drawn as FastChat's ``elo_analysis.py`` does (drawn with Pillow).

* (a) fraction of model A wins for every non-tied A vs B battle (row beats column), models in rating order;
* (b) battle count of every model pair, non-tied battles only;
* (c) bootstrap ratings: the MLE rating of each model with the 2.5 / 97.5 percentiles of the bootstrap ratings
  (FastChat's stream, :func:`~personal_envs.browserarena.arena.leaderboard.bootstrap_ratings`);
* (d) average win rate against all other models (the mean of the row of (a) over the models it met), non-tied
  battles only, sorted.

FastChat leaves ties out of (a), (b) and (d) (``battles_no_ties``) and keeps them, as half a win, in the ratings.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from personal_envs.browserarena.arena.leaderboard import Battle, Leaderboard, compute_leaderboard


def without_ties(battles: Sequence[Battle]) -> list[Battle]:
    """The battles with a winner (FastChat's ``battles_no_ties``)."""
    return [b for b in battles if b.winner in ("model_a", "model_b")]


def pairwise_win_fraction(battles: Sequence[Battle], models: Sequence[str]) -> np.ndarray:
    """``[i, j]``: share of non-tied battles between i and j that i won (nan where they never met or i == j)."""
    index = {m: i for i, m in enumerate(models)}
    wins = np.zeros((len(models), len(models)))
    games = np.zeros_like(wins)
    for battle in without_ties(battles):
        if battle.model_a not in index or battle.model_b not in index:
            continue
        a, b = index[battle.model_a], index[battle.model_b]
        games[a, b] += 1
        games[b, a] += 1
        if battle.winner == "model_a":
            wins[a, b] += 1
        else:
            wins[b, a] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(games > 0, wins / np.where(games > 0, games, 1), np.nan)


def battle_counts(battles: Sequence[Battle], models: Sequence[str]) -> np.ndarray:
    """``[i, j]``: number of non-tied battles between i and j."""
    index = {m: i for i, m in enumerate(models)}
    counts = np.zeros((len(models), len(models)), dtype=int)
    for battle in without_ties(battles):
        if battle.model_a in index and battle.model_b in index:
            counts[index[battle.model_a], index[battle.model_b]] += 1
            counts[index[battle.model_b], index[battle.model_a]] += 1
    return counts


def average_win_rate(battles: Sequence[Battle]) -> dict[str, float]:
    """Each model's mean win fraction over the opponents it met without a tie, best first."""
    models = sorted({b.model_a for b in battles} | {b.model_b for b in battles})
    fraction = pairwise_win_fraction(battles, models)
    rates = {}
    for i, model in enumerate(models):
        row = fraction[i][~np.isnan(fraction[i])]
        if row.size:
            rates[model] = float(row.mean())
    return dict(sorted(rates.items(), key=lambda item: -item[1]))


@dataclass
class Figure2:
    """The data of Figure 2 (a)-(d)."""

    models: list[str]  # in rating order, best first
    win_fraction: np.ndarray
    counts: np.ndarray
    board: Leaderboard
    average_win_rate: dict[str, float]


def figure2_data(battles: Sequence[Battle], *, rounds: int = 100, seed: int = 0) -> Figure2:
    """Compute Figure 2 from the battles (ratings with ties as half wins; the panels without ties)."""
    board = compute_leaderboard(battles, rounds=rounds, seed=seed)
    models = [row[1] for row in board.rows()]
    return Figure2(models, pairwise_win_fraction(battles, models), battle_counts(battles, models), board,
                   average_win_rate(battles))


# -------------------------------------------------------------------------------------------------- drawing
_FONT = ImageFont.load_default()


def _rdbu(value: float) -> tuple[int, int, int]:
    """Plotly's RdBu scale: 0 red, 0.5 white, 1 blue."""
    if math.isnan(value):
        return (235, 235, 235)
    low, mid, high = np.array([178, 24, 43]), np.array([247, 247, 247]), np.array([33, 102, 172])
    colour = low + (mid - low) * (value / 0.5) if value <= 0.5 else mid + (high - mid) * ((value - 0.5) / 0.5)
    return (int(colour[0]), int(colour[1]), int(colour[2]))


def _blues(value: float, top: float) -> tuple[int, int, int]:
    share = value / top if top else 0.0
    return (int(247 - 200 * share), int(251 - 150 * share), int(255 - 100 * share))


def _heatmap(matrix: np.ndarray, models: Sequence[str], title: str, path: Path, *, counts: bool) -> None:
    cell, left, top = 70, 170, 150
    size = len(models)
    image = Image.new("RGB", (left + cell * size + 20, top + cell * size + 40), "white")
    draw = ImageDraw.Draw(image)
    draw.text((10, 10), title, fill="black", font=_FONT)
    draw.text((left, 30), "Model B", fill="black", font=_FONT)
    draw.text((10, top - 20), "Model A", fill="black", font=_FONT)
    peak = float(np.nanmax(matrix)) if matrix.size and not np.all(np.isnan(matrix)) else 0.0
    for j, model in enumerate(models):
        draw.text((left + j * cell + 4, top - 40 - (j % 2) * 14), model[:11], fill="black", font=_FONT)
    for i, model in enumerate(models):
        draw.text((10, top + i * cell + cell // 2 - 6), model[:24], fill="black", font=_FONT)
        for j in range(size):
            value = float(matrix[i, j])
            colour = _blues(value, peak) if counts else _rdbu(value)
            box = (left + j * cell, top + i * cell, left + (j + 1) * cell - 1, top + (i + 1) * cell - 1)
            draw.rectangle(box, fill=colour)
            if not math.isnan(value):
                text = f"{int(value)}" if counts else f"{value:.2f}"
                draw.text((box[0] + cell // 2 - 12, box[1] + cell // 2 - 6), text, fill="black", font=_FONT)
    image.save(path, format="PNG")


def _bars(values: dict[str, float], title: str, path: Path, *, low: float = 0.0, high: float = 1.0,
          errors: dict[str, tuple[float, float]] | None = None) -> None:
    width, height, left, bottom, top = 120 * max(len(values), 1) + 100, 460, 70, 120, 40
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.text((10, 10), title, fill="black", font=_FONT)
    span = high - low or 1.0

    def y_of(value: float) -> float:
        return height - bottom - (value - low) / span * (height - bottom - top)

    draw.line([(left, y_of(low)), (width - 20, y_of(low))], fill="black")
    for k in range(6):
        value = low + k * span / 5
        draw.text((5, y_of(value) - 6), f"{value:.2f}" if high <= 1.0 else f"{value:.0f}", fill="black", font=_FONT)
    for n, (model, value) in enumerate(values.items()):
        x = left + 20 + n * 120
        if errors is None:
            draw.rectangle((x, y_of(value), x + 70, y_of(low)), fill=(99, 110, 250))
            draw.text((x + 20, y_of(value) - 14), f"{value:.2f}", fill="black", font=_FONT)
        else:
            lo, hi = errors[model]
            draw.line([(x + 35, y_of(lo)), (x + 35, y_of(hi))], fill=(99, 110, 250), width=2)
            for edge in (lo, hi):
                draw.line([(x + 28, y_of(edge)), (x + 42, y_of(edge))], fill=(99, 110, 250), width=2)
            draw.ellipse((x + 30, y_of(value) - 5, x + 40, y_of(value) + 5), fill=(99, 110, 250))
            draw.text((x + 45, y_of(value) - 6), f"{round(value)}", fill="black", font=_FONT)
        draw.text((x, height - bottom + 10), model[:18], fill="black", font=_FONT)
    image.save(path, format="PNG")


def draw_figure2(battles: Sequence[Battle], out_dir: str | Path, *, rounds: int = 100,
                 seed: int = 0) -> dict[str, Path]:
    """Write the four panels as PNGs into ``out_dir``; returns ``{panel: path}``."""
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    data = figure2_data(battles, rounds=rounds, seed=seed)
    paths = {"a": folder / "fig2a_win_fraction.png", "b": folder / "fig2b_battle_count.png",
             "c": folder / "fig2c_bootstrap_ratings.png", "d": folder / "fig2d_average_win_rate.png"}
    _heatmap(data.win_fraction, data.models, "(a) Fraction of model A wins for all non-tied A vs. B battles",
             paths["a"], counts=False)
    _heatmap(data.counts.astype(float), data.models, "(b) Battle count for each combination of models (no ties)",
             paths["b"], counts=True)
    board = data.board
    ratings = {m: board.ratings[m] for m in data.models}
    errors = {m: (board.lower[m], board.upper[m]) for m in data.models}
    low = min([lo for lo, _ in errors.values()] or [900.0]) - 20
    high = max([hi for _, hi in errors.values()] or [1100.0]) + 20
    _bars(ratings, f"(c) Bootstrap of ratings ({board.bootstrap_rounds} rounds, 95% CI)", paths["c"], low=low,
          high=high, errors=errors)
    _bars(data.average_win_rate, "(d) Average win rate against all other models (no ties)", paths["d"])
    return paths
