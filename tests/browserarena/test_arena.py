"""Battles end to end (two scripted policies in parallel, traces, GIFs, SQLite, leaderboard) and the vote page
clicked in real Chromium."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from PIL import Image

import personal_envs  # noqa: F401
from personal_envs.browser.session import BrowserSession
from personal_envs.browserarena import policies as P
from personal_envs.browserarena.arena import (
    ArenaStore,
    BattleRecord,
    JudgeVoter,
    ScoreVoter,
    TerminalVoter,
    VotePage,
    compute_leaderboard,
    run_battle,
)
from personal_envs.llm.client import ChatClient
from personal_envs.llm.testing import ScriptedChatServer


def make_env() -> gym.Env[Any, Any]:
    return gym.make("BrowserArena-PopupBanner-v0", max_wait_s=0.0, viewport=(640, 400))


POLICIES: dict[str, Callable[[gym.Env[Any, Any]], Any]] = {"banner_closer": P.make_banner_closer, "banner_ignorer": P.make_banner_ignorer}


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ArenaStore, Path, list[Any]]]:
    root = tmp_path_factory.mktemp("arena")
    store = ArenaStore(root / "arena.sqlite")
    results = [run_battle(make_env, POLICIES, task_index, store=store, out_dir=root / "battles",
                          env_id="BrowserArena-PopupBanner-v0", voter=ScoreVoter()) for task_index in (3, 44)]
    yield store, root, results


def test_battle_runs_end_to_end(arena: tuple[ArenaStore, Path, list[Any]]) -> None:
    store, _root, results = arena
    first = results[0]
    assert first.side_a.score == 1.0 and first.side_b.score == 0.0
    [judged] = store.votes(first.battle_id)
    assert (judged.winner, judged.voter, judged.source) == ("model_a", "score-fallback", "judge")
    assert first.record.winner is None  # a judge's vote is not a person's: the battle still waits for people
    trace = json.loads(Path(first.record.trace_a).read_text())
    assert trace["model"] == "banner_closer" and trace["steps"] and trace["steps"][0]["brain"]["next_goal"]
    assert trace["metrics"]["banner_closed"] is True
    with Image.open(first.record.gif_a) as gif:
        assert gif.format == "GIF" and getattr(gif, "n_frames", 1) == len(trace["steps"]) + 1
    assert len(store.battles()) == 2 and len(store.voted_battles(source="judge")) == 2
    assert store.voted_battles() == []  # people's leaderboard: no person voted


def test_battles_show_up_in_the_leaderboard(arena: tuple[ArenaStore, Path, list[Any]]) -> None:
    store, _root, _results = arena
    board = compute_leaderboard(store.voted_battles(source="judge"), rounds=100)
    assert set(board.models) == {"banner_closer", "banner_ignorer"}
    assert board.ratings["banner_closer"] > board.ratings["banner_ignorer"]
    for model in board.models:
        assert board.lower[model] <= board.ratings[model] <= board.upper[model]
    assert "95% CI" in board.table() and board.num_battles == 2


def test_vote_page_in_a_real_browser(arena: tuple[ArenaStore, Path, list[Any]]) -> None:
    store, _root, results = arena
    ran = results[0].record  # the same recordings, stored again as a battle still waiting for its vote
    open_battle = store.battle(store.add_battle(BattleRecord(
        "", ran.env_id, ran.task_id, ran.task_text, ran.model_a, ran.model_b, ran.trace_a, ran.trace_b, ran.gif_a,
        ran.gif_b)))
    with VotePage(store, voter_name="playwright-user") as page_server:
        session = BrowserSession(viewport=(1280, 900))
        try:
            assert session.goto(f"{page_server.url}/battle/{open_battle.battle_id}") == ""

            def annotate_and_vote(page: Any) -> dict[str, Any]:
                assert page.locator("#side-a img").evaluate("img => img.naturalWidth") > 0  # GIF served
                page.get_by_label("Right step 1 wrong").check()
                page.get_by_label("Right step 1 reason").fill("went to the section behind the banner")
                page.get_by_label("Save Right step 1").click()
                page.wait_for_load_state("domcontentloaded")
                page.get_by_role("button", name="Left is better").click()
                page.wait_for_selector("#vote-result")
                return {"result": page.inner_text("#vote-result"), "left": page.inner_text("#side-a h2")}

            shown = session.call(annotate_and_vote)
            assert "model_a" in shown["result"] and "banner_closer" in shown["left"]
            assert session.goto(f"{page_server.url}/leaderboard") == ""
            table = session.call(lambda page: page.inner_text("#leaderboard"))
            assert "banner_closer" in table and "banner_ignorer" in table
        finally:
            session.close()
    record = store.battle(open_battle.battle_id)
    assert (record.winner, record.voter) == ("model_a", "playwright-user")
    notes = store.annotations(open_battle.battle_id)
    assert [(n.side, n.step, n.correct, n.reason) for n in notes] == [
        ("b", 1, False, "went to the section behind the banner")]


def test_terminal_and_judge_voters(arena: tuple[ArenaStore, Path, list[Any]]) -> None:
    _store, _root, results = arena
    battle = results[0]
    answers = iter(["maybe", "r"])
    shown: list[str] = []
    vote = TerminalVoter(ask=lambda prompt: next(answers), show=shown.append).vote(
        battle.record, battle.side_a.trace, battle.side_b.trace)
    assert vote.winner == "model_b" and any("Please answer" in s for s in shown)
    with ScriptedChatServer(lambda body: '```json\n{"winner": "left", "reason": "it closed the banner"}\n```') as srv:
        judged = JudgeVoter(ChatClient(srv.base_url, "scripted-model", None)).vote(
            battle.record, battle.side_a.trace, battle.side_b.trace)
        assert "LEFT AGENT" in srv.requests[0]["messages"][1]["content"]
    assert (judged.winner, judged.reason) == ("model_a", "it closed the banner")
