"""palaestra: reinforcement-learning environments that speak the Gymnasium API.

``import palaestra as gym`` runs code written for Gymnasium 1.4.

Example:
    >>> import palaestra as gym
    >>> env = gym.make("CartPole-v1")
    >>> observation, info = env.reset(seed=42)
    >>> observation.shape
    (4,)
"""

from palaestra import (
    envs,  # registers the built-in environments
    error,
    logger,
    spaces,
    utils,
)
from palaestra._lazy import submodule_getattr
from palaestra.core import (
    ActionWrapper,
    Env,
    ObservationWrapper,
    RewardWrapper,
    Wrapper,
)
from palaestra.envs.registration import (
    VectorizeMode,
    make,
    make_vec,
    pprint_registry,
    register,
    register_envs,
    registry,
    spec,
)
from palaestra.spaces.space import Space

__version__ = "0.1.0"

__all__ = [
    "Env",
    "Wrapper",
    "ObservationWrapper",
    "ActionWrapper",
    "RewardWrapper",
    "Space",
    "make",
    "make_vec",
    "spec",
    "register",
    "registry",
    "pprint_registry",
    "register_envs",
    "VectorizeMode",
    "envs",
    "spaces",
    "utils",
    "vector",
    "wrappers",
    "error",
    "logger",
    "__version__",
]

# Submodules (``palaestra.vector``, ``palaestra.wrappers.common``...) are imported when first
# named, as attributes: ``import palaestra`` loads only what making a single env needs.
__getattr__ = submodule_getattr(__name__)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
