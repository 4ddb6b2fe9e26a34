"""Batch spaces and their elements for vector environments.

* :func:`batch_space` turns one space into the space of ``n`` stacked copies.
* :func:`batch_differing_spaces` does the same for spaces that differ only in their bounds.
* :func:`concatenate` stacks ``n`` elements of a space into one batched element.
* :func:`iterate` walks the other way, over the elements of a batched element.
* :func:`create_empty_array` allocates the buffer that :func:`concatenate` writes into.

Each is a :func:`functools.singledispatch` function: register your own space type with
``batch_space.register(MySpace)`` and friends.

Example:
    >>> from palaestra.spaces import Box
    >>> from palaestra.vector.utils import batch_space, concatenate, create_empty_array
    >>> space = Box(0, 1, shape=(2,), seed=0)
    >>> batch_space(space, n=3)
    Box(0.0, 1.0, (3, 2), float32)
    >>> out = create_empty_array(space, n=3)
    >>> concatenate(space, [space.low, space.high, space.low], out)
    array([[0., 0.],
           [1., 1.],
           [0., 0.]], dtype=float32)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from collections.abc import Sequence as SequenceOf
from copy import deepcopy
from functools import singledispatch
from typing import Any

import numpy as np

from palaestra.error import CustomSpaceError
from palaestra.spaces import (
    Box,
    Dict,
    Discrete,
    Graph,
    GraphInstance,
    MultiBinary,
    MultiDiscrete,
    OneOf,
    Sequence,
    Space,
    Text,
    Tuple,
)
from palaestra.utils.library_name import library_name

__all__ = [
    "batch_space",
    "batch_differing_spaces",
    "iterate",
    "concatenate",
    "create_empty_array",
]

# Spaces whose elements have no fixed shape are batched as a Tuple of independent copies.
_UNSTACKABLE = (Graph, Text, Sequence, OneOf)


def _not_a_space(function: str, space: Any) -> TypeError:
    return TypeError(
        f"The space provided to `{function}` is not a {library_name()} Space instance, "
        f"type: {type(space)}, {space}"
    )


def unregistered_space_error(function: str, space: Any) -> Exception:
    """Build the error a singledispatch space function raises when no rule fits ``space``.

    Shared by the batching and shared-memory functions.

    Args:
        function: the function's name, as the user would register a rule for it.
        space: what the function was given.

    Returns:
        A :class:`~palaestra.error.CustomSpaceError` for a space type without a rule, or a
        ``TypeError`` for something that is not a space at all.

    Example:
        >>> type(unregistered_space_error("iterate", 3)).__name__
        'TypeError'
    """
    if isinstance(space, Space):
        return CustomSpaceError(
            f"Space of type `{type(space)}` doesn't have an registered `{function}` function. "
            f"Register `{type(space)}` for `{function}` to support it."
        )
    return _not_a_space(function, space)


def _rng_copy(space: Space[Any]) -> np.random.Generator:
    """Copy the space's generator, so the batched space samples in the same stream."""
    return deepcopy(space.np_random)


@singledispatch
def batch_space(space: Space[Any], n: int = 1) -> Space[Any]:
    """Build the space of ``n`` stacked elements of ``space`` (e.g. a vector env's obs space).

    ``Box`` stacks to shape ``(n, *shape)``, ``Discrete`` becomes ``MultiDiscrete``,
    ``MultiDiscrete``/``MultiBinary`` become a ``Box``, ``Tuple``/``Dict`` batch per leaf and
    spaces without a fixed shape (``Text``, ``Graph``, ``Sequence``, ``OneOf``, custom spaces)
    become a ``Tuple`` of ``n`` copies. The batched space starts from a copy of the generator
    of ``space``, so its samples equal Gymnasium's for the same seed.

    Args:
        space: the space of one sub-environment.
        n: the number of copies.

    Raises:
        TypeError: if ``space`` is not a :class:`~palaestra.spaces.Space`.

    Example:
        >>> from palaestra.spaces import Discrete
        >>> batch_space(Discrete(3), n=2)
        MultiDiscrete([3 3])
    """
    raise _not_a_space("batch_space", space)


