"""CleanRL-style training loops on adapted envs: they run, and (slow tests) they learn.

The loop is CleanRL's ``ppo.py`` in miniature -- a ``gymnasium.vector`` env with Gymnasium's
``RecordEpisodeStatistics``, GAE, clipped PPO updates -- written against the Gymnasium API
only, fed either ``gymnasium.vector.SyncVectorEnv`` of ``to_gymnasium`` envs or
``to_gymnasium_vector`` of palaestra's natively batched CartPole.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import palaestra
from palaestra.compat import to_gymnasium, to_gymnasium_vector

torch = pytest.importorskip("torch")
nn = torch.nn


pytestmark = pytest.mark.usefixtures("one_torch_thread")


class Agent(nn.Module):
    """CleanRL's CartPole actor-critic: two tanh layers of 64 for each head."""

    def __init__(self, observations: int, actions: int):
        super().__init__()
        self.critic = nn.Sequential(
            nn.Linear(observations, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1)
        )
        self.actor = nn.Sequential(
            nn.Linear(observations, 64),
            nn.Tanh(),
            nn.Linear(64, 64),
            nn.Tanh(),
            nn.Linear(64, actions),
        )

    def act(self, x, action=None):
        distribution = torch.distributions.Categorical(logits=self.actor(x))
        if action is None:
            action = distribution.sample()
        return action, distribution.log_prob(action), distribution.entropy(), self.critic(x)


def cleanrl_ppo(envs, total_steps: int, seed: int, num_steps: int = 64) -> list[float]:
    """Train PPO on a Gymnasium vector env; return the episode returns in the order seen."""
    torch.manual_seed(seed)
    envs = gymnasium.wrappers.vector.RecordEpisodeStatistics(envs)
    n = envs.num_envs
    agent = Agent(envs.single_observation_space.shape[0], envs.single_action_space.n)
    optimizer = torch.optim.Adam(agent.parameters(), lr=2.5e-3, eps=1e-5)
    obs_buf = torch.zeros((num_steps, n, envs.single_observation_space.shape[0]))
    act_buf, logp_buf, rew_buf, done_buf, val_buf = (torch.zeros((num_steps, n)) for _ in range(5))
    returns: list[float] = []
    observation, _ = envs.reset(seed=seed)
    observation = torch.as_tensor(observation, dtype=torch.float32)
    done = torch.zeros(n)
    for _ in range(total_steps // (num_steps * n)):
        for step in range(num_steps):
            obs_buf[step], done_buf[step] = observation, done
            with torch.no_grad():
                action, logp, _, value = agent.act(observation)
            act_buf[step], logp_buf[step], val_buf[step] = action, logp, value.flatten()
            observation, reward, terminated, truncated, info = envs.step(action.numpy())
            rew_buf[step] = torch.as_tensor(reward, dtype=torch.float32)
            done = torch.as_tensor(np.logical_or(terminated, truncated), dtype=torch.float32)
            observation = torch.as_tensor(observation, dtype=torch.float32)
            if "episode" in info:
                returns += info["episode"]["r"][info["_episode"]].tolist()
        with torch.no_grad():
            next_value = agent.act(observation)[3].flatten()
            advantages = torch.zeros_like(rew_buf)
            last = torch.zeros(n)
            for t in reversed(range(num_steps)):
                not_done = 1.0 - (done if t == num_steps - 1 else done_buf[t + 1])
                following = next_value if t == num_steps - 1 else val_buf[t + 1]
                delta = rew_buf[t] + 0.99 * following * not_done - val_buf[t]
                last = delta + 0.99 * 0.95 * not_done * last
                advantages[t] = last
            targets = advantages + val_buf
        b_obs, b_act = obs_buf.reshape(-1, obs_buf.shape[-1]), act_buf.reshape(-1)
        b_logp, b_adv, b_ret = logp_buf.reshape(-1), advantages.reshape(-1), targets.reshape(-1)
        for _ in range(4):
            for batch in torch.randperm(len(b_obs)).chunk(4):
                _, logp, entropy, value = agent.act(b_obs[batch], b_act[batch].long())
                ratio = (logp - b_logp[batch]).exp()
                adv = b_adv[batch]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                policy_loss = torch.max(-adv * ratio, -adv * ratio.clamp(0.8, 1.2)).mean()
                value_loss = 0.5 * ((value.flatten() - b_ret[batch]) ** 2).mean()
                loss = policy_loss + 0.5 * value_loss - 0.01 * entropy.mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
    envs.close()
    return returns


def sync_of_adapted(num_envs: int):
    return gymnasium.vector.SyncVectorEnv(
        [lambda: to_gymnasium(palaestra.make("CartPole-v1"))] * num_envs
    )


def adapted_native(num_envs: int):
    return to_gymnasium_vector(palaestra.make_vec("CartPole-v1", num_envs))


SOURCES = {"SyncVectorEnv-of-to_gymnasium": sync_of_adapted, "to_gymnasium_vector": adapted_native}


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_cleanrl_loop_runs_and_records_episodes(source):
    returns = cleanrl_ppo(SOURCES[source](4), total_steps=1024, seed=0)

    assert len(returns) >= 10
    assert all(value >= 8.0 for value in returns)


@pytest.mark.slow
@pytest.mark.parametrize("source", sorted(SOURCES))
def test_cleanrl_loop_learns_cartpole(source):
    returns = cleanrl_ppo(SOURCES[source](8), total_steps=40_960, seed=1)

    first, last = np.mean(returns[:20]), np.mean(returns[-20:])
    assert last >= 150.0
    assert last >= 4 * first
