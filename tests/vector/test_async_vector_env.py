"""AsyncVectorEnv specifics: the async state machine, start methods, transports, hooks."""

from __future__ import annotations

import numpy as np
import pytest

import palaestra
from palaestra.error import AlreadyPendingCallError, ClosedEnvironmentError, NoAsyncCallError
from palaestra.spaces import Graph, Space
from palaestra.vector import AsyncVectorEnv, SyncVectorEnv
from palaestra.vector.async_worker import async_worker
from tests.vector.helpers import BrokenEnv, PalaestraInfoEnv, assert_same, healthy_env

pytestmark = pytest.mark.usefixtures("no_leaks")

ACTIONS = np.array([1, 0])


@pytest.fixture
def envs():
    vector_env = AsyncVectorEnv([healthy_env] * 2, context="fork")
    yield vector_env
    vector_env.close()


def _begin(envs, method):
    """Start (or attempt) the call named ``method`` on ``envs``."""
    calls = {
        "step_async": lambda: envs.step_async(ACTIONS),
        "reset_async": envs.reset_async,
        "call_async": lambda: envs.call_async("fail_in"),
        "set_attr": lambda: envs.set_attr("fail_in", "x"),
    }
    calls[method]()


@pytest.mark.parametrize(
    ("start", "method", "message"),
    [
        (
            "step_async",
            "step_async",
            "Calling `step_async` while waiting for a pending call to `step`",
        ),
        (
            "step_async",
            "reset_async",
            "Calling `reset_async` while waiting for a pending call to `step`",
        ),
        (
            "reset_async",
            "call_async",
            "Calling `call_async` while waiting for a pending call to `reset`",
        ),
        ("call_async", "set_attr", "Calling `set_attr` while waiting for a pending call to `call`"),
    ],
)
def test_second_call_while_one_is_pending_is_refused(envs, start, method, message):
    envs.reset()
    _begin(envs, start)
    with pytest.raises(AlreadyPendingCallError, match=message) as caught:
        _begin(envs, method)
    assert caught.value.name == envs._state.value
    getattr(envs, f"{envs._state.value}_wait")()


@pytest.mark.parametrize(
    ("method", "message", "name"),
    [
        ("step_wait", "Calling `step_wait` without any prior call to `step_async`.", "step"),
        ("reset_wait", "Calling `reset_wait` without any prior call to `reset_async`.", "reset"),
        ("call_wait", "Calling `call_wait` without any prior call to `call_async`.", "call"),
    ],
)
def test_wait_without_a_pending_call_is_refused(envs, method, message, name):
    with pytest.raises(NoAsyncCallError) as caught:
        getattr(envs, method)()
    assert str(caught.value) == message
    assert caught.value.name == name


@pytest.mark.parametrize(
    "use",
    [
        lambda envs: envs.reset(),
        lambda envs: envs.step(ACTIONS),
        lambda envs: envs.call("fail_in"),
        lambda envs: envs.get_attr("fail_in"),
        lambda envs: envs.set_attr("fail_in", "x"),
        lambda envs: envs.step_wait(),
    ],
)
def test_using_a_closed_env_is_refused(use):
    envs = AsyncVectorEnv([healthy_env] * 2, context="fork")
    envs.close()
    with pytest.raises(ClosedEnvironmentError) as caught:
        use(envs)
    assert str(caught.value) == "Trying to operate on `AsyncVectorEnv`, after a call to `close()`."


def test_async_then_wait_returns_the_batch(envs):
    envs.reset_async(seed=0)
    observations, infos = envs.reset_wait(timeout=5)
    assert observations.shape == (2, 2) and infos == {}
    envs.step_async(ACTIONS)
    _, rewards, *_ = envs.step_wait(timeout=5)
    assert rewards.tolist() == [1.0, 1.0]
    envs.call_async("fail_in")
    assert envs.call_wait(timeout=5) == ("nowhere", "nowhere")


@pytest.mark.parametrize("name", ["reset", "step", "close", "_setattr", "_check_spaces"])
def test_call_refuses_the_protocol_commands(name):
    envs = AsyncVectorEnv([healthy_env] * 2, context="fork")
    with pytest.raises(ValueError, match=f"Trying to call function `{name}` with `call`"):
        envs.call(name)
    envs.close()


