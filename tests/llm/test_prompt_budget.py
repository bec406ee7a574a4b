"""KnowU-Proactive's prompts fit an 8k context for a whole 50-step episode (real env, real prompt building, a
scripted model), and consecutive prompts share their prefix."""

from __future__ import annotations

import gymnasium as gym

from personal_envs.llm.promptbench import measure_episode, phone_explorer

CONTEXT = 8192
MAX_TOKENS = 512


def test_knowu_proactive_prompts_fit_8k_for_a_50_step_episode() -> None:
    env = gym.make("KnowU-Proactive-v0")
    try:
        figures = measure_episode(env, phone_explorer, steps=50, context_tokens=CONTEXT, max_tokens=MAX_TOKENS)
    finally:
        env.close()
    assert len(figures) == 50
    # the server's own count of the whole request (messages and tools, 4 characters per token) leaves room for
    # the reply: prompt + max_tokens within the context at every step
    assert all(f.server_tokens + MAX_TOKENS <= CONTEXT for f in figures), max(f.server_tokens for f in figures)
    # the policy predicts the server's count from the server's previous reply (plus a 5 % safety margin)
    assert all(0.98 * f.server_tokens <= f.estimated_tokens <= 1.08 * f.server_tokens for f in figures)
    assert figures[-1].left_out_turns > 0  # the oldest history was left out (with a note) to stay within budget
    # between compactions the previous prompt is reused up to its last observation
    steady = [f.prefix_reuse for f in figures[1:] if f.left_out_turns == figures[f.step - 2].left_out_turns]
    assert min(steady) > 0.5
