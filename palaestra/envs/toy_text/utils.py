"""What the toy-text environments share: categorical sampling and transition tables.

FrozenLake, CliffWalking and Taxi are finite MDPs described by a table ``P`` in Gymnasium's
layout: ``P[state][action]`` is a list of ``(probability, next_state, reward, terminated)``
outcomes. The single environments sample an outcome from that list with
:func:`categorical_sample`; :class:`TransitionArrays` holds the same table as padded numpy
arrays, so the natively batched environments look up all their sub-environments' outcomes at
once, from one table built by the single environment's own code.

Example:
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> int(categorical_sample([0.25, 0.75], rng))
    1
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["categorical_sample", "TransitionArrays", "Outcome", "TransitionTable"]

# One outcome of an action: (probability, next state, reward, terminated).
Outcome = tuple[float, int, Any, bool]
TransitionTable = Mapping[int, Mapping[int, Sequence[Outcome]]]


def categorical_sample(prob_n: Any, np_random: np.random.Generator) -> np.int64:
    """Draw an index from the categorical distribution with probabilities ``prob_n``.

    One uniform double is drawn; the result is the first index whose cumulative probability
    exceeds it (index 0 if rounding leaves the total below the draw).

    Args:
        prob_n: the class probabilities, summing to 1.
        np_random: the generator to draw from.

    Example:
        >>> rng = np.random.default_rng(3)
        >>> [int(categorical_sample([0.5, 0.5], rng)) for _ in range(4)]
        [0, 0, 1, 1]
    """
    cumulative = np.cumsum(np.asarray(prob_n))
    return np.argmax(cumulative > np_random.random())


def first_exceeding(outcomes: Sequence[Outcome], draw: float) -> int:
    """Return the index :func:`categorical_sample` picks from ``outcomes`` for ``draw``.

    The probabilities are summed in order in float64, as ``numpy.cumsum`` sums them.

    Example:
        >>> first_exceeding([(0.5, 0, 0, False), (0.5, 1, 0, False)], 0.7)
        1
    """
    total = 0.0
    for index, outcome in enumerate(outcomes):
        total += outcome[0]
        if total > draw:
            return index
    return 0


@dataclass(frozen=True)
class TransitionArrays:
    """A transition table ``P`` as arrays of shape ``(states, actions, outcomes)``.

    Actions with fewer outcomes than the widest are padded with outcomes that are never
    picked (their cumulative probability is ``-inf``).

    Attributes:
        cumulative: float64 cumulative probabilities, summed in order as ``numpy.cumsum``.
        probability: float64 probability of each outcome.
        next_state: int64 next states.
        reward: float64 rewards.
        terminated: bool termination flags.

    Example:
        >>> table = {0: {0: [(0.5, 0, 0, False), (0.5, 1, 1, True)]}, 1: {0: [(1.0, 1, 0, True)]}}
        >>> arrays = TransitionArrays.from_table(table, 2, 1)
        >>> arrays.cumulative[:, 0].tolist()
        [[0.5, 1.0], [1.0, -inf]]
        >>> arrays.sample(np.array([0, 0]), np.array([0, 0]), np.array([0.2, 0.9])).tolist()
        [0, 1]
    """

    cumulative: np.ndarray
    probability: np.ndarray
    next_state: np.ndarray
    reward: np.ndarray
    terminated: np.ndarray

    @classmethod
    def from_table(
        cls, table: TransitionTable, num_states: int, num_actions: int
    ) -> TransitionArrays:
        """Build the arrays of ``table`` (Gymnasium's ``P`` layout).

        Raises:
            KeyError: if a state or action below the given counts is missing from ``table``.
        """
        width = max(len(table[s][a]) for s in range(num_states) for a in range(num_actions))
        shape = (num_states, num_actions, width)
        cumulative = np.full(shape, -np.inf)
        probability = np.zeros(shape)
        next_state = np.zeros(shape, dtype=np.int64)
        reward = np.zeros(shape)
        terminated = np.zeros(shape, dtype=np.bool_)
        for s in range(num_states):
            for a in range(num_actions):
                outcomes = table[s][a]
                count = len(outcomes)
                probs = np.array([outcome[0] for outcome in outcomes], dtype=np.float64)
                cumulative[s, a, :count] = np.cumsum(probs)
                probability[s, a, :count] = probs
                next_state[s, a, :count] = [outcome[1] for outcome in outcomes]
                reward[s, a, :count] = [outcome[2] for outcome in outcomes]
                terminated[s, a, :count] = [outcome[3] for outcome in outcomes]
        return cls(cumulative, probability, next_state, reward, terminated)

    def sample(self, states: np.ndarray, actions: np.ndarray, draws: np.ndarray) -> np.ndarray:
        """Return the outcome index picked for each ``(state, action, draw)`` row."""
        return np.argmax(self.cumulative[states, actions] > draws[:, None], axis=1)
