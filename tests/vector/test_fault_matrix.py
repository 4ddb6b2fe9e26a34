"""The fault matrix: every multi-process mode under every fault, with restarts off and on.

For each mode (async, pool, Ray), fault (an exception in ``__init__``, ``reset`` or
``step``; a worker killed by SIGKILL; a step that hangs past the timeout; an invalid
action; Ctrl-C during a step) and ``restart_failed`` setting, the user sees the sub-env's
exception type with its index and the worker's traceback (or, restarting, a warning naming
it), the other group's rows stay those of a sync vector env of the same envs, and nothing is
left behind (the ``no_leaks`` fixture). Sub-env 3 is the faulty one; pool and Ray run two
groups, [0, 1] and [2, 3].

``AsyncVectorEnv`` has no restarts (Gymnasium's has none): its cases run with them off only.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import warnings

import numpy as np
import pytest

import palaestra
from palaestra.error import ResetNeeded, WorkerError
from palaestra.vector import AsyncVectorEnv, PoolVectorEnv, SyncVectorEnv
from tests.vector.fault_env import FAULTS, FaultEnv, FaultError
from tests.vector.helpers import ctrl_c_after

# Ray, started once for the module, must be running before no_leaks takes its snapshot.
pytestmark = [pytest.mark.usefixtures("ray_for_ray_cases", "no_leaks"), pytest.mark.timeout(120)]

TIMEOUT = 1.0
HEALTHY_ROWS = [0, 1]  # the group without the faulty sub-env
ZEROS = np.zeros(4, dtype=np.int64)


class _Warm:
    def ping(self) -> int:
        return 0


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray for the module's Ray cases (started by the first, shut down at the end)."""
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        ray.init(address="local", num_cpus=4, include_dashboard=False, log_to_driver=False)
    # The driver opens its connections for actors on the first one: not a case's leak.
    warm = ray.remote(num_cpus=0)(_Warm).remote()
    ray.get(warm.ping.remote())
    ray.kill(warm)
    yield ray
    if started:
        ray.shutdown()


@pytest.fixture
def ray_for_ray_cases(request):
    """The module's Ray, for the Ray cases only."""
    if "ray" in request.node.name.split("[")[-1]:
        request.getfixturevalue("local_ray")


def build(mode: str, env_fns, restart: bool, request):
    if mode == "async":
        return AsyncVectorEnv(env_fns, context="fork")
    kwargs = {"num_workers": 2, "timeout": TIMEOUT, "restart_failed": restart}
    if mode == "pool":
        return PoolVectorEnv(env_fns, **kwargs)
    from palaestra.vector.ray import RayVectorEnv

    return RayVectorEnv(env_fns, **kwargs)


def step(envs, actions):
    if isinstance(envs, AsyncVectorEnv):
        envs.step_async(actions)
        return envs.step_wait(timeout=TIMEOUT)
    return envs.step(actions)


def assert_rows(got, want, rows):
    """The given rows of two step (or reset) results are equal, field by field (not infos)."""
    for got_field, want_field in zip(got[:-1], want[:-1], strict=True):
        np.testing.assert_array_equal(np.asarray(got_field)[rows], np.asarray(want_field)[rows])


def assert_reports(error: BaseException, expected_type: type, text: str):
    """The sub-env's own type and message, its index, and the worker's traceback."""
    assert type(error) is expected_type
    assert error.env_index == 3
    assert text in str(error)
    assert "Traceback (most recent call last)" in str(error)


CASES = [
    (mode, fault, restart)
    for mode in ("async", "pool", "ray")
    for fault in FAULTS
    for restart in ((False,) if mode == "async" else (False, True))
]


