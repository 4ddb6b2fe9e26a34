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

from palaestra._lazy import lazy_attributes

__all__ = [
    "CartPoleVectorEnv",
    "MountainCarVectorEnv",
    "Continuous_MountainCarVectorEnv",
    "PendulumVectorEnv",
    "AcrobotVectorEnv",
]

# Each batched env is imported when first named (``make_vec`` names one).
__getattr__, __dir__ = lazy_attributes(
    __name__,
    {
        "CartPoleVectorEnv": "cartpole",
        "MountainCarVectorEnv": "mountain_car",
        "Continuous_MountainCarVectorEnv": "continuous_mountain_car",
        "PendulumVectorEnv": "pendulum",
        "AcrobotVectorEnv": "acrobot",
    },
)
