"""The "ray" vectorization mode: sync's batches, the pool's fault handling, a two-node cluster.

Starting Ray takes seconds, so every test that needs a running Ray is slow-marked; they share
one local Ray per module (and the two-node test its own cluster), and check that no Ray
process is left behind.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import signal
import socket
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
from palaestra.vector.ray._channel import (  # noqa: E402
    ChannelClosed,
    Pending,
    connect,
    receive,
    send,
    serve,
)
from tests.fixtures.leaks import ray_processes  # noqa: E402
from tests.vector.ray_scenario import differential  # noqa: E402

MODES = ["NextStep", "SameStep", "Disabled"]
STEPS = 300


def _wait_for_no_ray_children(seconds: float = 20.0) -> list[psutil.Process]:
    deadline = time.monotonic() + seconds
    while (left := ray_processes()) and time.monotonic() < deadline:
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


def _kill_actor(envs: RayVectorEnv, index: int) -> None:
    """Kill actor ``index`` and wait until its process is gone (``ray.kill`` returns at once)."""
    process = psutil.Process(envs.placements[index][1])
    ray.kill(envs._groups[index].actor)
    process.wait(30)


def _ray_vec(num_envs: int = 4, **vector_kwargs):
    return gym.make_vec(
        "CartPole-v1",
        num_envs,
        vectorization_mode="ray",
        vector_kwargs={"num_workers": 2, **vector_kwargs},
    )


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


def test_an_unknown_transport_is_refused_naming_the_choices():
    with pytest.raises(ValueError, match=r'transport must be "auto" .* or "ray" .*got \'pipe\''):
        RayVectorEnv([lambda: gym.make("CartPole-v1")] * 2, transport="pipe")


# The direct channel (no Ray needed) -----------------------------------------------------------


@pytest.fixture
def channel():
    """A served channel answering ``(command, data)`` with ``(command, data * 2)``."""
    token = b"0123456789abcdef"
    connection = connect(serve(token, lambda command, data: (command, data * 2)), token, 5.0)
    yield connection
    connection.close()


def test_a_channel_answers_each_command_in_order(channel):
    for value in (1, 2, 3):
        send(channel, ("step", np.array([value])))
    replies = [receive(channel) for _ in range(3)]

    assert [(command, data.tolist()) for command, data in replies] == [
        ("step", [2]),
        ("step", [4]),
        ("step", [6]),
    ]


def test_a_channel_carries_values_plain_pickle_cannot():
    token = b"0123456789abcdef"
    connection = connect(serve(token, lambda command, data: data(20)), token, 5.0)
    send(connection, ("_call", lambda x: x + 1))

    assert receive(connection) == 21
    connection.close()


def test_a_channel_with_the_wrong_token_is_closed_unanswered():
    connection = connect(serve(b"0123456789abcdef", lambda c, d: d), b"fedcba9876543210", 5.0)

    with pytest.raises(ChannelClosed):
        send(connection, ("step", 1))
        receive(connection)
    connection.close()


def test_a_channel_whose_server_ends_reads_as_closed():
    left, right = socket.socketpair()
    pending = Pending(left)
    right.close()

    with pytest.raises(ChannelClosed, match="the other end closed the channel"):
        pending.take()
    left.close()


def test_a_channel_reset_by_its_server_reads_as_closed():
    left, right = socket.socketpair()
    send(left, ("step", 0))
    right.close()  # with the command unread: the kernel resets the connection

    with pytest.raises(ChannelClosed, match=r"the other end closed the channel \(reset\)"):
        Pending(left).take()
    left.close()


def test_a_channel_socket_lives_in_a_private_directory_removed_once_connected():
    token = b"0123456789abcdef"
    path = serve(token, lambda c, d: d)
    mode = os.stat(os.path.dirname(path)).st_mode & 0o777
    connection = connect(path, token, 5.0)
    send(connection, ("step", 0))
    receive(connection)

    assert mode == 0o700
    assert not os.path.exists(os.path.dirname(path))
    connection.close()


def test_ray_is_a_vectorization_mode():
    assert gym.VectorizeMode("ray") is gym.VectorizeMode.RAY


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_native_groups_match_sync_for_300_steps(local_ray, mode):
    envs = _ray_vec(autoreset_mode=mode)
    reference = gym.make_vec(
        "CartPole-v1", 4, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}
    )

    assert differential(envs, reference, STEPS) >= 20
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

    assert differential(envs, reference, STEPS) >= 20
    envs.close()


@pytest.fixture
def low_fds_taken():
    """Every file descriptor up to 1100 in use, so that new sockets get ones past 1024."""
    resource = pytest.importorskip("resource")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1400:
        pytest.skip(f"the hard limit on open files ({hard}) is too low")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1400), hard))
    taken = []
    with open(os.devnull) as devnull:
        while not taken or taken[-1] < 1100:
            taken.append(os.dup(devnull.fileno()))
    yield
    for fd in taken:
        os.close(fd)
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@pytest.mark.slow
def test_channels_with_file_descriptors_past_1024_are_waited_on(local_ray, low_fds_taken):
    envs = _ray_vec()
    reference = gym.make_vec("CartPole-v1", 4, vectorization_mode="sync")

    assert min(group.channel.fileno() for group in envs._groups) > 1024
    differential(envs, reference, 30)  # asserts every step equals sync's
    envs.close()


@pytest.mark.slow
def test_a_driver_on_no_ray_node_calls_every_actor_through_ray(local_ray, monkeypatch):
    def no_node():  # as for a Ray Client driver
        raise RuntimeError("this driver runs on no Ray node")

    monkeypatch.setattr(ray, "get_runtime_context", no_node)
    envs = _ray_vec()
    reference = gym.make_vec("CartPole-v1", 4, vectorization_mode="sync")

    assert [group.channel for group in envs._groups] == [None, None]
    differential(envs, reference, 30)  # asserts every step equals sync's
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
    _kill_actor(envs, 0)

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

    got = _kill_then_step_twice(ray_envs, lambda: _kill_actor(ray_envs, 0))
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


# Ray 2.60's `ray start --head` turns token authentication on by itself when ~/.ray/auth_token
# exists, but `ray start --address=...` only when RAY_AUTH_MODE says so: without one setting
# for both, the second node is refused and never joins. This throwaway cluster on 127.0.0.1
# states the mode for both nodes and its driver.
CLUSTER_ENV = {"RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}


def _free_ports(count: int) -> list[int]:
    """Ports nothing listens on now (held open together, so they are distinct)."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def _start_node(arguments: list[str]) -> subprocess.Popen:
    """``ray start ... --block`` in its own process group, so stopping it stops its node."""
    return subprocess.Popen(
        ["ray", "start", *arguments, "--block", "--disable-usage-stats"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env={**os.environ, **CLUSTER_ENV},
    )


def _stop_node(process: subprocess.Popen) -> list[psutil.Process]:
    """Stop a node started by :func:`_start_node`; return its processes still alive after."""
    try:
        processes = [psutil.Process(process.pid), *psutil.Process(process.pid).children(True)]
    except psutil.Error:
        processes = []
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    _, alive = psutil.wait_procs(processes, timeout=15)
    for leftover in alive:  # also those that left the process group
        with contextlib.suppress(psutil.Error):
            leftover.kill()
    process.wait(10)
    _, alive = psutil.wait_procs(alive, timeout=10)
    return alive


def _wait_for_port(port: int, process: subprocess.Popen, seconds: float = 120.0) -> None:
    """Wait until something accepts connections on ``port`` (the head's GCS).

    Raises:
        RuntimeError: if ``process`` (the head's ``ray start``) ended first.
        TimeoutError: if the port does not open within ``seconds``.
    """
    deadline = time.monotonic() + seconds
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"`ray start` ended early: {process.args}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"nothing listens on port {port} after {seconds} s")
        time.sleep(0.2)


@pytest.fixture
def two_node_cluster():
    """A head and a worker node, one CPU and a resource of their own each, on this machine."""
    port, client_port, dashboard_port, head_agent, worker_agent = _free_ports(5)
    address = f"127.0.0.1:{port}"
    common = ["--node-ip-address=127.0.0.1", "--num-cpus=1"]
    common += ["--min-worker-port=0", "--max-worker-port=0"]  # any free ports
    head = _start_node(
        [
            "--head",
            f"--port={port}",
            *common,
            '--resources={"head_node": 1}',
            "--include-dashboard=false",
            f"--dashboard-port={dashboard_port}",
            f"--ray-client-server-port={client_port}",
            f"--dashboard-agent-listen-port={head_agent}",
        ]
    )
    nodes = [head]
    try:
        _wait_for_port(port, head)  # the worker node needs the head's GCS
        nodes.append(
            _start_node(
                [
                    f"--address={address}",
                    *common,
                    '--resources={"worker_node": 1}',
                    f"--dashboard-agent-listen-port={worker_agent}",
                ]
            )
        )
        yield address
    finally:
        left = [process for node in reversed(nodes) for process in _stop_node(node)]
    assert left == []


@pytest.mark.slow
def test_actors_spread_over_two_nodes_give_the_results_of_sync(two_node_cluster):
    # The driver runs in a fresh process, free of the Ray state earlier tests left here.
    run = subprocess.run(
        [sys.executable, "-m", "tests.vector.ray_scenario", two_node_cluster],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **CLUSTER_ENV},
    )
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])

    assert report["distinct_nodes"] == 2
    assert sorted("head_node" in resources for resources in report["node_resources"]) == [
        False,
        True,
    ]
    # The actor on the driver's node is reached over a direct channel, the other through Ray.
    assert sorted(report["direct_channels"]) == [False, True]
    assert report["ended"] >= 5
