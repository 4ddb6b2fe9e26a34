"""The environment registry: ids, specs, and the ``make`` / ``make_vec`` factories.

An environment is registered once under an id of the form ``[namespace/]Name[-vN]`` and
later built by id. The :class:`EnvSpec` that describes it travels with every env made from
it (``env.spec``), complete with the constructor kwargs and the wrappers that were applied,
so ``make(env.spec)`` builds the same stack again.

Import everything from here; the private modules each do one job: ``_ids`` (parsing ids),
``_specs`` (:class:`EnvSpec`, :class:`WrapperSpec`), ``_registry`` (the registry and
:func:`register`), ``_lookup`` (:func:`spec` and its did-you-mean errors), ``_loading``
(entry points), ``_render_modes`` and ``_make`` (:func:`make`), ``_make_vec``
(:func:`make_vec`) and ``_pprint`` (:func:`pprint_registry`).

Example:
    >>> import palaestra as gym
    >>> env = gym.make("CartPole-v1", sutton_barto_reward=True)
    >>> env.spec.kwargs
    {'sutton_barto_reward': True}
    >>> gym.make(env.spec).spec == env.spec
    True
"""

from __future__ import annotations

import sys
from types import ModuleType

# ``X as X`` re-exports names that Gymnasium's module offers outside its ``__all__``.
from palaestra.envs.registration import _registry
from palaestra.envs.registration._ids import ENV_ID_RE as ENV_ID_RE
from palaestra.envs.registration._ids import get_env_id, parse_env_id
from palaestra.envs.registration._loading import load_env_creator
from palaestra.envs.registration._lookup import spec
from palaestra.envs.registration._make import make
from palaestra.envs.registration._make_vec import VectorizeMode, make_vec
from palaestra.envs.registration._pprint import pprint_registry
from palaestra.envs.registration._registry import (
    find_highest_version,
    namespace,
    register,
    register_envs,
    registry,
)
from palaestra.envs.registration._specs import EnvCreator as EnvCreator
from palaestra.envs.registration._specs import EnvSpec, WrapperSpec
from palaestra.envs.registration._specs import VectorEnvCreator as VectorEnvCreator

__all__ = [
    "registry",
    "current_namespace",
    "EnvSpec",
    "WrapperSpec",
    "VectorizeMode",
    "register",
    "make",
    "make_vec",
    "spec",
    "pprint_registry",
    "register_envs",
    "namespace",
    "parse_env_id",
    "get_env_id",
    "find_highest_version",
    "load_env_creator",
]


class _RegistrationModule(ModuleType):
    """The package module, whose ``current_namespace`` is the registry's live value."""

    @property
    def current_namespace(self) -> str | None:
        """The namespace :func:`register` forces on new ids inside :func:`namespace`."""
        return _registry.current_namespace

    @current_namespace.setter
    def current_namespace(self, ns: str | None) -> None:
        _registry.current_namespace = ns


# ``namespace()`` rebinds the registry module's global, so a re-exported copy would go stale;
# the property keeps ``registration.current_namespace`` live for readers and for resets.
sys.modules[__name__].__class__ = _RegistrationModule
