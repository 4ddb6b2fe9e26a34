"""The "ray" vectorization mode: sync's batches, the pool's fault handling, a two-node cluster.

Starting Ray takes seconds, so every test that needs a running Ray is slow-marked; they share
one local Ray per module (and the two-node test its own cluster), and check that no Ray
process is left behind.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import time
import warnings

import numpy as np
import psutil
import pytest

import palaestra as gym
from palaestra.error import DependencyNotInstalled, WorkerError

ray = pytest.importorskip("ray")
from palaestra.vector.ray import RayVectorEnv  # noqa: E402

MODES = ["NextStep", "SameStep", "Disabled"]
STEPS = 300


def _ray_children() -> list[psutil.Process]:
    """Processes below this one whose command line is a Ray component."""
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if "ray" in " ".join(child.cmdline()):
                found.append(child)
        except psutil.Error:
            continue
    return found


def _wait_for_no_ray_children(seconds: float = 20.0) -> list[psutil.Process]:
    deadline = time.monotonic() + seconds
    while (left := _ray_children()) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray for the module; shut down (and checked gone) at the end."""
    if ray.is_initialized():
        ray.shutdown()
    ray.init(address="local", num_cpus=4, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()
    assert _wait_for_no_ray_children() == []


def _ray_vec(num_envs: int = 4, **vector_kwargs):
    return gym.make_vec(
        "CartPole-v1",
        num_envs,
        vectorization_mode="ray",
        vector_kwargs={"num_workers": 2, **vector_kwargs},
    )


def _assert_same_step(got: tuple, expected: tuple) -> None:
    for mine, theirs in zip(got[:4], expected[:4]):
        np.testing.assert_array_equal(mine, theirs)
    _assert_same_info(got[4], expected[4])


def _assert_same_info(got: dict, expected: dict) -> None:
    assert sorted(got) == sorted(expected)
    for key, value in expected.items():
        if isinstance(value, dict):
            _assert_same_info(got[key], value)
        elif value.dtype == object:
            assert len(got[key]) == len(value)
            for mine, theirs in zip(got[key], value):
                np.testing.assert_array_equal(mine, theirs)
        else:
            np.testing.assert_array_equal(got[key], value)


def _differential(envs, reference, steps: int) -> int:
    """Step both with the same seeds and actions; return how many episodes ended."""
    observations, info = envs.reset(seed=7)
    expected, expected_info = reference.reset(seed=7)
    np.testing.assert_array_equal(observations, expected)
    _assert_same_info(info, expected_info)
    rng = np.random.default_rng(3)
    ended = 0
    disabled = envs.metadata["autoreset_mode"] is gym.vector.AutoresetMode.DISABLED
    for _ in range(steps):
        actions = rng.integers(0, 2, envs.num_envs)
        result, expected_result = envs.step(actions), reference.step(actions)
        _assert_same_step(result, expected_result)
        done = expected_result[2] | expected_result[3]
        ended += int(done.sum())
        if disabled and done.any():
            got_reset = envs.reset(options={"reset_mask": done})
            expected_reset = reference.reset(options={"reset_mask": done})
            np.testing.assert_array_equal(got_reset[0], expected_reset[0])
    return ended


def test_missing_ray_raises_dependency_not_installed_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)

    with pytest.raises(DependencyNotInstalled, match=r'pip install "palaestra\[ray\]"'):
        RayVectorEnv([lambda: gym.make("CartPole-v1")])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_workers": 5}, "num_workers must be between 1 and num_envs=4, got 5"),
        ({"num_workers": 3, "batch_size": 2}, "batch_size=2 must be a multiple of the group size"),
    ],
)
def test_bad_arguments_are_refused_before_ray_starts(kwargs, message):
    with pytest.raises(ValueError, match=message):
        RayVectorEnv([lambda: gym.make("CartPole-v1")] * 4, **kwargs)


def test_ray_is_a_vectorization_mode():
    assert gym.VectorizeMode("ray") is gym.VectorizeMode.RAY


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_native_groups_match_sync_for_300_steps(local_ray, mode):
    envs = _ray_vec(autoreset_mode=mode)
    reference = gym.make_vec(
        "CartPole-v1", 4, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}
    )

    assert _differential(envs, reference, STEPS) >= 20
    assert envs.metadata["autoreset_mode"] is gym.vector.AutoresetMode(mode)
    envs.close()


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_single_env_groups_match_sync_for_300_steps(local_ray, mode):
    # A wrapper needs single envs, so each actor runs a sync vector env of two.
    wrappers = [functools.partial(gym.wrappers.ClipReward, min_reward=0.0, max_reward=0.5)]
    envs = gym.make_vec(
        "CartPole-v1",
        4,
        vectorization_mode="ray",
        wrappers=wrappers,
        vector_kwargs={"num_workers": 2, "autoreset_mode": mode},
    )
    reference = gym.make_vec(
        "CartPole-v1",
        4,
        vectorization_mode="sync",
        wrappers=wrappers,
        vector_kwargs={"autoreset_mode": mode},
    )

    assert _differential(envs, reference, STEPS) >= 20
    envs.close()


