"""Registers the ids of suites that moved elsewhere, so ``make`` says where they went.

The mujoco-py based v2/v3 MuJoCo envs now live in gymnasium-robotics, and the old-Gym
compatibility envs in shimmy. As in Gymnasium, their ids exist and ``make`` raises an
``ImportError`` naming the package to install.

Example:
    >>> import palaestra as gym
    >>> gym.make("Ant-v2")
    Traceback (most recent call last):
        ...
    ImportError: The mujoco v2 and v3 based environments have been moved to the...
"""

from typing import Any, NoReturn

from palaestra.envs.registration import register

MUJOCO_PY_IDS = (
    "Reacher-v2",
    "Pusher-v2",
    "InvertedPendulum-v2",
    "InvertedDoublePendulum-v2",
    "HalfCheetah-v2",
    "HalfCheetah-v3",
    "Hopper-v2",
    "Hopper-v3",
    "Swimmer-v2",
    "Swimmer-v3",
    "Walker2d-v2",
    "Walker2d-v3",
    "Ant-v2",
    "Ant-v3",
    "Humanoid-v2",
    "Humanoid-v3",
    "HumanoidStandup-v2",
)
SHIMMY_IDS = ("GymV21Environment-v0", "GymV26Environment-v0")


def raise_mujoco_py_error(*args: Any, **kwargs: Any) -> NoReturn:
    """Refuse to make a mujoco-py based env, naming the project that now hosts them.

    Raises:
        ImportError: always.
    """
    raise ImportError(
        "The mujoco v2 and v3 based environments have been moved to the gymnasium-robotics "
        "project (https://github.com/Farama-Foundation/gymnasium-robotics). "
        "palaestra ships the v4 and v5 versions (e.g. Ant-v5)."
    )


def raise_shimmy_error(*args: Any, **kwargs: Any) -> NoReturn:
    """Refuse to make an old-Gym compatibility env, naming the package that provides it.

    Raises:
        ImportError: always.
    """
    raise ImportError(
        'To use the gym compatibility environments, run `pip install "shimmy[gym-v21]"` or '
        '`pip install "shimmy[gym-v26]"`'
    )


for _env_id in MUJOCO_PY_IDS:
    register(id=_env_id, entry_point=raise_mujoco_py_error)
for _env_id in SHIMMY_IDS:
    register(id=_env_id, entry_point=raise_shimmy_error)