@batch_space.register(Box)
def _batch_box(space: Box, n: int = 1) -> Box:
    reps = (n,) + (1,) * space.low.ndim
    return Box(
        low=np.tile(space.low, reps),
        high=np.tile(space.high, reps),
        dtype=space.dtype,
        seed=_rng_copy(space),
    )


@batch_space.register(Discrete)
def _batch_discrete(space: Discrete, n: int = 1) -> MultiDiscrete:
    return MultiDiscrete(
        np.full((n,), space.n, dtype=space.dtype),
        dtype=space.dtype,
        seed=_rng_copy(space),
        start=np.full((n,), space.start, dtype=space.dtype),
    )


@batch_space.register(MultiDiscrete)
def _batch_multi_discrete(space: MultiDiscrete, n: int = 1) -> Box:
    reps = (n,) + (1,) * space.nvec.ndim
    low = np.tile(space.start, reps)
    return Box(
        low=low,
        high=low + np.tile(space.nvec, reps) - 1,
        dtype=space.dtype,
        seed=_rng_copy(space),
    )


@batch_space.register(MultiBinary)
def _batch_multi_binary(space: MultiBinary, n: int = 1) -> Box:
    return Box(low=0, high=1, shape=(n, *space.shape), dtype=space.dtype, seed=_rng_copy(space))


@batch_space.register(Tuple)
def _batch_tuple(space: Tuple, n: int = 1) -> Tuple:
    return Tuple(tuple(batch_space(sub, n=n) for sub in space.spaces), seed=_rng_copy(space))


@batch_space.register(Dict)
def _batch_dict(space: Dict, n: int = 1) -> Dict:
    return Dict(
        {key: batch_space(sub, n=n) for key, sub in space.items()},
        seed=_rng_copy(space),
        sort_keys=space.sort_keys,
    )


@batch_space.register(Space)
def _batch_as_copies(space: Space[Any], n: int = 1) -> Tuple:
    copies = Tuple(tuple(deepcopy(space) for _ in range(n)), seed=_rng_copy(space))
    # Each copy gets its own seed drawn from the original stream, as Gymnasium draws them.
    copy_seeds = _rng_copy(space).integers(0, int(1e8), n)
    copies.seed([int(seed) for seed in copy_seeds])
    return copies


for _space_type in _UNSTACKABLE:
    batch_space.register(_space_type, _batch_as_copies)


@singledispatch
def batch_differing_spaces(spaces: SequenceOf[Space[Any]]) -> Space[Any]:
    """Batch spaces of one type that differ in their parameters (bounds, ``n``) but not shape.

    Used by vector envs with ``observation_mode="different"``.

    Args:
        spaces: one space per sub-environment, all of the same type.

    Raises:
        ValueError: if ``spaces`` is empty, or dtypes, shapes or ``Dict`` keys differ.
        TypeError: if the spaces are of different types or the type has no registered rule.

    Example:
        >>> from palaestra.spaces import Discrete
        >>> batch_differing_spaces([Discrete(3), Discrete(5)])
        MultiDiscrete([3 5])
    """
    if len(spaces) == 0:
        raise ValueError("Expects a non-empty list of spaces, got an empty one.")
    first_type = type(spaces[0])
    if not all(isinstance(space, first_type) for space in spaces):
        raise TypeError(
            "Expects all spaces to be of the same type, actual types: "
            f"{[type(space) for space in spaces]}"
        )
    if first_type not in batch_differing_spaces.registry:
        # Gymnasium's text prints the whole dispatch registry; the function names and the
        # registration order below are kept equal to its so that this text matches.
        raise TypeError(
            "Requires the Space type to have a registered `batch_differing_space`, current "
            f"list: {batch_differing_spaces.registry}. Register {first_type} with "
            "`batch_differing_spaces.register(YourSpace)`."
        )
    return batch_differing_spaces.dispatch(first_type)(spaces)