@pytest.mark.slow
def test_recv_returns_whole_groups_that_follow_their_own_trajectories(local_ray):
    envs = _ray_vec(batch_size=2)
    reference = gym.make_vec("CartPole-v1", 4, vectorization_mode="sync")
    expected_first, _ = reference.reset(seed=1)
    envs.async_reset(seed=1)
    seen = {i: [] for i in range(4)}
    for _ in range(30):
        observations, *_, info = envs.recv()
        ids = info["env_id"]
        assert len(ids) == 2 and ids[1] == ids[0] + 1 and ids[0] % 2 == 0
        for row, env_id in enumerate(ids):
            seen[int(env_id)].append(observations[row])
        envs.send(np.ones(2, dtype=np.int64), ids)

    for env_id, observations in seen.items():
        if observations:
            np.testing.assert_array_equal(observations[0], expected_first[env_id])
            single = gym.make("CartPole-v1")
            first, _ = single.reset(seed=1 + env_id)
            trajectory = [first]
            for _ in range(len(observations) - 1):
                observation, _, terminated, truncated, _ = single.step(1)
                trajectory.append(observation)
                if terminated or truncated:
                    break
            count = len(trajectory)
            np.testing.assert_array_equal(np.array(observations[:count]), np.array(trajectory))
    envs.close()


@pytest.mark.slow
def test_a_sub_env_exception_comes_back_with_its_type_and_the_actor_keeps_running(local_ray):
    envs = _ray_vec()
    envs.reset(seed=0)

    with pytest.raises(AttributeError, match=r"sub-environments \[0, 1\] \(Ray actor 0\)"):
        envs.call("no_such_method")

    assert envs.step(np.zeros(4, dtype=np.int64))[1].tolist() == [1.0] * 4
    envs.close()


@pytest.mark.slow
def test_a_killed_actor_is_reported_like_a_failed_pool_worker(local_ray):
    envs = _ray_vec()
    envs.reset(seed=0)
    ray.kill(envs._groups[0].actor)

    with pytest.raises(
        WorkerError, match=r"RayVectorEnv actor 0 \(sub-environments \[0, 1\]\) died"
    ) as caught:
        envs.step(np.zeros(4, dtype=np.int64))
    assert caught.value.env_indices == (0, 1)
    with pytest.raises(WorkerError, match="cannot continue, an actor is no longer running"):
        envs.step(np.zeros(4, dtype=np.int64))
    envs.close()


@pytest.mark.slow
def test_a_hung_actor_is_reported_after_the_timeout(local_ray):
    class Sleepy(gym.Env):
        observation_space = gym.spaces.Discrete(2)
        action_space = gym.spaces.Discrete(2)

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            return 0, {}

        def step(self, action):
            time.sleep(60 if action == 1 else 0)
            return 0, 0.0, False, False, {}

    envs = RayVectorEnv([lambda: Sleepy()] * 2, num_workers=2)
    envs.reset(seed=0)
    envs.timeout = 2.0  # after the start-up, which may take longer on a busy machine

    with pytest.raises(WorkerError, match=r"actor 1 \(sub-environments \[1\]\) did not answer"):
        envs.step(np.array([0, 1]))
    envs.close()


