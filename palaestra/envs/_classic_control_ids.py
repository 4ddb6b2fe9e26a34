"""Registers the classic-control environments (imported by :mod:`palaestra.envs`).

The vector entry points are the natively batched envs (:mod:`palaestra.vector.native`);
CartPole's is at Gymnasium's path, ``envs.classic_control.cartpole:CartPoleVectorEnv``.
"""

from palaestra.envs.registration import register

_CLASSIC = "palaestra.envs.classic_control"

register(
    id="CartPole-v0",
    entry_point=f"{_CLASSIC}.cartpole:CartPoleEnv",
    vector_entry_point=f"{_CLASSIC}.cartpole:CartPoleVectorEnv",
    max_episode_steps=200,
    reward_threshold=195.0,
)
register(
    id="CartPole-v1",
    entry_point=f"{_CLASSIC}.cartpole:CartPoleEnv",
    vector_entry_point=f"{_CLASSIC}.cartpole:CartPoleVectorEnv",
    max_episode_steps=500,
    reward_threshold=475.0,
)
register(
    id="MountainCar-v0",
    entry_point=f"{_CLASSIC}.mountain_car:MountainCarEnv",
    vector_entry_point=f"{_CLASSIC}.vector.mountain_car:MountainCarVectorEnv",
    max_episode_steps=200,
    reward_threshold=-110.0,
)
register(
    id="MountainCarContinuous-v0",
    entry_point=f"{_CLASSIC}.continuous_mountain_car:Continuous_MountainCarEnv",
    vector_entry_point=f"{_CLASSIC}.vector.continuous_mountain_car:Continuous_MountainCarVectorEnv",
    max_episode_steps=999,
    reward_threshold=90.0,
)
register(
    id="Pendulum-v1",
    entry_point=f"{_CLASSIC}.pendulum:PendulumEnv",
    vector_entry_point=f"{_CLASSIC}.vector.pendulum:PendulumVectorEnv",
    max_episode_steps=200,
)
register(
    id="Acrobot-v1",
    entry_point=f"{_CLASSIC}.acrobot:AcrobotEnv",
    vector_entry_point=f"{_CLASSIC}.vector.acrobot:AcrobotVectorEnv",
    reward_threshold=-100.0,
    max_episode_steps=500,
)