@pytest.mark.parametrize("context", ["spawn", "forkserver"])
def test_other_start_methods_give_the_same_results(context):
    fns = [PalaestraInfoEnv] * 2
    ours = AsyncVectorEnv(fns, context=context, autoreset_mode="SameStep")
    reference = SyncVectorEnv(fns, autoreset_mode="SameStep")
    try:
        assert_same(ours.reset(seed=3), reference.reset(seed=3))
        for step in range(20):
            actions = np.array([step % 3, (step + 1) % 3])
            assert_same(ours.step(actions), reference.step(actions), f"step {step}")
    finally:
        ours.close()
        reference.close()


def test_observations_through_pipes_equal_shared_memory():
    fns = [PalaestraInfoEnv] * 2
    piped = AsyncVectorEnv(fns, shared_memory=False, context="fork")
    shared = AsyncVectorEnv(fns, context="fork")
    assert_same(piped.reset(seed=1), shared.reset(seed=1))
    assert_same(piped.step(ACTIONS), shared.step(ACTIONS))
    piped.close()
    shared.close()


def test_space_without_fixed_size_needs_shared_memory_off_as_in_gymnasium():
    class GraphEnv(BrokenEnv):
        def __init__(self):
            super().__init__("nowhere")
            self.observation_space = Graph(palaestra.spaces.Box(0, 1, shape=(2,)), None)

    with pytest.raises(TypeError, match=r"has a dynamic shape .* disable `shared_memory`"):
        AsyncVectorEnv([GraphEnv] * 2, context="fork")


def test_custom_space_needs_shared_memory_off():
    class Custom(Space):
        pass

    class CustomEnv(BrokenEnv):
        def __init__(self):
            super().__init__("nowhere")
            self.observation_space = Custom()

    with pytest.raises(ValueError, match="`shared_memory=False`"):
        AsyncVectorEnv([CustomEnv] * 2, context="fork")


def scaled_reward_worker(index, env_fn, pipe, parent_pipe, memory, queue, mode, semaphore):
    """A custom worker: the default loop around a sub-env whose rewards are scaled by 10."""
    scaled = lambda: palaestra.wrappers.TransformReward(env_fn(), lambda r: 10 * r)  # noqa: E731
    async_worker(index, scaled, pipe, parent_pipe, memory, queue, mode, semaphore)


def test_custom_worker_runs_in_the_workers():
    envs = AsyncVectorEnv([healthy_env] * 2, context="fork", worker=scaled_reward_worker)
    envs.reset()
    _, rewards, *_ = envs.step(ACTIONS)
    assert rewards.tolist() == [10.0, 10.0]
    envs.close()


def gymnasium_style_worker(index, env_fn, pipe, parent_pipe, memory, queue, mode, semaphore):
    """Reports failure the way Gymnasium's worker does: on the error queue, then (None, False)."""
    parent_pipe.close()
    env = env_fn()
    while True:
        command, _ = pipe.recv()
        if command == "_check_spaces":
            pipe.send(((True, True), True))
        elif command == "close":
            pipe.send((None, True))
            return
        else:
            queue.put((index, LookupError, LookupError("gymnasium-style failure"), "trace"))
            pipe.send((None, False))
            env.close()
            return


def test_custom_worker_may_report_errors_through_the_queue():
    envs = AsyncVectorEnv([healthy_env] * 2, context="fork", worker=gymnasium_style_worker)
    with pytest.raises(LookupError, match="gymnasium-style failure"):
        envs.reset()
    envs.close()


def test_custom_worker_with_wrong_signature_is_a_value_error():
    with pytest.raises(ValueError, match="A custom `worker` must accept 8 arguments"):
        AsyncVectorEnv([healthy_env] * 2, worker=lambda index, env_fn: None)


def test_max_concurrency_limits_but_keeps_results():
    envs = AsyncVectorEnv([healthy_env] * 3, context="fork", max_concurrency=1)
    envs.reset()
    _, rewards, *_ = envs.step(np.array([0, 1, 0]))
    assert rewards.tolist() == [1.0, 1.0, 1.0]
    envs.close()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (0, "`max_concurrency` must be a positive or None, got 0."),
        (1.5, "`max_concurrency` must be an integer or None, got <class 'float'>."),
    ],
)
def test_bad_max_concurrency_is_a_value_error(value, message):
    with pytest.raises(ValueError) as caught:
        AsyncVectorEnv([healthy_env] * 2, max_concurrency=value)
    assert str(caught.value) == message


def test_np_random_seed_lists_every_sub_env(envs):
    envs.reset(seed=4)
    assert envs.np_random_seed == (4, 5)
    assert len(envs.np_random) == 2
