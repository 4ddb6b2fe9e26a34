"""Toy-text worlds as functional environments (jax ``jit``/``vmap``-able).

Example:
    >>> from palaestra.envs.tabular import CliffWalkingFunctional
    >>> CliffWalkingFunctional.__name__
    'CliffWalkingFunctional'
"""

from palaestra.envs.tabular.cliffwalking import (
    CliffWalkingFunctional,
    CliffWalkingJaxEnv,
    TableFunctional,
)

__all__ = ["CliffWalkingFunctional", "CliffWalkingJaxEnv", "TableFunctional"]
