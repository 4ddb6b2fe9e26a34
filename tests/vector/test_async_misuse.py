"""AsyncVectorEnv under misuse: argument errors, out-of-order calls, abandoned steps, sizes.

Gymnasium is the oracle for error types and messages; where Gymnasium's workers die of an
argument error (a bad action, seed or call name), ours keep running.
"""

from __future__ import annotations

import multiprocessing
import os
import threading

import gymnasium
import numpy as np
import pytest

import palaestra
from palaestra.error import AlreadyPendingCallError, NoAsyncCallError
from palaestra.vector import AsyncVectorEnv
from palaestra.vector.async_vector_env import _close_queue as close_queue
from palaestra.vector.processes import ResourceLimitError, check_capacity
from tests.vector.helpers import BrokenEnv, healthy_env

pytestmark = [pytest.mark.usefixtures("no_leaks"), pytest.mark.timeout(60)]


def cartpoles(gym, n: int = 2):
    return gym.vector.AsyncVectorEnv([lambda: gym.make("CartPole-v1")] * n, context="fork")


@pytest.fixture
def both():
    """A palaestra and a Gymnasium AsyncVectorEnv of two CartPoles, reset with seed 0."""
    ours, theirs = cartpoles(palaestra), cartpoles(gymnasium)
    ours.reset(seed=0)
    theirs.reset(seed=0)
    yield ours, theirs
    ours.close()
    theirs.close(terminate=True)
    # Gymnasium's closed env holds its queue's pipe and its workers' sentinels until it is
    # collected (which the fixture's cache delays past the leak check); ours must not.
    for process in theirs.processes:
        process.close()
    close_queue(theirs.error_queue)


def raised(call):
    try:
        call()
    except Exception as error:
        return error
    raise AssertionError("no exception")


@pytest.mark.parametrize(
    "misuse",
    [
        "step_wait_without_step_async",
        "reset_wait_without_reset_async",
        "call_wait_without_call_async",
        "second_reset_async",
        "step_async_while_reset_pending",
        "call_async_while_step_pending",
        "set_attr_while_call_pending",
    ],
)
def test_out_of_order_calls_raise_gymnasiums_type_and_message(both, misuse):
    def run(envs):
        if misuse.endswith("without_step_async"):
            return raised(envs.step_wait)
        if misuse.endswith("without_reset_async"):
            return raised(envs.reset_wait)
        if misuse.endswith("without_call_async"):
            return raised(envs.call_wait)
        first, second = {
            "second_reset_async": (envs.reset_async, envs.reset_async),
            "step_async_while_reset_pending": (
                envs.reset_async,
                lambda: envs.step_async(np.array([0, 1])),
            ),
            "call_async_while_step_pending": (
                lambda: envs.step_async(np.array([0, 1])),
                lambda: envs.call_async("gravity"),
            ),
            "set_attr_while_call_pending": (
                lambda: envs.call_async("gravity"),
                lambda: envs.set_attr("gravity", 1.0),
            ),
        }[misuse]
        first()
        error = raised(second)
        getattr(envs, f"{envs._state.value}_wait")()
        return error

    ours, theirs = (run(envs) for envs in both)
    assert type(ours).__name__ == type(theirs).__name__
    assert isinstance(ours, (AlreadyPendingCallError, NoAsyncCallError))
    assert str(theirs) in str(ours)
    assert ours.name == theirs.name


@pytest.mark.parametrize(
    "actions",
    # Where both sub-envs fail, they fail alike: Gymnasium raises whichever error its queue
    # hands out last.
    [np.array([0.7, 0.7]), np.array([0, 5]), np.array([np.nan, np.nan])],
    ids=["fractional", "out-of-range", "nan"],
)
def test_bad_actions_raise_gymnasiums_error_and_leave_the_workers_running(both, actions):
    ours, theirs = (raised(lambda envs=envs: envs.step(actions)) for envs in both)
    assert type(ours) is type(theirs)
    assert str(theirs) in str(ours)
    assert_still_serving(both[0])


@pytest.mark.parametrize(
    "misuse",
    [lambda envs: envs.reset(seed=-1), lambda envs: envs.get_attr("no_such_attribute")],
    ids=["negative-seed", "misspelt-name"],
)
def test_bad_seeds_and_names_raise_the_sync_error_and_leave_the_workers_running(both, misuse):
    sync = palaestra.make_vec("CartPole-v1", 2, vectorization_mode="sync")
    expected = raised(lambda: misuse(sync))
    error = raised(lambda: misuse(both[0]))
    assert type(error) is type(expected)
    assert str(expected) in str(error)
    assert_still_serving(both[0])


def assert_still_serving(envs: AsyncVectorEnv) -> None:
    assert all(process.is_alive() for process in envs.processes)
    observations, rewards, *_ = envs.step(np.array([1, 0]))
    assert observations.shape == (2, 4) and rewards.tolist() == [1.0, 1.0]


def test_an_argument_error_names_the_sub_env_and_says_its_worker_runs(both):
    error = raised(lambda: both[0].step(np.array([0, 5])))
    assert "Raised in sub-environment 1 of" in str(error)
    assert "its worker keeps running" in str(error)


def test_an_environment_failure_still_stops_its_worker():
    envs = AsyncVectorEnv([healthy_env, lambda: BrokenEnv("step")], context="fork")
    envs.reset()
    with pytest.raises(ValueError, match="its worker stopped"):
        envs.step(np.array([0, 1]))
    envs.close()


