"""Observation buffers shared between the worker processes of an async vector env.

The buffers are ``multiprocessing`` shared arrays (``ctx.Array``). Their backing file is
unlinked from ``/dev/shm`` as soon as it is created, so no named segment outlives the
processes, whatever way they end; the memory is returned when the last handle goes away.

Each function is a :func:`functools.singledispatch` function: register your own space type
with ``create_shared_memory.register(MySpace)`` and the read/write counterparts.

Example:
    >>> from palaestra.spaces import Box
    >>> space = Box(0, 1, shape=(2,))
    >>> memory = create_shared_memory(space, n=3)
    >>> write_to_shared_memory(space, 1, np.ones(2), memory)
    >>> read_from_shared_memory(space, memory, n=3)
    array([[0., 0.],
           [1., 1.],
           [0., 0.]], dtype=float32)
"""

from __future__ import annotations

import multiprocessing as mp
from array import typecodes
from collections.abc import Mapping
from ctypes import c_bool, c_uint8
from functools import singledispatch
from types import ModuleType
from typing import Any

import numpy as np

from palaestra.spaces import (
    Box,
    Dict,
    Discrete,
    Graph,
    MultiBinary,
    MultiDiscrete,
    OneOf,
    Sequence,
    Space,
    Text,
    Tuple,
)
from palaestra.vector.utils.space_utils import batch_space, iterate, unregistered_space_error

__all__ = ["create_shared_memory", "read_from_shared_memory", "write_to_shared_memory"]

_ARRAY_SPACES = (Box, Discrete, MultiDiscrete, MultiBinary)


def _flat_view(shared_array: Any, dtype: np.dtype[Any]) -> np.ndarray:
    """View a shared array's memory as a flat numpy array (no copy)."""
    return np.frombuffer(shared_array.get_obj(), dtype=dtype)


@singledispatch
def create_shared_memory(space: Space[Any], n: int = 1, ctx: ModuleType | Any = mp) -> Any:
    """Allocate shared memory for ``n`` observations of ``space``.

    Args:
        space: the observation space of one sub-environment.
        n: the number of sub-environments.
        ctx: the ``multiprocessing`` module or context that allocates the arrays.

    Returns:
        A shared array, or a tuple/dict of them mirroring ``space``.

    Raises:
        CustomSpaceError: for a space type with no registered rule.
        TypeError: for ``Graph``/``Sequence`` (no fixed size; use ``shared_memory=False``)
            and for a non-space.

    Example:
        >>> from palaestra.spaces import Discrete
        >>> len(create_shared_memory(Discrete(4), n=5))
        5
    """
    raise unregistered_space_error("create_shared_memory", space)


@create_shared_memory.register(Box)
@create_shared_memory.register(Discrete)
@create_shared_memory.register(MultiDiscrete)
@create_shared_memory.register(MultiBinary)
def _create_array_memory(space: Space[Any], n: int = 1, ctx: Any = mp) -> Any:
    size = n * int(np.prod(space.shape))
    code = space.dtype.char
    if code == "?":
        return ctx.Array(c_bool, size)
    if code in typecodes:
        return ctx.Array(code, size)
    # dtypes with no array typecode (float16, ...) are stored as raw bytes.
    return ctx.Array(c_uint8, size * space.dtype.itemsize)


@create_shared_memory.register(Tuple)
def _create_tuple_memory(space: Tuple, n: int = 1, ctx: Any = mp) -> tuple[Any, ...]:
    return tuple(create_shared_memory(sub, n=n, ctx=ctx) for sub in space.spaces)


@create_shared_memory.register(Dict)
def _create_dict_memory(space: Dict, n: int = 1, ctx: Any = mp) -> dict[str, Any]:
    return {key: create_shared_memory(sub, n=n, ctx=ctx) for key, sub in space.spaces.items()}


@create_shared_memory.register(Text)
def _create_text_memory(space: Text, n: int = 1, ctx: Any = mp) -> Any:
    # One int32 character index per position; indices past the charset mark the padding.
    return ctx.Array(np.dtype(np.int32).char, n * space.max_length)


@create_shared_memory.register(OneOf)
def _create_one_of_memory(space: OneOf, n: int = 1, ctx: Any = mp) -> tuple[Any, ...]:
    chosen = ctx.Array(np.dtype(np.int64).char, n)
    return (chosen, *(create_shared_memory(sub, n=n, ctx=ctx) for sub in space.spaces))


@create_shared_memory.register(Graph)
@create_shared_memory.register(Sequence)
def _create_dynamic_memory(space: Space[Any], n: int = 1, ctx: Any = mp) -> Any:
    raise TypeError(
        f"As {space} has a dynamic shape so its not possible to make a static shared memory. "
        "For `AsyncVectorEnv`, disable `shared_memory`."
    )


