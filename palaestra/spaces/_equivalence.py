"""Whether two spaces produce elements of the same structure, shapes and dtypes.

Re-exported from :mod:`palaestra.spaces.utils`, where Gymnasium keeps it.
"""

from __future__ import annotations

from functools import singledispatch
from typing import Any

from palaestra.spaces.box import Box
from palaestra.spaces.dict import Dict
from palaestra.spaces.discrete import Discrete
from palaestra.spaces.graph import Graph
from palaestra.spaces.multi_binary import MultiBinary
from palaestra.spaces.multi_discrete import MultiDiscrete
from palaestra.spaces.oneof import OneOf
from palaestra.spaces.sequence import Sequence
from palaestra.spaces.space import Space
from palaestra.spaces.text import Text
from palaestra.spaces.tuple import Tuple
from palaestra.utils.library_name import library_name


@singledispatch
def is_space_dtype_shape_equiv(space_1: Space[Any], space_2: Space[Any]) -> bool:
    """Return whether two spaces have elements of the same structure, shapes and dtypes.

    Bounds may differ; this is what vector environments need to stack elements of
    different sub-environments.

    Raises:
        NotImplementedError: for a generic or unregistered space type.
        TypeError: if an argument is not a Space.

    Example:
        >>> is_space_dtype_shape_equiv(Box(0, 1, (2,)), Box(-5, 5, (2,)))
        True
    """
    if isinstance(space_1, Space) and isinstance(space_2, Space):
        raise NotImplementedError(
            "`check_dtype_shape_equivalence` doesn't support Generic "
            f"{library_name().capitalize()} Spaces, "
            f"such as {space_1}; register its type to support it."
        )
    raise TypeError(f"Expected two spaces, actual types: {type(space_1)}, {type(space_2)}")


@is_space_dtype_shape_equiv.register(Box)
@is_space_dtype_shape_equiv.register(Discrete)
@is_space_dtype_shape_equiv.register(MultiDiscrete)
@is_space_dtype_shape_equiv.register(MultiBinary)
def _(space_1: Space[Any], space_2: Space[Any]) -> bool:
    return (
        type(space_1) is type(space_2)
        and space_1.shape == space_2.shape
        and space_1.dtype == space_2.dtype
    )


@is_space_dtype_shape_equiv.register(Text)
def _(space_1: Text, space_2: Space[Any]) -> bool:
    return (
        isinstance(space_2, Text)
        and space_1.max_length == space_2.max_length
        and space_1.character_set == space_2.character_set
    )


@is_space_dtype_shape_equiv.register(Dict)
def _(space_1: Dict, space_2: Space[Any]) -> bool:
    return (
        isinstance(space_2, Dict)
        and space_1.keys() == space_2.keys()
        and all(is_space_dtype_shape_equiv(space_1[key], space_2[key]) for key in space_1)
    )


@is_space_dtype_shape_equiv.register(Tuple)
@is_space_dtype_shape_equiv.register(OneOf)
def _(space_1: Tuple | OneOf, space_2: Space[Any]) -> bool:
    return (
        isinstance(space_2, type(space_1))
        and len(space_1) == len(space_2)
        and all(is_space_dtype_shape_equiv(a, b) for a, b in zip(space_1.spaces, space_2.spaces))
    )


@is_space_dtype_shape_equiv.register(Graph)
def _(space_1: Graph, space_2: Space[Any]) -> bool:
    if not isinstance(space_2, Graph):
        return False
    if not is_space_dtype_shape_equiv(space_1.node_space, space_2.node_space):
        return False
    if space_1.edge_space is None or space_2.edge_space is None:
        return space_1.edge_space is None and space_2.edge_space is None
    return is_space_dtype_shape_equiv(space_1.edge_space, space_2.edge_space)


@is_space_dtype_shape_equiv.register(Sequence)
def _(space_1: Sequence, space_2: Space[Any]) -> bool:
    return (
        isinstance(space_2, Sequence)
        and space_1.stack is space_2.stack
        and is_space_dtype_shape_equiv(space_1.feature_space, space_2.feature_space)
    )
