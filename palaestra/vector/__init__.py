"""Vector environments: run many copies of an environment and step them as one batch.

:class:`SyncVectorEnv` steps its sub-environments in a loop in this process;
:class:`AsyncVectorEnv` runs each in a worker process. Both batch observations by space type,
rewards and flags as arrays of shape ``(num_envs,)`` and info as one dict of arrays with
``_key`` masks, and autoreset ended sub-environments as :class:`AutoresetMode` says.

Example:
    >>> import numpy as np
    >>> import palaestra as gym
    >>> envs = gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1")] * 2)
    >>> observations, infos = envs.reset(seed=0)
    >>> observations, rewards, terminations, truncations, infos = envs.step(np.array([1, 0]))
    >>> rewards
    array([1., 1.])
    >>> envs.close()
"""

from palaestra._lazy import lazy_attributes
from palaestra.vector.sync_vector_env import SyncVectorEnv
from palaestra.vector.vector_env import (
    AutoresetMode,
    VectorActionWrapper,
    VectorEnv,
    VectorObservationWrapper,
    VectorRewardWrapper,
    VectorWrapper,
)

__all__ = [
    "VectorEnv",
    "VectorWrapper",
    "VectorObservationWrapper",
    "VectorActionWrapper",
    "VectorRewardWrapper",
    "SyncVectorEnv",
    "AsyncVectorEnv",
    "PoolVectorEnv",
    "utils",
    "AutoresetMode",
]

# The process-based vector envs (and the shared-memory helpers) are imported on first use:
# most scripts never start a worker, and these modules are a third of ``import palaestra``.
__getattr__, _dir = lazy_attributes(
    __name__,
    {
        "AsyncVectorEnv": "async_vector_env",
        "PoolVectorEnv": "pool",
        "utils": "utils",
    },
)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_dir()))
