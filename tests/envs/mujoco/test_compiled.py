"""The compiled step outcomes are the tasks' own functions and give the numpy path's bits.

numba compiles each task's ``step_outcome`` (the function the single env and the numpy batch
run) into a loop over rows. The stand-ins it uses for the array helpers round as numpy does;
the batched env keeps the compiled outcome for a kind of settings only once it has given the
numpy hooks' dtypes and values, and declines settings where numpy's result depends on more
than the numbers. These tests add the inputs a rollout rarely meets (NaN, infinities, signed
zeros, values at the bounds) and a move from numpy to numba in the middle of an episode.
"""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import palaestra
from palaestra.vector.contract import assert_same, rollout
from tests.envs.mujoco.conftest import random_actions

pytest.importorskip("numba")

from palaestra.envs.mujoco import _task
from palaestra.envs.mujoco._compiled import PAIRWISE_BLOCK, pairwise_square_sum
from palaestra.envs.mujoco._humanoid import mass_center_of
from palaestra.vector.native.compiled import njit

COMPILED_IDS = [
    *(f"{name}-v{version}" for name in ("HalfCheetah", "Hopper", "Walker2d", "Swimmer")
      for version in (4, 5)),
    "Ant-v5",
    "Humanoid-v5",
    "InvertedPendulum-v5",
    "InvertedPendulum-v4",
]  # fmt: skip
# The default suite's share (each new kind of settings compiles for seconds); the rest is slow.
FAST_IDS = ["Ant-v5", "Hopper-v5", "Humanoid-v5"]
NUMPY_ONLY_IDS = ["Ant-v4", "Humanoid-v4", "HumanoidStandup-v5", "Reacher-v5"]
MODES = ("NextStep", "SameStep", "Disabled")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_square_sums_equal_numpys_pairwise_sums_at_every_length(dtype):
    rng = np.random.default_rng(0)
    for count in range(1, PAIRWISE_BLOCK + 1):
        values = (rng.standard_normal(count) * 10).astype(dtype)
        expected = np.add.reduce(np.square(values), axis=None)
        total = pairwise_square_sum(values, dtype(0))
        assert float(total) == float(expected) and dtype(total) == total, count


def test_a_sum_longer_than_one_pairwise_block_is_refused():
    with pytest.raises(ValueError, match="longer than one pairwise block"):
        pairwise_square_sum(np.ones(PAIRWISE_BLOCK + 1), 0.0)


def test_compiled_norms_equal_numpys():
    rng = np.random.default_rng(1)
    vectors = rng.standard_normal((20000, 3)) * 5
    row_norm = njit(lambda v: _task.norm(v))
    assert all(row_norm(v) == expected for v, expected in zip(vectors, _task.norm(vectors)))


def test_compiled_mass_centres_equal_numpys():
    rng = np.random.default_rng(2)
    mass = rng.random(14) * 8
    positions = rng.standard_normal((2000, 14, 3))
    row_centre = njit(lambda m, x: mass_center_of(m, x))
    expected = mass_center_of(mass, positions)
    assert all(np.array_equal(row_centre(mass, x), e) for x, e in zip(positions, expected))


def _batch(env_id: str, num_envs: int = 6, **kwargs):
    envs = palaestra.make_vec(env_id, num_envs, accelerator="numba", **kwargs).unwrapped
    envs.reset(seed=3)
    for action in random_actions(envs.action_space, 3, 5):
        envs.step(action)
    return envs


def _extreme(envs) -> SimpleNamespace:
    """The batch's fields with non-finite states and values at, beyond and between bounds."""
    data = SimpleNamespace(**{name: value.copy() for name, value in vars(envs.view).items()})
    data.qpos[0, -1] = np.nan
    data.qvel[1, -1] = -np.inf
    if data.qpos.shape[1] > 2:
        data.qpos[2, 2], data.qpos[3, 2] = 0.2, 1.0  # the Ant's healthy range's bounds
    else:
        data.qpos[2, 1], data.qpos[3, 1] = 0.2, -0.2  # the pendulum's angle limits
    data.qpos[4, 0] = -0.0
    data.qvel[5, 0] = 10.0  # the walkers' velocity clip
    if hasattr(data, "cfrc_ext"):
        data.cfrc_ext[4] = np.linspace(-3.0, 3.0, data.cfrc_ext[4].size).reshape(-1, 6)
        data.cfrc_ext[4, 2, :4] = (np.nan, -0.0, -1.0, 1.0)
        data.cfrc_ext[5] = 0.0
    return data


def _both_outcomes(envs, data, actions):
    """The numpy hook's and the compiled loop's outcome of ``data`` (every row)."""
    env = envs.single_env
    before = env._progress(data)
    before = None if before is None else before + 0.01
    settings = env.settings()
    expected = env._observe_outcome(data, before, actions)
    kinds = tuple((np.asarray(v).dtype, np.shape(v)[1:]) for v in expected[3].values())
    outputs = envs._compiled_outputs(kinds)
    names = tuple(sorted(vars(data)))
    fields = _task.named_tuple_class(names)(*[getattr(data, n) for n in names])
    rows = envs.compile_advance()
    rows(np.arange(envs.num_envs), settings, fields, before, actions, *outputs)
    return expected, outputs


