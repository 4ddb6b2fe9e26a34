"""PoolVectorEnv(parent_group=True): the parent steps the last group itself.

The pool must behave as with workers only (the contract suite against sync), report its
group's errors as a worker's, rebuild it on ``restart_failed`` and close it; and the polite
polling (:class:`~palaestra.vector.pool._worker.PoliteWait`) must stop when waits are long.
"""

from __future__ import annotations

import functools
import os
import threading
import time
import warnings

import numpy as np
import pytest

import palaestra as gym
from palaestra.error import WorkerError
from palaestra.vector import PoolVectorEnv
from palaestra.vector.contract import check_vector_env
from palaestra.vector.pool._worker import PoliteWait
from tests.speed.conftest import AUTORESET_MODES, assert_same_trajectory, random_actions, record
from tests.speed.faulty import FaultyEnv, InitFailsEnv

pytestmark = pytest.mark.timeout(120)

ZEROS = np.zeros(4, dtype=np.int64)


def parent_pool(env_id: str, num_envs: int, **vector_kwargs) -> PoolVectorEnv:
    """``make_vec(..., "pool")`` with one worker and the parent's group (numpy groups)."""
    # CartPole's native groups on numpy: each worker would otherwise load numba (seconds).
    env_kwargs = {"accelerator": "numpy"} if env_id == "CartPole-v1" else {}
    return gym.make_vec(
        env_id,
        num_envs,
        vectorization_mode="pool",
        vector_kwargs={"num_workers": 1, "parent_group": True, **vector_kwargs},
        **env_kwargs,
    )


def parent_fails(how: str = "raise", armed: str | None = None, **kwargs) -> PoolVectorEnv:
    """Four FaultyEnvs, two per group; only the parent's two fail (at step 2)."""
    healthy = functools.partial(FaultyEnv, fail_at=99)
    failing = functools.partial(FaultyEnv, how=how, armed=armed)
    return PoolVectorEnv(
        [healthy, healthy, failing, failing], num_workers=1, parent_group=True, **kwargs
    )


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("autoreset_mode", AUTORESET_MODES)
def test_a_pool_with_a_parent_group_meets_the_contract_against_sync(autoreset_mode):
    def make(mode: str):
        vector_kwargs = {"autoreset_mode": autoreset_mode}
        if mode == "pool":
            vector_kwargs.update(num_workers=1, parent_group=True)
        return lambda: gym.make_vec(
            "CartPole-v1",
            2,
            vectorization_mode=mode,
            max_episode_steps=8,
            vector_kwargs=vector_kwargs,
        )

    check_vector_env(make("pool"), make("sync"))


def test_native_groups_with_the_parent_group_match_sync():
    actions = random_actions("CartPole-v1", 6, 150)
    expected = record(gym.make_vec("CartPole-v1", 6, vectorization_mode="sync"), actions)
    actual = record(parent_pool("CartPole-v1", 6, num_workers=2), actions)
    assert_same_trajectory(expected, actual)


def test_the_parent_group_is_the_last_and_num_workers_counts_processes():
    with parent_pool("CartPole-v1", 6, num_workers=2) as envs:
        groups = [(w.env_indices, w.local) for w in envs._workers]
        assert groups == [([0, 1], False), ([2, 3], False), ([4, 5], True)]
        assert len(envs._processes.processes) == envs.num_workers == 2


def test_num_workers_defaults_to_one_less_than_the_cores_with_a_parent_group():
    with parent_pool("CartPole-v1", 64, num_workers=None) as envs:
        assert envs.num_workers == os.cpu_count() - 1


def test_zero_workers_run_every_sub_env_in_the_parent():
    actions = random_actions("CartPole-v1", 2, 40)
    expected = record(gym.make_vec("CartPole-v1", 2, vectorization_mode="sync"), actions)
    envs = parent_pool("CartPole-v1", 2, num_workers=0)
    assert envs._processes.processes == []
    assert_same_trajectory(expected, record(envs, actions))


@pytest.mark.parametrize(("parent_group", "workers"), [(True, 4), (False, 0)])
def test_num_workers_outside_its_range_is_refused_naming_the_range(parent_group, workers):
    low, high = (0, 3) if parent_group else (1, 4)
    with pytest.raises(ValueError, match=f"between {low} and {high} .* got {workers}"):
        PoolVectorEnv([FaultyEnv] * 4, num_workers=workers, parent_group=parent_group)


def test_send_and_recv_reach_the_parent_group():
    with parent_pool("CartPole-v1", 4, batch_size=2) as envs:
        envs.async_reset(seed=0)
        seen: set[int] = set()
        # The parent's group is ready the moment it is sent, so the worker's group comes back
        # once the worker has run: within a few batches on an idle machine, later under load.
        deadline = time.monotonic() + 30.0
        while seen != {0, 1, 2, 3} and time.monotonic() < deadline:
            *_, infos = envs.recv()
            seen.update(infos["env_id"].tolist())
            envs.send(np.zeros(2, dtype=np.int64), infos["env_id"])
        assert seen == {0, 1, 2, 3}


def test_call_and_set_attr_reach_the_parent_group():
    with PoolVectorEnv([FaultyEnv] * 4, num_workers=1, parent_group=True) as envs:
        envs.set_attr("fail_at", [5, 6, 7, 8])
        assert envs.get_attr("fail_at") == (5, 6, 7, 8)


