"""The ray mode's comparison with sync, and the driver of the two-node test in its own process.

``python -m tests.vector.ray_scenario ADDRESS`` joins the Ray cluster at ``ADDRESS``, waits
for its two nodes, spreads two actors over them, checks 100 steps against sync and prints one
JSON line: the Ray resources of the node of each actor, whether the parent reaches each actor
over a direct channel, and how many episodes ended. A fresh process holds no Ray state from
earlier tests (a local Ray, its job ids, its authentication mode).
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np

import palaestra as gym

NODES_SECONDS = 120.0


def assert_same_step(got: tuple, expected: tuple) -> None:
    """Assert two ``step`` results are equal, infos included."""
    for mine, theirs in zip(got[:4], expected[:4]):
        np.testing.assert_array_equal(mine, theirs)
    assert_same_info(got[4], expected[4])


def assert_same_info(got: dict, expected: dict) -> None:
    """Assert two vector infos have the same keys and equal values (object arrays by row)."""
    assert sorted(got) == sorted(expected)
    for key, value in expected.items():
        if isinstance(value, dict):
            assert_same_info(got[key], value)
        elif value.dtype == object:
            assert len(got[key]) == len(value)
            for mine, theirs in zip(got[key], value):
                np.testing.assert_array_equal(mine, theirs)
        else:
            np.testing.assert_array_equal(got[key], value)


def differential(envs, reference, steps: int) -> int:
    """Step both with the same seeds and actions; return how many episodes ended."""
    observations, info = envs.reset(seed=7)
    expected, expected_info = reference.reset(seed=7)
    np.testing.assert_array_equal(observations, expected)
    assert_same_info(info, expected_info)
    rng = np.random.default_rng(3)
    ended = 0
    disabled = envs.metadata["autoreset_mode"] is gym.vector.AutoresetMode.DISABLED
    for _ in range(steps):
        actions = rng.integers(0, 2, envs.num_envs)
        result, expected_result = envs.step(actions), reference.step(actions)
        assert_same_step(result, expected_result)
        done = expected_result[2] | expected_result[3]
        ended += int(done.sum())
        if disabled and done.any():
            got_reset = envs.reset(options={"reset_mask": done})
            expected_reset = reference.reset(options={"reset_mask": done})
            np.testing.assert_array_equal(got_reset[0], expected_reset[0])
    return ended


def _wait_for_nodes(ray, count: int) -> None:
    deadline = time.monotonic() + NODES_SECONDS
    while sum(node["Alive"] for node in ray.nodes()) < count:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the cluster did not reach {count} live nodes")
        time.sleep(0.5)


def main(address: str) -> None:
    """Run the two-node check against the cluster at ``address``; print its JSON line."""
    import ray

    ray.init(address=address, log_to_driver=False, logging_level="warning")
    _wait_for_nodes(ray, 2)
    envs = gym.make_vec(
        "CartPole-v1",
        4,
        vectorization_mode="ray",
        vector_kwargs={"num_workers": 2, "actor_options": {"scheduling_strategy": "SPREAD"}},
    )
    reference = gym.make_vec("CartPole-v1", 4, vectorization_mode="sync")
    resources = {node["NodeID"]: sorted(node["Resources"]) for node in ray.nodes()}
    report = {
        "node_resources": [resources[node_id] for node_id, _ in envs.placements],
        "distinct_nodes": len({node_id for node_id, _ in envs.placements}),
        "direct_channels": [group.channel is not None for group in envs._groups],
        "ended": differential(envs, reference, 100),
    }
    envs.close()
    ray.shutdown()
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
