"""Toy-text worlds as functional environments (jax ``jit``/``vmap``-able).

Example:
    >>> from palaestra.envs.tabular import BlackJackJaxEnv, CliffWalkingJaxEnv
    >>> CliffWalkingJaxEnv.metadata["jax"]
    True
"""

from palaestra.envs.tabular.blackjack import BlackjackFunctional, BlackJackJaxEnv
from palaestra.envs.tabular.cliffwalking import (
    CliffWalkingFunctional,
    CliffWalkingJaxEnv,
    FrozenLakeFunctional,
    TableFunctional,
    TaxiFunctional,
)

__all__ = [
    "BlackJackJaxEnv",
    "CliffWalkingJaxEnv",
    "BlackjackFunctional",
    "CliffWalkingFunctional",
    "FrozenLakeFunctional",
    "TaxiFunctional",
    "TableFunctional",
]