def test_an_exception_in_the_parent_group_keeps_its_type_and_names_its_sub_envs():
    envs = parent_fails()
    envs.reset(seed=0)
    envs.step(ZEROS)
    with pytest.raises(ValueError, match="boom at step 2") as caught:
        envs.step(ZEROS)
    assert "sub-environments [2, 3] (pool worker 1) of PoolVectorEnv" in str(caught.value)
    with pytest.raises(WorkerError, match=r"worker 1 \(sub-environments \[2, 3\]\)"):
        envs.step(ZEROS)
    assert envs._local.group is None  # closed when it was lost
    envs.close()


def test_a_bad_action_for_the_parent_group_raises_and_the_pool_goes_on():
    with parent_pool("CartPole-v1", 4) as envs:
        envs.reset(seed=0)
        with pytest.raises(AssertionError, match="invalid"):
            envs.step(np.array([0, 0, 0, 7]))
        assert envs.step(ZEROS)[1].tolist() == [1.0] * 4


def test_restart_failed_rebuilds_the_parent_group_and_truncates_its_episodes(tmp_path):
    armed = tmp_path / "armed"
    armed.touch()
    envs = parent_fails(armed=str(armed), restart_failed=True)
    envs.reset(seed=0)
    envs.step(ZEROS)
    old = envs._local.group
    with pytest.warns(UserWarning, match=r"sub-environment\(s\) \[2, 3\]"):
        _, rewards, _, truncations, infos = envs.step(ZEROS)
    armed.unlink()
    assert envs._local.group is not old
    assert truncations.tolist() == [False, False, True, True]
    assert rewards.tolist() == [1.0, 1.0, 0.0, 0.0]
    assert infos["worker_restarted"].tolist() == [False, False, True, True]
    # The rebuilt group's autoreset step (NEXT_STEP), then a normal step.
    observations, rewards, *_ = envs.step(ZEROS)
    assert observations.tolist() == [[3.0], [3.0], [0.0], [0.0]]
    assert envs.step(ZEROS)[0].tolist() == [[4.0], [4.0], [1.0], [1.0]]
    envs.close()


def test_restarts_of_the_parent_group_are_bounded_then_raised():
    failing = functools.partial(FaultyEnv, how="raise", fail_at=1)
    envs = PoolVectorEnv(
        [FaultyEnv, failing], num_workers=1, parent_group=True, restart_failed=True, max_restarts=1
    )
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="after 1 restart"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(4):
            envs.step(np.zeros(2, dtype=np.int64))
    envs.close()


def test_a_constructor_error_in_the_parent_group_is_raised_with_its_type():
    with pytest.raises(TypeError, match="bad constructor argument") as caught:
        PoolVectorEnv([FaultyEnv, InitFailsEnv], num_workers=1, parent_group=True)
    assert "sub-environments [1] (pool worker 1)" in str(caught.value)


class _Interrupting(FaultyEnv):
    """Raises KeyboardInterrupt at step 2, as a Ctrl-C in the parent's group would."""

    def __init__(self):
        super().__init__(fail_at=99)

    def step(self, action):
        if self.count == 1:
            self.count += 1
            raise KeyboardInterrupt
        return super().step(action)


def test_ctrl_c_in_the_parent_group_interrupts_the_step_and_the_pool_stays_usable():
    healthy = functools.partial(FaultyEnv, fail_at=99)
    envs = PoolVectorEnv([healthy, _Interrupting], num_workers=1, parent_group=True)
    envs.reset(seed=0)
    envs.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(KeyboardInterrupt):
        envs.step(np.zeros(2, dtype=np.int64))
    # The worker's step ran to its end (count 2) and is drained; this is its step 3.
    assert envs.step(np.zeros(2, dtype=np.int64))[0].tolist() == [[3.0], [3.0]]
    envs.close()


def test_close_closes_the_parent_groups_sub_envs():
    envs = PoolVectorEnv([FaultyEnv] * 2, num_workers=1, parent_group=True)
    group = envs._local.group
    envs.close()
    assert group.envs.closed and envs._local.group is None


def test_a_polite_wait_stops_polling_after_long_waits_and_polls_again_after_short_ones():
    wait = PoliteWait(spin_s=1e-3)
    semaphore = threading.Semaphore(0)
    assert wait.polls()
    for _ in range(8):
        wait.record(5e-3)
    assert not wait.polls()
    # A long wait counts as twice the spin, so a few quick ones bring polling back.
    for _ in range(4):
        semaphore.release()
        assert wait.acquire(semaphore, timeout=1.0)
    assert wait.polls()


def test_a_polite_wait_without_a_spin_never_polls():
    assert not PoliteWait(spin_s=0.0).polls()


def test_lunar_lander_with_the_parent_group_matches_sync():
    pytest.importorskip("Box2D")
    actions = random_actions("LunarLander-v3", 4, 120)
    expected = record(gym.make_vec("LunarLander-v3", 4, vectorization_mode="sync"), actions)
    actual = record(parent_pool("LunarLander-v3", 4), actions)
    assert_same_trajectory(expected, actual)
