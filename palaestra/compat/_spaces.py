"""Converting spaces (and the few values whose type is space-specific) to and from Gymnasium.

Every palaestra space has a Gymnasium twin with the same constructor arguments; a converted
space is built from the original's parameters, recursively for composite spaces, and shares
the original's random generator once it exists, so sampling either one advances the same
stream. Values pass unchanged except graphs, whose instance type belongs to each library.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from palaestra import spaces
from palaestra.compat._gymnasium import require_gymnasium

__all__ = ["to_gymnasium_space", "from_gymnasium_space", "graph_converter"]


def _share_generator(source: Any, target: Any) -> Any:
    """Let ``target`` draw from ``source``'s generator if ``source`` has created one."""
    generator = getattr(source, "_np_random", None)
    if generator is not None:
        target._np_random = generator
    return target


def _convert(space: Any, lib: Any, convert: Callable[[Any], Any]) -> Any:
    """Build the twin of ``space`` from the space classes of ``lib`` (a ``spaces`` module)."""
    name = type(space).__name__
    if name == "Box":
        return lib.Box(low=space.low, high=space.high, shape=space.shape, dtype=space.dtype)
    if name == "Discrete":
        return lib.Discrete(int(space.n), start=int(space.start), dtype=space.dtype)
    if name == "MultiDiscrete":
        return lib.MultiDiscrete(space.nvec, dtype=space.dtype, start=space.start)
    if name == "MultiBinary":
        return lib.MultiBinary(space.n)
    if name == "Tuple":
        return lib.Tuple([convert(sub) for sub in space.spaces])
    if name == "Dict":
        return lib.Dict({key: convert(sub) for key, sub in space.spaces.items()}, sort_keys=False)
    if name == "Sequence":
        return lib.Sequence(convert(space.feature_space), stack=space.stack)
    if name == "Text":
        return lib.Text(
            space.max_length,
            min_length=space.min_length,
            charset="".join(space.character_list),
        )
    if name == "Graph":
        edge_space = None if space.edge_space is None else convert(space.edge_space)
        return lib.Graph(convert(space.node_space), edge_space)
    if name == "OneOf":
        return lib.OneOf([convert(sub) for sub in space.spaces])
    raise TypeError(
        f"Cannot convert the space {space!r} of type {type(space)}: only Box, Discrete, "
        "MultiDiscrete, MultiBinary, Tuple, Dict, Sequence, Text, Graph and OneOf have a "
        "counterpart. Wrap the environment so that it uses one of these spaces."
    )


def to_gymnasium_space(space: spaces.Space[Any]) -> Any:
    """Return the ``gymnasium.spaces`` twin of a palaestra space.

    Composite spaces are converted recursively; the twin shares each original's random
    generator (if it has one), so seeding the palaestra space seeds the twin too.

    Args:
        space: a palaestra space.

    Returns:
        A ``gymnasium.spaces.Space`` with the same bounds, shape, dtype and structure.

    Raises:
        TypeError: ``space`` is not a palaestra space of a kind Gymnasium has.
        palaestra.error.DependencyNotInstalled: Gymnasium is not installed.

    Example:
        >>> from palaestra import spaces
        >>> to_gymnasium_space(spaces.Dict({"a": spaces.Discrete(3, start=1)}))
        Dict('a': Discrete(3, start=1))
    """
    gymnasium = require_gymnasium()
    if not isinstance(space, spaces.Space):
        raise TypeError(f"Expected a palaestra space, got {space!r} of type {type(space)}.")
    return _share_generator(space, _convert(space, gymnasium.spaces, to_gymnasium_space))


def from_gymnasium_space(space: Any) -> spaces.Space[Any]:
    """Return the palaestra twin of a ``gymnasium.spaces`` space.

    Args:
        space: a Gymnasium space.

    Returns:
        A palaestra space with the same bounds, shape, dtype and structure, sharing the
        original's random generator (if it has one).

    Raises:
        TypeError: ``space`` is not a Gymnasium space of a kind palaestra has.
        palaestra.error.DependencyNotInstalled: Gymnasium is not installed.

    Example:
        >>> import gymnasium
        >>> from_gymnasium_space(gymnasium.spaces.Box(0.0, 1.0, (2,)))
        Box(0.0, 1.0, (2,), float32)
    """
    gymnasium = require_gymnasium()
    if not isinstance(space, gymnasium.spaces.Space):
        raise TypeError(f"Expected a Gymnasium space, got {space!r} of type {type(space)}.")
    return _share_generator(space, _convert(space, spaces, from_gymnasium_space))


def graph_converter(space: Any, instance_type: Any) -> Callable[[Any], Any] | None:
    """Return a function that rebuilds every graph in a value of ``space`` as ``instance_type``.

    Only graphs differ in type between the libraries, so spaces without a ``Graph`` get
    ``None`` (pass values unchanged).

    Args:
        space: a palaestra or Gymnasium space describing the values.
        instance_type: the ``GraphInstance`` class the graphs should become.

    Example:
        >>> from palaestra import spaces
        >>> graph_converter(spaces.Discrete(2), spaces.GraphInstance) is None
        True
    """
    name = type(space).__name__
    if name == "Graph":
        return lambda value: instance_type(*value)
    if name in ("Tuple", "OneOf"):
        subs = [graph_converter(sub, instance_type) for sub in space.spaces]
        if all(sub is None for sub in subs):
            return None
        if name == "OneOf":
            return lambda value: (
                value[0],
                value[1] if subs[value[0]] is None else subs[value[0]](value[1]),
            )
        return lambda value: tuple(
            item if sub is None else sub(item) for sub, item in zip(subs, value)
        )
    if name == "Dict":
        keyed = {key: graph_converter(sub, instance_type) for key, sub in space.spaces.items()}
        if all(sub is None for sub in keyed.values()):
            return None
        return lambda value: {
            key: item if keyed.get(key) is None else keyed[key](item) for key, item in value.items()
        }
    if name == "Sequence":
        feature = graph_converter(space.feature_space, instance_type)
        if feature is None:
            return None
        return lambda value: tuple(feature(item) for item in value)
    return None
