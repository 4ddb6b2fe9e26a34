"""The classic-control environments.

CartPole, MountainCar, MountainCarContinuous, Pendulum and Acrobot. Their physics is in
:mod:`palaestra.envs.classic_control.dynamics`, shared with the batched environments; drawing
is in :mod:`palaestra.envs.classic_control.rendering` (pygame, imported only when rendering).

Example:
    >>> from palaestra.envs.classic_control import CartPoleEnv
    >>> CartPoleEnv.metadata["render_fps"]
    50
"""

from palaestra._lazy import submodule_getattr
from palaestra.envs.classic_control.acrobot import AcrobotEnv
from palaestra.envs.classic_control.cartpole import CartPoleEnv
from palaestra.envs.classic_control.continuous_mountain_car import Continuous_MountainCarEnv
from palaestra.envs.classic_control.mountain_car import MountainCarEnv
from palaestra.envs.classic_control.pendulum import PendulumEnv

__all__ = [
    "AcrobotEnv",
    "CartPoleEnv",
    "Continuous_MountainCarEnv",
    "MountainCarEnv",
    "PendulumEnv",
]

# Submodules (e.g. ``palaestra.wrappers.common``) are imported when first named, as attributes.
__getattr__ = submodule_getattr(__name__)
