"""Flatten structured space elements into 1-D arrays and back.

* :func:`flatdim` — the length of a flattened element;
* :func:`flatten_space` — the space of flattened elements (a :class:`Box` where possible);
* :func:`flatten` / :func:`unflatten` — convert one element.

Discrete values become one-hot vectors, text becomes an array of character indices padded
with ``len(charset)``, and ``OneOf`` elements become ``[index, *padded value]``. Graph and
Sequence spaces are flattened feature by feature and keep their structure.

Each function is a :func:`functools.singledispatch` function, so support for a custom space is
added with ``flatten.register(MySpace)`` and friends; unregistered spaces raise
:class:`NotImplementedError`.

Example:
    >>> from palaestra.spaces import Dict, Discrete, Box
    >>> space = Dict(a=Discrete(3), b=Box(0.0, 1.0, (2,)))
    >>> flatdim(space)
    5
    >>> flatten(space, {"a": 1, "b": np.array([0.5, 1.0], dtype=np.float32)})
    array([0. , 1. , 0. , 0.5, 1. ])
"""

from __future__ import annotations

from functools import singledispatch
from typing import Any

import numpy as np
import numpy.typing as npt

from palaestra.spaces._equivalence import is_space_dtype_shape_equiv
from palaestra.spaces._vector_utils import vector_utils
from palaestra.spaces.box import Box
from palaestra.spaces.dict import Dict
from palaestra.spaces.discrete import Discrete
from palaestra.spaces.graph import Graph, GraphInstance
from palaestra.spaces.multi_binary import MultiBinary
from palaestra.spaces.multi_discrete import MultiDiscrete
from palaestra.spaces.oneof import OneOf
from palaestra.spaces.sequence import Sequence
from palaestra.spaces.space import Space
from palaestra.spaces.text import Text
from palaestra.spaces.tuple import Tuple

__all__ = [
    "flatdim",
    "flatten_space",
    "flatten",
    "unflatten",
    "is_space_dtype_shape_equiv",
]

FlatType = npt.NDArray[Any] | dict[str, Any] | tuple[Any, ...] | GraphInstance


def _not_flattenable(space: Space[Any]) -> ValueError:
    return ValueError(
        f"{space} cannot be flattened to a numpy array, probably because it contains a "
        "`Graph` or `Sequence` subspace"
    )


def _unknown(space: Space[Any], function: str) -> NotImplementedError:
    return NotImplementedError(
        f"Unknown space: `{space}`; register its type with `{function}.register` to support it"
    )


# ---------------------------------------------------------------------------- flat dtypes
@singledispatch
def _flat_dtype(space: Space[Any]) -> np.dtype:
    """Return the dtype of a flattened element of ``space``."""
    if space.dtype is None:
        raise ValueError(
            f"{space} does not have a dtype, therefore, it cannot be flattened to a numpy array, "
            "probably because it contains a `Graph` or `Sequence` subspace."
        )
    return space.dtype


@_flat_dtype.register(Text)
def _(space: Text) -> np.dtype:
    return np.dtype(np.int32)


@_flat_dtype.register(Tuple)
def _(space: Tuple) -> np.dtype:
    return np.result_type(*(_flat_dtype(sub) for sub in space.spaces))


@_flat_dtype.register(Dict)
def _(space: Dict) -> np.dtype:
    return np.result_type(*(_flat_dtype(sub) for sub in space.spaces.values()))


@_flat_dtype.register(OneOf)
def _(space: OneOf) -> np.dtype:
    dtype = np.result_type(*(_flat_dtype(sub) for sub in space.spaces))
    largest_index = len(space.spaces) - 1
    # The leading index entry must fit in the shared dtype.
    too_small = (dtype.kind == "b" and largest_index > 1) or (
        dtype.kind in "iu" and largest_index > np.iinfo(dtype).max
    )
    if too_small:
        dtype = np.result_type(dtype, np.min_scalar_type(largest_index))
    return dtype


# ---------------------------------------------------------------------------- flatdim
@singledispatch
def flatdim(space: Space[Any]) -> int:
    """Return the length of a flattened element of ``space``.

    Args:
        space: a numpy-flattenable space.

    Raises:
        ValueError: if the space is not numpy-flattenable (contains a Graph or Sequence).
        NotImplementedError: for a space type without a registered rule.

    Example:
        >>> from palaestra.spaces import MultiDiscrete
        >>> flatdim(MultiDiscrete([2, 3]))
        5
    """
    if space.is_np_flattenable is False:
        raise _not_flattenable(space)
    raise _unknown(space, "flatdim")


@flatdim.register(Box)
@flatdim.register(MultiBinary)
def _(space: Box | MultiBinary) -> int:
    return int(np.prod(space.shape, dtype=np.int64))


