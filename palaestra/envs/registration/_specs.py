"""The spec classes of the registry, and the protocols of the entry points they name.

:class:`EnvSpec` and :class:`WrapperSpec` are defined in the leaf module
:mod:`palaestra.env_spec` and re-exported here (specs pickled under this module's name still
load).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from palaestra.env_spec import EnvSpec, WrapperSpec

if TYPE_CHECKING:
    from palaestra.core import Env
    from palaestra.vector import VectorEnv

__all__ = ["EnvCreator", "VectorEnvCreator", "EnvSpec", "WrapperSpec"]


class EnvCreator(Protocol):
    """Anything that builds an :class:`~palaestra.Env` from keyword arguments."""

    def __call__(self, **kwargs: Any) -> Env: ...


class VectorEnvCreator(Protocol):
    """Anything that builds a vector env from ``num_envs`` and keyword arguments."""

    def __call__(self, **kwargs: Any) -> VectorEnv: ...
