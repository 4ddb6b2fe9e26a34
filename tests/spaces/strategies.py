"""Hypothesis strategies for spaces, their masks and probabilities.

Spaces are generated as :class:`SpaceRecipe` values: a recipe names a space class and its
arguments, and :meth:`SpaceRecipe.build` makes the space from any module exposing the same
classes, so one recipe builds both a palaestra space and the matching Gymnasium space.

Public API:

* :func:`space_recipes` / :func:`spaces` — any space, nested Dict/Tuple/OneOf/Sequence/Graph
  included; :func:`leaf_recipes` / :func:`leaf_spaces` — the non-container spaces;
  :func:`flattenable_spaces` — spaces flattening to a Box; :func:`box_spaces` and friends for
  a single type.
* :func:`masks_for` / :func:`probabilities_for` — valid sampling arguments for a given space;
  :func:`respects_mask` / :func:`respects_probability` — whether a sample obeys them.
* :func:`seeds` — valid integer seeds.

Example::

    from hypothesis import given
    from tests.spaces.strategies import spaces

    @given(spaces())
    def test_sample_is_contained(space):
        assert space.contains(space.sample())
"""

from __future__ import annotations

import os
import string
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import palaestra.spaces

__all__ = [
    "space_test_settings",
    "SpaceRecipe",
    "seeds",
    "box_recipes",
    "discrete_recipes",
    "multi_discrete_recipes",
    "multi_binary_recipes",
    "text_recipes",
    "leaf_recipes",
    "array_leaf_recipes",
    "SPACE_KINDS",
    "FLATTENABLE_KINDS",
    "recipes_of_kind",
    "space_recipes",
    "flattenable_recipes",
    "box_spaces",
    "discrete_spaces",
    "multi_discrete_spaces",
    "multi_binary_spaces",
    "text_spaces",
    "leaf_spaces",
    "spaces",
    "spaces_of_kind",
    "flattenable_spaces",
    "masks_for",
    "probabilities_for",
    "respects_mask",
    "respects_probability",
    "supports_flatten",
]


def space_test_settings(max_examples: int = 40) -> settings:
    """Hypothesis settings for space tests: few examples, no deadline.

    The ``SPACES_MAX_EXAMPLES`` environment variable raises the count for a long soak run.
    """
    return settings(
        max_examples=int(os.environ.get("SPACES_MAX_EXAMPLES", max_examples)),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )


@dataclass(frozen=True, eq=False)
class SpaceRecipe:
    """How to build a space: the class name in a spaces module and its arguments.

    Arguments may themselves be recipes, or tuples/lists/dicts of recipes.
    """

    name: str
    args: tuple = ()
    kwargs: dict[str, Any] = field(default_factory=dict)

    def build(self, module: Any = palaestra.spaces) -> Any:
        """Build the space from ``module`` (``palaestra.spaces`` or ``gymnasium.spaces``)."""
        args = [_build(arg, module) for arg in self.args]
        kwargs = {key: _build(value, module) for key, value in self.kwargs.items()}
        return getattr(module, self.name)(*args, **kwargs)

    def __repr__(self) -> str:
        parts = [repr(arg) for arg in self.args]
        parts += [f"{key}={value!r}" for key, value in self.kwargs.items()]
        return f"{self.name}({', '.join(parts)})"


def _build(value: Any, module: Any) -> Any:
    if isinstance(value, SpaceRecipe):
        return value.build(module)
    if isinstance(value, (list, tuple)):
        return type(value)(_build(item, module) for item in value)
    if isinstance(value, dict):
        return {key: _build(item, module) for key, item in value.items()}
    return value


def seeds() -> st.SearchStrategy[int]:
    """Valid integer seeds."""
    return st.integers(min_value=0, max_value=2**32 - 1)


_shapes = st.lists(st.integers(1, 3), min_size=1, max_size=2).map(tuple)
_FLOAT_DTYPES = (np.float32, np.float64)
_INT_DTYPES = (np.int64, np.int32, np.int16, np.uint8)


