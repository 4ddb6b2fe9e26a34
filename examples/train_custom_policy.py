"""Train your own torch module with palaestra's PPO, and DQN/SAC with their presets.

Run from the repository root: ``python examples/train_custom_policy.py`` (under a minute).
A policy is any ``nn.Module`` with CleanRL's two methods, ``get_action_and_value`` and
``get_value`` (see ``palaestra.train.policies``).
"""

import torch

from palaestra.train import DQN, PPO, SAC


class SharedTorsoPolicy(torch.nn.Module):
    """One tanh torso shared by a categorical policy head and a value head."""

    def __init__(self, obs_dim: int = 4, actions: int = 2, width: int = 64):
        super().__init__()
        self.torso = torch.nn.Sequential(torch.nn.Linear(obs_dim, width), torch.nn.Tanh())
        self.logits = torch.nn.Linear(width, actions)
        self.value = torch.nn.Linear(width, 1)

    def get_value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.value(self.torso(obs)).squeeze(-1)

    def get_action_and_value(self, obs: torch.Tensor, action: torch.Tensor | None = None):
        hidden = self.torso(obs)
        distribution = torch.distributions.Categorical(logits=self.logits(hidden))
        if action is None:
            action = distribution.sample()
        value = self.value(hidden).squeeze(-1)
        return action, distribution.log_prob(action), distribution.entropy(), value


def main() -> None:
    agent = PPO(SharedTorsoPolicy(), "CartPole-v1", seed=0)
    agent.learn(20_000, progress_bar=False)
    print(f"custom policy: rolling mean return {agent.history[-1]['mean_return']:.1f}")
    for trainer, env_id, steps in ((DQN, "CartPole-v1", 3000), (SAC, "Pendulum-v1", 600)):
        off_policy = trainer("MlpPolicy", env_id, seed=0)  # rl-zoo's tuned preset
        off_policy.learn(steps, progress_bar=False)
        print(f"{trainer.__name__} on {env_id}: {off_policy.history[-1]['mean_return']:.1f}")


if __name__ == "__main__":
    main()
