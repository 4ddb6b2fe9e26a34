"""PoolVectorEnv: parity with sync, EnvPool-style send/recv, faults, restarts, no leaks."""

from __future__ import annotations

import functools
import os
import time
import warnings

import numpy as np
import pytest

import palaestra as gym
from palaestra.error import WorkerError
from palaestra.vector import PoolVectorEnv
from tests.speed.conftest import CLASSIC_IDS, assert_same_trajectory, random_actions, record
from tests.speed.faulty import FaultyEnv


def make_pool(env_id: str, num_envs: int, **vector_kwargs) -> PoolVectorEnv:
    # numpy groups: each worker would otherwise load the numba accelerator (seconds each).
    return gym.make_vec(
        env_id,
        num_envs,
        vectorization_mode="pool",
        vector_kwargs={"num_workers": 2, **vector_kwargs},
        accelerator="numpy",
    )


def faulty_pool(how: str, num_envs: int = 4, armed: str | None = None, **kwargs) -> PoolVectorEnv:
    env_fn = functools.partial(FaultyEnv, how=how, armed=armed)
    return PoolVectorEnv([env_fn] * num_envs, num_workers=2, **kwargs)


def shm_exists(envs: PoolVectorEnv) -> bool:
    return os.path.exists(f"/dev/shm/{envs._block.name.lstrip('/')}")


def processes(envs: PoolVectorEnv) -> list:
    return list(envs._processes.processes)


@pytest.mark.parametrize("autoreset_mode", ["NextStep", "SameStep", "Disabled"])
@pytest.mark.parametrize(
    "env_id",
    # The other ids run the same code paths; the contract suite covers them in every mode too.
    [pytest.param(env_id, marks=[] if env_id == "CartPole-v1" else [pytest.mark.slow])
     for env_id in CLASSIC_IDS],
)  # fmt: skip
def test_lockstep_pool_matches_sync_in_every_autoreset_mode(env_id, autoreset_mode):
    actions = random_actions(env_id, 4, 120)
    expected = record(
        gym.make_vec(
            env_id, 4, vectorization_mode="sync", vector_kwargs={"autoreset_mode": autoreset_mode}
        ),
        actions,
    )
    actual = record(make_pool(env_id, 4, autoreset_mode=autoreset_mode), actions)
    assert_same_trajectory(expected, actual)


def test_pool_of_single_envs_matches_sync_when_wrappers_are_given():
    actions = random_actions("CartPole-v1", 4, 60)
    wrappers = [gym.wrappers.RecordEpisodeStatistics]
    expected = record(
        gym.make_vec("CartPole-v1", 4, vectorization_mode="sync", wrappers=wrappers), actions
    )
    pool = gym.make_vec(
        "CartPole-v1",
        4,
        vectorization_mode="pool",
        wrappers=wrappers,
        vector_kwargs={"num_workers": 2},
    )
    actual = record(pool, actions)
    for want, got in zip(expected, actual, strict=True):
        for want_item, got_item in zip(want[:-1], got[:-1], strict=True):
            np.testing.assert_array_equal(got_item, want_item)
        assert sorted(got[-1]) == sorted(want[-1])


def test_num_workers_defaults_to_the_core_count():
    with PoolVectorEnv(vector_env_fn=_cartpoles, num_envs=64) as envs:
        assert envs.num_workers == min(os.cpu_count(), 64)


def _cartpoles(n: int):
    return gym.make_vec(
        "CartPole-v1", n, vectorization_mode="vector_entry_point", accelerator="numpy"
    )


def test_recv_returns_the_first_batch_with_env_ids():
    envs = make_pool("CartPole-v1", 8, num_workers=4, batch_size=4)
    envs.async_reset(seed=0)
    observations, *_, infos = envs.recv()
    assert observations.shape == (4, 4)
    assert sorted(infos["env_id"].tolist()) in (
        [0, 1, 2, 3],
        [0, 1, 4, 5],
        [0, 1, 6, 7],
        [2, 3, 4, 5],
        [2, 3, 6, 7],
        [4, 5, 6, 7],
    )
    envs.close()


