"""A DQN written as CleanRL writes its single-file scripts, against the real Gymnasium API.

``import gymnasium as gym``, a ``gym.vector.SyncVectorEnv`` of ``gym.make`` envs with
``RecordEpisodeStatistics``, Stable-Baselines3's ``ReplayBuffer`` (which checks the spaces with
``isinstance`` against ``gymnasium.spaces``), a Q-network with a target copy and a linear
epsilon schedule. Prints one JSON line: what the objects were and what the run did.
"""

import argparse
import json

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3.common.buffers import ReplayBuffer
from torch import nn


def make_env(env_id, seed):
    def thunk():
        env = gym.make(env_id)
        env = gym.wrappers.RecordEpisodeStatistics(env)
        env.action_space.seed(seed)
        return env

    return thunk


class QNetwork(nn.Module):
    def __init__(self, envs):
        super().__init__()
        inputs = int(np.prod(envs.single_observation_space.shape))
        self.network = nn.Sequential(
            nn.Linear(inputs, 64), nn.ReLU(), nn.Linear(64, int(envs.single_action_space.n))
        )

    def forward(self, x):
        return self.network(x)


def epsilon(start, end, duration, step):
    return max(end, start + (end - start) * step / duration)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--env-id", default="CartPole-v1")
    parser.add_argument("--total-timesteps", type=int, default=500)
    parser.add_argument("--learning-starts", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    torch.manual_seed(args.seed)

    envs = gym.vector.SyncVectorEnv([make_env(args.env_id, args.seed)])
    assert isinstance(envs.single_action_space, gym.spaces.Discrete)
    q_network, target = QNetwork(envs), QNetwork(envs)
    target.load_state_dict(q_network.state_dict())
    optimizer = torch.optim.Adam(q_network.parameters(), lr=2.5e-4)
    buffer = ReplayBuffer(
        1000,
        envs.single_observation_space,
        envs.single_action_space,
        "cpu",
        handle_timeout_termination=False,
    )
    obs, _ = envs.reset(seed=args.seed)
    episodes, updates = 0, 0
    for step in range(args.total_timesteps):
        if np.random.default_rng(step).random() < epsilon(1.0, 0.05, 250, step):
            actions = np.array([envs.single_action_space.sample()])
        else:
            actions = torch.argmax(q_network(torch.Tensor(obs)), dim=1).numpy()
        next_obs, rewards, terminations, _truncations, infos = envs.step(actions)
        episodes += int(np.sum(infos.get("_episode", [])))
        real_next_obs = next_obs.copy()
        buffer.add(obs, real_next_obs, actions, rewards, terminations, infos)
        obs = next_obs
        if step > args.learning_starts and step % 10 == 0:
            data = buffer.sample(32)
            with torch.no_grad():
                best = target(data.next_observations).max(dim=1).values
                td_target = data.rewards.flatten() + 0.99 * best * (1 - data.dones.flatten())
            value = q_network(data.observations).gather(1, data.actions).squeeze()
            loss = nn.functional.mse_loss(td_target, value)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            updates += 1
            target.load_state_dict(q_network.state_dict())
    envs.close()
    report = {
        "gymnasium": gym.__name__,
        "env": type(envs.envs[0].unwrapped).__module__,
        "space": type(envs.single_observation_space).__module__,
        "episodes": episodes,
        "updates": updates,
        "loss_finite": bool(np.isfinite(loss.item())),
    }
    print(json.dumps(report))


if __name__ == "__main__":
    main()
