"""batch_space, batch_differing_spaces, concatenate, iterate, create_empty_array, shared memory."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import palaestra.spaces
from palaestra.error import CustomSpaceError
from palaestra.spaces import Box, Dict, Discrete, Graph, MultiBinary, MultiDiscrete, Space, Text
from palaestra.vector.utils import (
    batch_differing_spaces,
    batch_space,
    concatenate,
    create_empty_array,
    create_shared_memory,
    iterate,
    read_from_shared_memory,
    write_to_shared_memory,
)
from tests.spaces.strategies import FLATTENABLE_KINDS, SPACE_KINDS, recipes_of_kind, seeds

# Each property runs once per outermost space kind, so every kind is exercised.
PROPERTY_SETTINGS = settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
every_kind = pytest.mark.parametrize("kind", SPACE_KINDS)
sizes = st.integers(min_value=1, max_value=4)


def plain(value: Any) -> Any:
    """``value`` with library-specific containers (GraphInstance) turned into plain ones."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (tuple, list)):
        return tuple(plain(item) for item in value)
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tolist())
    if isinstance(value, np.generic):
        return ("scalar", value.dtype.str, value.item())
    return value


def assert_equal_elements(ours: Any, theirs: Any) -> None:
    assert plain(ours) == plain(theirs)


@every_kind
@PROPERTY_SETTINGS
@given(data=st.data(), n=sizes, seed=seeds())
def test_batch_space_matches_gymnasium_structure_and_samples(kind, data, n, seed):
    recipe = data.draw(recipes_of_kind(kind))
    gymnasium = pytest.importorskip("gymnasium")
    from gymnasium.vector.utils import batch_space as gymnasium_batch_space

    ours, theirs = recipe.build(palaestra.spaces), recipe.build(gymnasium.spaces)
    ours.seed(seed)
    theirs.seed(seed)
    ours_batched, theirs_batched = batch_space(ours, n), gymnasium_batch_space(theirs, n)
    assert repr(ours_batched) == repr(theirs_batched)
    for _ in range(2):
        assert_equal_elements(ours_batched.sample(), theirs_batched.sample())


@every_kind
@PROPERTY_SETTINGS
@given(data=st.data(), n=sizes, seed=seeds())
def test_concatenate_then_iterate_gives_back_the_items(kind, data, n, seed):
    space = data.draw(recipes_of_kind(kind)).build()
    space.seed(seed)
    items = [space.sample() for _ in range(n)]
    batched_space = batch_space(space, n)
    batched = concatenate(space, items, create_empty_array(space, n=n))
    assert batched_space.contains(batched)
    assert_equal_elements(list(iterate(batched_space, batched)), items)


@every_kind
@PROPERTY_SETTINGS
@given(data=st.data(), n=sizes)
def test_create_empty_array_matches_gymnasium(kind, data, n):
    recipe = data.draw(recipes_of_kind(kind))
    gymnasium = pytest.importorskip("gymnasium")
    from gymnasium.vector.utils import create_empty_array as gymnasium_create_empty_array

    ours = create_empty_array(recipe.build(palaestra.spaces), n=n)
    theirs = gymnasium_create_empty_array(recipe.build(gymnasium.spaces), n=n)
    assert_equal_elements(ours, theirs)


@pytest.mark.parametrize("kind", FLATTENABLE_KINDS)
@PROPERTY_SETTINGS
@given(data=st.data(), n=sizes, seed=seeds())
def test_shared_memory_round_trips_every_item(kind, data, n, seed):
    # Spaces without Graph or Sequence: those have no fixed size to share.
    space = data.draw(recipes_of_kind(kind)).build()
    space.seed(seed)
    memory = create_shared_memory(space, n=n)
    items = [space.sample() for _ in range(n)]
    for index, item in enumerate(items):
        write_to_shared_memory(space, index, item, memory)
    expected = concatenate(space, items, create_empty_array(space, n=n))
    assert_equal_elements(read_from_shared_memory(space, memory, n=n), expected)


def test_batch_space_of_box_stacks_bounds():
    batched = batch_space(Box(np.array([0, 1]), np.array([2, 3]), dtype=np.int64), n=2)
    assert batched.low.tolist() == [[0, 1], [0, 1]] and batched.high.tolist() == [[2, 3], [2, 3]]


def test_batch_space_of_discrete_keeps_start():
    assert batch_space(Discrete(3, start=-1), n=2) == MultiDiscrete([3, 3], start=[-1, -1])


def test_batch_space_of_unstackable_space_is_a_tuple_of_copies():
    batched = batch_space(Text(5), n=3)
    assert batched == palaestra.spaces.Tuple([Text(5)] * 3)


def test_batch_differing_spaces_stacks_bounds_and_sizes():
    assert batch_differing_spaces([Discrete(3), Discrete(5, start=1)]) == MultiDiscrete(
        [3, 5], start=[0, 1]
    )
    boxes = batch_differing_spaces([Box(0, 1, (2,)), Box(-1, 2, (2,))])
    assert boxes.low.tolist() == [[0, 0], [-1, -1]]
    assert batch_differing_spaces([MultiBinary(2)] * 3) == Box(0, 1, (3, 2), dtype=np.int8)


def test_batch_differing_spaces_recurses_into_dicts():
    spaces = [Dict(a=Discrete(2)), Dict(a=Discrete(4))]
    assert batch_differing_spaces(spaces) == Dict(a=MultiDiscrete([2, 4]))