def test_send_recv_reaches_every_sub_env_and_matches_sync_per_env():
    envs = make_pool("CartPole-v1", 4, num_workers=4, batch_size=2)
    sync = gym.make_vec("CartPole-v1", 4, vectorization_mode="sync")
    expected_first = sync.reset(seed=3)[0]
    envs.async_reset(seed=3)
    seen = {}
    for _ in range(200):
        if len(seen) == 4:
            break
        observations, _, _, _, infos = envs.recv()
        for row, env_id in enumerate(infos["env_id"].tolist()):
            seen.setdefault(env_id, observations[row])
        envs.send(np.ones(len(infos["env_id"]), dtype=np.int64), infos["env_id"])
    assert sorted(seen) == [0, 1, 2, 3]
    for env_id, observation in seen.items():
        np.testing.assert_array_equal(observation, expected_first[env_id])
    envs.close()


def test_send_rejects_ids_that_split_a_worker_group():
    envs = make_pool("CartPole-v1", 4, num_workers=2, batch_size=2)
    envs.async_reset(seed=0)
    envs.recv()
    with pytest.raises(ValueError, match="whole idle worker groups"):
        envs.send(np.zeros(1, dtype=np.int64), [0])
    envs.close()


def test_batch_size_must_be_a_multiple_of_the_group_size():
    with pytest.raises(ValueError, match="batch_size=3 must be a multiple"):
        make_pool("CartPole-v1", 4, num_workers=2, batch_size=3)


def test_recv_without_anything_in_flight_is_an_error():
    with make_pool("CartPole-v1", 2) as envs, pytest.raises(RuntimeError, match="send"):
        envs.recv()


@pytest.mark.parametrize(
    ("how", "message"),
    [
        ("kill", r"sub-environments \[(0, 1|2, 3)\]\) died with exit code -9"),
        ("hang", r"sub-environments \[(0, 1|2, 3)\]\) did not answer within 1.0 s"),
    ],
)
def test_a_dead_or_hung_worker_is_reported_with_its_sub_envs_in_bounded_time(how, message):
    envs = faulty_pool(how, timeout=1.0)
    envs.reset(seed=0)
    envs.step(np.zeros(4, dtype=np.int64))
    started = time.monotonic()
    with pytest.raises(WorkerError, match=message) as caught:
        envs.step(np.zeros(4, dtype=np.int64))
    assert time.monotonic() - started < 5.0
    assert caught.value.env_indices in ((0, 1), (2, 3))
    envs.close()
    assert not any(process is not None and process.is_alive() for process in processes(envs))


def test_a_pool_that_lost_a_worker_refuses_later_calls_naming_it():
    envs = faulty_pool("kill", timeout=1.0)
    envs.reset(seed=0)
    envs.step(np.zeros(4, dtype=np.int64))
    with pytest.raises(WorkerError):
        envs.step(np.zeros(4, dtype=np.int64))
    with pytest.raises(
        WorkerError,
        match=r"^PoolVectorEnv cannot continue, a worker is no longer running: worker 0 "
        r"\(sub-environments \[0, 1\]\): died with exit code -9; worker 1 \(sub-environments "
        r"\[2, 3\]\): died with exit code -9\. Call `close\(\)`",
    ) as caught:
        envs.reset(seed=0)
    assert caught.value.env_indices == (0, 1, 2, 3)
    envs.close()


def test_a_sub_env_exception_keeps_its_type_and_names_the_sub_envs():
    envs = faulty_pool("raise", timeout=1.0)
    envs.reset(seed=0)
    envs.step(np.zeros(4, dtype=np.int64))
    with pytest.raises(ValueError, match="boom at step 2") as caught:
        envs.step(np.zeros(4, dtype=np.int64))
    assert "sub-environments [0, 1] (pool worker 0) of PoolVectorEnv" in str(caught.value)
    assert 'in step\n    raise ValueError("boom at step 2")' in str(caught.value)
    with pytest.raises(WorkerError, match=r"worker 0 \(sub-environments \[0, 1\]\)"):
        envs.step(np.zeros(4, dtype=np.int64))
    envs.close()
    assert not any(process is not None and process.is_alive() for process in processes(envs))


def test_close_after_a_failure_leaves_no_process_and_no_shared_memory():
    envs = faulty_pool("kill", timeout=1.0)
    workers = list(processes(envs))
    envs.reset(seed=0)
    envs.step(np.zeros(4, dtype=np.int64))
    with pytest.raises(WorkerError):
        envs.step(np.zeros(4, dtype=np.int64))
    envs.close()
    assert not any(process.is_alive() for process in workers)
    assert not shm_exists(envs)


