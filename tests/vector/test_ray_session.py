"""The Ray session of the "ray" mode: who shuts it down, and a ``ray.shutdown()`` mid-run.

Each test starts (and ends) a Ray of its own, which takes seconds: they are slow-marked.
"""

from __future__ import annotations

import threading

import numpy as np
import psutil
import pytest

import palaestra as gym
from palaestra.error import WorkerError

ray = pytest.importorskip("ray")
from palaestra.vector.ray import RayVectorEnv  # noqa: E402
from tests.fixtures.leaks import ray_processes  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

RAY_INIT = {"num_cpus": 4, "include_dashboard": False, "log_to_driver": False}


def _ray_gone(seconds: float = 30.0) -> bool:
    _, alive = psutil.wait_procs(ray_processes(), timeout=seconds)
    return not alive


def cartpoles(**kwargs) -> RayVectorEnv:
    return RayVectorEnv(
        [lambda: gym.make("CartPole-v1")] * 4,
        num_workers=2,
        address="local",  # a Ray of its own, not one another process runs on this machine
        ray_init_kwargs=RAY_INIT,
        **kwargs,
    )


@pytest.fixture(autouse=True)
def no_ray_running():
    if ray.is_initialized():
        ray.shutdown()
    yield
    if ray.is_initialized():
        ray.shutdown()


def test_a_ray_the_vector_envs_started_is_shut_down_by_the_last_close():
    # timeout is the commands' budget only: the actors' start-up takes far longer than 0.05 s.
    first, second = cartpoles(timeout=0.05), cartpoles(timeout=0.05)
    first.close()
    assert ray.is_initialized()
    second.reset(seed=0)
    second.close()
    assert not ray.is_initialized()
    assert _ray_gone()


def test_a_ray_found_running_is_left_running_by_close():
    ray.init(address="local", **RAY_INIT)
    envs = cartpoles()
    envs.close()
    assert ray.is_initialized()


def test_a_ray_shutdown_while_a_thread_steps_fails_the_step_starts_no_ray_and_close_is_quiet():
    envs = cartpoles()
    envs.reset(seed=0)
    raised: list[BaseException] = []
    stepping = threading.Event()

    def step_on():
        try:
            while True:
                envs.step(np.zeros(4, dtype=np.int64))
                stepping.set()
        except BaseException as error:
            raised.append(error)

    thread = threading.Thread(target=step_on)
    thread.start()
    assert stepping.wait(60)
    ray.shutdown()
    thread.join(60)
    assert not thread.is_alive()
    assert [type(error) for error in raised] == [WorkerError]
    # Nothing started a new local Ray meanwhile, and close() has nothing left to do.
    assert not ray.is_initialized()
    envs.close()
    assert not ray.is_initialized()
    assert _ray_gone()
