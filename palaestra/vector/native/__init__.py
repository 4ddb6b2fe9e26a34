"""Native batching: vector environments that step all sub-environments as one array.

A natively batched environment keeps every sub-environment's state in one array and steps
them with one call of the single environment's own dynamics functions, with the results of
``make_vec(id, n, vectorization_mode="sync")`` bit for bit (same seeds, same actions, same
observations, rewards, flags and autoresets). How that parity is achieved, and what each trick
costs, is in ``docs/native_batching.md``.

The pieces, each in its own module:

- :class:`NativeVectorEnv` (:mod:`.base`): the base class. Subclass it, name the single
  environment class, implement ``draw_initial_states``, ``observe`` and ``advance``.
- :class:`GeneratorBatch` / :class:`GeneratorRows` (:mod:`.generators`, :mod:`.pcg64`): one
  PCG64 stream per sub-environment, seeded as the single env's ``np_random`` and drawn as a
  batch.
- :func:`close_step` (:mod:`.bookkeeping`): step counters, truncation, ended rows.
- :class:`ScalarPowArray` / :func:`scalar_pow_square` (:mod:`.exact_squares`): array squares
  that round as numpy scalars' ``** 2``.
- :func:`resolve_accelerator` (:mod:`.accelerator`): ``"auto"``, ``"numpy"`` or ``"numba"``.
- :class:`~.tiers.PromotionClock` (:mod:`.tiers`): when an ``"auto"`` env moves from numpy to
  numba.
- :mod:`.compiled` (numba only, imported on demand): a numba pipeline scoped to palaestra's
  functions, exact powers, compiled draws and bookkeeping.

Example:
    >>> import palaestra as gym
    >>> from palaestra.vector.native import NativeVectorEnv
    >>> envs = gym.make_vec("CartPole-v1", num_envs=3, vectorization_mode="vector_entry_point")
    >>> isinstance(envs, NativeVectorEnv)
    True
"""

from palaestra.vector.native.accelerator import (
    ACCELERATOR_VARIABLE,
    ACCELERATORS,
    numba_available,
    numba_installed,
    requested_accelerator,
    resolve_accelerator,
)
from palaestra.vector.native.base import NativeVectorEnv, Transition
from palaestra.vector.native.bookkeeping import NO_LIMIT, close_step
from palaestra.vector.native.exact_squares import ScalarPowArray, scalar_pow_square
from palaestra.vector.native.generators import GeneratorBatch, GeneratorRows

__all__ = [
    "NativeVectorEnv",
    "Transition",
    "GeneratorBatch",
    "GeneratorRows",
    "close_step",
    "NO_LIMIT",
    "ScalarPowArray",
    "scalar_pow_square",
    "resolve_accelerator",
    "numba_available",
    "numba_installed",
    "requested_accelerator",
    "ACCELERATORS",
    "ACCELERATOR_VARIABLE",
]