@st.composite
def _float_bounds(draw: Any, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    finite = st.floats(-10, 10, allow_nan=False, width=32)
    low = np.array(
        draw(st.lists(finite, min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
    )
    width = np.array(
        draw(st.lists(st.floats(0, 5, width=32), min_size=low.size, max_size=low.size))
    )
    high = low + width
    # Some entries unbounded below and/or above: every sampling regime gets exercised.
    low[np.array(draw(st.lists(st.booleans(), min_size=low.size, max_size=low.size)))] = -np.inf
    high[np.array(draw(st.lists(st.booleans(), min_size=low.size, max_size=low.size)))] = np.inf
    return low.reshape(shape), high.reshape(shape)


@st.composite
def box_recipes(draw: Any) -> SpaceRecipe:
    """Box recipes: float, integer and bool dtypes, scalar or array, finite or infinite bounds."""
    shape = draw(_shapes)
    kind = draw(st.sampled_from(["float", "int", "bool", "scalar"]))
    if kind == "float":
        dtype = draw(st.sampled_from(_FLOAT_DTYPES))
        low, high = draw(_float_bounds(shape))
        return SpaceRecipe("Box", (low.astype(dtype), high.astype(dtype)), {"dtype": dtype})
    if kind == "int":
        dtype = draw(st.sampled_from(_INT_DTYPES))
        info = np.iinfo(dtype)
        low = draw(st.integers(max(int(info.min), -20), min(int(info.max), 20)))
        high = draw(st.integers(low, min(int(info.max), low + 30)))
        return SpaceRecipe("Box", (low, high), {"shape": shape, "dtype": dtype})
    if kind == "bool":
        return SpaceRecipe("Box", (0, 1), {"shape": shape, "dtype": np.bool_})
    low = draw(st.floats(-5, 5, width=32))
    high = low + draw(st.floats(0, 5, width=32))
    return SpaceRecipe("Box", (low, high), {"shape": shape})


@st.composite
def discrete_recipes(draw: Any) -> SpaceRecipe:
    """Discrete recipes with ``n`` in 1..8 and a small (possibly negative) start."""
    n = draw(st.integers(1, 8))
    start = draw(st.integers(-5, 5))
    kwargs = {"start": start} if start else {}
    if draw(st.booleans()):
        kwargs["dtype"] = draw(st.sampled_from([np.int64, np.int32]))
    return SpaceRecipe("Discrete", (n,), kwargs)


@st.composite
def multi_discrete_recipes(draw: Any) -> SpaceRecipe:
    """MultiDiscrete recipes of 1-D or 2-D ``nvec`` with or without ``start``."""
    shape = draw(_shapes)
    size = int(np.prod(shape))
    nvec = np.array(draw(st.lists(st.integers(1, 5), min_size=size, max_size=size))).reshape(shape)
    kwargs: dict[str, Any] = {}
    if draw(st.booleans()):
        start = draw(st.lists(st.integers(-3, 3), min_size=size, max_size=size))
        kwargs["start"] = np.array(start).reshape(shape)
    return SpaceRecipe("MultiDiscrete", (nvec,), kwargs)


@st.composite
def multi_binary_recipes(draw: Any) -> SpaceRecipe:
    """MultiBinary recipes with an int ``n`` or a shape."""
    if draw(st.booleans()):
        return SpaceRecipe("MultiBinary", (draw(st.integers(1, 6)),))
    return SpaceRecipe("MultiBinary", (list(draw(_shapes)),))


@st.composite
def text_recipes(draw: Any) -> SpaceRecipe:
    """Text recipes over small charsets given as a string or a frozenset."""
    chars = draw(
        st.lists(
            st.sampled_from(string.ascii_letters + "0123456789 _"),
            min_size=1,
            max_size=6,
            unique=True,
        )
    )
    charset: Any = "".join(chars) if draw(st.booleans()) else frozenset(chars)
    min_length = draw(st.integers(0, 3))
    max_length = draw(st.integers(max(min_length, 1), 6))
    return SpaceRecipe("Text", (max_length,), {"min_length": min_length, "charset": charset})


def array_leaf_recipes() -> st.SearchStrategy[SpaceRecipe]:
    """Recipes of the fixed-shape array spaces: Box, Discrete, MultiDiscrete, MultiBinary."""
    return st.one_of(
        box_recipes(), discrete_recipes(), multi_discrete_recipes(), multi_binary_recipes()
    )


def leaf_recipes() -> st.SearchStrategy[SpaceRecipe]:
    """Recipes of every non-container space (the array spaces and Text)."""
    return st.one_of(array_leaf_recipes(), text_recipes())


def _graph_recipes() -> st.SearchStrategy[SpaceRecipe]:
    feature = st.one_of(box_recipes(), discrete_recipes())
    return st.builds(
        lambda node, edge: SpaceRecipe("Graph", (node, edge)),
        feature,
        st.one_of(st.none(), feature),
    )


_keys = st.text(string.ascii_lowercase, min_size=1, max_size=3)


def _container_recipes(
    children: st.SearchStrategy[SpaceRecipe], dynamic: bool
) -> dict[str, st.SearchStrategy[SpaceRecipe]]:
    """Container recipes by kind, holding ``children``; Sequence ones only when ``dynamic``."""
    kinds = {
        "Tuple": st.lists(children, min_size=1, max_size=3).map(
            lambda items: SpaceRecipe("Tuple", (tuple(items),))
        ),
        "Dict": st.dictionaries(_keys, children, min_size=1, max_size=3).map(
            lambda items: SpaceRecipe("Dict", (items,))
        ),
        "OneOf": st.lists(children, min_size=1, max_size=3).map(
            lambda items: SpaceRecipe("OneOf", (tuple(items),))
        ),
    }
    if dynamic:
        kinds["Sequence"] = children.map(lambda child: SpaceRecipe("Sequence", (child,)))
        kinds["StackedSequence"] = array_leaf_recipes().map(
            lambda child: SpaceRecipe("Sequence", (child,), {"stack": True})
        )
    return kinds


def _containers(children: st.SearchStrategy[SpaceRecipe], dynamic: bool) -> Any:
    return st.one_of(list(_container_recipes(children, dynamic).values()))


def _leaf_recipes_by_kind() -> dict[str, st.SearchStrategy[SpaceRecipe]]:
    return {
        "Box": box_recipes(),
        "Discrete": discrete_recipes(),
        "MultiDiscrete": multi_discrete_recipes(),
        "MultiBinary": multi_binary_recipes(),
        "Text": text_recipes(),
    }


FLATTENABLE_KINDS = ("Box", "Discrete", "MultiDiscrete", "MultiBinary", "Text")
FLATTENABLE_KINDS += ("Tuple", "Dict", "OneOf")
SPACE_KINDS = (*FLATTENABLE_KINDS, "Graph", "Sequence", "StackedSequence")


def recipes_of_kind(kind: str, max_leaves: int = 4) -> st.SearchStrategy[SpaceRecipe]:
    """Recipes whose outermost space is of ``kind`` (one of ``SPACE_KINDS``).

    Containers hold any spaces (nested ones included), except that containers of a kind in
    ``FLATTENABLE_KINDS`` hold only flattenable ones.
    """
    leaves = _leaf_recipes_by_kind()
    if kind in leaves:
        return leaves[kind]
    if kind == "Graph":
        return _graph_recipes()
    dynamic = kind not in FLATTENABLE_KINDS
    children = _nested_recipes(max_leaves, dynamic)
    return _container_recipes(children, dynamic)[kind]


def _nested_recipes(max_leaves: int, dynamic: bool) -> st.SearchStrategy[SpaceRecipe]:
    base = st.one_of(leaf_recipes(), _graph_recipes()) if dynamic else leaf_recipes()
    return st.recursive(
        base, lambda children: _containers(children, dynamic), max_leaves=max_leaves
    )


def space_recipes(max_leaves: int = 4) -> st.SearchStrategy[SpaceRecipe]:
    """Recipes of any space, with nested Tuple, Dict, OneOf, Sequence and Graph spaces.

    The outermost kind is drawn evenly from ``SPACE_KINDS``, so every kind is exercised
    (a plain recursive strategy draws Sequence almost every time).
    """
    return st.sampled_from(SPACE_KINDS).flatmap(lambda kind: recipes_of_kind(kind, max_leaves))


def flattenable_recipes(max_leaves: int = 4) -> st.SearchStrategy[SpaceRecipe]:
    """Recipes of spaces that flatten to a Box (no Sequence or Graph anywhere)."""
    return st.sampled_from(FLATTENABLE_KINDS).flatmap(
        lambda kind: recipes_of_kind(kind, max_leaves)
    )


def _built(recipes: st.SearchStrategy[SpaceRecipe]) -> st.SearchStrategy[Any]:
    return recipes.map(lambda recipe: recipe.build())


def box_spaces() -> st.SearchStrategy[palaestra.spaces.Box]:
    """Box spaces."""
    return _built(box_recipes())


def discrete_spaces() -> st.SearchStrategy[palaestra.spaces.Discrete]:
    """Discrete spaces."""
    return _built(discrete_recipes())


def multi_discrete_spaces() -> st.SearchStrategy[palaestra.spaces.MultiDiscrete]:
    """MultiDiscrete spaces."""
    return _built(multi_discrete_recipes())


def multi_binary_spaces() -> st.SearchStrategy[palaestra.spaces.MultiBinary]:
    """MultiBinary spaces."""
    return _built(multi_binary_recipes())


def text_spaces() -> st.SearchStrategy[palaestra.spaces.Text]:
    """Text spaces."""
    return _built(text_recipes())


def leaf_spaces() -> st.SearchStrategy[palaestra.spaces.Space]:
    """Any non-container space."""
    return _built(leaf_recipes())


def spaces(max_leaves: int = 4) -> st.SearchStrategy[palaestra.spaces.Space]:
    """Any palaestra space, nested containers included."""
    return _built(space_recipes(max_leaves))


def spaces_of_kind(kind: str) -> st.SearchStrategy[palaestra.spaces.Space]:
    """Spaces whose outermost space is of ``kind`` (one of ``SPACE_KINDS``)."""
    return _built(recipes_of_kind(kind))


def flattenable_spaces(max_leaves: int = 4) -> st.SearchStrategy[palaestra.spaces.Space]:
    """Spaces whose elements flatten to a 1-D array."""
    return _built(flattenable_recipes(max_leaves))


# ------------------------------------------------------------------ masks and probabilities
def _int8_bits(draw: Any, size: int, values: tuple[int, ...] = (0, 1)) -> np.ndarray:
    bits = draw(st.lists(st.sampled_from(values), min_size=size, max_size=size))
    return np.array(bits, dtype=np.int8)


def _distribution(draw: Any, size: int) -> np.ndarray:
    weights = np.array(draw(st.lists(st.integers(0, 4), min_size=size, max_size=size)), float)
    if weights.sum() == 0:
        weights[draw(st.integers(0, size - 1))] = 1.0
    return weights / weights.sum()


def _nested_per_entry(nvec: np.ndarray, make: Any) -> Any:
    if nvec.ndim == 0:
        return make(int(nvec))
    return tuple(_nested_per_entry(sub, make) for sub in nvec)


@st.composite
def masks_for(draw: Any, space: Any) -> Any:
    """A valid ``mask`` argument for ``space.sample`` (``None`` where masks are not allowed)."""
    return _argument_for(draw, space, "mask")


@st.composite
def probabilities_for(draw: Any, space: Any) -> Any:
    """A valid ``probability`` argument for ``space.sample``."""
    return _argument_for(draw, space, "probability")


def _argument_for(draw: Any, space: Any, kind: str) -> Any:
    spaces_ = palaestra.spaces
    masking = kind == "mask"
    if isinstance(space, spaces_.Discrete):
        n = int(space.n)
        return _int8_bits(draw, n) if masking else _distribution(draw, n)
    if isinstance(space, spaces_.MultiDiscrete):
        make = (lambda n: _int8_bits(draw, n)) if masking else (lambda n: _distribution(draw, n))
        return _nested_per_entry(space.nvec, make)
    if isinstance(space, spaces_.MultiBinary):
        size = int(np.prod(space.shape))
        if masking:
            return _int8_bits(draw, size, (0, 1, 2)).reshape(space.shape)
        chances = draw(st.lists(st.sampled_from([0.0, 0.3, 1.0]), min_size=size, max_size=size))
        return np.array(chances).reshape(space.shape)
    if isinstance(space, spaces_.Text):
        length = draw(st.one_of(st.none(), st.integers(space.min_length, space.max_length)))
        size = len(space.character_list)
        if masking:
            chars = _int8_bits(draw, size)
            # An all-zero character mask ignores the length; tested on its own elsewhere.
            chars[draw(st.integers(0, size - 1))] = 1
        else:
            chars = _distribution(draw, size)
        return length, draw(st.one_of(st.none(), st.just(chars)))
    if isinstance(space, spaces_.Tuple):
        return tuple(_argument_for(draw, sub, kind) for sub in space.spaces)
    if isinstance(space, spaces_.OneOf):
        return tuple(_argument_for(draw, sub, kind) for sub in space.spaces)
    if isinstance(space, spaces_.Dict):
        return {key: _argument_for(draw, sub, kind) for key, sub in space.spaces.items()}
    if isinstance(space, spaces_.Sequence):
        length = draw(st.one_of(st.none(), st.integers(0, 3), st.just(np.array([0, 2]))))
        return length, _argument_for(draw, space.feature_space, kind)
    return None


def _allowed_by(values: np.ndarray) -> np.ndarray:
    return np.flatnonzero(values > 0)


def respects_mask(space: Any, mask: Any, sample: Any) -> bool:
    """Whether ``sample`` only uses values that ``mask`` allows."""
    return _respects(space, mask, sample, "mask")


def respects_probability(space: Any, probability: Any, sample: Any) -> bool:
    """Whether ``sample`` only uses values that have a positive ``probability``."""
    return _respects(space, probability, sample, "probability")


def _respects(space: Any, arg: Any, sample: Any, kind: str) -> bool:
    spaces_ = palaestra.spaces
    if arg is None:
        return True
    if isinstance(space, spaces_.Discrete):
        if kind == "mask" and not arg.any():
            return sample == space.start
        return int(sample - space.start) in _allowed_by(arg)
    if isinstance(space, spaces_.MultiDiscrete):
        return all(
            int(sample[index] - space.start[index]) in _allowed_by(arg_part)
            or (kind == "mask" and not arg_part.any() and sample[index] == space.start[index])
            for index, arg_part in _enumerate_nested(arg)
        )
    if isinstance(space, spaces_.MultiBinary):
        if kind == "mask":
            fixed = arg != 2
            return bool(np.all(sample[fixed] == arg[fixed]))
        return bool(np.all(sample[arg == 0] == 0) and np.all(sample[arg == 1] == 1))
    if isinstance(space, spaces_.Text):
        length, chars = arg
        if length is not None and len(sample) != length:
            return False
        if chars is None:
            return True
        allowed = {space.character_list[i] for i in _allowed_by(chars)}
        return set(sample) <= allowed
    if isinstance(space, spaces_.Tuple):
        return all(_respects(*parts, kind) for parts in zip(space.spaces, arg, sample))
    if isinstance(space, spaces_.OneOf):
        index, value = sample
        return _respects(space.spaces[index], arg[index], value, kind)
    if isinstance(space, spaces_.Dict):
        return all(_respects(sub, arg[key], sample[key], kind) for key, sub in space.items())
    if isinstance(space, spaces_.Sequence):
        length, feature_arg = arg
        if isinstance(length, int) and len(sample) != length:
            return False
        if isinstance(length, np.ndarray) and len(sample) not in length:
            return False
        return all(_respects(space.feature_space, feature_arg, item, kind) for item in sample)
    return True


def _enumerate_nested(arg: Any, prefix: tuple[int, ...] = ()) -> Any:
    if isinstance(arg, tuple):
        for i, part in enumerate(arg):
            yield from _enumerate_nested(part, (*prefix, i))
    else:
        yield prefix, arg


def supports_flatten(space: Any) -> bool:
    """Whether :func:`~palaestra.spaces.flatten` handles ``space``.

    Everything does except a OneOf with a Graph or Sequence inside, as in Gymnasium.
    """
    spaces_ = palaestra.spaces
    if isinstance(space, spaces_.OneOf):
        return space.is_np_flattenable
    if isinstance(space, (spaces_.Tuple, spaces_.OneOf)):
        return all(supports_flatten(sub) for sub in space.spaces)
    if isinstance(space, spaces_.Dict):
        return all(supports_flatten(sub) for sub in space.spaces.values())
    if isinstance(space, spaces_.Sequence):
        return supports_flatten(space.feature_space)
    return True
