"""PoolVectorEnv infos: batched as sync batches them, whichever worker answers first."""

from __future__ import annotations

import functools
import time
from typing import Any

import numpy as np

from palaestra import Env, spaces
from palaestra.vector import PoolVectorEnv, SyncVectorEnv
from tests.speed.conftest import assert_same_trajectory, record


class TypedInfoEnv(Env):
    """Reports ``info["value"]`` as a Python int or float; can be slow to step."""

    metadata = {"render_modes": []}

    def __init__(self, value: int | float, delay: float = 0.0):
        self.value, self.delay = value, delay
        self.observation_space = spaces.Box(0, 1, (1,), np.float32)
        self.action_space = spaces.Discrete(2)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> Any:
        super().reset(seed=seed)
        return np.zeros(1, np.float32), {"value": self.value}

    def step(self, action: Any) -> Any:
        time.sleep(self.delay)
        return np.zeros(1, np.float32), 0.0, False, False, {"value": self.value}


# Row 0 (an int, in the slow worker) decides the dtype, as in a sync vector env.
ENV_FNS = [
    functools.partial(TypedInfoEnv, 1, delay=0.3),
    functools.partial(TypedInfoEnv, 2.5),
]


def test_the_first_rows_worker_decides_an_info_dtype_even_when_it_answers_last():
    pool = PoolVectorEnv(ENV_FNS, num_workers=2)
    try:
        pool.reset(seed=0)
        infos = pool.step(np.array([0, 0]))[-1]
    finally:
        pool.close()
    assert infos["value"].dtype == np.int64
    assert infos["value"].tolist() == [1, 2]


def test_pool_infos_equal_sync_infos_when_the_workers_answer_out_of_order():
    actions = [np.array([0, 1])] * 3
    expected = record(SyncVectorEnv(ENV_FNS), actions)
    assert_same_trajectory(expected, record(PoolVectorEnv(ENV_FNS, num_workers=2), actions))


# Rows 0-1 in one worker, 2-3 in the other; row 2 reports an int, row 3 a float: a sync
# vector env's batch takes row 0's float dtype and keeps row 3's 2.5.
MIXED_ENV_FNS = [functools.partial(TypedInfoEnv, value) for value in (0.5, 0.5, 1, 2.5)]


def test_a_later_groups_first_row_does_not_decide_the_dtype_of_its_other_rows():
    pool = PoolVectorEnv(MIXED_ENV_FNS, num_workers=2)
    try:
        pool.reset(seed=0)
        infos = pool.step(np.array([0, 0, 0, 0]))[-1]
    finally:
        pool.close()
    assert infos["value"].dtype == np.float64
    assert infos["value"].tolist() == [0.5, 0.5, 1.0, 2.5]


def test_pool_infos_of_mixed_python_types_equal_sync_infos():
    actions = [np.array([0, 1, 0, 1])] * 3
    expected = record(SyncVectorEnv(MIXED_ENV_FNS), actions)
    assert_same_trajectory(expected, record(PoolVectorEnv(MIXED_ENV_FNS, num_workers=2), actions))
