"""Vector environments on Ray.

`vectorization_mode="ray"` (extra `ray`) hosts groups of sub-envs in Ray actors, on this
machine or across a cluster, with the batches, infos and autoreset behaviour of sync for the
same seeds. Each actor runs its group natively batched when the env has a vector entry point.
It joins a running Ray (`ray.init(address=...)` first, or `vector_kwargs={"address": ...}`)
or starts a local one, as here.

The same `send`/`recv` interface as the pool works on Ray too (`batch_size` in
`vector_kwargs`), and with `restart_failed=True` a dead or hung actor is replaced and its
episodes come back truncated.
"""

import numpy as np
import ray

import palaestra as gym

# address="local" starts a private one even when another Ray runs on this machine.
ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)

envs = gym.make_vec(
    "CartPole-v1",
    num_envs=4,
    vectorization_mode="ray",
    vector_kwargs={"num_workers": 2, "num_cpus": 0.5},  # 2 actors of 2 sub-envs each
)
reference = gym.make_vec("CartPole-v1", num_envs=4, vectorization_mode="sync")
observations, _ = envs.reset(seed=0)
expected, _ = reference.reset(seed=0)
for _ in range(30):
    actions = envs.action_space.sample()
    observations, rewards, terminations, truncations, infos = envs.step(actions)
    expected, *_ = reference.step(actions)
np.testing.assert_array_equal(observations, expected)
print("ray == sync after 30 steps; actors at (node, pid):", envs.placements)
envs.close()
reference.close()
ray.shutdown()
