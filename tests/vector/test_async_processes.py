"""The process layer shared by AsyncVectorEnv and the pool (palaestra.vector.processes)."""

from __future__ import annotations

import multiprocessing
import threading
import time

import numpy as np
import pytest

from palaestra.spaces import Box, Discrete
from palaestra.vector.processes import (
    RestartBudget,
    Workers,
    answer,
    failure_report,
    is_argument_error,
    rebuild_exception,
)
from tests.vector.helpers import TwoArgumentError

pytestmark = [pytest.mark.usefixtures("no_leaks"), pytest.mark.timeout(60)]


@pytest.mark.parametrize(
    ("command", "data", "expected"),
    [
        ("step", 1, False),
        ("step", 2, True),
        ("step", 0.5, True),
        ("reset", {"seed": 3, "options": None}, False),
        ("reset", {"seed": None, "options": None}, False),
        ("reset", {"seed": -1, "options": None}, True),
        ("reset", {"seed": [0, "x"], "options": None}, True),
        ("_call", ("anything", (), {}), True),
        ("_setattr", ("name", 1), True),
    ],
)
def test_argument_errors_are_told_from_environment_failures(command, data, expected):
    assert is_argument_error(command, data, Discrete(2)) is expected


def test_a_batch_action_outside_a_batched_space_is_an_argument_error():
    space = Box(-1, 1, (2, 1))
    assert is_argument_error("step", np.array([[0.5], [3.0]], np.float32), space)
    assert not is_argument_error("step", np.array([[0.5], [0.0]], np.float32), space)


def test_a_rebuilt_exception_keeps_an_unusual_constructor_type():
    try:
        raise TwoArgumentError(7, "detail")
    except TwoArgumentError as error:
        report = failure_report(4, error)
    rebuilt = rebuild_exception(report, "PoolVectorEnv")
    assert type(rebuilt) is TwoArgumentError
    assert rebuilt.env_index == 4
    assert "Raised in sub-environment 4 of PoolVectorEnv (its worker stopped)" in str(rebuilt)


def test_answer_marks_only_environment_failures_fatal():
    def handle(command, data):
        raise RuntimeError("physics exploded")

    report, success = answer(0, handle, "step", 1, Discrete(2))
    assert (success, report.fatal, report.error_type) == (False, True, RuntimeError)
    report, success = answer(0, handle, "step", 9, Discrete(2))
    assert (success, report.fatal) == (False, False)


def test_a_keyboard_interrupt_in_a_worker_is_fatal():
    def handle(command, data):
        raise KeyboardInterrupt

    report, _ = answer(0, handle, "_call", ("x", (), {}), Discrete(2))
    assert report.fatal and report.error_type is KeyboardInterrupt


def test_the_restart_budget_is_per_worker():
    budget = RestartBudget(1, "PoolVectorEnv")
    with pytest.warns(UserWarning):
        assert budget.allow(0, [0], "died") and budget.allow(1, [1], "died")
    assert not budget.allow(0, [0], "died again")


def test_a_negative_restart_budget_is_refused():
    with pytest.raises(ValueError, match="max_restarts must be a non-negative integer, got -1"):
        RestartBudget(-1, "PoolVectorEnv")


def _silent_worker(pipe, parent_pipe):
    parent_pipe.close()
    pipe.recv()
    time.sleep(30)


def _pipes(child, parent):
    return child, parent


def test_shut_down_while_another_thread_waits_ends_the_workers_at_once():
    workers = Workers()
    context = multiprocessing.get_context("fork")
    for _ in range(2):
        workers.start(context, _silent_worker, "silent", True, _pipes)
    for index in range(2):
        workers.send(index, "work", None)
    waiter = threading.Thread(target=workers.collect, args=([0, 1], None), daemon=True)
    waiter.start()
    time.sleep(0.2)
    assert workers.waiting_elsewhere()
    started = time.monotonic()
    workers.shut_down(grace=10.0)
    assert time.monotonic() - started < 5
    waiter.join(5)
    assert not waiter.is_alive()
    assert [process.exitcode is not None for process in workers.processes] == [True, True]


def test_a_second_concurrent_wait_is_refused_with_a_clear_error():
    workers = Workers()
    context = multiprocessing.get_context("fork")
    workers.start(context, _silent_worker, "silent", True, _pipes)
    workers.send(0, "work", None)
    waiter = threading.Thread(target=workers.collect, args=([0], None), daemon=True)
    waiter.start()
    time.sleep(0.2)
    with pytest.raises(RuntimeError, match="Another thread is already waiting"):
        workers.collect([0], time.monotonic() + 0.1)
    workers.shut_down(grace=0.0)
    waiter.join(5)
