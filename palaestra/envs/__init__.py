"""The built-in environments, registered on import of :mod:`palaestra`.

Entry points are strings, so an environment's module (and its optional dependencies) is
imported only when the environment is made.

Example:
    >>> import palaestra as gym
    >>> gym.spec("CartPole-v1").max_episode_steps
    500
"""

# One module per family keeps each family's ids beside each other and out of the others' way.
# The import order is the registry's order (which pprint_registry follows): Gymnasium's.
# isort: off
from palaestra.envs import _classic_control_ids  # noqa: F401
from palaestra.envs import _functional_ids  # noqa: F401
from palaestra.envs import _box2d_ids  # noqa: F401
from palaestra.envs import _toy_text_ids  # noqa: F401
from palaestra.envs import _stub_ids  # noqa: F401
from palaestra.envs import _mujoco_ids  # noqa: F401
from palaestra.envs import _atari_ids  # noqa: F401

# isort: on
from palaestra._lazy import submodule_getattr
from palaestra.envs.registration import make, make_vec, pprint_registry, register, registry, spec

__all__ = ["make", "make_vec", "pprint_registry", "register", "registry", "spec"]

# Submodules (e.g. ``palaestra.wrappers.common``) are imported when first named, as attributes.
__getattr__ = submodule_getattr(__name__)
