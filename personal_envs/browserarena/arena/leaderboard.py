"""Bradley-Terry leaderboard on the Elo scale with bootstrap confidence intervals.

Model: ``P(i beats j) = 1 / (1 + 10 ** ((R_j - R_i) / 400))``.  Ratings are the maximum-likelihood estimate,
computed with the minorise-maximise (Zermelo) iteration, a tie counts as half a win for each side, and ratings are
centred so that their mean is 1000.  Intervals are the 2.5 / 97.5 percentiles over bootstrap resamples of the
battles (100 rounds by default); ``rank = 1 + number of models whose lower bound exceeds this model's upper bound``.

The bootstrap draws its resamples as FastChat's ``compute_bootstrap_bt`` does, so that on the same battles and seed
the intervals are the same: models are numbered in order of first appearance (``model_a`` column, then
``model_b``), the distinct ``(model_a, model_b, outcome)`` rows are sorted, and each round draws their counts from
one multinomial of ``numpy.random.default_rng(seed)`` (weights = the rows' frequencies).

The MLE exists only if every model both wins (or ties) against and loses (or ties) to the rest in a connected way.
When it does not (e.g. a model that never lost), a small symmetric prior of virtual ties between every pair is added
and :attr:`Leaderboard.regularised` says so.  This is the default (``method="regularised"``), on the full battle set
and on every bootstrap resample: with a few hundred battles some resamples have no maximum-likelihood solution (a
model that happens to win all its resampled games), and an unregularised fit then drifts towards infinity.

``method="fastchat"`` reproduces FastChat's own report instead (``fastchat/serve/monitor/elo_analysis.py``,
``report_elo_analysis_results`` with ``rating_system="bt"``, and ``rating_systems.py``): battles sorted by vote
time (``tstamp``, pandas' default quicksort), only anonymous votes (``anony``), models numbered by first
appearance in that order, ratings by SciPy's L-BFGS-B on the logistic loss (100 iterations, ``gtol=1e-6``) from
zero, bootstrap weights normalised by the number of battles, percentiles that skip NaN.  It keeps FastChat's
behaviour on resamples without a maximum-likelihood solution: the fit stops after 100 iterations wherever it got,
so an interval can span more than 1,000 Elo.  :func:`select_battles` offers the paper's filters (drop "both bad"
votes) and FastChat's (anonymous votes only).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

SCALE = 400.0
BASE = 10.0
CENTER = 1000.0
#: Weight of the virtual tie added between every pair when the plain MLE does not exist.
FALLBACK_PRIOR = 0.1
WINNERS = ("model_a", "model_b", "tie", "tie (bothbad)")
#: Rating methods of :func:`compute_leaderboard`.
METHODS = ("regularised", "fastchat")
#: FastChat anchors its ratings on this model when it is among them (``scale_and_offset``).
FASTCHAT_BASELINE = ("mixtral-8x7b-instruct-v0.1", 1114.0)


@dataclass(frozen=True)
class Battle:
    """One vote: ``winner`` is ``"model_a"``, ``"model_b"``, ``"tie"`` or ``"tie (bothbad)"``; ``tstamp`` is when
    it was cast, ``anony`` whether the voter did not know the models, ``voter`` who cast it (FastChat's columns)."""

    model_a: str
    model_b: str
    winner: str
    tstamp: float = 0.0
    anony: bool = True
    voter: str = ""

    def __post_init__(self) -> None:
        if self.winner not in WINNERS:
            raise ValueError(f"winner must be one of {WINNERS}, got {self.winner!r}")
        if self.model_a == self.model_b:
            raise ValueError("a battle needs two different models")


@dataclass
class Leaderboard:
    """Ratings, intervals, ranks and the pairwise matrices of a set of battles."""

    models: list[str]
    ratings: dict[str, float]
    lower: dict[str, float]
    upper: dict[str, float]
    ranks: dict[str, int]
    win_fraction: np.ndarray  # [i, j]: share of i's games against j that i won (ties half); nan if none
    battle_counts: np.ndarray  # [i, j]: number of battles between i and j
    num_battles: int
    bootstrap_rounds: int
    regularised: bool = False
    bootstrap_ratings: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    method: str = "regularised"

    def rows(self) -> list[tuple[int, str, float, float, float, int]]:
        """``(rank, model, rating, lower, upper, battles)`` sorted by rating, best first."""
        index = {m: i for i, m in enumerate(self.models)}
        out = [(self.ranks[m], m, self.ratings[m], self.lower[m], self.upper[m],
                int(self.battle_counts[index[m]].sum())) for m in self.models]
        return sorted(out, key=lambda row: -row[2])

    def table(self) -> str:
        """The leaderboard as text."""
        from personal_envs.core.table import format_table

        rows = [(m, r, f"{rating:.1f}", f"[{lo:.1f}, {hi:.1f}]", n) for r, m, rating, lo, hi, n in self.rows()]
        title = f"BrowserArena leaderboard ({self.num_battles} battles, {self.bootstrap_rounds} bootstrap rounds)"
        if self.method == "fastchat":
            title += " [FastChat's fit: no regularisation]"
        elif self.regularised:
            title += " [regularised: the plain MLE does not exist for these battles]"
        return format_table(["model", "rank", "rating", "95% CI", "battles"], rows, title=title)

    def matrix_table(self, which: str = "win_fraction") -> str:
        """The win-fraction or battle-count matrix as text (rows beat columns)."""
        from personal_envs.core.table import format_table

        matrix = self.win_fraction if which == "win_fraction" else self.battle_counts
        rows = []
        for i, model in enumerate(self.models):
            cells: list[object] = []
            for j in range(len(self.models)):
                value = matrix[i, j]
                if which == "win_fraction":
                    cells.append("-" if i == j or math.isnan(value) else f"{value:.2f}")
                else:
                    cells.append(int(value))
            rows.append([model, *cells])
        title = "win fraction (row beats column, ties half)" if which == "win_fraction" else "battle counts"
        return format_table(["model", *self.models], rows, title=title)


def pair_tallies(battles: Sequence[Battle], models: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """``wins[i, j]`` (ties count half) and ``games[i, j]`` over the battles."""
    index = {m: i for i, m in enumerate(models)}
    size = len(models)
    wins = np.zeros((size, size))
    games = np.zeros((size, size))
    for battle in battles:
        a, b = index[battle.model_a], index[battle.model_b]
        games[a, b] += 1
        games[b, a] += 1
        if battle.winner == "model_a":
            wins[a, b] += 1
        elif battle.winner == "model_b":
            wins[b, a] += 1
        else:
            wins[a, b] += 0.5
            wins[b, a] += 0.5
    return wins, games


def _strongly_connected(wins: np.ndarray) -> bool:
    size = wins.shape[0]
    if size <= 1:
        return True
    adjacency = wins > 0

    def reach(matrix: np.ndarray) -> set[int]:
        seen, stack = {0}, [0]
        while stack:
            node = stack.pop()
            for nxt in np.nonzero(matrix[node])[0]:
                if int(nxt) not in seen:
                    seen.add(int(nxt))
                    stack.append(int(nxt))
        return seen

    return len(reach(adjacency)) == size and len(reach(adjacency.T)) == size


def bradley_terry(wins: np.ndarray, games: np.ndarray, *, tol: float = 1e-10,
                  max_iter: int = 100_000) -> tuple[np.ndarray, bool]:
    """Elo-scale BT ratings (mean 1000) from win and game matrices; second value: whether a prior was added."""
    size = wins.shape[0]
    if size == 0:
        return np.zeros(0), False
    regularised = not _strongly_connected(wins)
    if regularised:
        prior = FALLBACK_PRIOR * (1 - np.eye(size))
        wins = wins + prior / 2
        games = games + prior
    total_wins = wins.sum(axis=1)
    strength = np.ones(size)
    for _ in range(max_iter):
        denom = (games / (strength[:, None] + strength[None, :])).sum(axis=1)
        new = np.where(denom > 0, total_wins / np.where(denom > 0, denom, 1), strength)
        new = new / math.exp(np.log(new).mean())
        if np.max(np.abs(np.log(new) - np.log(strength))) < tol:
            strength = new
            break
        strength = new
    ratings = SCALE * np.log(strength) / math.log(BASE)
    return ratings - ratings.mean() + CENTER, regularised


def first_appearance_order(battles: Sequence[Battle]) -> list[str]:
    """Models in order of first appearance in the ``model_a`` column, then the ``model_b`` column."""
    order: dict[str, None] = {}
    for battle in battles:
        order.setdefault(battle.model_a, None)
    for battle in battles:
        order.setdefault(battle.model_b, None)
    return list(order)


def unique_outcomes(battles: Sequence[Battle], models: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct ``(a index, b index, outcome code)`` rows (code 2: a wins, 1: tie, 0: b wins) and how
    often each occurs."""
    index = {m: i for i, m in enumerate(models)}
    codes = {"model_a": 2, "model_b": 0}
    schedule = np.array([[index[b.model_a], index[b.model_b], codes.get(b.winner, 1)] for b in battles],
                        dtype=np.int64).reshape(-1, 3)
    rows, counts = np.unique(schedule, return_counts=True, axis=0)
    return rows, counts.astype(np.float64)


def tallies_from_rows(rows: np.ndarray, weights: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``wins`` (ties half) and ``games`` matrices from outcome rows with weights."""
    wins = np.zeros((size, size))
    games = np.zeros((size, size))
    for (a, b, code), weight in zip(rows.tolist(), weights.tolist(), strict=True):
        if weight == 0:
            continue
        games[a, b] += weight
        games[b, a] += weight
        wins[a, b] += weight * code / 2
        wins[b, a] += weight * (2 - code) / 2
    return wins, games


def bootstrap_ratings(battles: Sequence[Battle], rounds: int, seed: int = 0) -> tuple[list[str], np.ndarray]:
    """``(models in first-appearance order, ratings[round, model])`` over FastChat's bootstrap resamples."""
    models = first_appearance_order(battles)
    if not battles or rounds <= 0:
        return models, np.zeros((max(rounds, 0), len(models)))
    rows, counts = unique_outcomes(battles, models)
    rng = np.random.default_rng(seed=seed)
    draws = rng.multinomial(n=len(battles), pvals=counts / counts.sum(), size=rounds)
    samples = np.zeros((rounds, len(models)))
    for r in range(rounds):
        wins, games = tallies_from_rows(rows, draws[r].astype(np.float64), len(models))
        samples[r], _ = bradley_terry(wins, games)
    return models, samples


def select_battles(battles: Iterable[Battle], *, drop_both_bad: bool = False,
                   anony_only: bool = False) -> list[Battle]:
    """The battles a leaderboard counts: without "both bad" votes (``drop_both_bad``, as the BrowserArena paper
    counted) and/or only votes cast without knowing the models (``anony_only``, FastChat's filter)."""
    return [b for b in battles if not (drop_both_bad and b.winner == "tie (bothbad)")
            and not (anony_only and not b.anony)]


# ------------------------------------------------------------------------------------------- FastChat's fit
def _logistic_loss(ratings: np.ndarray, matchups: np.ndarray, outcomes: np.ndarray, weights: np.ndarray,
                   alpha: float) -> tuple[float, np.ndarray]:
    """Weighted negative log-likelihood of the outcomes (1 win, 0.5 tie, 0 loss of the first model) under
    ``P(first wins) = sigmoid(alpha * (r_first - r_second))``, and its gradient; computed as FastChat computes it
    so that L-BFGS-B takes the same path."""
    from scipy.special import expit

    pair_ratings = ratings[matchups]
    probs = expit(alpha * (pair_ratings[:, 0] - pair_ratings[:, 1]))
    with np.errstate(divide="ignore", invalid="ignore"):  # log(0) on a diverging fit, as in FastChat (silenced)
        loss = -((np.log(probs) * outcomes + np.log(1.0 - probs) * (1.0 - outcomes)) * weights).sum()
    pair_grads = -alpha * (outcomes - probs) * weights
    grad = np.zeros_like(ratings)
    np.add.at(grad, matchups[:, [0, 1]], pair_grads[:, None] * np.array([1.0, -1.0], dtype=np.float64))
    return float(loss), grad


def _fit_lbfgs(matchups: np.ndarray, outcomes: np.ndarray, weights: np.ndarray, size: int) -> np.ndarray:
    """Natural-scale ratings from zero by L-BFGS-B, stopped after 100 iterations or at gradient norm 1e-6."""
    from scipy.optimize import minimize

    result = minimize(fun=_logistic_loss, x0=np.zeros(size, dtype=np.float64),
                      args=(matchups, outcomes, weights, math.log(BASE)), jac=True, method="L-BFGS-B",
                      options={"maxiter": 100, "gtol": 1e-6})
    return np.asarray(result["x"])


def _fastchat_scale(ratings: np.ndarray, models: Sequence[str]) -> np.ndarray:
    scaled = ratings * SCALE + CENTER
    baseline, anchor = FASTCHAT_BASELINE
    if baseline in models:
        scaled = scaled + (anchor - scaled[..., [list(models).index(baseline)]])
    return scaled


def fastchat_order(battles: Sequence[Battle]) -> list[Battle]:
    """The battles as FastChat's report uses them: sorted by ``tstamp`` (pandas' default quicksort), anonymous
    votes only."""
    order = np.argsort(np.array([b.tstamp for b in battles], dtype=np.float64), kind="quicksort")
    return [battles[i] for i in order.tolist() if battles[i].anony]


def fastchat_fit(battles: Sequence[Battle], *, rounds: int = 100,
                 seed: int = 0) -> tuple[list[str], np.ndarray, np.ndarray]:
    """FastChat's ``compute_bt`` and ``compute_bootstrap_bt`` on battles already in FastChat's order: ``(models
    in first-appearance order, Elo ratings, bootstrap Elo ratings[round, model])``.  FastChat seeds the bootstrap
    with 0."""
    models = first_appearance_order(battles)
    if not battles:
        return models, np.zeros(0), np.zeros((max(rounds, 0), 0))
    rows, counts = unique_outcomes(battles, models)
    matchups, outcomes = rows[:, [0, 1]], rows[:, 2].astype(np.float64) / 2.0
    ratings = _fastchat_scale(_fit_lbfgs(matchups, outcomes, counts, len(models)), models)
    samples = np.zeros((max(rounds, 0), len(models)))
    if rounds > 0:
        rng = np.random.default_rng(seed=seed)
        draws = rng.multinomial(n=len(battles), pvals=counts / counts.sum(), size=rounds)
        weights = draws.astype(np.float64) / len(battles)
        samples = _fastchat_scale(np.array([_fit_lbfgs(matchups, outcomes, w, len(models)) for w in weights]),
                                  models)
    return models, ratings, samples


def compute_leaderboard(battles: Iterable[Battle], *, rounds: int = 100, seed: int = 0,
                        models: Sequence[str] | None = None, method: str = "regularised") -> Leaderboard:
    """Fit ratings on all battles and bootstrap ``rounds`` resamples (FastChat's stream) for 95% intervals.

    Args:
        battles: The votes (see :func:`select_battles` for the paper's and FastChat's filters).
        rounds: Bootstrap rounds.
        seed: Seed of the bootstrap's resamples (FastChat's report always uses 0).
        models: Models to list even without battles.
        method: ``"regularised"`` (default: the MM fit, regularised where no maximum-likelihood solution exists)
            or ``"fastchat"`` (FastChat's report exactly, see the module docstring).
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    battle_list = list(battles)
    if method == "fastchat":
        battle_list = fastchat_order(battle_list)
    names = sorted({b.model_a for b in battle_list} | {b.model_b for b in battle_list} | set(models or []))
    wins, games = pair_tallies(battle_list, names)
    ratings, regularised = bradley_terry(wins, games)
    samples = np.zeros((rounds, len(names)))
    if method == "fastchat" and battle_list:
        order, fitted, boot = fastchat_fit(battle_list, rounds=rounds, seed=seed)
        ratings, regularised = np.array([fitted[order.index(m)] if m in order else CENTER for m in names]), False
        for j, model in enumerate(order):
            samples[:, names.index(model)] = boot[:, j]
        for i, model in enumerate(names):
            if model not in order:
                samples[:, i] = ratings[i]
    elif battle_list and rounds:
        order, boot = bootstrap_ratings(battle_list, rounds, seed)
        for j, model in enumerate(order):
            samples[:, names.index(model)] = boot[:, j]
        missing = [i for i, m in enumerate(names) if m not in order]  # models without battles: their fit value
        for i in missing:
            samples[:, i] = ratings[i]
    if rounds:  # nan-skipping, as pandas' quantile (a diverged FastChat fit can give nan)
        lower_arr = np.nanpercentile(samples, 2.5, axis=0)
        upper_arr = np.nanpercentile(samples, 97.5, axis=0)
    else:
        lower_arr = upper_arr = ratings
    lower = {m: float(lower_arr[i]) for i, m in enumerate(names)}
    upper = {m: float(upper_arr[i]) for i, m in enumerate(names)}
    ranks = {m: 1 + sum(1 for other in names if lower[other] > upper[m]) for m in names}
    with np.errstate(invalid="ignore", divide="ignore"):
        win_fraction = np.where(games > 0, wins / np.where(games > 0, games, 1), np.nan)
    return Leaderboard(
        models=names, ratings={m: float(ratings[i]) for i, m in enumerate(names)}, lower=lower, upper=upper,
        ranks=ranks, win_fraction=win_fraction, battle_counts=games, num_battles=len(battle_list),
        bootstrap_rounds=rounds, regularised=regularised, bootstrap_ratings=samples, method=method,
    )


def expected_gap(win_rate: float) -> float:
    """Rating gap that makes ``win_rate`` the BT win probability: ``400 * log10(p / (1 - p))``."""
    return SCALE * math.log10(win_rate / (1 - win_rate))
