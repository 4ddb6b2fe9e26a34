"""The batched MuJoCo env's steppers under Ctrl-C and a close from another thread.

Both must keep their hand-over between threads intact: no ``release unlocked lock`` in a
helper thread, no step or close that blocks for ever, and a ``ClosedEnvironmentError`` (not
an ``AttributeError``) for a step that a close cut short.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import palaestra
from palaestra.envs.mujoco._simulations import _Helper
from palaestra.error import ClosedEnvironmentError
from tests.vector.helpers import assert_same, ctrl_c_after

pytestmark = [pytest.mark.usefixtures("no_leaks"), pytest.mark.timeout(120)]

STEPPERS = ["threads", "batch"]


def ant_envs(stepper: str):
    # Ant reads contact forces: the batch stepper then computes them after each step.
    return palaestra.make_vec(
        "Ant-v5", 16, vectorization_mode="vector_entry_point", stepper=stepper, num_threads=2
    )


@pytest.fixture
def thread_errors(monkeypatch):
    """The exceptions that escape any thread (a helper's ``release unlocked lock``, say)."""
    caught: list[BaseException] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: caught.append(args.exc_value))
    return caught


@pytest.mark.parametrize("stepper", STEPPERS)
def test_a_close_from_another_thread_ends_the_stepping_thread_with_closed_environment_error(
    stepper, thread_errors
):
    envs = ant_envs(stepper)
    envs.reset(seed=0)
    actions = np.zeros(envs.action_space.shape)
    raised: list[BaseException] = []
    stepping = threading.Event()

    def step_until_closed():
        try:
            while True:
                envs.step(actions)
                stepping.set()
        except BaseException as error:
            raised.append(error)

    thread = threading.Thread(target=step_until_closed)
    thread.start()
    assert stepping.wait(30)
    time.sleep(0.05)
    envs.close()
    thread.join(10)
    assert not thread.is_alive()
    assert [type(error) for error in raised] == [ClosedEnvironmentError]
    assert thread_errors == []


def test_a_helper_wait_cut_short_by_ctrl_c_is_finished_before_the_next_task(thread_errors):
    helper = _Helper("mujoco-step-test")
    ran: list[int] = []
    helper.start(lambda: (time.sleep(0.3), ran.append(1)))
    with pytest.raises(KeyboardInterrupt), ctrl_c_after(0.05):
        helper.wait()
    # The next task starts after the interrupted one ended, and its wait is its own.
    helper.start(lambda: (time.sleep(0.1), ran.append(2)))
    helper.wait()
    assert ran == [1, 2]
    helper.stop()
    assert thread_errors == []


def test_a_threads_step_cut_short_by_ctrl_c_leaves_the_env_stepping_as_a_fresh_one(thread_errors):
    envs = ant_envs("threads")
    envs.reset(seed=0)
    actions = np.full(envs.action_space.shape, 0.1)
    with pytest.raises(KeyboardInterrupt), ctrl_c_after(0.01):
        while True:
            envs.step(actions)
    fresh = ant_envs("threads")
    assert_same(envs.reset(seed=1), fresh.reset(seed=1))
    for _ in range(5):
        assert_same(envs.step(actions), fresh.step(actions))
    envs.close()
    fresh.close()
    assert thread_errors == []
