"""Natively batched classic-control environments, registered as their ids' vector entry points.

Each steps all its sub-environments with one call of the same dynamics functions the single
environment calls, and gives the same observations, rewards and flags as
``make_vec(id, n, vectorization_mode="sync")`` for the same seeds and actions.

Example:
    >>> import palaestra as gym
    >>> envs = gym.make_vec("CartPole-v1", num_envs=4, vectorization_mode="vector_entry_point")
    >>> type(envs).__name__
    'CartPoleVectorEnv'
"""

from palaestra.envs.classic_control.vector.acrobot import AcrobotVectorEnv
from palaestra.envs.classic_control.vector.cartpole import CartPoleVectorEnv
from palaestra.envs.classic_control.vector.continuous_mountain_car import (
    Continuous_MountainCarVectorEnv,
)
from palaestra.envs.classic_control.vector.mountain_car import MountainCarVectorEnv
from palaestra.envs.classic_control.vector.pendulum import PendulumVectorEnv

__all__ = [
    "CartPoleVectorEnv",
    "MountainCarVectorEnv",
    "Continuous_MountainCarVectorEnv",
    "PendulumVectorEnv",
    "AcrobotVectorEnv",
]
