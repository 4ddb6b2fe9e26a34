"""PoolVectorEnv under the faults of issue 10: each test failed before the fix.

Gymnasium's sync vector env (or palaestra's own) is the reference for error types and
messages; a pool must end every test closable, with no worker left running.
"""

from __future__ import annotations

import functools
import signal
import time
import warnings

import gymnasium
import numpy as np
import pytest

import palaestra as gym
from palaestra.error import ClosedEnvironmentError
from palaestra.vector import PoolVectorEnv
from palaestra.vector.contract import assert_same
from tests.speed.conftest import AUTORESET_MODES, record
from tests.speed.faulty import (
    CountingVectorEnv,
    FaultyEnv,
    InitFailsEnv,
    ResetFailsEnv,
    SlowEnv,
    TextObservationEnv,
    WideActionEnv,
)
from tests.speed.grid_world import GridWorldEnv

pytestmark = pytest.mark.timeout(120)

ZEROS = np.zeros(4, dtype=np.int64)


def cartpole_pool(**kwargs) -> PoolVectorEnv:
    """Four single CartPoles in two workers."""
    return PoolVectorEnv([lambda: gym.make("CartPole-v1")] * 4, num_workers=2, **kwargs)


def native_pool(**vector_kwargs) -> PoolVectorEnv:
    """Four natively batched CartPoles in two workers (numpy path: no numba load per worker)."""
    return gym.make_vec(
        "CartPole-v1",
        4,
        vectorization_mode="pool",
        vector_kwargs={"num_workers": 2, **vector_kwargs},
        accelerator="numpy",
    )


def gymnasium_error(actions: np.ndarray) -> Exception:
    envs = gymnasium.make_vec("CartPole-v1", 4, vectorization_mode="sync")
    envs.reset(seed=0)
    try:
        envs.step(actions)
    except Exception as error:
        return error
    finally:
        envs.close()
    raise AssertionError("Gymnasium accepted the actions")


def alive(envs: PoolVectorEnv) -> list[bool]:
    return [process.is_alive() for process in envs._processes.processes]


def assert_closed_cleanly(envs: PoolVectorEnv) -> None:
    processes = list(envs._processes.processes)
    envs.close()
    for process in processes:
        process.join(5)
    assert [process.exitcode is not None for process in processes] == [True] * len(processes)


# Fault 1: an interrupted step -----------------------------------------------------


def test_a_step_interrupted_by_ctrl_c_completes_and_the_next_step_is_fresh():
    envs = PoolVectorEnv([SlowEnv] * 2, num_workers=2)
    envs.reset(seed=0)

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.1)
        with pytest.raises(KeyboardInterrupt):
            envs.step(np.zeros(2, dtype=np.int64))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    # The interrupted step ran to its end in the workers (count 1); this one is step 2.
    assert envs.step(np.zeros(2, dtype=np.int64))[0].tolist() == [[2.0], [2.0]]
    assert envs.step(np.zeros(2, dtype=np.int64))[0].tolist() == [[3.0], [3.0]]
    assert_closed_cleanly(envs)


# Fault 2: restarts that hide failures -----------------------------------------------


def test_an_invalid_action_with_restarts_on_raises_gymnasiums_error_without_restarting():
    envs = cartpole_pool(restart_failed=True)
    envs.reset(seed=0)
    actions = np.array([0, 5, 0, 0])
    expected = gymnasium_error(actions)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no restart warning
        with pytest.raises(type(expected)) as caught:
            envs.step(actions)
    assert str(expected) in str(caught.value)
    assert alive(envs) == [True, True]
    assert envs.step(ZEROS)[1].tolist() == [1.0] * 4
    assert_closed_cleanly(envs)


def test_restarts_are_announced_with_the_exception_traceback_and_reason(tmp_path):
    armed = tmp_path / "armed"
    armed.touch()
    env_fn = functools.partial(FaultyEnv, how="raise", armed=str(armed))
    envs = PoolVectorEnv([env_fn] * 4, num_workers=2, restart_failed=True)
    envs.reset(seed=0)
    envs.step(ZEROS)
    with pytest.warns(UserWarning) as caught:
        *_, truncations, infos = envs.step(ZEROS)
    armed.unlink()
    # Only the restart announcements: a loaded machine may add unrelated warnings.
    messages = [str(w.message) for w in caught if "sub-environment(s)" in str(w.message)]
    assert any("sub-environment(s) [0, 1]" in message for message in messages)
    assert all("ValueError: boom at step 2" in message for message in messages)
    assert all("Traceback (most recent call last)" in message for message in messages)
    assert truncations.tolist() == [True] * 4
    assert infos["restart_reason"].tolist() == ["ValueError: boom at step 2"] * 4
    assert infos["_restart_reason"].tolist() == [True] * 4
    assert_closed_cleanly(envs)


