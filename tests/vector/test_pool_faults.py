"""PoolVectorEnv under the faults of issue 28: each test failed before its fix.

A pool must end every test closed with nothing left behind (the ``no_leaks`` fixture), and
a healthy sub-env's data must be what a sync vector env of the same envs returns.
"""

from __future__ import annotations

import functools
import multiprocessing

import numpy as np
import pytest

from palaestra.error import WorkerError
from palaestra.vector import AsyncVectorEnv, PoolVectorEnv
from tests.fixtures.leaks import leaks, snapshot
from tests.vector.helpers import BrokenEnv, healthy_env

pytestmark = [pytest.mark.usefixtures("no_leaks"), pytest.mark.timeout(60)]

HANGING = functools.partial(BrokenEnv, hang_seconds=60)


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
