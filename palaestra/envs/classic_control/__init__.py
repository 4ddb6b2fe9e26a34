"""The classic-control environments.

CartPole, MountainCar, MountainCarContinuous, Pendulum and Acrobot. Their physics is in
:mod:`palaestra.envs.classic_control.dynamics`, shared with the batched environments; drawing
is in :mod:`palaestra.envs.classic_control.rendering` (pygame, imported only when rendering).

Example:
    >>> from palaestra.envs.classic_control import CartPoleEnv
    >>> CartPoleEnv.metadata["render_fps"]
    50
"""

from palaestra._lazy import lazy_attributes

__all__ = [
    "AcrobotEnv",
    "CartPoleEnv",
    "Continuous_MountainCarEnv",
    "MountainCarEnv",
    "PendulumEnv",
]

# Each environment (and any submodule, e.g. ``dynamics``) is imported when first named: making
# one env, or its batched form, then loads that env's modules only (a third of a first
# ``make_vec``'s time was importing the other four).
__getattr__, __dir__ = lazy_attributes(
    __name__,
    {
        "AcrobotEnv": "acrobot",
        "CartPoleEnv": "cartpole",
        "Continuous_MountainCarEnv": "continuous_mountain_car",
        "MountainCarEnv": "mountain_car",
        "PendulumEnv": "pendulum",
    },
)
