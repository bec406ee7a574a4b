"""Vector envs beyond Gymnasium's: :class:`EnvPool`, envs in processes that step at their own pace."""

from personal_envs.vector.pool import EnvPool, PoolError

__all__ = ["EnvPool", "PoolError"]
