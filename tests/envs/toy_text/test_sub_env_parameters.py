"""Per-sub-env constructor arguments on the batched toy-text envs.

The reference is a sync vector env whose sub-env ``i`` is the single env built with value
``i`` of every argument: a native batch given the same values (``make_vec`` keyword arrays
or ``set_attr``) returns the same trajectory, infos and types included, in every autoreset
mode and on both of its paths (row by row on Generators, whole columns on array streams).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import palaestra
from palaestra.envs.toy_text._streams import TableStreams
from palaestra.vector import AutoresetMode
from palaestra.vector.contract import assert_same, rollout
from tests.envs.toy_text.test_vector import assert_same_run

NUM_ENVS = 4
# Rows 0 and 3 share their values: every batch mixes shared and differing parameter sets.
VALUES: dict[str, dict[str, list[Any]]] = {
    "FrozenLake-v1": {
        "is_slippery": [True, False, True, True],
        "success_rate": [1.0 / 3.0, 0.5, 0.9, 1.0 / 3.0],
    },
    "CliffWalking-v1": {"is_slippery": [False, True, True, False]},
    "Taxi-v4": {
        "is_rainy": [False, True, True, False],
        "rainy_probability": [0.8, 0.6, 0.8, 0.8],
        "fickle_passenger": [True, False, True, True],
        "fickle_probability": [0.9, 0.3, 0.5, 0.9],
    },
    "Blackjack-v1": {"natural": [False, True, True, False], "sab": [True, False, False, True]},
}
PATHS = pytest.mark.parametrize("use_arrays", [False, True], ids=["generators", "arrays"])


def _row(values: dict[str, list[Any]], index: int) -> dict[str, Any]:
    return {name: column[index] for name, column in values.items()}


def _sync_built_with(env_id: str, values: dict[str, list[Any]], mode: AutoresetMode) -> Any:
    """A sync vector env whose sub-env ``i`` is built with row ``i`` of ``values``."""
    num_envs = len(next(iter(values.values())))
    return palaestra.vector.SyncVectorEnv(
        [lambda i=i: palaestra.make(env_id, **_row(values, i)) for i in range(num_envs)],
        autoreset_mode=mode,
    )


def _native(env_id: str, num_envs: int, mode: AutoresetMode, use_arrays: bool, **kwargs: Any):
    envs = palaestra.make_vec(env_id, num_envs, autoreset_mode=mode, **kwargs)
    envs.use_streams(TableStreams(num_envs, use_arrays=use_arrays))
    return envs


@PATHS
@pytest.mark.parametrize("mode", list(AutoresetMode), ids=lambda mode: mode.value)
@pytest.mark.parametrize("env_id", list(VALUES))
def test_make_vec_values_per_sub_env_match_single_envs_each_built_with_its_own(
    env_id, mode, use_arrays
):
    values = VALUES[env_id]
    native = _native(env_id, NUM_ENVS, mode, use_arrays, **values)
    assert_same_run(_sync_built_with(env_id, values, mode), native, seed=3, steps=150, mode=mode)


@PATHS
@pytest.mark.parametrize("env_id", list(VALUES))
def test_set_attr_before_reset_matches_single_envs_each_built_with_its_own(env_id, use_arrays):
    values = VALUES[env_id]
    native = _native(env_id, NUM_ENVS, AutoresetMode.NEXT_STEP, use_arrays)
    for name, column in values.items():
        native.set_attr(name, column)
    sync = _sync_built_with(env_id, values, AutoresetMode.NEXT_STEP)
    assert_same_run(sync, native, seed=5, steps=150, mode=AutoresetMode.NEXT_STEP)


def _rebuild(env: Any, values: dict[str, Any]) -> None:
    """Give a single env ``values`` as if it had been built with them, keeping its state."""
    unwrapped = env.unwrapped
    for name, value in values.items():
        setattr(unwrapped, name, value)
    if hasattr(unwrapped, "P"):
        unwrapped.P = type(unwrapped)(**values).P


@PATHS
@pytest.mark.parametrize("env_id", list(VALUES))
def test_set_attr_mid_run_steps_each_sub_env_as_built_with_its_value_from_then_on(
    env_id, use_arrays
):
    values = VALUES[env_id]
    sync = palaestra.make_vec(env_id, NUM_ENVS, vectorization_mode="sync")
    native = _native(env_id, NUM_ENVS, AutoresetMode.NEXT_STEP, use_arrays)
    assert_same_run(sync, native, seed=7, steps=30, mode=AutoresetMode.NEXT_STEP)
    for index, env in enumerate(sync.envs):
        _rebuild(env, _row(values, index))
    for name, column in values.items():
        native.set_attr(name, column)
    rng = np.random.default_rng(11)
    for step in range(150):
        actions = rng.integers(0, sync.single_action_space.n, NUM_ENVS)
        expected = sync.step(actions)
        observed = native.step(actions)
        for mine, theirs in zip(observed[:4], expected[:4], strict=True):
            np.testing.assert_array_equal(np.asarray(mine), np.asarray(theirs), f"step {step}")


@pytest.mark.parametrize(
    ("env_id", "ranges"),
    [
        ("FrozenLake-v1", {"is_slippery": [True, False], "success_rate": [0.2, 0.5, 0.95]}),
        ("Taxi-v4", {"is_rainy": [True, False], "fickle_passenger": [True, False]}),
        ("Blackjack-v1", {"natural": [True, False], "sab": [True, False]}),
    ],
)
def test_many_sub_envs_drawn_at_random_match_single_envs(env_id, ranges):
    # Domain randomisation on the column path: 64 rows, values drawn per row.
    rng = np.random.default_rng(8)
    values = {name: rng.choice(choices, 64).tolist() for name, choices in ranges.items()}
    native = palaestra.make_vec(env_id, 64, **values)
    assert not native.row_by_row
    sync = _sync_built_with(env_id, values, AutoresetMode.NEXT_STEP)
    assert_same_run(sync, native, seed=2, steps=60, mode=AutoresetMode.NEXT_STEP)


def test_get_attr_returns_each_sub_env_value():
    envs = palaestra.make_vec("Taxi-v4", 3, is_rainy=[True, False, True])
    assert envs.get_attr("is_rainy") == (True, False, True)


def test_one_value_for_every_sub_env_keeps_the_shared_table():
    envs = palaestra.make_vec("FrozenLake-v1", 3, is_slippery=[False, False, False])
    assert envs.row_values == {}
    assert envs.get_attr("is_slippery") == (False, False, False)
    sync = palaestra.make_vec("FrozenLake-v1", 3, vectorization_mode="sync", is_slippery=False)
    assert_same_run(sync, envs, seed=0, steps=40, mode=AutoresetMode.NEXT_STEP)


@pytest.mark.parametrize(
    ("name", "values", "message"),
    [
        ("is_slippery", [True, 1, True], r"got 1 \(int\) for sub-env 1; expected a bool"),
        ("success_rate", [0.5, 0.5, 1.5], r"got 1.5 \(float\) for sub-env 2; expected a prob"),
        ("success_rate", [0.5, "0.5", 0.5], r"got '0.5' \(str\) for sub-env 1"),
    ],
)
def test_set_attr_refuses_a_value_the_argument_does_not_take(name, values, message):
    envs = palaestra.make_vec("FrozenLake-v1", 3)
    with pytest.raises(ValueError, match=message):
        envs.set_attr(name, values)


def test_make_vec_refuses_a_list_of_the_wrong_length():
    with pytest.raises(ValueError, match="3"):
        palaestra.make_vec("CliffWalking-v1", 3, is_slippery=[True, False])


@pytest.mark.parametrize("env_id", ["Taxi-v4", "Blackjack-v1"])
def test_values_per_sub_env_reach_a_pool_s_native_groups(env_id):
    values = VALUES[env_id]
    pool = palaestra.make_vec(
        env_id, NUM_ENVS, vectorization_mode="pool", vector_kwargs={"num_workers": 2}, **values
    )
    try:
        assert pool.get_attr(next(iter(values))) == tuple(next(iter(values.values())))
        actions = [np.random.default_rng(step).integers(0, 2, NUM_ENVS) for step in range(80)]
        expected = rollout(_sync_built_with(env_id, values, AutoresetMode.NEXT_STEP), actions, 3)
        assert_same(rollout(pool, actions, 3), expected, env_id)
    finally:
        pool.close()