def _assert_outcomes_equal(expected, outputs) -> None:
    observations, rewards, terminations, infos = outputs
    np.testing.assert_array_equal(observations, expected[0], strict=True)
    np.testing.assert_array_equal(rewards, np.asarray(expected[1], dtype=np.float64))
    np.testing.assert_array_equal(terminations, np.broadcast_to(expected[2], len(rewards)))
    for (key, theirs), ours in zip(expected[3].items(), infos):
        theirs = np.asarray(theirs)
        np.testing.assert_array_equal(ours, theirs, strict=True, err_msg=key)
        np.testing.assert_array_equal(np.signbit(ours), np.signbit(theirs), err_msg=key)


def _slow_unless_fast(env_id: str, dtype: Any = np.float32) -> Any:
    fast = env_id in FAST_IDS and dtype is np.float32
    return pytest.param(env_id, dtype, marks=[] if fast else [pytest.mark.slow])


@pytest.mark.parametrize("extreme", [False, True], ids=["rollout", "extreme"])
@pytest.mark.parametrize(
    ("env_id", "dtype"),
    [_slow_unless_fast(i, d) for i in COMPILED_IDS for d in (np.float32, np.float64)],
)
def test_compiled_outcome_equals_the_numpy_hook(env_id, extreme, dtype):
    envs = _batch(env_id)
    data = _extreme(envs) if extreme else envs.view
    actions = random_actions(envs.action_space, 4, 1)[0].astype(dtype)
    _assert_outcomes_equal(*_both_outcomes(envs, data, actions))
    envs.close()


OPTIONS = [
    ("Ant-v5", {"exclude_current_positions_from_observation": False}),
    ("Ant-v5", {"include_cfrc_ext_in_observation": False, "terminate_when_unhealthy": False}),
    ("Ant-v5", {"contact_force_range": (-0.5, 2), "ctrl_cost_weight": 2, "healthy_reward": 1}),
    ("Hopper-v5", {"healthy_state_range": (-1.0, 1.0), "terminate_when_unhealthy": False}),
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
            "healthy_reward": 5,
        },
    ),
]


# The first case in the default suite, the others slow.
@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [OPTIONS[0], *(pytest.param(*case, marks=pytest.mark.slow) for case in OPTIONS[1:])],
)
def test_compiled_outcome_equals_the_numpy_hook_for_other_options(env_id, kwargs):
    envs = _batch(env_id, **kwargs)
    actions = random_actions(envs.action_space, 5, 1)[0]
    _assert_outcomes_equal(*_both_outcomes(envs, _extreme(envs), actions))
    envs.close()


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        ("Ant-v5", {"contact_force_range": (0.0, 1.0)}),  # signed-zero ties
        ("Humanoid-v5", {"contact_cost_range": (-np.inf, 0.0)}),
        ("HalfCheetah-v5", {"ctrl_cost_weight": np.float64(0.1)}),  # numpy costs in float64
    ],
)
def test_the_batch_keeps_the_numpy_hooks_for_settings_the_compiled_outcome_differs_on(
    env_id, kwargs
):
    envs = _batch(env_id, **kwargs)
    assert list(envs._checked.values()) == [None]
    envs.close()


@pytest.mark.parametrize(
    "env_id",
    [i if i in FAST_IDS else pytest.param(i, marks=pytest.mark.slow) for i in COMPILED_IDS],
)
def test_the_batch_takes_the_compiled_outcome_after_one_checked_step(env_id):
    envs = _batch(env_id)
    assert [kinds is not None for kinds in envs._checked.values()] == [True]
    envs.close()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "env_id",
    [
        "Hopper-v5",
        *(pytest.param(i, marks=pytest.mark.slow) for i in ("Ant-v5", "Humanoid-v5", "Swimmer-v4")),
    ],
)
def test_numpy_and_numba_batches_give_the_same_rollout(env_id, mode):
    def make(accelerator):
        return palaestra.make_vec(
            env_id, 3, accelerator=accelerator, max_episode_steps=7, autoreset_mode=mode
        )

    actions = list(random_actions(make("numpy").action_space, 8, 16))
    assert_same(rollout(make("numba"), actions), rollout(make("numpy"), actions))


@pytest.mark.parametrize("mode", MODES)
def test_moving_to_numba_in_the_middle_of_an_episode_changes_nothing(mode):
    def make():
        return palaestra.make_vec(
            "Hopper-v5", 3, accelerator="numpy", max_episode_steps=7, autoreset_mode=mode
        )

    actions = list(random_actions(make().action_space, 9, 16))
    moving = make()

    class Moving:
        """Moves the env to numba after its fifth step, mid-episode."""

        def __getattr__(self, name):
            return getattr(moving, name)

        def step(self, action):
            result = moving.step(action)
            if moving.unwrapped.elapsed_steps.max() == 5:
                moving.unwrapped.use_compiled_path()
            return result

    assert_same(rollout(Moving(), actions), rollout(make(), actions))
    assert moving.unwrapped.accelerator == "numba"


@pytest.mark.parametrize("env_id", NUMPY_ONLY_IDS)
def test_tasks_without_a_step_function_keep_the_numpy_hooks(env_id):
    envs = palaestra.make_vec(env_id, 2, accelerator="numba").unwrapped
    assert not envs.has_compiled_dynamics() and envs._compiled_advance is None
    envs.close()


def test_the_default_accelerator_does_not_import_numba_for_a_short_run():
    script = (
        "import sys, numpy as np, palaestra\n"
        "envs = palaestra.make_vec('HalfCheetah-v5', 2)\n"
        "envs.reset(seed=0)\n"
        "for _ in range(20): envs.step(np.zeros((2, 6), np.float32))\n"
        "print('numba' in sys.modules, envs.unwrapped.accelerator)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["False", "numpy"]
