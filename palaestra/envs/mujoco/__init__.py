"""The MuJoCo environments (v4 and v5) and the :class:`MujocoEnv` base class.

The models are built in code (:mod:`palaestra.envs.mujoco.models`); MuJoCo itself comes
with the ``mujoco`` extra (``pip install "palaestra[mujoco]"``) and is imported when an
environment of this package is first used.

Example:
    >>> from palaestra.envs.mujoco import MujocoEnv
    >>> MujocoEnv.__name__
    'MujocoEnv'
"""

from palaestra._lazy import lazy_attributes

__getattr__, __dir__ = lazy_attributes(
    __name__,
    {
        "MujocoEnv": "mujoco_env",
        "MujocoRenderer": "mujoco_rendering",
        "AntEnv": "ant_v5",
        "HalfCheetahEnv": "half_cheetah_v5",
        "HopperEnv": "hopper_v5",
        "HumanoidEnv": "humanoid_v5",
        "HumanoidStandupEnv": "humanoidstandup_v5",
        "InvertedDoublePendulumEnv": "inverted_double_pendulum_v5",
        "InvertedPendulumEnv": "inverted_pendulum_v5",
        "PusherEnv": "pusher_v5",
        "ReacherEnv": "reacher_v5",
        "SwimmerEnv": "swimmer_v5",
        "Walker2dEnv": "walker2d_v5",
    },
)
