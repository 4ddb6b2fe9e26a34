"""PoolVectorEnv start-up: workers hosting plain sub-envs never load the numba accelerator."""

from __future__ import annotations

import functools
import pathlib
import sys

import pytest

import palaestra as gym
from palaestra.vector import PoolVectorEnv
from palaestra.wrappers import RecordEpisodeStatistics


def _loads_numba(pid: int) -> bool:
    return "numba" in pathlib.Path(f"/proc/{pid}/maps").read_text()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/<pid>/maps")
def test_spawned_workers_of_plain_sub_envs_do_not_load_numba():
    pytest.importorskip("numba")
    envs = gym.make_vec(
        "CartPole-v1",
        2,
        vectorization_mode="pool",
        vector_kwargs={"num_workers": 2, "context": "spawn"},
        wrappers=[RecordEpisodeStatistics],  # single envs: no natively batched group
    )
    try:
        envs.reset(seed=0)
        assert [_loads_numba(p.pid) for p in envs._processes.processes] == [False, False]
    finally:
        envs.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/<pid>/maps")
def test_spawned_workers_of_sub_env_functions_do_not_load_numba():
    pytest.importorskip("numba")
    envs = PoolVectorEnv(
        [functools.partial(gym.make, "Acrobot-v1")] * 2, num_workers=2, context="spawn"
    )
    try:
        envs.reset(seed=0)
        assert [_loads_numba(p.pid) for p in envs._processes.processes] == [False, False]
    finally:
        envs.close()
