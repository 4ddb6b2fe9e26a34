"""Training with Stable-Baselines3 through the adapter.

`palaestra.compat` turns palaestra envs into what other libraries expect (extras `gymnasium`
and `sb3`):

- `to_gymnasium(env)` gives a real `gymnasium.Env` (spaces converted, seeding and spec kept),
  so SB3's `check_env`, its `DummyVecEnv` and any Gymnasium wrapper take it;
- `sb3_vec_env(vector_env)` gives an SB3 `VecEnv` over any palaestra vector env, for example
  the natively batched CartPole, with `terminal_observation` and `TimeLimit.truncated` in the
  infos as SB3 expects.

The test suite runs 2,048 steps; set `PALAESTRA_TUTORIAL_TIMESTEPS=100000` for a full run
(PPO reaches 475 on CartPole through both routes).
"""

import os

import numpy as np
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.env_checker import check_env
from stable_baselines3.common.evaluation import evaluate_policy
from stable_baselines3.common.monitor import Monitor

import palaestra as gym
from palaestra.compat import sb3_vec_env, to_gymnasium

TIMESTEPS = int(os.environ.get("PALAESTRA_TUTORIAL_TIMESTEPS", "2048"))
torch.set_num_threads(1)  # small networks: threads cost more than they save

# One env through the Gymnasium adapter: SB3's checker accepts it.
env = to_gymnasium(gym.make("CartPole-v1"))
check_env(env)

# Eight natively batched CartPoles as one SB3 VecEnv. SameStep autoreset is what SB3 does.
venv = sb3_vec_env(gym.make_vec("CartPole-v1", 8, autoreset_mode="SameStep"))
model = PPO("MlpPolicy", venv, n_steps=64, batch_size=128, seed=0, device="cpu")
model.learn(total_timesteps=TIMESTEPS)

mean, std = evaluate_policy(model, Monitor(env), n_eval_episodes=5)
print(f"SB3 PPO after {TIMESTEPS} steps: {mean:.1f} +- {std:.1f}")
action, _ = model.predict(np.zeros(4, np.float32), deterministic=True)
print("action for the upright state:", int(action))
venv.close()
env.close()
