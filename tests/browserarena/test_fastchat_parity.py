"""Our leaderboard and Figure 2 against FastChat's own analysis code, run side by side on the same battles and seed.

FastChat (lm-sys/FastChat ``fastchat/serve/monitor/rating_systems.py`` and ``elo_analysis.py``) is re-derived here,
in the test only, step by step (numpy + scipy, without pandas: ``pd.factorize`` is first-appearance order and
``DataFrame.quantile`` is linear interpolation, as ``np.percentile``); the package's code is its own.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit

from personal_envs.browserarena.arena.figures import average_win_rate, figure2_data, pairwise_win_fraction
from personal_envs.browserarena.arena.leaderboard import Battle, compute_leaderboard


# ----------------------------------------------------------------------------- FastChat, re-derived for the test
def fc_preprocess_for_bt(battles: list[Battle]) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray]:
    models: list[str] = []
    for name in [b.model_a for b in battles] + [b.model_b for b in battles]:  # pd.factorize(concat(a, b))
        if name not in models:
            models.append(name)
    schedule = np.full((len(battles), 3), fill_value=1, dtype=np.int32)
    schedule[:, 0] = [models.index(b.model_a) for b in battles]
    schedule[:, 1] = [models.index(b.model_b) for b in battles]
    schedule[[b.winner == "model_a" for b in battles], 2] = 2
    schedule[[b.winner == "model_b" for b in battles], 2] = 0
    matchups_outcomes, weights = np.unique(schedule, return_counts=True, axis=0)
    return matchups_outcomes[:, [0, 1]], matchups_outcomes[:, 2].astype(np.float64) / 2.0, models, \
        weights.astype(np.float64)


def fc_bt_loss_and_grad(ratings: np.ndarray, matchups: np.ndarray, outcomes: np.ndarray, weights: np.ndarray,
                        alpha: float = 1.0) -> tuple[float, np.ndarray]:
    matchup_ratings = ratings[matchups]
    logits = alpha * (matchup_ratings[:, 0] - matchup_ratings[:, 1])
    probs = expit(logits)
    loss = -((np.log(probs) * outcomes + np.log(1.0 - probs) * (1.0 - outcomes)) * weights).sum()
    matchups_grads = -alpha * (outcomes - probs) * weights
    model_grad = np.zeros_like(ratings)
    np.add.at(model_grad, matchups[:, [0, 1]], matchups_grads[:, None] * np.array([1.0, -1.0], dtype=np.float64))
    return float(loss), model_grad


def fc_fit_bt(matchups: np.ndarray, outcomes: np.ndarray, weights: np.ndarray, n_models: int, alpha: float,
              tol: float = 1e-6) -> np.ndarray:
    result = minimize(fun=fc_bt_loss_and_grad, x0=np.zeros(n_models), args=(matchups, outcomes, weights, alpha),
                      jac=True, method="L-BFGS-B", options={"maxiter": 100, "gtol": tol})
    return np.asarray(result["x"])


def fc_compute_bt(battles: list[Battle]) -> dict[str, float]:
    matchups, outcomes, models, weights = fc_preprocess_for_bt(battles)
    ratings = fc_fit_bt(matchups, outcomes, weights, len(models), math.log(10.0))
    return dict(zip(models, ratings * 400 + 1000, strict=True))


def fc_compute_bootstrap_bt(battles: list[Battle], num_round: int, seed: int = 0) -> tuple[list[str], np.ndarray]:
    matchups, outcomes, models, weights = fc_preprocess_for_bt(battles)
    rng = np.random.default_rng(seed=seed)
    idxs = rng.multinomial(n=len(battles), pvals=weights / weights.sum(), size=num_round)
    boot_weights = idxs.astype(np.float64) / len(battles)
    results = [fc_fit_bt(matchups, outcomes, w, len(models), np.log(10.0)) for w in boot_weights]
    return models, np.array(results) * 400 + 1000


def fc_pairwise_win_fraction(battles: list[Battle], order: list[str]) -> np.ndarray:
    """compute_pairwise_win_fraction on battles_no_ties: (A wins as A + wins as B) / (battles as A + as B)."""
    no_ties = [b for b in battles if "tie" not in b.winner]
    index = {m: i for i, m in enumerate(order)}
    a_win = np.zeros((len(order), len(order)))
    b_win = np.zeros_like(a_win)
    num = np.zeros_like(a_win)
    for b in no_ties:
        i, j = index[b.model_a], index[b.model_b]
        num[i, j] += 1
        if b.winner == "model_a":
            a_win[i, j] += 1
        else:
            b_win[i, j] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        return (a_win + b_win.T) / (num + num.T)


# ----------------------------------------------------------------------------------------------- battles
def battles_of(seed: int, n: int) -> list[Battle]:
    rng = random.Random(seed)
    strength = {"gpt-4o": 1.2, "claude-3.5": 1.0, "gemini-2.0": 0.6, "deepseek-r1": 0.2, "llama-3.3": 0.0}
    models = list(strength)
    out = []
    for _ in range(n):
        a, b = rng.sample(models, 2)
        p = 1 / (1 + math.exp(strength[b] - strength[a]))
        r = rng.random()
        winner = "tie" if r < 0.15 else "tie (bothbad)" if r < 0.2 else "model_a" if rng.random() < p else "model_b"
        out.append(Battle(a, b, winner))
    return out


@pytest.mark.parametrize(("seed", "n", "boot_seed"), [(1, 300, 0), (7, 800, 42)])
def test_ratings_and_intervals_equal_fastchat(seed: int, n: int, boot_seed: int) -> None:
    battles = battles_of(seed, n)
    ours = compute_leaderboard(battles, rounds=100, seed=boot_seed)
    theirs = fc_compute_bt(battles)
    models, samples = fc_compute_bootstrap_bt(battles, 100, seed=boot_seed)
    gaps = []
    for j, model in enumerate(models):
        assert ours.ratings[model] == pytest.approx(theirs[model], abs=0.01)
        lower, upper = np.percentile(samples[:, j], 2.5), np.percentile(samples[:, j], 97.5)
        gaps += [abs(ours.lower[model] - lower), abs(ours.upper[model] - upper)]
    print(f"largest interval difference from FastChat: {max(gaps):.5f} Elo")
    assert max(gaps) < 0.05


def test_a_different_bootstrap_stream_would_be_caught() -> None:
    battles = battles_of(3, 300)
    models, samples = fc_compute_bootstrap_bt(battles, 100, seed=0)
    other = compute_leaderboard(battles, rounds=100, seed=1)
    gaps = [abs(other.lower[m] - np.percentile(samples[:, j], 2.5)) for j, m in enumerate(models)]
    assert max(gaps) > 0.5  # the test above is sensitive to the resampling stream


def test_figure2_panels_equal_fastchat() -> None:
    battles = battles_of(5, 500)
    data = figure2_data(battles, rounds=20)
    order = data.models
    theirs = fc_pairwise_win_fraction(battles, order)
    np.testing.assert_allclose(data.win_fraction, theirs, equal_nan=True)
    ties = [b for b in battles if "tie" in b.winner]
    assert ties and data.counts.sum() == 2 * (len(battles) - len(ties))  # ties excluded from the heatmaps
    fc_average = {m: float(np.nanmean(theirs[i])) for i, m in enumerate(order)}
    ours = average_win_rate(battles)
    assert list(ours) == sorted(fc_average, key=lambda m: -fc_average[m])
    for model, rate in ours.items():
        assert rate == pytest.approx(fc_average[model])
    with_ties = pairwise_win_fraction([Battle("x", "y", "tie"), Battle("x", "y", "model_a")], ["x", "y"])
    assert with_ties[0, 1] == 1.0  # the tie is not half a win in the heatmap