@flatdim.register(Discrete)
def _(space: Discrete) -> int:
    return int(space.n)


@flatdim.register(MultiDiscrete)
def _(space: MultiDiscrete) -> int:
    return int(np.sum(space.nvec))


@flatdim.register(Tuple)
def _(space: Tuple) -> int:
    if not space.is_np_flattenable:
        raise _not_flattenable(space)
    return sum(flatdim(sub) for sub in space.spaces)


@flatdim.register(Dict)
def _(space: Dict) -> int:
    if not space.is_np_flattenable:
        raise _not_flattenable(space)
    return sum(flatdim(sub) for sub in space.spaces.values())


@flatdim.register(Graph)
def _(space: Graph) -> int:
    raise ValueError("Cannot get flattened size as the Graph Space has a dynamic size.")


@flatdim.register(Text)
def _(space: Text) -> int:
    return space.max_length


@flatdim.register(OneOf)
def _(space: OneOf) -> int:
    return 1 + max(flatdim(sub) for sub in space.spaces)


# ---------------------------------------------------------------------------- flatten
@singledispatch
def flatten(space: Space[Any], x: Any) -> FlatType:
    """Flatten an element ``x`` of ``space``.

    Numpy-flattenable spaces give a 1-D array of length :func:`flatdim`; spaces containing a
    Graph or Sequence keep their structure with flattened leaves.

    Args:
        space: the space ``x`` belongs to.
        x: the element.

    Raises:
        NotImplementedError: for a space type without a registered rule.

    Example:
        >>> flatten(Discrete(3, start=1), 2)
        array([0, 1, 0])
    """
    raise _unknown(space, "flatten")


@flatten.register(Box)
@flatten.register(MultiBinary)
def _(space: Box | MultiBinary, x: Any) -> np.ndarray:
    return np.asarray(x, dtype=space.dtype).flatten()


@flatten.register(Discrete)
def _(space: Discrete, x: Any) -> np.ndarray:
    onehot = np.zeros(space.n, dtype=space.dtype)
    onehot[x - space.start] = 1
    return onehot


def _one_hot_offsets(nvec: np.ndarray, dtype: npt.DTypeLike) -> np.ndarray:
    """Where each entry's one-hot block starts, plus the total length at the end."""
    offsets = np.zeros(nvec.size + 1, dtype=dtype)
    offsets[1:] = np.cumsum(nvec.flatten())
    return offsets


@flatten.register(MultiDiscrete)
def _(space: MultiDiscrete, x: Any) -> np.ndarray:
    offsets = _one_hot_offsets(space.nvec, np.int32)
    onehot = np.zeros(offsets[-1], dtype=space.dtype)
    onehot[offsets[:-1] + (x - space.start).flatten()] = 1
    return onehot


@flatten.register(Tuple)
def _(space: Tuple, x: Any) -> np.ndarray | tuple:
    parts = (flatten(sub, part) for part, sub in zip(x, space.spaces))
    if space.is_np_flattenable:
        return np.concatenate([np.array(part) for part in parts])
    return tuple(parts)


@flatten.register(Dict)
def _(space: Dict, x: Any) -> np.ndarray | dict:
    if space.is_np_flattenable:
        return np.concatenate([np.array(flatten(sub, x[key])) for key, sub in space.spaces.items()])
    return {key: flatten(sub, x[key]) for key, sub in space.spaces.items()}


def _map_batch(batch_space: Space[Any], batch: Any, convert: Any, out_space: Space[Any]) -> Any:
    """Convert every item of a batched element and stack the results in ``out_space``."""
    utils = vector_utils()
    items = [convert(item) for item in utils.iterate(batch_space, batch)]
    out = utils.create_empty_array(out_space, n=len(items))
    return utils.concatenate(out_space, items, out)


@flatten.register(Graph)
def _(space: Graph, x: GraphInstance) -> GraphInstance:
    nodes = _map_batch(
        space.batch_node_space,
        x.nodes,
        lambda node: flatten(space.node_space, node),
        flatten_space(space.node_space),
    )
    edges = None
    if x.edges is not None:
        if space.edge_space is None:
            raise ValueError(f"{space} has no edge space, but the graph has edges: {x.edges}")
        edges = _map_batch(
            space.batch_edge_space,
            x.edges,
            lambda edge: flatten(space.edge_space, edge),
            flatten_space(space.edge_space),
        )
    return GraphInstance(nodes, edges, x.edge_links)


@flatten.register(Text)
def _(space: Text, x: str) -> np.ndarray:
    padding = len(space.character_set)
    indices = np.full(space.max_length, padding, dtype=np.int32)
    for position, char in enumerate(x):
        indices[position] = space.character_index(char)
    return indices


