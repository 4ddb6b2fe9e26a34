"""Train PPO on CartPole-v1 from Python, evaluate it, save it and load it back.

Run from the repository root: ``python examples/train_cartpole.py`` (a few seconds).
The command-line equivalent is ``palaestra train CartPole-v1``.
"""

import palaestra as gym
from palaestra.train import PPO, PPOConfig, evaluate, load_policy, save_agent
from palaestra.train.presets import preset


def main() -> None:
    agent = PPO("CartPole-v1", PPOConfig(**preset("CartPole-v1", "ppo").config, seed=0))
    evaluation_envs = gym.make_vec("CartPole-v1", num_envs=100)

    def report(stats: dict) -> bool:
        print(f"{stats['steps']:6d} steps | mean return {stats['mean_return']:6.1f}")
        if stats["updates"] % 8:
            return True
        score = evaluate(agent, evaluation_envs, episodes=100).mean()
        print(f"evaluation: {score:.1f}")
        return score < 475.0  # returning False stops training

    agent.learn(total_steps=100_000, callback=report)
    save_agent(agent, "runs/example-cartpole/model.pt")
    policy = load_policy("runs/example-cartpole/model.pt")
    returns = evaluate(policy, policy.make_env(num_envs=100), episodes=100, seed=1)
    print(f"reloaded policy: {returns.mean():.1f} ± {returns.std():.1f} over 100 episodes")


if __name__ == "__main__":
    main()
