"""EnvPool: envs in worker processes answer as soon as they finish, each env's episode is the one a single env
gives for the same actions, and misuse or a failing env is reported, not hung on."""

from __future__ import annotations

import functools
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import personal_envs  # noqa: F401  (registers the ids)
from personal_envs.textmode.parity import random_web_action
from personal_envs.vector import EnvPool, PoolError

KWARGS: dict[str, Any] = {"render": "text", "data_dir": "shipped", "max_episode_steps": 6}
NOOP = {"name": "noop", "arguments": {}}


def _pool(num_envs: int, batch_size: int) -> EnvPool:
    return EnvPool.make("WebMall-v0", num_envs, batch_size, **KWARGS)


def test_each_env_of_the_pool_plays_the_episode_a_single_env_plays() -> None:
    rngs = [np.random.default_rng(index) for index in range(3)]
    sent: dict[int, list[Any]] = {index: [] for index in range(3)}
    seen: dict[int, list[tuple[str, str, float, bool, bool]]] = {index: [] for index in range(3)}
    probe = gym.make("WebMall-v0", **KWARGS)
    origins = list(probe.unwrapped.origins.values())[:4]  # the text mode's fixed shop names
    probe.close()
    with _pool(3, 2) as pool:
        pool.async_reset(seed=7)
        for _ in range(24):
            obs, rewards, terminated, truncated, infos, env_ids = pool.recv()
            assert len(env_ids) == 2 and len(set(env_ids.tolist())) == 2
            actions = []
            for row, env_id in enumerate(env_ids.tolist()):
                seen[env_id].append((obs["axtree"][row], obs["url"][row], float(rewards[row]),
                                     bool(terminated[row]), bool(truncated[row])))
                assert "task_id" in infos[row] or seen[env_id][:-1]  # a reset's info names the task
                actions.append(random_web_action(obs["axtree"][row], origins, rngs[env_id]))
                sent[env_id].append(actions[-1])
            pool.send(actions, env_ids)
    assert all(len(seen[index]) >= 3 for index in range(3))  # no env starved
    assert any(truncated for index in range(3) for *_, truncated in seen[index])  # episodes ended and went on
    for index in range(3):
        env = gym.make("WebMall-v0", **KWARGS)
        obs, _ = env.reset(seed=7 + index)
        expected = [(obs["axtree"], obs["url"], 0.0, False, False)]
        ended = False
        for action in sent[index][:len(seen[index]) - 1]:
            if ended:  # next-step autoreset: the action is ignored, the env starts its next episode
                obs, _ = env.reset()
                reward, terminated, truncated = 0.0, False, False
            else:
                obs, reward, terminated, truncated, _ = env.step(action)
            ended = terminated or truncated
            expected.append((obs["axtree"], obs["url"], float(reward), bool(terminated), bool(truncated)))
        env.close()
        assert seen[index] == expected


def test_recv_waits_for_batch_size_envs_and_send_refuses_an_env_still_working() -> None:
    with _pool(3, 1) as pool:
        pool.async_reset(seed=0)
        with pytest.raises(ValueError, match="still working"):
            pool.async_reset(seed=0)
        obs, rewards, terminated, truncated, infos, env_ids = pool.recv()
        assert env_ids.shape == (1,) and rewards.tolist() == [0.0] and len(obs["axtree"]) == 1
        busy = next(index for index in range(3) if index != int(env_ids[0]))
        with pytest.raises(ValueError, match=f"env {busy} is still working"):
            pool.send([NOOP], [busy])
        with pytest.raises(ValueError, match="no env 5"):
            pool.send([NOOP], [5])
        with pytest.raises(ValueError, match="2 actions for 1 env ids"):
            pool.send([NOOP, NOOP], env_ids)
        rest = [int(pool.recv()[-1][0]) for _ in range(2)]
        assert sorted([int(env_ids[0]), *rest]) == [0, 1, 2]
        with pytest.raises(ValueError, match="fewer than batch_size"):
            pool.recv()  # nothing was sent: waiting would hang
        processes = pool.processes
    assert not any(process.is_alive() for process in processes)
    with pytest.raises(PoolError, match="closed"):
        pool.async_reset()


def test_an_env_that_cannot_be_built_is_reported_with_its_reason() -> None:
    with pytest.raises(PoolError, match="env 1 failed: .*render"):
        EnvPool([functools.partial(gym.make, "WebMall-v0", **KWARGS),
                 functools.partial(gym.make, "WebMall-v0", render="paint", data_dir="shipped")])


def test_batch_size_must_fit_the_pool() -> None:
    with pytest.raises(ValueError, match="between 1 and num_envs=2"):
        EnvPool.make("WebMall-v0", 2, 3, **KWARGS)


def test_array_observations_of_one_recv_are_not_overwritten_by_the_next() -> None:
    from personal_envs.wrappers.rl import make_rl_env

    build = functools.partial(make_rl_env, "WebMall-v0", env_kwargs=KWARGS)
    with EnvPool([build, build], batch_size=1) as pool:
        pool.async_reset(seed=3)
        first, *_, first_ids = pool.recv()
        kept = first.copy()
        assert isinstance(first, np.ndarray) and first.shape == (1, *pool.single_observation_space.shape)
        pool.send([1], first_ids)
        second, *_ = pool.recv()
        assert second is not first and np.array_equal(first, kept)  # a rollout buffer may hold ``first``
