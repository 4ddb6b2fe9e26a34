"""Training with the built-in trainer.

`palaestra.train` has PPO, DQN, SAC and REINFORCE with an API shaped like Stable-Baselines3's;
every shipped env has tuned presets, so `PPO("MlpPolicy", "CartPole-v1")` is a good run. The
command line does the same with a progress bar, evaluations, checkpoints, TensorBoard logs and
a video: `palaestra train CartPole-v1`.

This script trains PPO on CartPole for `TIMESTEPS` steps, evaluates it deterministically,
saves it and loads it back. The test suite runs it with 4,096 steps (seconds); set
`PALAESTRA_TUTORIAL_TIMESTEPS=100000` for a run that reaches the reward threshold of 475.
"""

import os
import tempfile
from pathlib import Path

import numpy as np

import palaestra as gym
from palaestra.train import PPO, evaluate

TIMESTEPS = int(os.environ.get("PALAESTRA_TUTORIAL_TIMESTEPS", "4096"))

agent = PPO("MlpPolicy", "CartPole-v1", seed=0)  # the CartPole-v1 preset
agent.learn(total_timesteps=TIMESTEPS, progress_bar=False)

returns = evaluate(agent, gym.make_vec("CartPole-v1", num_envs=4), episodes=8, seed=100)
print(f"after {TIMESTEPS} steps: mean return {returns.mean():.1f} over {len(returns)} episodes")

with tempfile.TemporaryDirectory() as folder:
    path = Path(folder) / "model.pt"
    agent.save(path)  # weights, optimizer, hyper-parameters, normalization statistics
    loaded = PPO.load(path)

env = gym.make("CartPole-v1")
observation, _ = env.reset(seed=3)
assert loaded.predict(observation) == agent.predict(observation)  # the same policy
actions = loaded.predict(np.zeros((8, 4), np.float32))  # a batch of observations -> actions
print("batched predict:", actions)
env.close()
