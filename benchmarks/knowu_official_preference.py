"""The oracle on the 86 official KnowU preference variants through the phone's UI: how many succeed with the
deterministic fallback judge and with a judge that agrees (the project's scripted OpenAI-compatible server), how many
reach the official rule base, and the time per variant.

    python3 benchmarks/knowu_official_preference.py [--data-dir ../shared/anchors/knowu/official]
"""

from __future__ import annotations

import argparse
import time
from contextlib import closing
from typing import Any

from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.official.preference.judge import JudgeProtocol, OfficialPreferenceJudge
from personal_envs.knowu.oracle import OraclePolicy
from personal_envs.llm.client import ChatClient
from personal_envs.llm.testing import ScriptedChatServer


def run(data_dir: str, judge: Any) -> tuple[int, int, int, float]:
    """(successes, variants whose rule base was reached, variants, seconds per variant) of one oracle pass."""
    env = KnowUEnv(family="personalized", data_dir=data_dir, screenshot=False, judge=judge)
    ok = reached = 0
    started = time.perf_counter()
    with closing(env):
        for index in range(env.num_tasks):
            policy = OraclePolicy(env)
            obs, info = env.reset(options={"task_index": index})
            policy.reset(obs, info)
            for _ in range(env.max_steps):
                obs, _, terminated, truncated, info = env.step(policy.act(obs, info))
                if terminated or truncated:
                    break
            metrics = info["metrics"]
            ok += bool(metrics["success"])
            reached += metrics["rule_score"] > 0 or metrics["combination"] == "judge"
        count = env.num_tasks
    return ok, reached, count, (time.perf_counter() - started) / max(count, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default="../shared/anchors/knowu/official")
    args = parser.parse_args()
    ok, reached, count, per = run(args.data_dir, "fallback")
    print(f"fallback judge : oracle success {ok}/{count}, rule base reached {reached}/{count}, {per:.2f} s/variant")
    with ScriptedChatServer(lambda request: "<think>agrees</think><score>1.0</score>") as server:
        judge = OfficialPreferenceJudge(JudgeProtocol.from_release(args.data_dir),
                                        ChatClient(base_url=server.base_url, model="scripted"))
        ok, reached, count, per = run(args.data_dir, judge)
        print(f"agreeing judge : oracle success {ok}/{count}, rule base reached {reached}/{count}, "
              f"{per:.2f} s/variant, {len(server.requests)} judge calls")


if __name__ == "__main__":
    main()