def _require_equal(spaces: SequenceOf[Any], what: str, attribute: Callable[[Any], Any]) -> None:
    values = [attribute(space) for space in spaces]
    if any(value != values[0] for value in values):
        raise ValueError(f"{what}, actually {values}")


@batch_differing_spaces.register(Box)
def _batch_differing_spaces_box(spaces: SequenceOf[Box]) -> Box:
    _require_equal(spaces, "Expected all dtypes to be equal", lambda space: space.dtype)
    _require_equal(spaces, "Expected all Box.low shape to be equal", lambda space: space.low.shape)
    _require_equal(
        spaces, "Expected all Box.high shape to be equal", lambda space: space.high.shape
    )
    return Box(
        low=np.array([space.low for space in spaces]),
        high=np.array([space.high for space in spaces]),
        dtype=spaces[0].dtype,
        seed=_rng_copy(spaces[0]),
    )


@batch_differing_spaces.register(Discrete)
def _batch_differing_spaces_discrete(spaces: SequenceOf[Discrete]) -> MultiDiscrete:
    widest = max((space.dtype for space in spaces), key=lambda dtype: np.dtype(dtype).itemsize)
    return MultiDiscrete(
        nvec=np.array([space.n for space in spaces]),
        dtype=widest,
        start=np.array([space.start for space in spaces]),
        seed=_rng_copy(spaces[0]),
    )


@batch_differing_spaces.register(MultiDiscrete)
def _batch_differing_spaces_multi_discrete(spaces: SequenceOf[MultiDiscrete]) -> Box:
    _require_equal(spaces, "Expected all dtypes to be equal", lambda space: space.dtype)
    _require_equal(spaces, "Expects all MultiDiscrete.nvec shape", lambda space: space.nvec.shape)
    _require_equal(spaces, "Expects all MultiDiscrete.start shape", lambda space: space.start.shape)
    return Box(
        low=np.array([space.start for space in spaces]),
        high=np.array([space.start + space.nvec for space in spaces]) - 1,
        dtype=spaces[0].dtype,
        seed=_rng_copy(spaces[0]),
    )


@batch_differing_spaces.register(MultiBinary)
def _batch_differing_spaces_multi_binary(spaces: SequenceOf[MultiBinary]) -> Box:
    _require_equal(spaces, "Expected all MultiBinary shapes to be equal", lambda space: space.shape)
    return Box(
        low=0,
        high=1,
        shape=(len(spaces), *spaces[0].shape),
        dtype=spaces[0].dtype,
        seed=_rng_copy(spaces[0]),
    )


@batch_differing_spaces.register(Tuple)
def _batch_differing_spaces_tuple(spaces: SequenceOf[Tuple]) -> Tuple:
    _require_equal(
        spaces, "Expected all Tuple lengths to be equal", lambda space: len(space.spaces)
    )
    per_position = zip(*(space.spaces for space in spaces), strict=True)
    return Tuple(
        tuple(batch_differing_spaces(list(subspaces)) for subspaces in per_position),
        seed=_rng_copy(spaces[0]),
    )


@batch_differing_spaces.register(Dict)
def _batch_differing_spaces_dict(spaces: SequenceOf[Dict]) -> Dict:
    _require_equal(
        spaces, "Expected all Dict spaces to have the same keys", lambda space: list(space.keys())
    )
    return Dict(
        {key: batch_differing_spaces([space[key] for space in spaces]) for key in spaces[0]},
        seed=_rng_copy(spaces[0]),
        sort_keys=spaces[0].sort_keys,
    )


def _batch_spaces_undefined(spaces: SequenceOf[Space[Any]]) -> Tuple:
    return Tuple([deepcopy(space) for space in spaces], seed=_rng_copy(spaces[0]))


