"""AsyncVectorEnv under faults: errors, hangs, killed workers, interrupted parents.

Every test must end with a clear error in bounded time, a ``close()`` that succeeds, and no
child process or /dev/shm entry left (the ``no_leaks`` fixture).
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import multiprocessing.heap
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from palaestra.error import WorkerError
from palaestra.vector import AsyncVectorEnv
from tests.vector.helpers import BrokenEnv, TwoArgumentError, healthy_env

pytestmark = [pytest.mark.usefixtures("no_leaks"), pytest.mark.timeout(60)]

ACTIONS = np.array([0, 1])


def _envs(broken: BrokenEnv | None = None, **kwargs) -> AsyncVectorEnv:
    """Two sub-envs: a healthy one (index 0) and ``broken`` (index 1)."""
    fns = [healthy_env, (lambda: broken) if broken is not None else healthy_env]
    return AsyncVectorEnv(fns, context="fork", **kwargs)


def test_error_in_step_is_reraised_with_its_type_index_and_traceback():
    envs = _envs(BrokenEnv("step", error=ValueError("boom in step")))
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="boom in step") as caught:
        envs.step(ACTIONS)
    message = str(caught.value)
    assert "sub-environment 1" in message
    assert "Traceback (most recent call last)" in message
    assert "in _maybe_fail" in message
    envs.close()
    assert envs.closed


def test_error_in_reset_is_reraised_with_its_type_and_index():
    envs = _envs(BrokenEnv("reset", after=1, error=KeyError("missing")))
    envs.reset(seed=0)
    with pytest.raises(KeyError, match="sub-environment 1"):
        envs.reset(seed=1)
    envs.close()


def test_error_while_building_a_sub_env_is_reraised_by_the_constructor():
    def build():
        return BrokenEnv("init", error=TypeError("bad argument"))

    # The parent builds the first sub-env itself, so only a later one fails in its worker.
    with pytest.raises(TypeError, match=r"bad argument(.|\n)*sub-environment 1"):
        AsyncVectorEnv([healthy_env, build], context="fork")


def test_exception_with_unusual_constructor_keeps_its_type():
    envs = _envs(BrokenEnv("step", error=TwoArgumentError(7, "detail")))
    envs.reset()
    with pytest.raises(TwoArgumentError, match="sub-environment 1"):
        envs.step(ACTIONS)
    envs.close()


def test_using_the_env_after_a_worker_error_raises_worker_error():
    envs = _envs(BrokenEnv("step"))
    envs.reset()
    with pytest.raises(ValueError):
        envs.step(ACTIONS)
    with pytest.raises(WorkerError, match=r"sub-environment\(s\) 1 \(stopped after an error\)"):
        envs.step(ACTIONS)
    envs.close()


def test_hanging_step_times_out_with_a_clear_error():
    envs = _envs(BrokenEnv("step", hang_seconds=60))
    envs.reset()
    envs.step_async(ACTIONS)
    started = time.monotonic()
    with pytest.raises(multiprocessing.TimeoutError) as caught:
        envs.step_wait(timeout=0.3)
    assert time.monotonic() - started < 3
    assert str(caught.value) == (
        "The call to `step_wait` has timed out after 0.3 second(s). Sub-environment(s) [1] did "
        "not answer. Their late answers are discarded; `close()` terminates workers that stay "
        "busy."
    )
    started = time.monotonic()
    envs.close()
    assert time.monotonic() - started < 5


def test_timed_out_call_does_not_shift_later_answers():
    envs = _envs(BrokenEnv("step", hang_seconds=0.5))
    envs.reset()
    envs.step_async(ACTIONS)
    with pytest.raises(
        multiprocessing.TimeoutError,
        match=r"`step_wait` has timed out after 0.05 second\(s\)\. Sub-environment\(s\) \[1\]",
    ):
        envs.step_wait(timeout=0.05)
    # The late step answer of sub-env 1 must be dropped, not taken as this call's answer.
    assert envs.get_attr("fail_in") == ("nowhere", "step")
    envs.close()


def test_worker_killed_mid_step_is_reported_with_its_index():
    envs = _envs(BrokenEnv("step", hang_seconds=30))
    envs.reset()
    envs.step_async(ACTIONS)
    os.kill(envs.processes[1].pid, signal.SIGKILL)
    started = time.monotonic()
    with pytest.raises(WorkerError) as caught:
        envs.step_wait()
    assert time.monotonic() - started < 5
    assert caught.value.env_indices == (1,)
    assert "sub-environment 1" in str(caught.value)
    assert "killed by signal SIGKILL" in str(caught.value)
    envs.close()


def test_worker_killed_between_steps_is_reported_then_refused():
    envs = _envs()
    envs.reset()
    envs.processes[0].kill()
    envs.processes[0].join()
    with pytest.raises(
        WorkerError, match=r"sub-environment 0 \(pid \d+, killed by signal SIGKILL\)"
    ):
        envs.step(ACTIONS)
    with pytest.raises(WorkerError) as caught:
        envs.step(ACTIONS)
    assert str(caught.value) == (
        "The worker process of sub-environment(s) 0 (killed by signal SIGKILL) is no longer "
        f"running, so {envs!r} cannot continue; call `close()` and create a new vector env."
    )
    envs.close()


def test_close_after_parent_interrupted_mid_step_ends_every_worker():
    envs = _envs(BrokenEnv("step", hang_seconds=30))
    envs.reset()

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        with pytest.raises(KeyboardInterrupt):
            envs.step(ACTIONS)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    started = time.monotonic()
    envs.close(timeout=0.5)
    assert time.monotonic() - started < 5
    assert all(not process.is_alive() for process in envs.processes)


def test_close_with_terminate_ends_busy_workers_at_once():
    envs = _envs(BrokenEnv("step", hang_seconds=30))
    envs.reset()
    envs.step_async(ACTIONS)
    started = time.monotonic()
    envs.close(terminate=True)
    assert time.monotonic() - started < 5
    assert all(process.exitcode is not None for process in envs.processes)


def test_close_while_a_call_is_pending_finishes_it_with_a_warning():
    envs = _envs()
    envs.reset()
    envs.step_async(ACTIONS)
    with pytest.warns(
        UserWarning, match="Calling `close` while waiting for a pending call to `step`"
    ):
        envs.close()
    assert envs.closed


def test_garbage_collecting_an_open_env_ends_its_workers():
    envs = _envs()
    processes = list(envs.processes)
    del envs
    for process in processes:
        process.join(5)
    assert all(process.exitcode is not None for process in processes)


def _shared_blocks_in_use() -> int:
    heap = multiprocessing.heap.BufferWrapper._heap
    if not hasattr(heap, "_allocated_blocks"):
        pytest.skip("this Python's multiprocessing heap does not expose its blocks")
    return sum(len(blocks) for blocks in heap._allocated_blocks.values())


@pytest.mark.parametrize("broken", [None, BrokenEnv("step")])
def test_close_releases_every_shared_memory_block(broken):
    before = _shared_blocks_in_use()
    envs = _envs(broken)
    envs.reset()
    assert _shared_blocks_in_use() > before
    with contextlib.suppress(ValueError):
        envs.step(ACTIONS)
    envs.close()
    gc.collect()
    assert _shared_blocks_in_use() == before


def test_ctrl_c_during_a_step_leaves_a_closable_env_and_no_workers():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    result = subprocess.run(
        [sys.executable, "-m", "tests.vector.ctrl_c_scenario"],
        cwd=root,
        capture_output=True,
        text=True,
        start_new_session=True,  # the SIGINT goes to this new process group only
        timeout=240,  # generous: start-up alone can take many seconds on a loaded machine
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "interrupted"
    # close() must not wait for the hung steps (60 s); the bound leaves room for a loaded
    # machine without letting a close that waits them out pass.
    assert float(lines[1].split()[2]) < 30
    assert lines[2] == "children left: 0"
