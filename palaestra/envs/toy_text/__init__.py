"""The toy-text environments: FrozenLake, Taxi, CliffWalking and Blackjack.

Small discrete worlds, at Gymnasium's module paths with Gymnasium's class names. Each has a
natively batched version in :mod:`palaestra.envs.toy_text.vector`, built on the same
transition tables (or, for Blackjack, the same rule functions).

Example:
    >>> from palaestra.envs.toy_text import FrozenLakeEnv
    >>> FrozenLakeEnv().observation_space
    Discrete(16)
"""

from palaestra.envs.toy_text.blackjack import BlackjackEnv
from palaestra.envs.toy_text.cliffwalking import CliffWalkingEnv
from palaestra.envs.toy_text.frozen_lake import FrozenLakeEnv
from palaestra.envs.toy_text.taxi import TaxiEnv

__all__ = ["BlackjackEnv", "CliffWalkingEnv", "FrozenLakeEnv", "TaxiEnv"]
