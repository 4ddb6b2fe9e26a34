"""Pusher-v4: refused on MuJoCo 3 and later, as Gymnasium refuses it.

Its model's behaviour changed with MuJoCo 3 (Gymnasium issue 950); Pusher-v5 is the
supported version.

Example:
    >>> try:
    ...     PusherEnv()
    ... except ImportError as refusal:
    ...     print(str(refusal)[:40])
    `Pusher-v4` is only supported on `mujoco
"""

from __future__ import annotations

from typing import Any

import mujoco

from palaestra.envs.mujoco import pusher_v5

DEFAULT_CAMERA_CONFIG = {"trackbodyid": -1, "distance": 4.0}

__all__ = ["PusherEnv"]


def _mujoco_major() -> int:
    return int(mujoco.__version__.split(".")[0])


class PusherEnv(pusher_v5.PusherEnv):
    """The Pusher, version 4: only on ``mujoco<3``.

    Args:
        **kwargs: :class:`~palaestra.envs.mujoco.mujoco_env.MujocoEnv` arguments.

    Example:
        >>> PusherEnv()
        Traceback (most recent call last):
            ...
        ImportError: `Pusher-v4` is only supported on `mujoco<3`, for more information ...

    Raises:
        ImportError: on MuJoCo 3 or later (with Gymnasium's message).
    """

    def __init__(self, **kwargs: Any):
        if _mujoco_major() >= 3:
            raise ImportError(
                "`Pusher-v4` is only supported on `mujoco<3`, for more information "
                "https://github.com/Farama-Foundation/Gymnasium/issues/950"
            )
        raise ImportError(  # pragma: no cover - mujoco>=3.2 is required
            "Pusher-v4's model file (pusher.xml) is not built in; use Pusher-v5."
        )
