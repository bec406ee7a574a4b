"""Adapters of the suite's chat environments to LLM RL trainers (TRL's GRPOTrainer: :mod:`.trl_grpo`)."""
