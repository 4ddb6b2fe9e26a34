"""The worker-pool vector env: many sub-environments per process, one shared-memory block.

Example:
    >>> from palaestra.vector.pool import PoolVectorEnv
    >>> PoolVectorEnv.__name__
    'PoolVectorEnv'
"""

from palaestra.vector.pool.pool_vector_env import PoolVectorEnv

__all__ = ["PoolVectorEnv"]
