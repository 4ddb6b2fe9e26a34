"""The classic-control environments.

CartPole, MountainCar, MountainCarContinuous, Pendulum and Acrobot.
Their physics is in :mod:`palaestra.envs.classic_control.dynamics`, shared with the batched
environments; drawing is in :mod:`palaestra.envs.classic_control.rendering` (pygame, imported
only when rendering).

Example:
    >>> from palaestra.envs.classic_control import CartPoleEnv
    >>> CartPoleEnv.metadata["render_fps"]
    50
"""

from palaestra.envs.classic_control.cartpole import CartPoleEnv

__all__ = ["CartPoleEnv"]
