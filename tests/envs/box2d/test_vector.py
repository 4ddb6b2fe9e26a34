"""The Box2D environments in every vectorization mode, every autoreset mode, beside Gymnasium.

Our sync vector env must step exactly as Gymnasium's ``SyncVectorEnv`` over the same Box2D
envs; async and the pool (two workers, so several Box2D worlds per worker) must give exactly
what sync gives; a seeded vector reset must give each sub-env the single env's first
observation for its seed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import palaestra
from palaestra.vector import AutoresetMode

# (env id, make kwargs, number of steps); lap_complete_percent=0 ends every CarRacing episode
# on its first step, so the short runs still cross many episode boundaries.
CASES = [
    ("LunarLander-v3", {}, 160),
    ("LunarLanderContinuous-v3", {}, 160),
    ("BipedalWalkerHardcore-v3", {}, 60),
    ("CarRacing-v3", {"lap_complete_percent": 0.0}, 5),
]
CASE_IDS = [case[0] for case in CASES]
NUM_ENVS = 4


def assert_same(ours: Any, theirs: Any, where: str) -> None:
    """Recursive equality for vector-env outputs: arrays (object arrays too), dicts, scalars."""
    if isinstance(theirs, (list, tuple)):
        assert len(ours) == len(theirs), where
        for index, (mine, reference) in enumerate(zip(ours, theirs)):
            assert_same(mine, reference, f"{where}[{index}]")
    elif isinstance(theirs, dict):
        assert sorted(ours) == sorted(theirs), where
        for key in theirs:
            assert_same(ours[key], theirs[key], f"{where}[{key!r}]")
    elif isinstance(theirs, np.ndarray) and theirs.dtype == object:
        assert isinstance(ours, np.ndarray) and ours.shape == theirs.shape, where
        for index, value in enumerate(theirs):
            assert_same(ours[index], value, f"{where}[{index}]")
    elif isinstance(theirs, np.ndarray):
        np.testing.assert_array_equal(ours, theirs, err_msg=where)
        assert np.asarray(ours).dtype == theirs.dtype, where
    else:
        assert ours == theirs, where


def actions_for(space: Any, steps: int, seed: int) -> list[Any]:
    space.seed(seed)
    return [space.sample() for _ in range(steps)]


def run(envs: Any, actions: list[Any], disabled: bool) -> list[Any]:
    """Every output of a seeded reset and of stepping ``actions`` (resetting ended sub-envs
    with ``reset_mask`` when autoreset is disabled)."""
    outputs = [envs.reset(seed=11)]
    for action in actions:
        result = envs.step(action)
        outputs.append(result)
        ended = np.logical_or(result[2], result[3])
        if disabled and ended.any():
            outputs.append(envs.reset(options={"reset_mask": ended}))
    envs.close()
    return outputs


def assert_same_runs(
    ours: Any, theirs: Any, actions: list[Any], disabled: bool, where: str
) -> list[Any]:
    """Assert ``ours`` gives every output of ``theirs`` (see :func:`run`); return ``theirs``'."""
    expected = run(theirs, actions, disabled)
    result = run(ours, actions, disabled)
    assert len(result) == len(expected)
    for t, (mine, reference) in enumerate(zip(result, expected)):
        assert_same(list(mine), list(reference), f"{where}output {t}")
    return expected


@pytest.mark.parametrize("autoreset", ["NextStep", "SameStep", "Disabled"])
@pytest.mark.parametrize(("env_id", "kwargs", "steps"), CASES, ids=CASE_IDS)
def test_sync_vector_env_steps_as_gymnasiums(gymnasium, env_id, kwargs, steps, autoreset):
    ours = palaestra.make_vec(
        env_id,
        NUM_ENVS,
        "sync",
        vector_kwargs={"autoreset_mode": AutoresetMode(autoreset)},
        **kwargs,
    )
    theirs = gymnasium.make_vec(
        env_id,
        NUM_ENVS,
        "sync",
        vector_kwargs={"autoreset_mode": gymnasium.vector.AutoresetMode(autoreset)},
        **kwargs,
    )
    actions = actions_for(theirs.action_space, steps, seed=5)
    disabled = autoreset == "Disabled"
    expected = assert_same_runs(ours, theirs, actions, disabled, "")
    ended = [np.logical_or(r[2], r[3]).any() for r in expected if len(r) == 5]
    assert any(ended) == (env_id != "BipedalWalkerHardcore-v3")  # walkers outlast the run


@pytest.mark.parametrize("mode", ["async", "pool"])
@pytest.mark.parametrize("autoreset", ["NextStep", "SameStep", "Disabled"])
@pytest.mark.parametrize(("env_id", "kwargs", "steps"), CASES, ids=CASE_IDS)
def test_every_mode_steps_exactly_as_sync(env_id, kwargs, steps, autoreset, mode):
    vector_kwargs: dict[str, Any] = {"autoreset_mode": AutoresetMode(autoreset)}
    if mode == "pool":
        vector_kwargs["num_workers"] = 2  # two Box2D worlds in each worker
    sync = palaestra.make_vec(
        env_id,
        NUM_ENVS,
        "sync",
        vector_kwargs={"autoreset_mode": AutoresetMode(autoreset)},
        **kwargs,
    )
    other = palaestra.make_vec(env_id, NUM_ENVS, mode, vector_kwargs=vector_kwargs, **kwargs)
    assert other.metadata["autoreset_mode"] == AutoresetMode(autoreset)
    actions = actions_for(sync.action_space, min(steps, 60), seed=6)
    disabled = autoreset == "Disabled"
    assert_same_runs(other, sync, actions, disabled, f"{mode} ")


@pytest.mark.parametrize("mode", ["sync", "async", "pool"])
@pytest.mark.parametrize("env_id", ["LunarLander-v3", "BipedalWalker-v3", "CarRacing-v3"])
def test_seeded_vector_reset_gives_each_sub_env_the_single_envs_start(env_id, mode):
    envs = palaestra.make_vec(env_id, 3, mode)
    observations, _ = envs.reset(seed=20)
    envs.close()
    for index in range(3):
        single = palaestra.make(env_id)
        np.testing.assert_array_equal(observations[index], single.reset(seed=20 + index)[0])


def test_pool_carries_car_racing_pixels_as_uint8_batches():
    envs = palaestra.make_vec("CarRacing-v3", 4, "pool", vector_kwargs={"num_workers": 2})
    observations, _ = envs.reset(seed=0)
    assert observations.shape == (4, 96, 96, 3)
    assert observations.dtype == np.uint8
    assert envs.single_observation_space == palaestra.make("CarRacing-v3").observation_space
    envs.close()