for _space_type in (OneOf, Sequence, Text, Graph):
    batch_differing_spaces.register(_space_type, _batch_spaces_undefined)


@singledispatch
def iterate(space: Space[Any], items: Any) -> Iterator[Any]:
    """Iterate over the per-sub-env elements of a batched element of ``space``.

    Args:
        space: the batched space (e.g. a vector env's ``action_space``).
        items: an element of ``space``.

    Raises:
        TypeError: for ``Discrete`` (not a batched space) or a non-space.
        CustomSpaceError: for a space type with no registered rule.

    Example:
        >>> from palaestra.spaces import Box
        >>> space = Box(0, 1, shape=(2, 1))
        >>> [item.tolist() for item in iterate(space, np.array([[0.5], [1.0]]))]
        [[0.5], [1.0]]
    """
    raise unregistered_space_error("iterate", space)


@iterate.register(Discrete)
def _iterate_discrete(space: Discrete, items: Any) -> Iterator[Any]:
    raise TypeError(
        "Unable to iterate over a space of type `Discrete`. It is not a batched space; "
        "batch it with `batch_space` (which gives a `MultiDiscrete`)."
    )


@iterate.register(Box)
@iterate.register(MultiDiscrete)
@iterate.register(MultiBinary)
def _iterate_array(space: Box | MultiDiscrete | MultiBinary, items: np.ndarray) -> Iterator[Any]:
    try:
        return iter(items)
    except TypeError as e:
        raise TypeError(f"Unable to iterate over the following elements: {items}") from e


@iterate.register(Tuple)
def _iterate_tuple(space: Tuple, items: tuple[Any, ...]) -> Iterator[Any]:
    if all(type(sub) in iterate.registry for sub in space.spaces):
        return zip(*(iterate(sub, items[i]) for i, sub in enumerate(space.spaces)), strict=True)
    # A Tuple of copies (from batching an unstackable space) holds one element per sub-env.
    try:
        return iter(items)
    except Exception as e:
        unknown = [type(sub) for sub in space.spaces if type(sub) not in iterate.registry]
        raise CustomSpaceError(
            f"Could not iterate through {space} as no custom iterate function is registered "
            f"for {unknown} and `iter(items)` raised the following error: {e}."
        ) from e