@pytest.mark.parametrize(
    "mode, fault, restart",
    CASES,
    ids=[f"{m}-{f}-{'restart' if r else 'raise'}" for m, f, r in CASES],
)
def test_a_fault_reaches_the_user_and_spares_the_other_sub_envs(
    mode, fault, restart, tmp_path, request
):
    armed = tmp_path / "armed"
    armed.touch()
    faulty = functools.partial(FaultEnv, fault, str(armed))
    env_fns = [FaultEnv] * 3 + [faulty]
    reference = SyncVectorEnv([FaultEnv] * 4)
    if fault == "init":
        with pytest.raises(FaultError) as caught:
            build(mode, env_fns, restart, request)
        assert_reports(caught.value, FaultError, "fault in init")
        return
    envs = build(mode, env_fns, restart, request)
    try:
        run_scenario(envs, reference, mode, fault, restart)
    finally:
        envs.close()
        reference.close()


def run_scenario(envs, reference, mode: str, fault: str, restart: bool):
    if fault == "reset":
        if not restart:
            with pytest.raises(FaultError) as caught:
                envs.reset(seed=0)
            assert_reports(caught.value, FaultError, "fault in reset")
            return
        with pytest.warns(UserWarning, match=r"sub-environment\(s\) \[2, 3\]"):
            result = envs.reset(seed=0)
        # The restarted group ran the same reset again: every row is its real reset.
        assert_rows(result, reference.reset(seed=0), slice(None))
        assert_rows(step(envs, ZEROS), reference.step(ZEROS), slice(None))
        return
    assert_rows(envs.reset(seed=0), reference.reset(seed=0), slice(None))
    assert_rows(step(envs, ZEROS), reference.step(ZEROS), slice(None))
    if fault == "invalid_action":
        check_invalid_action(envs, reference)
    elif fault == "ctrl_c":
        check_ctrl_c(envs, reference, mode)
    elif restart:
        check_restart(envs, reference, fault)
    else:
        check_failure(envs, mode, fault)


def check_failure(envs, mode: str, fault: str):
    if fault == "step":
        with pytest.raises(FaultError) as caught:
            step(envs, ZEROS)
        assert_reports(caught.value, FaultError, "fault in step")
    else:
        expected = (
            multiprocessing.TimeoutError if (mode, fault) == ("async", "hang") else WorkerError
        )
        with pytest.raises(expected) as caught:
            step(envs, ZEROS)
        assert "3" in str(caught.value)
    # The vector env stays closable (the caller closes it).


def check_restart(envs, reference, fault: str):
    with pytest.warns(UserWarning, match=r"sub-environment\(s\) \[2, 3\]"):
        result = step(envs, ZEROS)
    expected = reference.step(ZEROS)
    assert_rows(result, expected, HEALTHY_ROWS)
    assert result[3].tolist() == [False, False, True, True]
    assert result[4]["worker_restarted"].tolist() == [False, False, True, True]
    # The other group goes on as the reference does.
    assert_rows(step(envs, ZEROS), reference.step(ZEROS), HEALTHY_ROWS)


def check_invalid_action(envs, reference):
    actions = np.array([0, 0, 0, 5])
    with pytest.raises(AssertionError) as expected:
        reference.step(actions)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no restart for an argument error
        with pytest.raises(AssertionError) as caught:
            step(envs, actions)
    assert str(expected.value) in str(caught.value)
    assert caught.value.env_index == 3
    # The workers keep running, and every sub-env is where the reference's is.
    assert_rows(step(envs, ZEROS), reference.step(ZEROS), slice(None))


def check_ctrl_c(envs, reference, mode: str):
    with pytest.raises(KeyboardInterrupt), ctrl_c_after(0.1):
        step(envs, ZEROS)
    # The interrupted step ran to its end in the workers; the next one is fresh.
    reference.step(ZEROS)
    assert_rows(step(envs, ZEROS), reference.step(ZEROS), slice(None))


def test_ray_send_before_any_reset_raises_reset_needed_and_the_env_stays_usable(local_ray):
    # A misuse rather than a fault; it shares the module's Ray instead of starting one.
    from palaestra.vector.ray import RayVectorEnv

    envs = RayVectorEnv([FaultEnv] * 4, num_workers=2, batch_size=2)
    reference = SyncVectorEnv([FaultEnv] * 4)
    with pytest.raises(ResetNeeded, match=r"send\(\) before any reset"):
        envs.send(np.zeros(2, dtype=np.int64), env_ids=np.array([0, 1]))
    assert_rows(envs.reset(seed=0), reference.reset(seed=0), slice(None))
    assert_rows(envs.step(ZEROS), reference.step(ZEROS), slice(None))
    envs.close()
    reference.close()