class HangingAfterResetEnv(BrokenEnv):
    def __init__(self):
        super().__init__("step", hang_seconds=30)


# The abandoned step's thread and close() both reap the hanging worker; the exit codes read
# below are only set once both have taken turns (Workers.join, stop_process).
def test_close_after_an_abandoned_step_in_another_thread_ends_every_worker():
    from palaestra.train.diagnostics import DiagnosticsWrapper, StepTimeoutError

    # Step threads abandoned by earlier tests (a single env sleeping past its timeout) may
    # still run; only the one this test abandons must end.
    earlier_threads = set(threading.enumerate())
    envs = AsyncVectorEnv([healthy_env, HangingAfterResetEnv], context="fork")
    processes = list(envs.processes)
    fds_before_close = len(os.listdir("/proc/self/fd"))
    wrapped = DiagnosticsWrapper(envs, step_timeout=0.5)
    wrapped.reset(seed=0)
    with pytest.raises(StepTimeoutError):
        wrapped.step(np.array([0, 1]))
    wrapped.close()
    assert envs.closed
    for process in processes:
        process.join(5)
    assert [process.exitcode is not None for process in processes] == [True, True]
    assert len(os.listdir("/proc/self/fd")) < fds_before_close
    assert _step_threads_alive_after(5.0, earlier_threads) == []


def _step_threads_alive_after(seconds: float, earlier: set[threading.Thread]) -> list[str]:
    """The names of the step threads started since ``earlier`` still alive after ``seconds``."""
    started = [t for t in threading.enumerate() if t.name == "palaestra-step" and t not in earlier]
    for thread in started:
        thread.join(seconds)
    return [thread.name for thread in started if thread.is_alive()]


def test_too_many_sub_envs_fail_before_any_process_starts_and_suggest_the_pool():
    children_before = len(multiprocessing.active_children())
    # A million: more than any machine's memory (or descriptor limit) serves, so this test
    # never starts processes, whatever runs it.
    with pytest.raises(ResourceLimitError, match="vectorization_mode='pool'") as caught:
        AsyncVectorEnv([healthy_env] * 1_000_000, context="fork")
    assert isinstance(caught.value, OSError)
    assert "AsyncVectorEnv(num_envs=1000000) needs 1000000 worker processes" in str(caught.value)
    assert len(multiprocessing.active_children()) == children_before


def test_the_file_descriptor_limit_is_checked_before_spawning():
    with pytest.raises(ResourceLimitError, match=r"may open 1024 and has 100 open"):
        check_capacity(400, "AsyncVectorEnv(num_envs=400)", "", fd_limit=1024, open_fds=100)


def test_the_available_memory_is_checked_before_spawning():
    with pytest.raises(ResourceLimitError, match=r"only 1.0 GiB are available"):
        check_capacity(
            100, "AsyncVectorEnv(num_envs=100)", "", "spawn", fd_limit=None, available_memory=2**30
        )


def test_forked_workers_are_counted_lighter_than_spawned_ones():
    check_capacity(100, "AsyncVectorEnv(num_envs=100)", "", "fork", available_memory=2**30)


class SpaceEnv(BrokenEnv):
    """A healthy env observing ``space`` (passed by the builders below)."""

    def __init__(self, space):
        super().__init__("nowhere")
        self.observation_space = space

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return self.observation_space.sample(), {}

    def step(self, action):
        return self.observation_space.sample(), 1.0, False, False, {}


def _dynamic_spaces(gym):
    s = gym.spaces
    return {
        "dict-text": s.Dict({"box": s.Box(0, 1, (2,)), "text": s.Text(5)}),
        "tuple-sequence": s.Tuple((s.Discrete(2), s.Sequence(s.Discrete(3)))),
        "dict-graph": s.Dict({"graph": s.Graph(s.Box(0, 1, (2,)), None)}),
        "graph": s.Graph(s.Box(0, 1, (2,)), s.Discrete(3)),
    }


class GymnasiumSpaceEnv(gymnasium.Env):
    def __init__(self, space):
        self.observation_space = space
        self.action_space = gymnasium.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return self.observation_space.sample(), {}

    def step(self, action):
        return self.observation_space.sample(), 1.0, False, False, {}


@pytest.mark.parametrize("name", ["dict-text", "tuple-sequence", "dict-graph", "graph"])
def test_shared_memory_with_dynamic_shapes_behaves_as_in_gymnasium(name):
    def build(gym, env_class):
        space = _dynamic_spaces(gym)[name]
        return gym.vector.AsyncVectorEnv(
            [lambda: env_class(space)] * 2, shared_memory=True, context="fork"
        )

    def outcome(gym, env_class):
        try:
            envs = build(gym, env_class)
        except Exception as error:
            return error
        observations, _ = envs.reset(seed=1)
        envs.close()
        return observations

    ours, theirs = outcome(palaestra, SpaceEnv), outcome(gymnasium, GymnasiumSpaceEnv)
    if isinstance(theirs, Exception):
        assert type(ours) is type(theirs)
        assert str(theirs) in str(ours)
    else:
        assert not isinstance(ours, Exception)
        assert type(ours) is type(theirs) and set(ours) == set(theirs)
