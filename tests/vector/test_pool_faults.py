"""PoolVectorEnv under the faults of issue 28: each test failed before its fix.

A pool must end every test closed with nothing left behind (the ``no_leaks`` fixture), and
a healthy sub-env's data must be what a sync vector env of the same envs returns.
"""

from __future__ import annotations

import functools
import multiprocessing

import gymnasium
import numpy as np
import pytest

import palaestra
from palaestra.error import ResetNeeded, WorkerError
from palaestra.vector import AsyncVectorEnv, PoolVectorEnv, SyncVectorEnv
from tests.fixtures.leaks import leaks, snapshot
from tests.vector.helpers import BrokenEnv, healthy_env

pytestmark = [pytest.mark.usefixtures("no_leaks"), pytest.mark.timeout(60)]

HANGING = functools.partial(BrokenEnv, hang_seconds=60)


def _pool(env_fns, **kwargs) -> PoolVectorEnv:
    """A pool of two workers: sub-envs [0, 1] and [2, 3] for four."""
    return PoolVectorEnv(env_fns, num_workers=2, **kwargs)


def test_a_timed_out_pool_step_then_close_releases_every_descriptor_while_the_env_is_kept():
    before = snapshot()
    envs = PoolVectorEnv([healthy_env, HANGING], num_workers=2, timeout=0.3)
    envs.reset(seed=0)
    with pytest.raises(WorkerError, match="hung"):
        envs.step(np.zeros(2, dtype=np.int64))
    envs.close()
    # The closed env is still referenced here: what it held must be released by close().
    assert leaks(before) == {}


def test_a_timed_out_async_step_then_close_releases_every_descriptor_while_the_env_is_kept():
    before = snapshot()
    envs = AsyncVectorEnv([healthy_env, HANGING], context="fork")
    envs.reset(seed=0)
    envs.step_async(np.zeros(2, dtype=np.int64))
    with pytest.raises(multiprocessing.TimeoutError):
        envs.step_wait(timeout=0.3)
    envs.close()
    assert leaks(before) == {}


def cartpole() -> palaestra.Env:
    return palaestra.make("CartPole-v1")


def native_cartpole_pool() -> PoolVectorEnv:
    return palaestra.make_vec(
        "CartPole-v1",
        4,
        vectorization_mode="pool",
        vector_kwargs={"num_workers": 2, "batch_size": 2},
        accelerator="numpy",
    )


def test_send_before_any_reset_raises_reset_needed_and_the_pool_stays_usable():
    envs = native_cartpole_pool()
    with pytest.raises(ResetNeeded, match=r"send\(\) before any reset"):
        envs.send(np.zeros(2, dtype=np.int64), env_ids=np.array([0, 1]))
    reference = palaestra.make_vec("CartPole-v1", 4, accelerator="numpy")
    np.testing.assert_array_equal(envs.reset(seed=0)[0], reference.reset(seed=0)[0])
    actions = np.array([0, 1, 1, 0])
    np.testing.assert_array_equal(envs.step(actions)[0], reference.step(actions)[0])
    envs.close()
    reference.close()


def test_a_step_before_reset_raises_the_sub_envs_reset_needed_and_the_workers_survive():
    envs = _pool([cartpole] * 4)
    with pytest.raises(ResetNeeded, match="its worker keeps running"):
        envs.step(np.zeros(4, dtype=np.int64))
    reference = SyncVectorEnv([cartpole] * 4)
    np.testing.assert_array_equal(envs.reset(seed=0)[0], reference.reset(seed=0)[0])
    envs.close()
    reference.close()


def test_a_sub_envs_step_error_names_that_sub_env_not_its_groups_first():
    failing = functools.partial(BrokenEnv, fail_in="step")
    envs = _pool([healthy_env] * 3 + [failing])
    envs.reset(seed=0)
    with pytest.raises(ValueError) as caught:
        envs.step(np.zeros(4, dtype=np.int64))
    assert caught.value.env_index == 3
    assert "Raised in sub-environment 3, one of sub-environments [2, 3] (pool worker 1)" in str(
        caught.value
    )
    envs.close()


def test_a_sub_envs_constructor_error_names_that_sub_env():
    failing = functools.partial(BrokenEnv, fail_in="init")
    with pytest.raises(ValueError) as caught:
        _pool([healthy_env] * 3 + [failing])
    assert caught.value.env_index == 3


def frozen_lake() -> palaestra.Env:
    return palaestra.make("FrozenLake-v1")


@pytest.mark.parametrize("build", [_pool, functools.partial(AsyncVectorEnv, context="fork")])
def test_a_key_error_from_a_sub_env_reads_as_text_with_the_details_as_a_note(build):
    envs = build([frozen_lake] * 4)
    envs.reset(seed=0)
    reference = gymnasium.make("FrozenLake-v1")
    reference.reset(seed=0)
    with pytest.raises(KeyError) as theirs:
        reference.step(7)
    with pytest.raises(KeyError) as caught:
        envs.step(np.array([0, 0, 0, 7]))
    # Not the repr of a message holding the traceback: the sub-env's own message, and the
    # rest as a note, which a traceback prints line by line.
    assert str(theirs.value) in str(caught.value)
    assert "\\n" not in str(caught.value)
    assert caught.value.env_index == 3
    (note,) = caught.value.__notes__
    assert note.startswith("Raised in sub-environment 3")
    assert "Traceback (most recent call last):\n" in note
    envs.close()


def test_recv_after_async_reset_gives_each_reset_row_reward_zero_and_no_episode_end():
    envs = native_cartpole_pool()
    envs.reset(seed=0)
    envs.step(np.zeros(4, dtype=np.int64))  # every row now holds reward 1.0
    envs.async_reset(seed=1)
    for _ in range(2):
        _, rewards, terminations, truncations, _ = envs.recv()
        assert rewards.tolist() == [0.0, 0.0]
        assert terminations.tolist() == truncations.tolist() == [False, False]
    envs.close()
