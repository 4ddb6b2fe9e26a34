"""Train PPO on CartPole-v1 from Python, evaluate it, save it and load it back.

Run from the repository root: ``python examples/train_cartpole.py`` (a few seconds).
The command-line equivalent is ``palaestra train CartPole-v1``.
"""

import palaestra as gym
from palaestra.train import PPO, evaluate, load_policy


def main() -> None:
    # The hyper-parameters are CartPole-v1's preset, the same `palaestra train` uses.
    agent = PPO("MlpPolicy", "CartPole-v1", seed=0)
    evaluation_envs = gym.make_vec("CartPole-v1", num_envs=100)

    def report(stats: dict) -> bool:
        print(f"{stats['steps']:6d} steps | mean return {stats['mean_return']:6.1f}")
        if stats["updates"] % 8:
            return True
        score = evaluate(agent, evaluation_envs, episodes=100).mean()
        print(f"evaluation (deterministic): {score:.1f}")
        return score < 475.0  # returning False stops training

    agent.learn(total_timesteps=100_000, callback=report, progress_bar=False)
    agent.save("runs/example-cartpole/model.pt")
    policy = load_policy("runs/example-cartpole/model.pt")
    returns = evaluate(policy, policy.make_env(num_envs=100), episodes=100, seed=1)
    print(f"reloaded policy: {returns.mean():.1f} ± {returns.std():.1f} over 100 episodes")
    print(f"one observation, one action: {policy.predict(evaluation_envs.reset()[0][0])}")


if __name__ == "__main__":
    main()
