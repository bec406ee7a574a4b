"""The paper's §4.3 agreement study: how often two annotators who voted on the same battle agree.

Votes are compared per battle between every pair of annotators who both voted on it.  "With ties" compares the
three outcomes left / right / tie (``tie`` and ``tie (bothbad)`` are one outcome); "without ties" keeps only the
battles where neither of the two voted a tie.  Cohen's kappa (with ties) corrects the agreement for chance.

People's agreement counts people's votes only; :func:`judge_agreement_rows` compares each judge with people (on
each battle, the first person's vote against the judge's).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from personal_envs.browserarena.arena.store import StoredVote
from personal_envs.core.table import format_table


def outcome(winner: str) -> str:
    """``model_a`` / ``model_b`` / ``tie`` (both tie kinds are one outcome)."""
    return winner if winner in ("model_a", "model_b") else "tie"


@dataclass(frozen=True)
class AgreementRow:
    """Agreement of one annotator pair (or ``("all", "all")``)."""

    annotators: tuple[str, str]
    battles_with_ties: int
    agree_with_ties: float  # % of the battles both voted on
    battles_without_ties: int
    agree_without_ties: float  # % of the battles where neither voted a tie
    kappa: float  # Cohen's kappa with ties (nan when undefined)


def _pairs(votes: Iterable[StoredVote]) -> dict[tuple[str, str], list[tuple[str, str]]]:
    by_battle: dict[str, dict[str, str]] = defaultdict(dict)
    for vote in votes:
        by_battle[vote.battle_id][vote.voter] = outcome(vote.winner)
    pairs: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for voters in by_battle.values():
        for first, second in combinations(sorted(voters), 2):
            pairs[(first, second)].append((voters[first], voters[second]))
    return pairs


def _row(key: tuple[str, str], items: Sequence[tuple[str, str]]) -> AgreementRow:
    n = len(items)
    agree = sum(1 for x, y in items if x == y)
    strict = [(x, y) for x, y in items if x != "tie" and y != "tie"]
    agree_strict = sum(1 for x, y in strict if x == y)
    first, second = Counter(x for x, _ in items), Counter(y for _, y in items)
    expected = sum(first[c] * second[c] for c in ("model_a", "model_b", "tie")) / (n * n) if n else 0.0
    observed = agree / n if n else 0.0
    kappa = (observed - expected) / (1 - expected) if n and expected < 1 else float("nan")
    return AgreementRow(key, n, 100.0 * observed, len(strict), 100.0 * agree_strict / len(strict) if strict else 0.0,
                        kappa)


def agreement_rows(votes: Iterable[StoredVote]) -> list[AgreementRow]:
    """One row per pair of people with common battles, then the pooled row ``("all", "all")`` (judges' votes are
    left out: see :func:`judge_agreement_rows`)."""
    pairs = _pairs(v for v in votes if v.source == "human")
    rows = [_row(key, items) for key, items in sorted(pairs.items())]
    pooled = [item for items in pairs.values() for item in items]
    if pooled:
        rows.append(_row(("all", "all"), pooled))
    return rows


def judge_agreement_rows(votes: Iterable[StoredVote]) -> list[AgreementRow]:
    """One row per judge, ``("people", judge)``: on the battles both people and the judge voted on, the first
    person's vote against the judge's."""
    ordered = list(votes)
    people: dict[str, str] = {}
    for vote in ordered:
        if vote.source == "human":
            people.setdefault(vote.battle_id, outcome(vote.winner))
    by_judge: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for vote in ordered:
        if vote.source == "judge" and vote.battle_id in people:
            by_judge[vote.voter].append((people[vote.battle_id], outcome(vote.winner)))
    return [_row(("people", judge), items) for judge, items in sorted(by_judge.items())]


_HEADER = ["annotators", "battles", "agree % (with ties)", "battles w/o ties", "agree % (w/o ties)", "kappa"]


def _table(rows: Sequence[AgreementRow], title: str) -> str:
    cells = [[f"{r.annotators[0]} / {r.annotators[1]}", r.battles_with_ties, r.agree_with_ties,
              r.battles_without_ties, r.agree_without_ties, r.kappa] for r in rows]
    return format_table(_HEADER, cells, title=title, digits=1)


def agreement_table(votes: Iterable[StoredVote]) -> str:
    """The agreement study as text: people with each other, then each judge with people (when there are
    judge votes)."""
    ordered = list(votes)
    text = _table(agreement_rows(ordered), "Annotator agreement (§4.3)")
    judges = judge_agreement_rows(ordered)
    if judges:
        text += "\n\n" + _table(judges, "Judges against people (first person's vote per battle)")
    return text
