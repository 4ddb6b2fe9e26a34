"""Registers the functional (phys2d, tabular) environments (imported by :mod:`palaestra.envs`)."""

from palaestra.envs.registration import register

register(
    id="phys2d/CartPole-v0",
    entry_point="palaestra.envs.phys2d.cartpole:CartPoleJaxEnv",
    vector_entry_point="palaestra.envs.phys2d.cartpole:CartPoleJaxVectorEnv",
    max_episode_steps=200,
    reward_threshold=195.0,
    disable_env_checker=True,
)
register(
    id="phys2d/CartPole-v1",
    entry_point="palaestra.envs.phys2d.cartpole:CartPoleJaxEnv",
    vector_entry_point="palaestra.envs.phys2d.cartpole:CartPoleJaxVectorEnv",
    max_episode_steps=500,
    reward_threshold=475.0,
    disable_env_checker=True,
)
register(
    id="phys2d/Pendulum-v0",
    entry_point="palaestra.envs.phys2d.pendulum:PendulumJaxEnv",
    vector_entry_point="palaestra.envs.phys2d.pendulum:PendulumJaxVectorEnv",
    max_episode_steps=200,
    disable_env_checker=True,
)
register(
    id="tabular/Blackjack-v0",
    entry_point="palaestra.envs.tabular.blackjack:BlackJackJaxEnv",
    disable_env_checker=True,
)
register(
    id="tabular/CliffWalking-v0",
    entry_point="palaestra.envs.tabular.cliffwalking:CliffWalkingJaxEnv",
    disable_env_checker=True,
)
