"""Trajectories written by the eval runner: content, deduplicated screenshots, crash safety and resuming."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from personal_envs.cli import main
from personal_envs.core.recorder import read_jsonl
from personal_envs.runner import EvalConfig, evaluate
from personal_envs.trajectories.recorder import TRAJECTORY_FILE, TrajectoryRecorder, trajectory_root

REPO_ROOT = Path(__file__).resolve().parents[2]
PWAB = "PersonalWAB-SingleTurn-v0"


def _trajectory(directory: Path, episode: int) -> dict:
    return json.loads((directory / f"episode_{episode:05d}" / TRAJECTORY_FILE).read_text(encoding="utf-8"))


def test_eval_writes_a_trajectory_per_episode_with_the_check_breakdown(tmp_path, capsys):
    out = tmp_path / "run.jsonl"
    args = ["eval", "--env", PWAB, "--policy", "heuristic", "--episodes", "3", "--out", str(out), "--no-progress",
            "--env-kwargs", json.dumps({"task_type": "search"})]
    assert main(args) == 0
    printed = capsys.readouterr().out
    directory = trajectory_root(out) / f"{PWAB}__heuristic"
    assert f"trajectories: {directory} (3 episodes" in printed
    records = list(read_jsonl(out))
    for record in records:
        data = _trajectory(directory, record["episode"])
        assert data["task_id"] == record["task_id"] and data["result"]["score"] == record["score"]
        assert data["goal"].startswith("USER ") and "instruction" in data["initial_observation"]
        step = data["steps"][0]
        assert step["parsed_action"]["action_type"] == "search_product_by_query"
        assert step["error"] == "" and step["env_s"] >= 0 and step["policy_s"] >= 0
        assert step["signals"]["steps"] == 1.0 and "correct_call_accuracy" in step["signals"]
        assert "result" in step["observation"]  # the text field that changed
        evaluation = data["evaluation"]
        assert evaluation["source"] == "evaluation" and evaluation["score"] == record["score"]
        assert evaluation["checks"] and evaluation["checks"][0]["name"].startswith("call 1: search_product")
        assert evaluation["reason"]
    size = json.loads((directory / "size.json").read_text())
    assert size["episodes"] == 3 and size["images"] == 0 and size["bytes"] > 0

    quiet = tmp_path / "quiet.jsonl"
    assert main([*args[:args.index("--out")], "--out", str(quiet), "--no-progress", "--no-trajectories",
                 "--env-kwargs", json.dumps({"task_type": "search"})]) == 0
    assert not trajectory_root(quiet).exists()


def test_screenshots_are_jpeg_files_stored_once_per_distinct_screen(tmp_path):
    out = tmp_path / "wm.jsonl"
    evaluate(EvalConfig("WebMall-v0", "random", episodes=1, out=out, progress=False,
                        env_kwargs={"max_steps": 6, "observation_mode": "axtree+screenshot"}))
    directory = trajectory_root(out) / "WebMall-v0__random"
    data = _trajectory(directory, 0)
    refs = [data["initial_observation"]["screenshot"]["image"]]
    refs += [s["observation"]["screenshot"]["image"] for s in data["steps"]]
    files = sorted(p.name for p in (directory / "episode_00000" / "images").iterdir())
    assert sorted({Path(r).name for r in refs}) == files
    for name in files:
        assert (directory / "episode_00000" / "images" / name).read_bytes()[:3] == b"\xff\xd8\xff"  # JPEG
    # the random policy's failed actions leave the screen as it was: fewer files than screens
    assert any(s["error"] for s in data["steps"]) and len(files) < len(refs)
    assert "screenshot" not in json.dumps(data["steps"][0]["info"])  # arrays never land in the JSON


def test_leftover_temporary_directories_are_removed_but_finished_trajectories_kept(tmp_path):
    recorder = TrajectoryRecorder(tmp_path / "t")
    (recorder.directory / ".tmp-episode_00002-123" / "images").mkdir(parents=True)
    (recorder.directory / ".old-episode_00001-123").mkdir()
    finished = recorder.episode_dir(0)
    finished.mkdir()
    (finished / TRAJECTORY_FILE).write_text("{}")
    removed = recorder.remove_leftovers()
    assert sorted(p.name for p in removed) == [".old-episode_00001-123", ".tmp-episode_00002-123"]
    assert [p.name for p in recorder.directory.iterdir()] == ["episode_00000"]


def test_killed_eval_leaves_no_torn_trajectory_and_resumes_with_exactly_the_remaining_episodes(tmp_path):
    out = tmp_path / "killed.jsonl"
    command = [sys.executable, "-m", "personal_envs", "eval", "--env", "WebMall-v0", "--policy", "random",
               "--episodes", "5", "--out", str(out), "--no-progress",
               "--env-kwargs", json.dumps({"max_steps": 8, "observation_mode": "axtree+screenshot"})]
    directory = trajectory_root(out) / "WebMall-v0__random"
    process = subprocess.Popen(command, cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        # kill while an episode is being recorded, after at least one episode is in the results file
        while time.monotonic() < deadline:
            in_progress = directory.is_dir() and any(p.name.startswith(".tmp-") for p in directory.iterdir())
            if len(list(read_jsonl(out))) >= 1 and in_progress:
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the eval never reached its second episode")
        os.killpg(process.pid, signal.SIGKILL)
    finally:
        process.wait(timeout=30)
    done = {r["episode"] for r in read_jsonl(out)}
    assert 1 <= len(done) < 5
    assert any(p.name.startswith(".tmp-") for p in directory.iterdir())  # the killed episode's unfinished copy
    written = {}
    for child in directory.iterdir():
        if child.name.startswith("episode_"):
            data = json.loads((child / TRAJECTORY_FILE).read_text())  # complete JSON, never torn
            written[data["episode"]] = (child / TRAJECTORY_FILE).stat().st_mtime_ns
    assert done <= set(written)

    resumed = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert sorted(r["episode"] for r in read_jsonl(out)) == list(range(5))
    names = sorted(p.name for p in directory.iterdir())
    assert names == [f"episode_{i:05d}" for i in range(5)] + ["size.json"]
    for episode in range(5):
        stamp = (directory / f"episode_{episode:05d}" / TRAJECTORY_FILE).stat().st_mtime_ns
        if episode in done:
            assert stamp == written[episode], f"episode {episode} was recorded again"
        else:
            assert stamp != written.get(episode), f"episode {episode} was not recorded by the resumed run"
            assert _trajectory(directory, episode)["steps"]


def test_llm_policy_steps_carry_token_counts_and_the_reply_text(tmp_path):
    from personal_envs.llm.testing import ScriptedChatServer

    def responder(request):
        if sum(1 for m in request["messages"] if m.get("role") == "assistant") == 0:
            return {"content": "The user wants earbuds; search first.",
                    "tool_calls": [{"name": "search_product_by_query", "arguments": {"query": "earbuds"}}]}
        return {"tool_calls": [{"name": "stop", "arguments": {}}]}

    out = tmp_path / "llm.jsonl"
    with ScriptedChatServer(responder) as server:
        evaluate(EvalConfig(PWAB, "llm", episodes=1, out=out, progress=False, env_kwargs={"task_type": "search"},
                            policy_kwargs={"base_url": server.base_url, "model": server.model, "api_key": ""}))
    data = _trajectory(trajectory_root(out) / f"{PWAB}__llm", 0)
    step = data["steps"][0]
    assert step["reasoning"] == "The user wants earbuds; search first."
    assert step["tokens"]["calls"] == 1 and step["tokens"]["total_tokens"] > 0