@flatten.register(Sequence)
def _(space: Sequence, x: Any) -> Any:
    if not space.stack:
        return tuple(flatten(space.feature_space, item) for item in x)
    return _map_batch(
        space.stacked_feature_space,
        x,
        lambda item: flatten(space.feature_space, item),
        flatten_space(space.feature_space),
    )


@flatten.register(OneOf)
def _(space: OneOf, x: tuple[int, Any]) -> np.ndarray:
    index, value = x
    flat_value = flatten(space.spaces[index], value)
    width = flatdim(space) - 1
    if flat_value.size < width:
        # Pad with a value the subspace can produce, so the result lies in flatten_space.
        padding = np.full(width - flat_value.size, flat_value[0], dtype=flat_value.dtype)
        flat_value = np.concatenate([flat_value, padding])
    dtype = _flat_dtype(space)
    return np.concatenate([np.array([index], dtype=dtype), flat_value.astype(dtype, copy=False)])


# ---------------------------------------------------------------------------- unflatten
@singledispatch
def unflatten(space: Space[Any], x: FlatType) -> Any:
    """Rebuild an element of ``space`` from its flattened form ``x``.

    Args:
        space: the space the element belongs to.
        x: the output of :func:`flatten`.

    Raises:
        ValueError: if a one-hot block has no set entry.
        AssertionError: if ``x`` has the wrong container type for the space.
        NotImplementedError: for a space type without a registered rule.

    Example:
        >>> unflatten(Discrete(3, start=1), np.array([0, 1, 0]))
        np.int64(2)
    """
    raise _unknown(space, "unflatten")


@unflatten.register(Box)
@unflatten.register(MultiBinary)
def _(space: Box | MultiBinary, x: Any) -> np.ndarray:
    return np.asarray(x, dtype=space.dtype).reshape(space.shape)


@unflatten.register(Discrete)
def _(space: Discrete, x: np.ndarray) -> np.integer:
    (hot,) = np.nonzero(x)
    if len(hot) == 0:
        raise ValueError(
            f"{x} is not a valid one-hot encoded vector and can not be unflattened to space "
            f"{space}. Not all valid samples in a flattened space can be unflattened."
        )
    return space.start + hot[0].astype(space.dtype)


@unflatten.register(MultiDiscrete)
def _(space: MultiDiscrete, x: np.ndarray) -> np.ndarray:
    offsets = _one_hot_offsets(space.nvec, space.dtype)
    (hot,) = np.nonzero(x)
    if len(hot) == 0:
        raise ValueError(
            f"{x} is not a concatenation of one-hot encoded vectors and can not be unflattened "
            f"to space {space}. Not all valid samples in a flattened space can be unflattened."
        )
    values = np.asarray(hot - offsets[:-1], dtype=space.dtype).reshape(space.shape)
    return values + space.start


def _split_flat(x: np.ndarray, subspaces: list[Space[Any]]) -> list[np.ndarray]:
    """Cut a flat array into one piece per subspace."""
    sizes = np.asarray([flatdim(sub) for sub in subspaces], dtype=np.int_)
    return np.split(x, np.cumsum(sizes[:-1]))


_FORM_WORDS = {np.ndarray: "numpy arrays", tuple: "tuples", dict: "dictionary"}


def _require_type(x: Any, expected: type, space: Space[Any]) -> None:
    if not isinstance(x, expected):
        if expected is np.ndarray and isinstance(space, Dict):
            raise AssertionError(
                "x must be a numpy array when unflattening a numpy-flattenable space; "
                f"{space} got a {type(x)}"
            )
        what = "numpy-flattenable" if expected is np.ndarray else "not numpy-flattenable"
        raise AssertionError(
            f"{space} is {what}. Thus, you should only unflatten {_FORM_WORDS[expected]} for "
            f"this space. Got a {type(x)}"
        )


@unflatten.register(Tuple)
def _(space: Tuple, x: Any) -> tuple:
    if space.is_np_flattenable:
        _require_type(x, np.ndarray, space)
        x = _split_flat(x, list(space.spaces))
    else:
        _require_type(x, tuple, space)
    return tuple(unflatten(sub, part) for part, sub in zip(x, space.spaces))


@unflatten.register(Dict)
def _(space: Dict, x: Any) -> dict:
    if space.is_np_flattenable:
        _require_type(x, np.ndarray, space)
        parts = _split_flat(x, list(space.spaces.values()))
        return {key: unflatten(sub, part) for part, (key, sub) in zip(parts, space.spaces.items())}
    _require_type(x, dict, space)
    return {key: unflatten(sub, x[key]) for key, sub in space.spaces.items()}


