"""Vectorizing an environment in every mode.

`make_vec` builds `num_envs` copies of an environment behind one `VectorEnv`. The mode says
how they run:

| mode | where the sub-envs run |
|---|---|
| `"vector_entry_point"` | one natively batched env (the default when the env has one) |
| `"sync"` | a Python loop in this process (`SyncVectorEnv`) |
| `"async"` | one worker process per sub-env (`AsyncVectorEnv`) |
| `"pool"` | several sub-envs per worker process, one shared-memory block (`PoolVectorEnv`) |
| `"ray"` | groups of sub-envs in Ray actors, possibly on other machines (see the Ray tutorial) |

All of them return the same batches for the same seeds and actions; this script checks that on
CartPole, and wraps each sub-env in the modes that build sub-envs one by one.
"""

import numpy as np

import palaestra as gym

MODES = ("vector_entry_point", "sync", "async", "pool")
NUM_ENVS, STEPS = 4, 60

actions = np.random.default_rng(0).integers(0, 2, size=(STEPS, NUM_ENVS))
trajectories = {}
for mode in MODES:
    envs = gym.make_vec("CartPole-v1", num_envs=NUM_ENVS, vectorization_mode=mode)
    observations, infos = envs.reset(seed=42)  # sub-env i is seeded 42 + i
    rewards = []
    for step_actions in actions:
        observations, reward, terminations, truncations, infos = envs.step(step_actions)
        rewards.append(reward)
    trajectories[mode] = (observations, np.array(rewards))
    print(f"{mode:>18}: {type(envs.unwrapped).__name__}, return per sub-env {np.sum(rewards, 0)}")
    envs.close()

reference_obs, reference_rewards = trajectories["sync"]
for observations, rewards in trajectories.values():
    np.testing.assert_array_equal(observations, reference_obs)
    np.testing.assert_array_equal(rewards, reference_rewards)
print("every mode gave the same trajectory")

# sync, async and pool apply wrappers to each sub-env (the native env batches inside one env).
for wrapped_mode in ("sync", "async", "pool"):
    envs = gym.make_vec(
        "CartPole-v1",
        num_envs=2,
        vectorization_mode=wrapped_mode,
        wrappers=[lambda env: gym.wrappers.TimeLimit(env, max_episode_steps=5)],
    )
    envs.reset(seed=0)
    for _ in range(5):
        *_, truncations, _ = envs.step(np.zeros(2, dtype=np.int64))
    print(f"{wrapped_mode}: truncated after 5 steps -> {truncations}")
    assert truncations.all()
    envs.close()
