"""The compiled step outcomes give the numpy hooks' numbers bit for bit, or decline.

The batched env uses them when numba is installed (the default accelerator), so the
batched-vs-sync tests compare them with the numpy hooks too; these tests add the inputs a
rollout rarely meets (NaN, infinities, signed zeros, forces at the clip bounds).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import palaestra
from tests.envs.mujoco.conftest import random_actions

pytest.importorskip("numba")

from palaestra.envs.mujoco._kernels import PAIRWISE_LIMIT, square_sum_of_row
from palaestra.vector.contract import assert_same, rollout


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_square_sums_equal_numpys_pairwise_sums_at_every_length(dtype):
    rng = np.random.default_rng(0)
    for count in range(1, PAIRWISE_LIMIT + 1):
        values = (rng.standard_normal(count) * 10).astype(dtype)
        expected = np.add.reduce(np.square(values), axis=None)
        total = square_sum_of_row(values, 0, count, dtype(0))
        # A float32 sum leaves numba as a Python float holding it exactly.
        assert float(total) == float(expected) and dtype(total) == total, count


def _batch(env_id: str = "Ant-v5", num_envs: int = 6, **kwargs):
    envs = palaestra.make_vec(env_id, num_envs, accelerator="numba", **kwargs)
    envs.reset(seed=3)
    for action in random_actions(envs.action_space, 3, 5):
        envs.step(action)
    return envs


def _extreme(view: SimpleNamespace) -> SimpleNamespace:
    """A copy of ``view`` with non-finite states and forces at, beyond and between bounds."""
    data = SimpleNamespace(**{name: value.copy() for name, value in vars(view).items()})
    data.qpos[0, 4] = np.nan
    data.qvel[1, 3] = -np.inf
    data.qpos[2, 2], data.qpos[3, 2] = 0.2, 1.0  # the Ant's healthy range's bounds
    data.qpos[4, 0] = -0.0
    if hasattr(data, "cfrc_ext"):
        data.cfrc_ext[4] = np.linspace(-3.0, 3.0, data.cfrc_ext[4].size).reshape(-1, 6)
        data.cfrc_ext[4, 2, :4] = (np.nan, -0.0, -1.0, 1.0)
        data.cfrc_ext[5] = 0.0
    return data


def _assert_outcomes_equal(numpy_outcome, compiled_outcome) -> None:
    assert compiled_outcome is not None
    for ours, theirs in zip(compiled_outcome[:3], numpy_outcome[:3]):
        ours, theirs = np.asarray(ours), np.asarray(theirs)
        assert ours.dtype == theirs.dtype
        np.testing.assert_array_equal(ours, theirs, strict=True)
    assert list(compiled_outcome[3]) == list(numpy_outcome[3])
    for key, theirs in numpy_outcome[3].items():
        ours, theirs = compiled_outcome[3][key], np.asarray(theirs)
        np.testing.assert_array_equal(ours, theirs, strict=True, err_msg=key)
        np.testing.assert_array_equal(np.signbit(ours), np.signbit(theirs), err_msg=key)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("extreme", [False, True], ids=["rollout", "extreme"])
@pytest.mark.parametrize("env_id", ["Ant-v5", "HalfCheetah-v5", "Humanoid-v5"])
def test_compiled_outcome_equals_the_numpy_hooks(env_id, dtype, extreme):
    envs = _batch(env_id)
    env, view = envs.single_env, envs.view
    before = env._progress(view) + 0.01
    data = _extreme(view) if extreme else view
    actions = random_actions(envs.action_space, 4, 1)[0].astype(dtype)
    _assert_outcomes_equal(
        env._observe_outcome(data, before, actions),
        env._compiled_observe_outcome(data, before, actions),
    )
    envs.close()


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        ("Ant-v5", {"exclude_current_positions_from_observation": False}),
        ("Ant-v5", {"include_cfrc_ext_in_observation": False, "terminate_when_unhealthy": False}),
        (
            "Ant-v5",
            {"contact_force_range": (-0.5, 2), "ctrl_cost_weight": 2, "forward_reward_weight": 3},
        ),
        ("Humanoid-v5", {"exclude_current_positions_from_observation": False}),
        (
            "Humanoid-v5",
            {"include_cinert_in_observation": False, "include_cfrc_ext_in_observation": False},
        ),
        (
            "Humanoid-v5",
            {
                "include_cvel_in_observation": False,
                "include_qfrc_actuator_in_observation": False,
                "contact_cost_range": (-1.0, 1e-4),
                "terminate_when_unhealthy": False,
            },
        ),
    ],
)
def test_compiled_outcome_equals_the_numpy_hooks_for_other_options(env_id, kwargs):
    envs = _batch(env_id, **kwargs)
    env, view = envs.single_env, envs.view
    data, before = _extreme(view), env._progress(view)
    actions = random_actions(envs.action_space, 5, 1)[0]
    _assert_outcomes_equal(
        env._observe_outcome(data, before, actions),
        env._compiled_observe_outcome(data, before, actions),
    )
    envs.close()


@pytest.mark.parametrize(
    ("env_id", "kwargs", "dtype"),
    [
        ("Ant-v5", {"contact_force_range": (0.0, 1.0)}, np.float32),  # signed-zero ties
        ("Ant-v5", {"healthy_reward": 1}, np.float32),  # numpy pays an int reward as ints
        ("Ant-v5", {"ctrl_cost_weight": np.float64(0.5)}, np.float32),  # float64 costs
        ("Ant-v5", {}, np.float16),
        ("HalfCheetah-v5", {"forward_reward_weight": np.float64(1.0)}, np.float32),
        ("HalfCheetah-v5", {}, np.int64),
        ("Humanoid-v5", {"contact_cost_range": (-np.inf, 0.0)}, np.float32),
        ("Humanoid-v5", {"healthy_reward": 5}, np.float32),
    ],
)
def test_compiled_outcome_declines_settings_it_does_not_cover(env_id, kwargs, dtype):
    envs = _batch(env_id, **kwargs)
    env, view = envs.single_env, envs.view
    actions = random_actions(envs.action_space, 6, 1)[0].astype(dtype)
    assert env._compiled_observe_outcome(view, env._progress(view), actions) is None
    envs.close()


def test_numpy_and_numba_batches_give_the_same_rollout():
    numba_envs = palaestra.make_vec("Ant-v5", 3, accelerator="numba", max_episode_steps=7)
    numpy_envs = palaestra.make_vec("Ant-v5", 3, accelerator="numpy", max_episode_steps=7)
    assert numba_envs._compiled_advance is not None and numpy_envs._compiled_advance is None
    actions = list(random_actions(numba_envs.action_space, 8, 16))
    assert_same(rollout(numba_envs, actions), rollout(numpy_envs, actions))
    numba_envs.close()
    numpy_envs.close()


def test_version_4_tasks_have_no_compiled_outcome():
    for env_id in ("Ant-v4", "HalfCheetah-v4", "Humanoid-v4"):
        envs = palaestra.make_vec(env_id, 2, accelerator="numba")
        assert envs._compiled_advance is None
        envs.close()