@pytest.mark.parametrize(
    ("spaces", "error", "message"),
    [
        ([], ValueError, "Expects a non-empty list of spaces"),
        ([Discrete(2), Box(0, 1)], TypeError, "Expects all spaces to be of the same type"),
        (
            [Box(0, 1, dtype=np.float32), Box(0, 1, dtype=np.float64)],
            ValueError,
            "Expected all dtypes to be equal",
        ),
        ([Box(0, 1, (2,)), Box(0, 1, (3,))], ValueError, "Expected all Box.low shape to be equal"),
        (
            [Dict(a=Discrete(2)), Dict(b=Discrete(2))],
            ValueError,
            "Expected all Dict spaces to have the same keys",
        ),
    ],
)
def test_batch_differing_spaces_rejects_incompatible_spaces(spaces, error, message):
    with pytest.raises(error, match=message):
        batch_differing_spaces(spaces)


class Custom(Space):
    """A user space type no utility knows."""


def test_batch_differing_spaces_needs_a_registered_rule():
    with pytest.raises(TypeError, match="to have a registered `batch_differing_space`"):
        batch_differing_spaces([Custom(), Custom()])


@pytest.mark.parametrize(
    "call",
    [
        lambda: batch_space("box", 2),
        lambda: concatenate("box", [], None),
        lambda: create_empty_array("box", 2),
        lambda: iterate("box", []),
        lambda: create_shared_memory("box", 2),
        lambda: read_from_shared_memory("box", None, 2),
        lambda: write_to_shared_memory("box", 0, None, None),
    ],
)
def test_non_spaces_are_a_type_error(call):
    with pytest.raises(TypeError, match="is not a palaestra Space instance, type: <class 'str'>"):
        call()


@pytest.mark.parametrize(
    ("call", "function"),
    [
        (lambda: iterate(Custom(), []), "iterate"),
        (lambda: create_shared_memory(Custom(), 2), "create_shared_memory"),
        (lambda: read_from_shared_memory(Custom(), None, 2), "read_from_shared_memory"),
        (lambda: write_to_shared_memory(Custom(), 0, None, None), "write_to_shared_memory"),
    ],
)
def test_unregistered_space_types_are_a_custom_space_error(call, function):
    with pytest.raises(CustomSpaceError, match=f"registered `{function}` function"):
        call()


def test_custom_spaces_batch_as_tuples_and_concatenate_to_tuples():
    batched = batch_space(Custom(), n=2)
    assert isinstance(batched, palaestra.spaces.Tuple)
    assert [type(space) for space in batched.spaces] == [Custom, Custom]
    assert concatenate(Custom(), [1, 2], None) == (1, 2)
    assert create_empty_array(Custom(), n=2) is None


def test_iterating_discrete_is_a_type_error():
    with pytest.raises(TypeError, match="Unable to iterate over a space of type `Discrete`"):
        iterate(Discrete(2), 1)


def test_iterating_a_scalar_box_element_is_a_type_error():
    with pytest.raises(TypeError, match=r"Unable to iterate over the following elements: 1\.0"):
        iterate(Box(0, 1, shape=(2,)), 1.0)


def test_dynamic_spaces_have_no_shared_memory():
    with pytest.raises(TypeError, match=r"has a dynamic shape.*disable `shared_memory`"):
        create_shared_memory(Graph(Box(0, 1, (2,)), None), n=2)


def test_user_space_types_can_be_registered():
    class Pair(Space):
        pass

    @batch_space.register(Pair)
    def _(space, n=1):
        return Box(0, 1, shape=(n, 2))

    @iterate.register(Pair)
    def _(space, items):
        return iter(items)

    assert batch_space(Pair(), n=3) == Box(0, 1, shape=(3, 2))
    assert list(iterate(Pair(), [1, 2])) == [1, 2]


def test_shared_memory_of_one_of_with_nested_subspaces_reads_per_env_items():
    space = palaestra.spaces.OneOf((Dict(a=Discrete(3)), Text(4)))
    memory = create_shared_memory(space, n=2)
    write_to_shared_memory(space, 0, (0, {"a": 2}), memory)
    write_to_shared_memory(space, 1, (1, "ab"), memory)
    assert_equal_elements(
        read_from_shared_memory(space, memory, n=2),
        ((np.int64(0), {"a": np.int64(2)}), (np.int64(1), "ab")),
    )


@pytest.mark.parametrize(
    ("spaces", "message"),
    [
        ([MultiDiscrete([2, 2]), MultiDiscrete([2])], "Expects all MultiDiscrete.nvec shape"),
        ([MultiBinary(2), MultiBinary(3)], "Expected all MultiBinary shapes to be equal"),
        (
            [palaestra.spaces.Tuple([Discrete(2)]), palaestra.spaces.Tuple([Discrete(2)] * 2)],
            "Expected all Tuple lengths to be equal",
        ),
    ],
)
def test_batch_differing_spaces_rejects_mismatched_shapes(spaces, message):
    with pytest.raises(ValueError, match=message):
        batch_differing_spaces(spaces)


def test_iterating_a_tuple_of_unknown_spaces_over_non_iterable_items_is_a_custom_space_error():
    space = palaestra.spaces.Tuple([Custom(), Custom()])
    with pytest.raises(CustomSpaceError, match="no custom iterate function is registered for"):
        iterate(space, 5)