def test_restart_failed_returns_the_failed_groups_truncated_with_a_flag(tmp_path):
    armed = tmp_path / "armed"
    armed.touch()
    envs = faulty_pool("kill", armed=str(armed), timeout=2.0, restart_failed=True)
    envs.reset(seed=0)
    envs.step(np.zeros(4, dtype=np.int64))
    with pytest.warns(UserWarning, match=r"restarting the worker of sub-environment\(s\)"):
        observations, rewards, terminations, truncations, infos = envs.step(
            np.zeros(4, dtype=np.int64)
        )
    armed.unlink()
    assert truncations.tolist() == [True] * 4
    assert infos["worker_restarted"].tolist() == [True] * 4
    # The cut episodes end on their last observation, like any truncation ...
    assert observations.tolist() == [[1.0]] * 4
    assert rewards.tolist() == [0.0] * 4 and not terminations.any()
    # ... and the next step is their autoreset step (NEXT_STEP).
    observations, rewards, _, truncations, infos = envs.step(np.zeros(4, dtype=np.int64))
    assert observations.tolist() == [[0.0]] * 4 and rewards.tolist() == [0.0] * 4
    assert not truncations.any() and not infos
    observations, _, _, truncations, infos = envs.step(np.zeros(4, dtype=np.int64))
    assert observations.tolist() == [[1.0]] * 4 and not truncations.any() and not infos
    envs.close()
    assert not shm_exists(envs)


def test_close_stops_every_worker_and_unlinks_the_block():
    envs = make_pool("Pendulum-v1", 4)
    workers = list(processes(envs))
    envs.reset(seed=0)
    assert shm_exists(envs)
    envs.close()
    assert not any(process.is_alive() for process in workers)
    assert not shm_exists(envs)


def test_render_gathers_every_sub_envs_frame_from_native_groups():
    envs = gym.make_vec(
        "CartPole-v1",
        4,
        vectorization_mode="pool",
        render_mode="rgb_array",
        vector_kwargs={"num_workers": 2},
        accelerator="numpy",
    )
    envs.reset(seed=0)
    frames = envs.render()
    envs.close()
    assert [frame.shape for frame in frames] == [(400, 600, 3)] * 4


def test_call_reads_sub_env_attributes_from_single_env_groups():
    envs = PoolVectorEnv([functools.partial(FaultyEnv, fail_at=99)] * 4, num_workers=2)
    assert envs.get_attr("fail_at") == (99, 99, 99, 99)
    envs.close()


def test_both_sides_poll_while_each_worker_can_have_a_core():
    workers = os.cpu_count()
    with PoolVectorEnv(vector_env_fn=_cartpoles, num_envs=workers, num_workers=workers) as envs:
        assert envs.spin_s == pytest.approx(1e-3)
    with PoolVectorEnv(
        vector_env_fn=_cartpoles, num_envs=workers + 1, num_workers=workers + 1
    ) as envs:
        assert envs.spin_s == 0.0
    with PoolVectorEnv(vector_env_fn=_cartpoles, num_envs=4, num_workers=1, spin_us=0) as envs:
        assert envs.spin_s == 0.0


needs_affinity = pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity"), reason="the platform has no CPU affinity"
)


def affinities(envs: PoolVectorEnv) -> list[set[int]]:
    return [os.sched_getaffinity(process.pid) for process in processes(envs)]


@needs_affinity
def test_as_many_workers_as_cpus_are_pinned_one_per_cpu():
    cpus = sorted(os.sched_getaffinity(0))
    with PoolVectorEnv(vector_env_fn=_cartpoles, num_envs=len(cpus), num_workers=len(cpus)) as envs:
        assert envs.worker_cpus == tuple(cpus)
        assert affinities(envs) == [{cpu} for cpu in cpus]


@needs_affinity
def test_other_worker_counts_are_left_free_unless_pinning_is_asked_for():
    cpus = os.sched_getaffinity(0)
    more = len(cpus) + 1
    with PoolVectorEnv(vector_env_fn=_cartpoles, num_envs=more, num_workers=more) as envs:
        assert envs.worker_cpus == (None,) * more
        assert affinities(envs) == [cpus] * more
    with PoolVectorEnv(
        vector_env_fn=_cartpoles, num_envs=more, num_workers=more, pin_workers=True
    ) as envs:
        # Round robin over the CPUs this process may use.
        assert affinities(envs) == [{cpu} for cpu in sorted(cpus)] + [{min(cpus)}]


