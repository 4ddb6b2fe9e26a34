"""The process layer shared by AsyncVectorEnv and the pool (palaestra.vector.processes)."""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import threading
import time
from multiprocessing.connection import wait

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
    stop_process,
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


@pytest.fixture
def killed_worker():
    """A started Workers whose only worker was killed and is not reaped yet."""
    workers = Workers()
    workers.start(multiprocessing.get_context("fork"), _silent_worker, "silent", True, _pipes)
    process = workers.processes[0]
    os.kill(process.pid, signal.SIGKILL)
    assert wait([process.sentinel], 5)
    yield workers
    workers.shut_down(grace=0.0)


@pytest.fixture
def slow_reaper(monkeypatch):
    """Start a thread that reaps a process and records its exit code 0.5 s later.

    It plays the thread that wins a ``waitpid`` race but gets the GIL back late: until it
    records the code, a join in any other thread finds no child and returns early.
    """
    reaped = threading.Event()
    real_waitpid = os.waitpid

    def waitpid(pid, options):
        result = real_waitpid(pid, options)
        if threading.current_thread().name == "slow-reaper" and result[0] == pid:
            reaped.set()
            time.sleep(0.5)
        return result

    monkeypatch.setattr(os, "waitpid", waitpid)
    threads = []

    def start(join):
        thread = threading.Thread(target=join, name="slow-reaper", daemon=True)
        thread.start()
        threads.append(thread)
        assert reaped.wait(5)

    yield start
    for thread in threads:
        thread.join(5)


def test_stop_process_returns_once_the_exit_code_another_thread_reaped_is_recorded(
    killed_worker, slow_reaper
):
    process = killed_worker.processes[0]
    slow_reaper(process.join)
    stop_process(process)
    assert process.exitcode == -signal.SIGKILL


def test_joining_a_worker_that_another_thread_is_joining_waits_for_its_exit_code(
    killed_worker, slow_reaper
):
    slow_reaper(lambda: killed_worker.join(0, 5.0))
    killed_worker.join(0, 5.0)
    assert killed_worker.processes[0].exitcode == -signal.SIGKILL


# Pids of the processes in which a FinalizedCycle was finalized.
_FINALIZED_IN: list[int] = []


class FinalizedCycle:
    """Half of a reference cycle that notes where it is finalized."""

    def __init__(self):
        self.other = self

    def __del__(self):
        _FINALIZED_IN.append(os.getpid())


def _collecting_worker(pipe, parent_pipe):
    parent_pipe.close()
    gc.collect()
    pipe.send(os.getpid() in _FINALIZED_IN)
    pipe.recv()


@pytest.fixture
def uncollected_cycle():
    """A garbage cycle the parent has not collected yet (its collector is off meanwhile)."""
    gc.disable()
    FinalizedCycle()
    yield
    gc.enable()
    gc.collect()


@pytest.fixture
def workers():
    """An empty Workers, shut down after the test."""
    workers = Workers()
    yield workers
    workers.shut_down(grace=0.0)


def test_a_forked_worker_does_not_collect_the_garbage_it_inherits(uncollected_cycle, workers):
    workers.start(multiprocessing.get_context("fork"), _collecting_worker, "gc", True, _pipes)
    workers.expect(0)
    assert workers.collect([0], time.monotonic() + 10).answers == {0: False}


def test_starting_a_worker_leaves_the_parents_collector_unfrozen(workers):
    workers.start(multiprocessing.get_context("fork"), _silent_worker, "silent", True, _pipes)
    assert gc.get_freeze_count() == 0


@pytest.fixture
def callers_frozen_heap():
    """The caller froze its heap itself (as a pre-fork server does); unfrozen after the test."""
    gc.disable()
    gc.freeze()
    yield
    gc.unfreeze()
    gc.enable()
    gc.collect()


def test_starting_a_worker_leaves_the_callers_frozen_objects_frozen(callers_frozen_heap, workers):
    workers.start(multiprocessing.get_context("fork"), _silent_worker, "silent", True, _pipes)
    # Still frozen (the count itself drops as frozen objects are freed meanwhile).
    assert gc.get_freeze_count() > 0


def test_garbage_made_after_the_callers_freeze_is_not_collected_in_the_worker(
    callers_frozen_heap, workers
):
    FinalizedCycle()
    workers.start(multiprocessing.get_context("fork"), _collecting_worker, "gc", True, _pipes)
    workers.expect(0)
    assert workers.collect([0], time.monotonic() + 10).answers == {0: False}