# Restarts whose reset fails (pool and Ray alike) --------------------------------------------


class ResetFailsWhileArmed(palaestra.Wrapper):
    """CartPole whose ``reset`` raises once while file ``armed`` exists (then removes it)."""

    def __init__(self, armed: str | None = None, always: bool = False):
        super().__init__(palaestra.make("CartPole-v1"))
        self.armed, self.always = armed, always

    def reset(self, **kwargs):
        if self.always:
            raise ValueError("reset always fails")
        if self.armed is not None and os.path.exists(self.armed):
            os.unlink(self.armed)
            raise ValueError("reset failed once")
        return self.env.reset(**kwargs)


def cartpole() -> palaestra.Env:
    return palaestra.make("CartPole-v1")


def build_restarting(mode: str, env_fns, **kwargs):
    """A pool or Ray vector env of two groups, [0, 1] and [2, 3], restarting failed ones."""
    if mode == "pool":
        return PoolVectorEnv(env_fns, num_workers=2, restart_failed=True, **kwargs)
    from palaestra.vector.ray import RayVectorEnv

    return RayVectorEnv(env_fns, num_workers=2, restart_failed=True, **kwargs)


RESTARTING = ["pool", "ray"]


@pytest.mark.parametrize("mode", RESTARTING)
def test_a_restarted_group_whose_reset_fails_again_counts_it_and_raises_the_sub_envs_error(mode):
    always = functools.partial(ResetFailsWhileArmed, always=True)
    envs = build_restarting(mode, [cartpole] * 3 + [always], max_restarts=2)
    with pytest.warns(UserWarning) as caught, pytest.raises(ValueError) as raised:
        envs.reset(seed=0)
    restarts = [str(w.message) for w in caught if "restarting the worker" in str(w.message)]
    assert [("restart 1 of" in m, "restart 2 of" in m) for m in restarts] == [
        (True, False),
        (False, True),
    ]
    assert str(raised.value).startswith("reset always fails")
    assert raised.value.env_index == 3
    with pytest.raises(WorkerError, match="no longer running"):
        envs.step(ZEROS)
    envs.close()


@pytest.mark.parametrize("mode", RESTARTING)
def test_a_group_restarted_during_reset_returns_its_real_reset_rows_as_sync_does(mode, tmp_path):
    armed = tmp_path / "armed"
    armed.touch()
    once = functools.partial(ResetFailsWhileArmed, armed=str(armed))
    envs = build_restarting(mode, [cartpole] * 3 + [once])
    reference = SyncVectorEnv([cartpole] * 4)
    with pytest.warns(UserWarning, match=r"sub-environment\(s\) \[2, 3\]"):
        observations, infos = envs.reset(seed=0)
    expected, _ = reference.reset(seed=0)
    np.testing.assert_array_equal(observations, expected)
    assert infos["worker_restarted"].tolist() == [False, False, True, True]
    actions = np.array([0, 1, 1, 0])
    assert_rows(envs.step(actions), reference.step(actions), slice(None))
    envs.close()
    reference.close()


@pytest.mark.parametrize("mode", RESTARTING)
def test_a_group_restarted_during_async_reset_returns_its_real_reset_rows(mode, tmp_path):
    armed = tmp_path / "armed"
    armed.touch()
    once = functools.partial(ResetFailsWhileArmed, armed=str(armed))
    envs = build_restarting(mode, [cartpole] * 3 + [once])
    reference = SyncVectorEnv([cartpole] * 4)
    envs.async_reset(seed=0)
    with pytest.warns(UserWarning, match=r"sub-environment\(s\) \[2, 3\]"):
        observations, *_, infos = envs.recv()
    expected, _ = reference.reset(seed=0)
    assert infos["env_id"].tolist() == [0, 1, 2, 3]
    np.testing.assert_array_equal(observations, expected)
    envs.close()
    reference.close()
