"""Every classic-control system as a functional environment (jax ``jit``/``vmap``-able).

Example:
    >>> from palaestra.envs.phys2d import CartPoleFunctional
    >>> CartPoleFunctional.action_space
    Discrete(2)
"""

from palaestra.envs.phys2d.cartpole import CartPoleFunctional, CartPoleJaxEnv, CartPoleJaxVectorEnv
from palaestra.envs.phys2d.classic import (
    AcrobotFunctional,
    ContinuousMountainCarFunctional,
    MountainCarFunctional,
)
from palaestra.envs.phys2d.pendulum import PendulumFunctional, PendulumJaxEnv, PendulumJaxVectorEnv

__all__ = [
    "CartPoleFunctional",
    "CartPoleJaxEnv",
    "CartPoleJaxVectorEnv",
    "PendulumFunctional",
    "PendulumJaxEnv",
    "PendulumJaxVectorEnv",
    "MountainCarFunctional",
    "ContinuousMountainCarFunctional",
    "AcrobotFunctional",
]