@singledispatch
def read_from_shared_memory(space: Space[Any], shared_memory: Any, n: int = 1) -> Any:
    """View the ``n`` observations held in ``shared_memory`` as (nested) numpy arrays.

    The arrays share memory with ``shared_memory``: later writes show through them. Copy them
    (``np.copy``) to keep a snapshot.

    Args:
        space: the observation space of one sub-environment.
        shared_memory: memory from :func:`create_shared_memory`.
        n: the number of sub-environments.

    Raises:
        CustomSpaceError: for a space type with no registered rule.

    Example:
        >>> from palaestra.spaces import MultiBinary
        >>> space = MultiBinary(3)
        >>> read_from_shared_memory(space, create_shared_memory(space, n=2), n=2)
        array([[0, 0, 0],
               [0, 0, 0]], dtype=int8)
    """
    raise unregistered_space_error("read_from_shared_memory", space)


@read_from_shared_memory.register(Box)
@read_from_shared_memory.register(Discrete)
@read_from_shared_memory.register(MultiDiscrete)
@read_from_shared_memory.register(MultiBinary)
def _read_arrays(space: Space[Any], shared_memory: Any, n: int = 1) -> np.ndarray:
    return _flat_view(shared_memory, space.dtype).reshape((n, *space.shape))


@read_from_shared_memory.register(Tuple)
def _read_tuple(space: Tuple, shared_memory: tuple[Any, ...], n: int = 1) -> tuple[Any, ...]:
    return tuple(
        read_from_shared_memory(sub, memory, n=n)
        for sub, memory in zip(space.spaces, shared_memory, strict=True)
    )


@read_from_shared_memory.register(Dict)
def _read_dict(space: Dict, shared_memory: Mapping[str, Any], n: int = 1) -> dict[str, Any]:
    return {
        key: read_from_shared_memory(sub, shared_memory[key], n=n)
        for key, sub in space.spaces.items()
    }


@read_from_shared_memory.register(Text)
def _read_texts(space: Text, shared_memory: Any, n: int = 1) -> tuple[str, ...]:
    indices = _flat_view(shared_memory, np.dtype(np.int32)).reshape((n, space.max_length))
    alphabet = space.character_list
    return tuple(
        "".join(alphabet[index] for index in row if index < len(alphabet)) for row in indices
    )


@read_from_shared_memory.register(OneOf)
def _read_one_ofs(space: OneOf, shared_memory: tuple[Any, ...], n: int = 1) -> tuple:
    chosen = _flat_view(shared_memory[0], np.dtype(np.int64))
    # Split each subspace's batch into per-env items (nested Dict/Tuple batches included).
    per_subspace = [
        list(iterate(batch_space(sub, n), read_from_shared_memory(sub, memory, n=n)))
        for sub, memory in zip(space.spaces, shared_memory[1:], strict=True)
    ]
    return tuple((which, per_subspace[which][env]) for env, which in enumerate(chosen))


@singledispatch
def write_to_shared_memory(space: Space[Any], index: int, value: Any, shared_memory: Any) -> None:
    """Write the observation of sub-environment ``index`` into ``shared_memory``.

    Args:
        space: the observation space of one sub-environment.
        index: the sub-environment's index, in ``[0, n)``.
        value: its observation, an element of ``space``.
        shared_memory: memory from :func:`create_shared_memory`.

    Raises:
        CustomSpaceError: for a space type with no registered rule.

    Example:
        >>> from palaestra.spaces import Discrete
        >>> space = Discrete(4)
        >>> memory = create_shared_memory(space, n=2)
        >>> write_to_shared_memory(space, 0, 3, memory)
        >>> read_from_shared_memory(space, memory, n=2)
        array([3, 0])
    """
    raise unregistered_space_error("write_to_shared_memory", space)


@write_to_shared_memory.register(Box)
@write_to_shared_memory.register(Discrete)
@write_to_shared_memory.register(MultiDiscrete)
@write_to_shared_memory.register(MultiBinary)
def _write_array(space: Space[Any], index: int, value: Any, shared_memory: Any) -> None:
    size = int(np.prod(space.shape))
    slot = _flat_view(shared_memory, space.dtype)[index * size : (index + 1) * size]
    np.copyto(slot, np.asarray(value, dtype=space.dtype).reshape(-1))


@write_to_shared_memory.register(Tuple)
def _write_tuple(space: Tuple, index: int, value: tuple[Any, ...], shared_memory: Any) -> None:
    for sub, item, memory in zip(space.spaces, value, shared_memory, strict=True):
        write_to_shared_memory(sub, index, item, memory)


@write_to_shared_memory.register(Dict)
def _write_dict(space: Dict, index: int, value: Mapping[str, Any], shared_memory: Any) -> None:
    for key, sub in space.spaces.items():
        write_to_shared_memory(sub, index, value[key], shared_memory[key])


@write_to_shared_memory.register(Text)
def _write_text(space: Text, index: int, value: str, shared_memory: Any) -> None:
    size = space.max_length
    padding = len(space.character_set)
    codes = np.full(size, padding, dtype=np.int32)
    codes[: len(value)] = [space.character_index(char) for char in value]
    _flat_view(shared_memory, np.dtype(np.int32))[index * size : (index + 1) * size] = codes


@write_to_shared_memory.register(OneOf)
def _write_one_of(space: OneOf, index: int, value: tuple[int, Any], shared_memory: Any) -> None:
    which, item = value
    _flat_view(shared_memory[0], np.dtype(np.int64))[index] = which
    write_to_shared_memory(space.spaces[which], index, item, shared_memory[1 + which])
