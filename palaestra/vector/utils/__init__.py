"""Space batching, shared memory and process helpers used by the vector environments.

Example:
    >>> from palaestra.spaces import Discrete
    >>> from palaestra.vector.utils import batch_space
    >>> batch_space(Discrete(2), n=4)
    MultiDiscrete([2 2 2 2])
"""

from palaestra._lazy import lazy_attributes
from palaestra.vector.utils.space_utils import (
    batch_differing_spaces,
    batch_space,
    concatenate,
    create_empty_array,
    iterate,
)

__all__ = [
    "batch_space",
    "batch_differing_spaces",
    "iterate",
    "concatenate",
    "create_empty_array",
    "create_shared_memory",
    "read_from_shared_memory",
    "write_to_shared_memory",
    "CloudpickleWrapper",
    "clear_mpi_env_vars",
]

# The process helpers (multiprocessing, shared memory, cloudpickle) load on first use: a
# natively batched env needs only the space helpers.
__getattr__, _dir = lazy_attributes(
    __name__,
    {
        "create_shared_memory": "shared_memory",
        "read_from_shared_memory": "shared_memory",
        "write_to_shared_memory": "shared_memory",
        "CloudpickleWrapper": "misc",
        "clear_mpi_env_vars": "misc",
    },
)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_dir()))