@iterate.register(Dict)
def _iterate_dict(space: Dict, items: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    keys = list(space.spaces)
    per_key = [iterate(space.spaces[key], items[key]) for key in keys]
    for values in zip(*per_key, strict=True):
        yield dict(zip(keys, values))


@singledispatch
def concatenate(space: Space[Any], items: Iterable[Any], out: Any) -> Any:
    """Stack elements of ``space`` (one per sub-env) into one batched element.

    Args:
        space: the space of one sub-environment.
        items: the elements to stack.
        out: the buffer to write into, from :func:`create_empty_array` (``None`` for spaces
            batched as a tuple of copies).

    Returns:
        The batched element; for array spaces ``out`` itself.

    Raises:
        TypeError: if ``space`` is not a :class:`~palaestra.spaces.Space`.

    Example:
        >>> from palaestra.spaces import Discrete
        >>> concatenate(Discrete(3), [0, 2], np.zeros(2, dtype=np.int64))
        array([0, 2])
    """
    raise _not_a_space("concatenate", space)


@concatenate.register(Box)
@concatenate.register(Discrete)
@concatenate.register(MultiDiscrete)
@concatenate.register(MultiBinary)
def _concatenate_arrays(space: Space[Any], items: Iterable[Any], out: np.ndarray) -> np.ndarray:
    return np.stack(list(items), axis=0, out=out)


@concatenate.register(Tuple)
def _concatenate_tuple(space: Tuple, items: Iterable[Any], out: tuple[Any, ...]) -> tuple:
    items = list(items)
    return tuple(
        concatenate(sub, [item[i] for item in items], out[i]) for i, sub in enumerate(space.spaces)
    )


@concatenate.register(Dict)
def _concatenate_dict(space: Dict, items: Iterable[Any], out: Mapping[str, Any]) -> dict:
    items = list(items)
    return {
        key: concatenate(sub, [item[key] for item in items], out[key]) for key, sub in space.items()
    }


@concatenate.register(Space)
def _concatenate_as_tuple(space: Space[Any], items: Iterable[Any], out: Any) -> tuple[Any, ...]:
    return tuple(items)


for _space_type in _UNSTACKABLE:
    concatenate.register(_space_type, _concatenate_as_tuple)


@singledispatch
def create_empty_array(space: Space[Any], n: int = 1, fn: Callable[..., Any] = np.zeros) -> Any:
    """Allocate a (possibly nested) buffer for ``n`` elements of ``space``.

    Args:
        space: the space of one sub-environment.
        n: the number of sub-environments.
        fn: the numpy allocator, e.g. ``np.zeros`` or ``np.empty``.

    Raises:
        TypeError: if ``space`` is not a :class:`~palaestra.spaces.Space`.

    Example:
        >>> from palaestra.spaces import Box, Dict
        >>> create_empty_array(Dict(a=Box(0, 1, shape=(2,))), n=2)
        {'a': array([[0., 0.],
               [0., 0.]], dtype=float32)}
    """
    raise _not_a_space("create_empty_array", space)


@create_empty_array.register(Box)
@create_empty_array.register(Discrete)
@create_empty_array.register(MultiDiscrete)
@create_empty_array.register(MultiBinary)
def _empty_arrays(space: Space[Any], n: int = 1, fn: Callable[..., Any] = np.zeros) -> np.ndarray:
    return fn((n, *space.shape), dtype=space.dtype)


@create_empty_array.register(Tuple)
def _empty_tuple(space: Tuple, n: int = 1, fn: Callable[..., Any] = np.zeros) -> tuple:
    return tuple(create_empty_array(sub, n=n, fn=fn) for sub in space.spaces)


@create_empty_array.register(Dict)
def _empty_dict(space: Dict, n: int = 1, fn: Callable[..., Any] = np.zeros) -> dict:
    return {key: create_empty_array(sub, n=n, fn=fn) for key, sub in space.items()}


@create_empty_array.register(Graph)
def _empty_graphs(space: Graph, n: int = 1, fn: Callable[..., Any] = np.zeros) -> tuple:
    has_edges = space.edge_space is not None

    def one_graph() -> GraphInstance:
        return GraphInstance(
            nodes=create_empty_array(space.node_space, n=1, fn=fn),
            edges=create_empty_array(space.edge_space, n=1, fn=fn) if has_edges else None,
            edge_links=fn((1, 2), dtype=np.int64) if has_edges else None,
        )

    return tuple(one_graph() for _ in range(n))


@create_empty_array.register(Text)
def _empty_texts(space: Text, n: int = 1, fn: Callable[..., Any] = np.zeros) -> tuple[str, ...]:
    shortest = space.characters[0] * space.min_length
    return tuple(shortest for _ in range(n))


@create_empty_array.register(Sequence)
def _empty_sequences(space: Sequence, n: int = 1, fn: Callable[..., Any] = np.zeros) -> tuple:
    if space.stack:
        return tuple(create_empty_array(space.feature_space, n=1, fn=fn) for _ in range(n))
    return tuple(() for _ in range(n))


@create_empty_array.register(OneOf)
def _empty_one_ofs(space: OneOf, n: int = 1, fn: Callable[..., Any] = np.zeros) -> tuple:
    return tuple(() for _ in range(n))


@create_empty_array.register(Space)
def _empty_custom(space: Space[Any], n: int = 1, fn: Callable[..., Any] = np.zeros) -> None:
    return None