@needs_affinity
def test_pin_workers_false_leaves_every_worker_free():
    cpus = os.sched_getaffinity(0)
    with PoolVectorEnv(
        vector_env_fn=_cartpoles, num_envs=len(cpus), num_workers=len(cpus), pin_workers=False
    ) as envs:
        assert envs.worker_cpus == (None,) * len(cpus)
        assert affinities(envs) == [cpus] * len(cpus)


@needs_affinity
def test_a_restarted_worker_is_pinned_to_the_cpu_of_the_one_it_replaces():
    env_fns = [functools.partial(FaultyEnv, fail_at=99)] * 4
    envs = PoolVectorEnv(env_fns, num_workers=2, restart_failed=True, pin_workers=True)
    envs.reset(seed=0)
    envs._processes.processes[1].kill()
    envs._processes.processes[1].join()
    with pytest.warns(UserWarning, match="died with exit code -9"):
        envs.step(np.zeros(4, dtype=np.int64))
    assert affinities(envs)[1] == {envs.worker_cpus[1]}
    envs.close()


@pytest.mark.parametrize("spin_us", [-1.0, float("nan")])
def test_a_negative_spin_is_refused_naming_the_value(spin_us):
    with pytest.raises(
        ValueError, match=f"spin_us must be a number of microseconds >= 0, got {spin_us}"
    ):
        PoolVectorEnv(vector_env_fn=_cartpoles, num_envs=2, num_workers=1, spin_us=spin_us)


def test_the_finished_semaphore_count_stays_bounded_while_the_parent_polls():
    with make_pool("CartPole-v1", 4, num_workers=1) as envs:
        envs.reset(seed=0)
        for _ in range(300):
            envs.step(np.zeros(4, dtype=np.int64))
        # One release per finished command, taken by the polling parent as it goes.
        assert envs._finished.get_value() <= 1


def test_send_without_ids_before_any_recv_is_an_error():
    with make_pool("CartPole-v1", 2) as envs, pytest.raises(ValueError, match="recv"):
        envs.send(np.zeros(2, dtype=np.int64))


def test_recv_restarts_a_dead_worker_and_returns_its_group_truncated(tmp_path):
    armed = tmp_path / "armed"
    armed.touch()
    envs = faulty_pool("kill", armed=str(armed), timeout=2.0, restart_failed=True, batch_size=2)
    envs.async_reset(seed=0)
    restarted = []
    for _ in range(6):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, _, _, truncations, infos = envs.recv()
        if "worker_restarted" in infos:
            restarted.append((infos["env_id"].tolist(), truncations.tolist()))
        envs.send(np.zeros(2, dtype=np.int64), infos["env_id"])
    armed.unlink()
    envs.close()
    assert restarted
    for env_ids, truncated in restarted:
        assert env_ids in ([0, 1], [2, 3]) and truncated == [True, True]
    assert not shm_exists(envs)


def test_steps_without_infos_send_nothing_through_the_pipes():
    with make_pool("CartPole-v1", 4) as envs:
        envs.reset(seed=0)
        envs.step(np.zeros(4, dtype=np.int64))
        assert not any(pipe.poll() for pipe in envs._processes.pipes)
        assert envs._block["status"].tolist() == [0, 0]


def test_set_attr_reaches_each_sub_env():
    envs = PoolVectorEnv([functools.partial(FaultyEnv, fail_at=99)] * 4, num_workers=2)
    envs.set_attr("fail_at", [5, 6, 7, 8])
    assert envs.get_attr("fail_at") == (5, 6, 7, 8)
    envs.set_attr("fail_at", 1)
    assert envs.get_attr("fail_at") == (1, 1, 1, 1)
    envs.close()


def test_a_pool_started_with_spawn_matches_sync():
    actions = random_actions("CartPole-v1", 4, 20)
    expected = record(gym.make_vec("CartPole-v1", 4, vectorization_mode="sync"), actions)
    actual = record(make_pool("CartPole-v1", 4, context="spawn"), actions)
    assert_same_trajectory(expected, actual)
