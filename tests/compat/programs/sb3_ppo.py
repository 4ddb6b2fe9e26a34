"""Stable-Baselines3's PPO as its docs write it, on the vector env class named by ``argv[1]``.

``subprocess``: ``SubprocVecEnv`` workers started by spawn (fresh interpreters); ``dummy``:
SB3's in-process ``DummyVecEnv``. Prints one JSON line: which modules the objects came from,
in this process and in the workers.
"""

import json
import sys

import gymnasium
from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv


def main():
    subprocess = sys.argv[1:] == ["subprocess"]
    venv = make_vec_env(
        "CartPole-v1",
        n_envs=2,
        seed=0,
        vec_env_cls=SubprocVecEnv if subprocess else DummyVecEnv,
        vec_env_kwargs={"start_method": "spawn"} if subprocess else None,
    )
    model = PPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, device="cpu", seed=0)
    model.learn(256)
    workers = [type(env).__module__ for env in venv.get_attr("unwrapped")]
    venv.close()
    print(
        json.dumps(
            {
                "gymnasium": gymnasium.__name__,
                "workers": workers,
                "timesteps": model.num_timesteps,
                "space": type(model.observation_space).__module__,
            }
        )
    )


if __name__ == "__main__":
    main()
