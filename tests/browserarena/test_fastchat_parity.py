"""Our leaderboard and Figure 2 against FastChat's own analysis code, run side by side on the same battles and seed.

FastChat (lm-sys/FastChat ``fastchat/serve/monitor/rating_systems.py`` and ``elo_analysis.py``) is re-derived here,
in the test only, step by step (numpy + scipy, without pandas: ``pd.factorize`` is first-appearance order,
``DataFrame.quantile`` is linear interpolation that skips NaN, as ``np.nanpercentile``, and ``sort_values`` on
distinct time stamps is any sort); the package's code is its own.  The default (regularised) leaderboard is compared
where the maximum-likelihood solution exists; ``method="fastchat"`` must equal FastChat everywhere: on 150 battles
whose resamples diverge, and on votes cast in another order than their battles were created.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit

from personal_envs.browserarena.arena.figures import average_win_rate, figure2_data, pairwise_win_fraction
from personal_envs.browserarena.arena.leaderboard import Battle, compute_leaderboard, select_battles

#: FastChat's loss takes log(0) on resamples that diverge; it warns, the package does not.
pytestmark = pytest.mark.filterwarnings("ignore:divide by zero encountered in log:RuntimeWarning")


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


def fc_scale_and_offset(ratings: np.ndarray, models: list[str]) -> np.ndarray:
    scaled = ratings * 400 + 1000
    if "mixtral-8x7b-instruct-v0.1" in models:
        scaled += 1114 - scaled[..., [models.index("mixtral-8x7b-instruct-v0.1")]]
    return scaled


def fc_compute_bt(battles: list[Battle]) -> dict[str, float]:
    matchups, outcomes, models, weights = fc_preprocess_for_bt(battles)
    ratings = fc_fit_bt(matchups, outcomes, weights, len(models), math.log(10.0))
    return dict(zip(models, fc_scale_and_offset(ratings, models), strict=True))


def fc_compute_bootstrap_bt(battles: list[Battle], num_round: int, seed: int = 0) -> tuple[list[str], np.ndarray]:
    matchups, outcomes, models, weights = fc_preprocess_for_bt(battles)
    rng = np.random.default_rng(seed=seed)
    idxs = rng.multinomial(n=len(battles), pvals=weights / weights.sum(), size=num_round)
    boot_weights = idxs.astype(np.float64) / len(battles)
    results = [fc_fit_bt(matchups, outcomes, w, len(models), np.log(10.0)) for w in boot_weights]
    return models, fc_scale_and_offset(np.array(results), models)


def fc_report(battles: list[Battle], num_round: int = 100) -> dict[str, tuple[float, float, float, int]]:
    """report_elo_analysis_results(rating_system="bt"): sort by tstamp, anonymous votes only, compute_bt and
    compute_bootstrap_bt (seed 0); per model (rating, q025, q975, rank)."""
    ordered = [b for b in sorted(battles, key=lambda b: b.tstamp) if b.anony]
    ratings = fc_compute_bt(ordered)
    models, samples = fc_compute_bootstrap_bt(ordered, num_round, seed=0)
    q025 = {m: float(np.nanpercentile(samples[:, j], 2.5)) for j, m in enumerate(models)}
    q975 = {m: float(np.nanpercentile(samples[:, j], 97.5)) for j, m in enumerate(models)}
    ranks = {m: 1 + sum(1 for o in models if o != m and q025[o] > q975[m]) for m in models}
    return {m: (ratings[m], q025[m], q975[m], ranks[m]) for m in models}


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
    for k in range(n):
        a, b = rng.sample(models, 2)
        p = 1 / (1 + math.exp(strength[b] - strength[a]))
        r = rng.random()
        winner = "tie" if r < 0.15 else "tie (bothbad)" if r < 0.2 else "model_a" if rng.random() < p else "model_b"
        out.append(Battle(a, b, winner, tstamp=1_700_000_000.0 + k))
    return out


#: Eight models, one far ahead, few ties: with 150 battles some bootstrap resamples have a model that never lost,
#: so no maximum-likelihood solution exists there.
SPARSE = {"gpt-4o": 3.0, "claude-3.5": 1.2, "gemini-2.0": 0.8, "deepseek-r1": 0.5, "qwen-2.5": 0.3,
          "llama-3.3": 0.0, "mistral": -0.3, "phi-4": -1.0}


def sparse_battles(seed: int, n: int = 150) -> list[Battle]:
    rng = random.Random(seed)
    models = list(SPARSE)
    out = []
    for k in range(n):
        a, b = rng.sample(models, 2)
        p = 1 / (1 + math.exp(SPARSE[b] - SPARSE[a]))
        winner = "tie" if rng.random() < 0.05 else "model_a" if rng.random() < p else "model_b"
        out.append(Battle(a, b, winner, tstamp=1_700_000_000.0 + k))
    return out


def votes_in_another_order(battles: list[Battle], seed: int) -> list[Battle]:
    """The same battles (in creation order) whose votes were cast in a shuffled order: later ``tstamp``s."""
    order = list(range(len(battles)))
    random.Random(seed).shuffle(order)
    return [replace(b, tstamp=1_800_000_000.0 + order[i] * 7.5) for i, b in enumerate(battles)]


def assert_equals_fastchat(battles: list[Battle], *, rounds: int = 100) -> tuple[float, float]:
    """``method="fastchat"`` against the re-derived report; returns the largest rating and interval gaps."""
    ours = compute_leaderboard(battles, rounds=rounds, method="fastchat")
    theirs = fc_report(battles, rounds)
    assert sorted(ours.models) == sorted(theirs) and not ours.regularised
    rating_gap = max(abs(ours.ratings[m] - theirs[m][0]) for m in theirs)
    interval_gap = max(max(abs(ours.lower[m] - theirs[m][1]), abs(ours.upper[m] - theirs[m][2])) for m in theirs)
    assert rating_gap < 1e-6 and interval_gap < 1e-6, (rating_gap, interval_gap)
    assert {m: ours.ranks[m] for m in theirs} == {m: theirs[m][3] for m in theirs}
    return rating_gap, interval_gap


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


# ------------------------------------------------------------------------------------------ the FastChat option
@pytest.mark.parametrize(("name", "battles"), [
    ("300 battles", battles_of(1, 300)),
    ("150 battles, diverging resamples", sparse_battles(0)),
    ("300 battles voted in another order", votes_in_another_order(battles_of(1, 300), 5)),
    ("150 sparse battles voted in another order", votes_in_another_order(sparse_battles(2), 9)),
])
def test_the_fastchat_option_equals_fastchat(name: str, battles: list[Battle]) -> None:
    gaps = assert_equals_fastchat(battles)
    print(f"{name}: largest gap to FastChat {max(gaps):.2e} Elo")


def test_on_150_battles_fastchat_diverges_and_the_default_stays_bounded() -> None:
    battles = sparse_battles(0)
    fastchat = compute_leaderboard(battles, method="fastchat")
    default = compute_leaderboard(battles)
    widest = max(fastchat.upper[m] - fastchat.lower[m] for m in fastchat.models)
    assert widest > 1000  # FastChat's fit stops after 100 iterations on resamples without a solution
    assert fastchat.upper["gpt-4o"] > 2500
    assert max(default.upper[m] - default.lower[m] for m in default.models) < 600
    for model in default.models:  # the full set has a solution: both fits find it
        assert abs(default.ratings[model] - fastchat.ratings[model]) < 0.01
    print(f"widest 95% interval: FastChat {widest:.0f} Elo, regularised "
          f"{max(default.upper[m] - default.lower[m] for m in default.models):.0f} Elo")


def test_fastchat_numbers_models_by_vote_order() -> None:
    created = battles_of(1, 300)
    voted = votes_in_another_order(created, 5)
    in_vote_order = compute_leaderboard(voted, method="fastchat")
    as_created = compute_leaderboard(created, method="fastchat")  # same battles, votes in creation order
    assert in_vote_order.ratings == pytest.approx(as_created.ratings, abs=1e-3)  # the fit does not care
    shift = max(abs(in_vote_order.lower[m] - as_created.lower[m]) for m in in_vote_order.models)
    assert shift > 1.0  # the resampling stream does: models and outcome rows are numbered differently
    hidden = [replace(b, anony=False) if i % 3 == 0 else b for i, b in enumerate(voted)]
    assert compute_leaderboard(hidden, method="fastchat").num_battles == 200  # FastChat keeps anonymous votes only
    assert_equals_fastchat(hidden)


def test_vote_filters() -> None:
    battles = [Battle("x", "y", "tie (bothbad)"), Battle("x", "y", "tie"), Battle("x", "y", "model_a", anony=False),
               Battle("y", "x", "model_b")]
    assert select_battles(battles) == battles
    assert [b.winner for b in select_battles(battles, drop_both_bad=True)] == ["tie", "model_a", "model_b"]
    assert [b.winner for b in select_battles(battles, anony_only=True)] == ["tie (bothbad)", "tie", "model_b"]
    dropped = compute_leaderboard(select_battles(battles, drop_both_bad=True), rounds=0)
    assert dropped.num_battles == 3 and dropped.battle_counts[0, 1] == 3
    with pytest.raises(ValueError, match="method"):
        compute_leaderboard(battles, method="elo")
