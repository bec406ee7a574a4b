"""Ray backend of the eval runner: episodes run as tasks on Ray actors, locally or on a cluster.

``personal-envs eval ... --backend ray [--ray-address ADDR]`` starts ``workers`` actors, each holding one env and
one policy (built once, like a local worker process), and sends them the episode numbers; records come back as
episodes finish and the runner writes them to the same results file and prints the same table as the local
backends.  Episode ``i`` uses task ``i`` and seed ``seed + i`` on every backend, so results match.

Ray is imported only here, when this backend is chosen.  With ``ray_address=None`` the runner joins the cluster
named by ``$RAY_ADDRESS`` if set, otherwise starts a local Ray for the run and shuts it down afterwards.
Environment variables the envs and policies read (data home, LLM endpoint) are passed on to the workers.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from typing import Any

from personal_envs.runner import EvalConfig, make_policy, run_episode
from personal_envs.trajectories.recorder import recorder_for

#: Environment variables forwarded to Ray workers (on a cluster they would otherwise be missing).
FORWARDED_ENV_VARS: tuple[str, ...] = (
    "PERSONAL_ENVS_DATA", "OPENAI_BASE_URL", "OPENAI_API_KEY", "PERSONAL_ENVS_LLM_MODEL", "OPENAI_MODEL",
    "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE",
)


class EpisodeWorker:
    """A Ray actor: one env and one policy, running the episodes it is sent (like a local worker process)."""

    def __init__(self, config: EvalConfig) -> None:
        import gymnasium as gym

        import personal_envs  # noqa: F401  (registers the ids in the worker)

        self.config = config
        self.env = gym.make(config.env_id, **config.env_kwargs)
        self.policy = make_policy(config.env_id, config.policy, self.env, seed=config.seed, **config.policy_kwargs)

    def run(self, episode: int) -> dict[str, Any]:
        """Run one episode and return its record."""
        config = self.config
        return run_episode(
            self.env, self.policy, env_id=config.env_id, policy_name=config.policy, episode=episode,
            seed=config.seed + episode, max_env_steps=config.max_env_steps, recorder=recorder_for(config),
        )

    def close(self) -> bool:
        """Close the env (releases browsers and servers before the actor exits)."""
        self.env.close()
        return True


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RuntimeError("the ray backend needs Ray: pip install 'personal-envs[ray]' "
                           "(or pip install 'ray[default]')") from None
    return ray


def run_ray(config: EvalConfig, episodes: Sequence[int]) -> Iterator[dict[str, Any]]:
    """Run ``episodes`` on ``config.workers`` Ray actors; yield records as they finish (any order)."""
    ray = _import_ray()
    from ray.util import ActorPool

    env_vars = {key: os.environ[key] for key in FORWARDED_ENV_VARS if os.environ.get(key)}
    started_here = False
    if not ray.is_initialized():
        address = config.ray_address or os.environ.get("RAY_ADDRESS") or None
        init_kwargs: dict[str, Any] = {"runtime_env": {"env_vars": env_vars}, "log_to_driver": False,
                                       "configure_logging": False}
        if address is None:
            init_kwargs.update(include_dashboard=False, num_cpus=max(1, config.workers))
        ray.init(address=address, **init_kwargs)
        started_here = True
    actor_class = ray.remote(num_cpus=1)(EpisodeWorker)
    actors = [actor_class.remote(config) for _ in range(max(1, min(config.workers, len(episodes))))]
    try:
        pool = ActorPool(actors)
        results = pool.map_unordered(lambda actor, episode: actor.run.remote(episode), list(episodes))
        while True:
            try:
                record = next(results)
            except StopIteration:
                break
            except ray.exceptions.RayError as exc:  # e.g. the env could not be built on a worker
                raise RuntimeError(f"a Ray evaluation worker failed: {exc}") from exc
            yield record
    finally:
        with contextlib.suppress(Exception):  # a dead actor has nothing left to close
            ray.get([actor.close.remote() for actor in actors], timeout=60)
        for actor in actors:
            ray.kill(actor)
        if started_here:
            ray.shutdown()
