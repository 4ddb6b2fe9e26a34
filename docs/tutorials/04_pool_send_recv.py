"""The worker pool, lockstep and with `send`/`recv`.

`PoolVectorEnv` (mode `"pool"`) runs several sub-envs per worker process and moves actions,
observations, rewards and flags through one shared-memory block. Used like any vector env it
steps in lockstep. With `batch_size` smaller than `num_envs` it also works EnvPool-style:
`async_reset()` starts every sub-env, `recv()` returns the first `batch_size` sub-envs to finish
(their indices in `info["env_id"]`), and `send(actions, env_ids)` gives those sub-envs their
next actions while the others keep running. Slow sub-envs then stop holding up fast ones.

Workers that fail are reported, not waited on: an exception in a sub-env comes back as the
same type with the sub-env's index, and with `restart_failed=True` the pool restarts the
worker and truncates its episodes.
"""

import numpy as np

import palaestra as gym
from palaestra.vector.pool import PoolVectorEnv

# Lockstep: the same results as sync for the same seeds and actions.
envs = gym.make_vec("CartPole-v1", num_envs=8, vectorization_mode="pool")
reference = gym.make_vec("CartPole-v1", num_envs=8, vectorization_mode="sync")
observations, _ = envs.reset(seed=1)
expected, _ = reference.reset(seed=1)
for _ in range(20):
    actions = envs.action_space.sample()
    observations, *_ = envs.step(actions)
    expected, *_ = reference.step(actions)
np.testing.assert_array_equal(observations, expected)
print("pool == sync after 20 steps")
envs.close()
reference.close()

# EnvPool-style: 8 sub-envs in 4 workers (groups of 2); recv returns the first 4 to finish.
envs = PoolVectorEnv([lambda: gym.make("CartPole-v1")] * 8, num_workers=4, batch_size=4)
envs.async_reset(seed=0)
seen = np.zeros(8, dtype=np.int64)
for _ in range(50):
    observations, rewards, terminations, truncations, infos = envs.recv()
    env_ids = infos["env_id"]
    assert observations.shape == (4, 4) and len(env_ids) == 4
    seen[env_ids] += 1
    envs.send(np.ones(len(env_ids), dtype=np.int64), env_ids)  # push right
print("batches each sub-env was in:", seen.tolist())
assert seen.sum() == 200
envs.close()


# A failing sub-env: its exception, with its index, in the parent; the pool stays closable.
class Fragile(gym.Wrapper):
    """A sub-env whose step always fails."""

    def step(self, action):
        """Raise, as a diverged simulator would."""
        raise ValueError("the simulator diverged")


envs = PoolVectorEnv([lambda: gym.make("CartPole-v1"), lambda: Fragile(gym.make("CartPole-v1"))])
envs.reset(seed=0)
try:
    envs.step(np.zeros(2, dtype=np.int64))
except ValueError as error:
    print("raised in the parent:", str(error).splitlines()[0])
envs.close()