def _kill_then_step_twice(envs, kill) -> list[tuple]:
    envs.reset(seed=0)
    envs.step(np.zeros(4, dtype=np.int64))
    kill()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = [envs.step(np.zeros(4, dtype=np.int64))]
        if envs.metadata["autoreset_mode"] is gym.vector.AutoresetMode.DISABLED:
            # Truncated sub-envs must be reset before they are stepped again.
            with pytest.raises(RuntimeError, match=r"Sub-environments \[0, 1\] were stepped"):
                envs.step(np.zeros(4, dtype=np.int64))
            envs.reset(options={"reset_mask": results[0][3]})
        results.append(envs.step(np.zeros(4, dtype=np.int64)))
    assert any(
        "restarting the worker of sub-environment(s) [0, 1]" in str(w.message) for w in caught
    )
    return results


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_a_killed_actor_is_restarted_with_the_pools_truncation(local_ray, mode):
    ray_envs = _ray_vec(autoreset_mode=mode, restart_failed=True)
    pool = gym.make_vec(
        "CartPole-v1",
        4,
        vectorization_mode="pool",
        vector_kwargs={
            "num_workers": 2,
            "autoreset_mode": mode,
            "restart_failed": True,
            "context": "spawn",  # JAX may be running in the session
        },
    )

    got = _kill_then_step_twice(ray_envs, lambda: ray.kill(ray_envs._groups[0].actor))
    expected = _kill_then_step_twice(pool, lambda: pool._processes.processes[0].kill())

    first, after = got
    assert first[3].tolist() == [True, True, False, False]
    assert first[1].tolist() == [0.0, 0.0, 1.0, 1.0]
    assert first[4]["worker_restarted"].tolist() == [True, True, False, False]
    for mine, theirs in zip(got, expected):
        for a, b in zip(mine[1:4], theirs[1:4]):
            np.testing.assert_array_equal(a, b)
        assert sorted(mine[4]) == sorted(theirs[4])
    # Sub-envs 2 and 3 never noticed: their observations go on as in the pool.
    np.testing.assert_array_equal(after[0][2:], expected[1][0][2:])
    ray_envs.close()
    pool.close()


# A two-node Ray cluster on this machine -------------------------------------------------------


def _start_node(arguments: list[str]) -> subprocess.Popen:
    """``ray start ... --block`` in its own process group, so stopping it stops its node."""
    return subprocess.Popen(
        ["ray", "start", *arguments, "--block", "--disable-usage-stats"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def _stop_node(process: subprocess.Popen) -> None:
    """Stop a node started by :func:`_start_node`, then any process it left behind."""
    try:
        descendants = psutil.Process(process.pid).children(recursive=True)
    except psutil.Error:
        descendants = []
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)
    _, alive = psutil.wait_procs(descendants, timeout=20)
    for leftover in alive:
        leftover.kill()


def _wait_for_nodes(address: str, count: int, seconds: float = 180.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        probe = subprocess.run(
            [
                sys.executable,
                "-c",
                f"import ray, json; ray.init(address={address!r}, log_to_driver=False); "
                "print(json.dumps(sum(n['Alive'] for n in ray.nodes())))",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if probe.returncode == 0 and json.loads(probe.stdout.strip().splitlines()[-1]) >= count:
            return
        time.sleep(2)
    raise TimeoutError(f"the Ray cluster at {address} did not reach {count} nodes")


@pytest.fixture
def two_node_cluster():
    """A head and a worker node, one CPU and a resource of their own each, on this machine."""
    if ray.is_initialized():
        ray.shutdown()
    offset = os.getpid() % 5000  # ports of their own, fresh for every run
    port = 20000 + offset
    address = f"127.0.0.1:{port}"
    head = _start_node(
        [
            "--head",
            f"--port={port}",
            "--node-ip-address=127.0.0.1",
            "--num-cpus=1",
            '--resources={"head_node": 1}',
            "--include-dashboard=false",
            "--min-worker-port=30000",
            "--max-worker-port=30999",
            f"--dashboard-agent-listen-port={50000 + offset}",
        ]
    )
    nodes = [head]
    try:
        nodes.append(
            _start_node(
                [
                    f"--address={address}",
                    "--node-ip-address=127.0.0.1",
                    "--num-cpus=1",
                    '--resources={"worker_node": 1}',
                    "--min-worker-port=31000",
                    "--max-worker-port=31999",
                    f"--dashboard-agent-listen-port={55000 + offset}",
                ]
            )
        )
        _wait_for_nodes(address, 2)
        ray.init(address=address, log_to_driver=False)
        yield address
    finally:
        if ray.is_initialized():
            ray.shutdown()
        for node in reversed(nodes):
            _stop_node(node)
    assert _wait_for_no_ray_children() == []


@pytest.mark.slow
def test_actors_spread_over_two_nodes_give_the_results_of_sync(two_node_cluster):
    envs = _ray_vec(actor_options={"scheduling_strategy": "SPREAD"})
    reference = gym.make_vec("CartPole-v1", 4, vectorization_mode="sync")

    nodes = {node_id for node_id, _ in envs.placements}
    by_id = {node["NodeID"]: node["Resources"] for node in ray.nodes()}
    assert len(nodes) == 2
    assert {"head_node" in by_id[n] for n in nodes} == {True, False}
    assert _differential(envs, reference, 100) >= 5
    envs.close()
