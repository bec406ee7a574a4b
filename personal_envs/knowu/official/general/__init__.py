"""Builders of the 42 official general tasks (every module here registers its builders on import)."""