@unflatten.register(Graph)
def _(space: Graph, x: GraphInstance) -> GraphInstance:
    nodes = _map_batch(
        flatten_space(space.node_space),
        x.nodes,
        lambda node: unflatten(space.node_space, node),
        space.node_space,
    )
    edges = None
    if x.edges is not None:
        if space.edge_space is None:
            raise ValueError(f"{space} has no edge space, but the graph has edges: {x.edges}")
        edges = _map_batch(
            flatten_space(space.edge_space),
            x.edges,
            lambda edge: unflatten(space.edge_space, edge),
            space.edge_space,
        )
    return GraphInstance(nodes, edges, x.edge_links)


@unflatten.register(Text)
def _(space: Text, x: np.ndarray) -> str:
    padding = len(space.character_set)
    # Inside a Tuple/Dict the indices may arrive as floats of the concatenated dtype.
    return "".join(space.character_list[int(index)] for index in x if index < padding)


@unflatten.register(Sequence)
def _(space: Sequence, x: Any) -> Any:
    if not space.stack:
        return tuple(unflatten(space.feature_space, item) for item in x)
    return _map_batch(
        flatten_space(space.feature_space),
        x,
        lambda item: unflatten(space.feature_space, item),
        space.feature_space,
    )


@unflatten.register(OneOf)
def _(space: OneOf, x: np.ndarray) -> tuple[np.int64, Any]:
    index = np.int64(x[0])
    chosen = space.spaces[index]
    value = x[1 : 1 + flatdim(chosen)].astype(_flat_dtype(chosen))
    return index, unflatten(chosen, value)


# ---------------------------------------------------------------------------- flatten_space
@singledispatch
def flatten_space(space: Space[Any]) -> Box | Dict | Sequence | Tuple | Graph:
    """Return the space that :func:`flatten` maps elements of ``space`` into.

    Numpy-flattenable spaces give a 1-D :class:`Box`; containers holding a Graph or Sequence
    give the same container over flattened subspaces.

    Raises:
        NotImplementedError: for a space type without a registered rule.

    Example:
        >>> flatten_space(Box(0.0, 1.0, (2, 3)))
        Box(0.0, 1.0, (6,), float32)
        >>> flatten_space(Discrete(4))
        Box(0, 1, (4,), int64)
    """
    raise _unknown(space, "flatten_space")


@flatten_space.register(Box)
def _(space: Box) -> Box:
    return Box(space.low.flatten(), space.high.flatten(), dtype=space.dtype)


@flatten_space.register(Discrete)
@flatten_space.register(MultiBinary)
@flatten_space.register(MultiDiscrete)
def _(space: Discrete | MultiBinary | MultiDiscrete) -> Box:
    return Box(low=0, high=1, shape=(flatdim(space),), dtype=space.dtype)


def _concatenate_boxes(boxes: list[Box]) -> Box:
    return Box(
        low=np.concatenate([box.low for box in boxes]),
        high=np.concatenate([box.high for box in boxes]),
        dtype=np.result_type(*(box.dtype for box in boxes)),
    )


@flatten_space.register(Tuple)
def _(space: Tuple) -> Box | Tuple:
    flat = [flatten_space(sub) for sub in space.spaces]
    return _concatenate_boxes(flat) if space.is_np_flattenable else Tuple(flat)


@flatten_space.register(Dict)
def _(space: Dict) -> Box | Dict:
    if space.is_np_flattenable:
        return _concatenate_boxes([flatten_space(sub) for sub in space.spaces.values()])
    flat = {key: flatten_space(sub) for key, sub in space.spaces.items()}
    return Dict(flat, sort_keys=space.sort_keys)


@flatten_space.register(Graph)
def _(space: Graph) -> Graph:
    edge_space = None if space.edge_space is None else flatten_space(space.edge_space)
    return Graph(node_space=flatten_space(space.node_space), edge_space=edge_space)


@flatten_space.register(Text)
def _(space: Text) -> Box:
    return Box(low=0, high=len(space.character_set), shape=(space.max_length,), dtype=np.int32)


@flatten_space.register(Sequence)
def _(space: Sequence) -> Sequence:
    return Sequence(flatten_space(space.feature_space), stack=space.stack)


@flatten_space.register(OneOf)
def _(space: OneOf) -> Box:
    width = flatdim(space)
    flat_subspaces = [flatten_space(sub) for sub in space.spaces]
    lowest = np.min([np.min(sub.low) for sub in flat_subspaces])
    highest = np.max([np.max(sub.high) for sub in flat_subspaces])
    dtype = _flat_dtype(space)
    # Built directly in the flat dtype, so no precision warning for our own bounds.
    low = np.concatenate([[0], np.full(width - 1, lowest)]).astype(dtype)
    high = np.concatenate([[len(space.spaces) - 1], np.full(width - 1, highest)]).astype(dtype)
    return Box(low=low, high=high, shape=(width,), dtype=dtype)