def test_restarts_are_bounded_then_the_failure_is_raised():
    env_fn = functools.partial(FaultyEnv, how="raise", fail_at=1)
    envs = PoolVectorEnv([env_fn] * 2, num_workers=1, restart_failed=True, max_restarts=2)
    envs.reset(seed=0)
    restarts = 0
    with pytest.raises(ValueError, match="after 2 restart"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(10):
            envs.step(np.zeros(2, dtype=np.int64))
            restarts += 1
    # Every second step is the autoreset step after a restart, which cannot fail.
    assert restarts == 4
    assert_closed_cleanly(envs)


def test_a_restart_whose_reset_fails_is_retried_within_the_budget_then_raised(tmp_path):
    broken = tmp_path / "broken"
    env_fn = functools.partial(ResetFailsEnv, broken=str(broken))
    envs = PoolVectorEnv(
        [env_fn] * 2,
        num_workers=1,
        restart_failed=True,
        max_restarts=2,
        autoreset_mode="SameStep",
    )
    envs.reset(seed=0)
    envs.step(np.zeros(2, dtype=np.int64))
    broken.touch()
    with pytest.warns(UserWarning) as caught, pytest.raises(RuntimeError) as raised:
        envs.step(np.zeros(2, dtype=np.int64))
    assert "reset failed on purpose" in str(raised.value)
    assert len([w for w in caught if "restarting the worker" in str(w.message)]) == 2
    assert_closed_cleanly(envs)


def test_an_exception_in_a_sub_env_constructor_is_raised_by_the_pool_constructor():
    env_fns = [FaultyEnv, FaultyEnv, InitFailsEnv, FaultyEnv]
    with pytest.raises(TypeError, match="bad constructor argument") as caught:
        PoolVectorEnv(env_fns, num_workers=2)
    assert "sub-environments [2, 3] (pool worker 1)" in str(caught.value)


def test_a_call_on_a_dead_worker_with_restarts_on_is_answered_by_its_replacement():
    envs = PoolVectorEnv([FaultyEnv] * 4, num_workers=2, restart_failed=True)
    envs.reset(seed=0)
    envs._processes.processes[1].kill()
    envs._processes.processes[1].join()
    with pytest.warns(UserWarning, match="died with exit code -9"):
        assert envs.get_attr("fail_at") == (2, 2, 2, 2)
    assert_closed_cleanly(envs)


# Fault 3: close after a timeout --------------------------------------------------------


def test_close_after_an_abandoned_step_in_another_thread_ends_every_worker():
    from palaestra.train.diagnostics import DiagnosticsWrapper, StepTimeoutError

    envs = PoolVectorEnv([functools.partial(FaultyEnv, how="hang")] * 2, num_workers=2)
    processes = list(envs._processes.processes)
    wrapped = DiagnosticsWrapper(envs, step_timeout=0.5)
    wrapped.reset(seed=0)
    wrapped.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(StepTimeoutError):
        wrapped.step(np.zeros(2, dtype=np.int64))
    started = time.monotonic()
    wrapped.close()
    assert time.monotonic() - started < 15
    for process in processes:
        process.join(5)
    assert [process.exitcode is not None for process in processes] == [True, True]


# Fault 4: bad actions, unchecked spaces, use after close, bad ids --------------------------


@pytest.mark.parametrize(
    "actions",
    [np.array([0.7, 0.0, 0.0, 0.0]), np.array([0, 5, 0, 0]), np.array([0.0, np.nan, 0.0, 0.0])],
    ids=["fractional", "out-of-range", "nan"],
)
def test_bad_actions_raise_gymnasiums_error_and_the_workers_survive(actions):
    envs = cartpole_pool()
    envs.reset(seed=0)
    expected = gymnasium_error(actions)
    with pytest.raises(type(expected)) as caught:
        envs.step(actions)
    assert str(expected) in str(caught.value)
    assert "its worker keeps running" in str(caught.value)
    assert alive(envs) == [True, True]
    assert envs.step(ZEROS)[1].tolist() == [1.0] * 4
    assert_closed_cleanly(envs)


def test_a_fractional_action_reaches_a_native_group_unrounded():
    envs = native_pool()
    envs.reset(seed=0)
    with pytest.raises(AssertionError):
        envs.step(np.array([0.7, 0.0, 0.0, 0.0]))
    assert alive(envs) == [True, True]
    assert_closed_cleanly(envs)


@pytest.mark.parametrize("position", [1, 2])
def test_sub_env_spaces_are_checked_against_each_other_at_construction(position):
    env_fns = [FaultyEnv] * 4
    env_fns[position] = WideActionEnv
    with pytest.raises(
        RuntimeError, match=rf"Sub-environment {position} has action_space=Discrete\(5\)"
    ):
        PoolVectorEnv(env_fns, num_workers=2)


@pytest.mark.parametrize(
    "use",
    [
        lambda envs: envs.step(ZEROS),
        lambda envs: envs.reset(),
        lambda envs: envs.get_attr("fail_at"),
        lambda envs: envs.send(ZEROS, [0, 1, 2, 3]),
        lambda envs: envs.recv(),
    ],
    ids=["step", "reset", "get_attr", "send", "recv"],
)
def test_use_after_close_raises_closed_environment_error(use):
    envs = PoolVectorEnv([FaultyEnv] * 4, num_workers=2)
    envs.close()
    with pytest.raises(ClosedEnvironmentError, match="after a call to `close\\(\\)`"):
        use(envs)


@pytest.mark.parametrize(
    ("env_ids", "message"),
    [([-2, -1], r"env_ids \[-2, -1\] are outside \[0, 4\)"), ([0, 4], r"\[4\] are outside")],
)
def test_send_rejects_ids_outside_the_pool(env_ids, message):
    envs = PoolVectorEnv([FaultyEnv] * 4, num_workers=2, batch_size=2)
    envs.async_reset(seed=0)
    envs.recv()
    envs.recv()
    with pytest.raises(ValueError, match=message):
        envs.send(np.zeros(2, dtype=np.int64), env_ids)
    assert_closed_cleanly(envs)


# Fault 5: argument errors never kill a worker ---------------------------------------------


@pytest.mark.parametrize(
    "misuse",
    [lambda envs: envs.reset(seed=-1), lambda envs: envs.get_attr("no_such_attribute")],
    ids=["negative-seed", "misspelt-name"],
)
def test_bad_seeds_and_names_raise_the_sync_error_and_the_workers_survive(misuse):
    sync = gym.make_vec("CartPole-v1", 4, vectorization_mode="sync")
    try:
        misuse(sync)
    except Exception as error:
        expected = error
    envs = cartpole_pool()
    envs.reset(seed=0)
    with pytest.raises(type(expected)) as caught:
        misuse(envs)
    assert str(expected) in str(caught.value)
    assert alive(envs) == [True, True]
    assert envs.step(ZEROS)[1].tolist() == [1.0] * 4
    assert_closed_cleanly(envs)


# Fault 6: call/get_attr/set_attr on native groups ------------------------------------------


def test_get_attr_call_and_set_attr_work_on_built_in_native_groups():
    envs = native_pool()
    envs.reset(seed=0)
    assert envs.get_attr("gravity") == (9.8, 9.8, 9.8, 9.8)
    envs.set_attr("label", ["a", "b", "c", "d"])
    assert envs.call("label") == ("a", "b", "c", "d")
    assert_closed_cleanly(envs)


def test_get_attr_and_set_attr_work_on_native_groups_without_call():
    envs = PoolVectorEnv(vector_env_fn=CountingVectorEnv, num_envs=4, num_workers=2)
    envs.reset(seed=0)
    assert envs.get_attr("speed") == (1, 1, 1, 1)
    envs.set_attr("speed", 3)
    assert envs.step(ZEROS)[0].tolist() == [[3.0]] * 4
    with pytest.raises(ValueError, match="natively batched worker group"):
        envs.set_attr("speed", [1, 2, 3, 4])
    assert alive(envs) == [True, True]
    assert_closed_cleanly(envs)


# Fault 7: a restart's truncation follows the autoreset mode --------------------------------


def test_a_restart_in_same_step_mode_returns_the_new_first_observation_and_final_obs(tmp_path):
    armed = tmp_path / "armed"
    armed.touch()
    env_fn = functools.partial(FaultyEnv, how="kill", armed=str(armed))
    envs = PoolVectorEnv(
        [env_fn] * 2, num_workers=1, restart_failed=True, autoreset_mode="SameStep"
    )
    envs.reset(seed=0)
    envs.step(np.zeros(2, dtype=np.int64))
    with pytest.warns(UserWarning, match="died with exit code -9"):
        observations, rewards, _, truncations, infos = envs.step(np.zeros(2, dtype=np.int64))
    armed.unlink()
    assert observations.tolist() == [[0.0], [0.0]]  # the new episode's first observation
    assert [obs.tolist() for obs in infos["final_obs"]] == [[1.0], [1.0]]
    assert infos["_final_obs"].tolist() == [True, True]
    assert truncations.tolist() == [True, True] and rewards.tolist() == [0.0, 0.0]
    observations, rewards, _, truncations, _ = envs.step(np.zeros(2, dtype=np.int64))
    assert observations.tolist() == [[1.0], [1.0]] and rewards.tolist() == [1.0, 1.0]
    assert_closed_cleanly(envs)


# Fault 9: every space AsyncVectorEnv supports -----------------------------------------------


@pytest.mark.parametrize("autoreset_mode", AUTORESET_MODES)
def test_gymnasiums_tutorial_grid_world_runs_in_the_pool_as_in_sync(autoreset_mode):
    env_fns = [GridWorldEnv] * 4
    space = gym.vector.SyncVectorEnv(env_fns).action_space
    space.seed(1)
    actions = [space.sample() for _ in range(60)]
    expected = record(gym.vector.SyncVectorEnv(env_fns, autoreset_mode=autoreset_mode), actions)
    actual = record(PoolVectorEnv(env_fns, num_workers=2, autoreset_mode=autoreset_mode), actions)
    # Infos of different worker groups merge in group order, hence key_order=False.
    assert_same(actual, expected, "trajectory", key_order=False)


def test_observations_without_a_fixed_shape_travel_through_the_pipes():
    actions = [np.array([i % 2, 1 - i % 2]) for i in range(8)]
    expected = record(gym.vector.SyncVectorEnv([TextObservationEnv] * 2), actions)
    actual = record(PoolVectorEnv([TextObservationEnv] * 2, num_workers=2), actions)
    for want, got in zip(expected, actual, strict=True):
        assert got[0]["label"] == want[0]["label"]
        np.testing.assert_array_equal(got[0]["count"], want[0]["count"])


@pytest.mark.parametrize(
    "space",
    [
        gym.spaces.MultiDiscrete([3, 4]),
        gym.spaces.MultiBinary(3),
        gym.spaces.Tuple((gym.spaces.Discrete(2), gym.spaces.Box(-1, 1, (2,)))),
        gym.spaces.Dict({"move": gym.spaces.Discrete(3), "force": gym.spaces.Box(0, 1, (1,))}),
    ],
    ids=["multi-discrete", "multi-binary", "tuple", "dict"],
)
def test_composite_and_multi_action_spaces_reach_the_sub_envs_as_in_sync(space):
    envs = PoolVectorEnv([functools.partial(EchoActionEnv, space)] * 4, num_workers=2)
    envs.reset(seed=0)
    envs.action_space.seed(3)
    actions = envs.action_space.sample()
    envs.step(actions)
    pool_actions = envs.get_attr("last_action")
    envs.close()
    sync = gym.vector.SyncVectorEnv([functools.partial(EchoActionEnv, space)] * 4)
    sync.reset(seed=0)
    sync.step(actions)
    for got, want in zip(pool_actions, sync.get_attr("last_action"), strict=True):
        assert space.contains(got)
        assert repr(got) == repr(want)


class EchoActionEnv(FaultyEnv):
    """A FaultyEnv with action space ``space`` that remembers its last action."""

    def __init__(self, space):
        super().__init__(fail_at=-1)
        self.action_space = space
        self.last_action = None

    def step(self, action):
        self.last_action = action
        return super().step(0)


def test_stepping_an_ended_sub_env_with_autoreset_disabled_raises_and_the_workers_survive():
    envs = gym.make_vec(
        "CartPole-v1",
        4,
        vectorization_mode="pool",
        max_episode_steps=2,
        accelerator="numpy",
        vector_kwargs={"num_workers": 2, "autoreset_mode": "Disabled"},
    )
    envs.reset(seed=0)
    envs.step(ZEROS)
    *_, truncations, _ = envs.step(ZEROS)
    assert truncations.tolist() == [True] * 4
    with pytest.raises(RuntimeError, match=r"Sub-environments \[0, 1, 2, 3\] were stepped"):
        envs.step(ZEROS)
    envs.reset(options={"reset_mask": np.array([True, True, True, True])})
    assert envs.step(ZEROS)[1].tolist() == [1.0] * 4
    assert_closed_cleanly(envs)
