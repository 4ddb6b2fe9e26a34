"""Helpers for starting worker processes: pickling env factories, hiding MPI variables."""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

__all__ = ["CloudpickleWrapper", "clear_mpi_env_vars"]

_Result = TypeVar("_Result")

# Variables through which MPI launchers tell a process it is an MPI rank.
_MPI_PREFIXES = ("OMPI_", "PMI_")


class CloudpickleWrapper(Generic[_Result]):
    """Make a callable (a lambda, a closure) picklable by pickling it with cloudpickle.

    Worker processes started with ``spawn``/``forkserver`` receive their env factory pickled;
    plain :mod:`pickle` refuses lambdas and local functions, cloudpickle does not.

    Args:
        fn: a callable taking no arguments, usually one that builds an environment.

    Example:
        >>> import pickle
        >>> wrapped = CloudpickleWrapper(lambda: 41 + 1)
        >>> pickle.loads(pickle.dumps(wrapped))()
        42
    """

    def __init__(self, fn: Callable[[], _Result]) -> None:
        self.fn = fn

    def __getstate__(self) -> bytes:
        import cloudpickle

        return cloudpickle.dumps(self.fn)

    def __setstate__(self, ob: bytes) -> None:
        self.fn = pickle.loads(ob)

    def __call__(self) -> _Result:
        """Call the wrapped function."""
        return self.fn()


@contextmanager
def clear_mpi_env_vars() -> Iterator[None]:
    """Hide MPI environment variables (``OMPI_*``, ``PMI_*``) while the block runs.

    A child process that inherits them and imports ``mpi4py`` believes it is an MPI rank of
    its parent's job and may hang in ``MPI_Init``; start worker processes inside this block.

    Example:
        >>> import os
        >>> os.environ["OMPI_EXAMPLE"] = "1"
        >>> with clear_mpi_env_vars():
        ...     "OMPI_EXAMPLE" in os.environ
        False
        >>> os.environ.pop("OMPI_EXAMPLE")
        '1'
    """
    hidden = {name: value for name, value in os.environ.items() if name.startswith(_MPI_PREFIXES)}
    for name in hidden:
        del os.environ[name]
    try:
        yield
    finally:
        os.environ.update(hidden)
