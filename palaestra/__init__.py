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

# The Gymnasium API it implements (three numbers), then palaestra's release on that API;
# client code comparing `gym.__version__` takes its Gymnasium 1.4 branch (docs/dropin.md).
__version__ = "1.4.0.0"

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

# An uncaught error of a library that rejected a palaestra object for not being the real
# gymnasium's ends with a pointer to palaestra.compat (palaestra/compat/_hints.py).
from palaestra.compat._hints import install_excepthook as _install_excepthook

_install_excepthook()


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
