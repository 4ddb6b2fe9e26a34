"""flatdim / flatten / unflatten / flatten_space on concrete cases, errors and extension."""

from __future__ import annotations

import re

import numpy as np
import pytest

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
    flatdim,
    flatten,
    flatten_space,
    unflatten,
)
from palaestra.spaces.utils import is_space_dtype_shape_equiv


def test_discrete_flattens_to_one_hot_relative_to_start():
    np.testing.assert_array_equal(flatten(Discrete(4, start=2), 3), [0, 1, 0, 0])


def test_multi_discrete_flattens_to_concatenated_one_hots():
    space = MultiDiscrete([2, 3], start=[1, 0])
    np.testing.assert_array_equal(flatten(space, np.array([2, 0])), [0, 1, 1, 0, 0])


def test_text_flattens_to_indices_padded_with_the_charset_size():
    flat = flatten(Text(4, charset="ab"), "ba")
    np.testing.assert_array_equal(flat, [1, 0, 2, 2])
    assert flat.dtype == np.int32


def test_oneof_flattens_to_index_and_value_padded_with_its_first_entry():
    space = OneOf([Discrete(2), Box(-1.0, 1.0, (3,))])
    np.testing.assert_array_equal(flatten(space, (0, 1)), [0, 0, 1, 0])
    expected = Box(np.array([0, -1, -1, -1]), np.array([1, 1, 1, 1]), dtype=np.float64)
    assert flatten_space(space) == expected


def test_text_inside_a_float_tuple_survives_the_round_trip():
    space = Tuple([Text(2, charset="ab"), Box(0.0, 1.0, (1,))])
    sample = ("ba", np.array([0.5], np.float32))
    flat = flatten(space, sample)
    assert flat.dtype == np.float64
    assert unflatten(space, flat)[0] == "ba"


def test_tuple_and_dict_concatenate_their_flattened_parts():
    space = Tuple([Discrete(2), MultiBinary(2)])
    np.testing.assert_array_equal(flatten(space, (1, np.array([1, 0], np.int8))), [0, 1, 1, 0])
    assert flatten_space(space) == Box(0, 1, (4,), dtype=np.int64)


def test_dicts_with_a_sequence_flatten_per_key():
    space = Dict(a=Sequence(Discrete(2)), b=Discrete(2))
    flat = flatten(space, {"a": (1,), "b": 0})
    assert list(flat) == ["a", "b"]
    np.testing.assert_array_equal(flat["a"][0], [0, 1])
    assert flatten_space(space) == Dict(
        a=Sequence(Box(0, 1, (2,), np.int64)), b=Box(0, 1, (2,), np.int64)
    )


def test_graph_flattens_node_and_edge_features():
    space = Graph(Discrete(3), Box(0.0, 1.0, (2, 2)))
    graph = GraphInstance(np.array([0, 2]), np.zeros((1, 2, 2), np.float32), np.array([[0, 1]]))
    flat = flatten(space, graph)
    np.testing.assert_array_equal(flat.nodes, [[1, 0, 0], [0, 0, 1]])
    assert flat.edges.shape == (1, 4)
    np.testing.assert_array_equal(unflatten(space, flat).nodes, [0, 2])


@pytest.mark.parametrize(
    "space",
    [Sequence(Discrete(2)), Tuple([Graph(Discrete(2), None)]), Dict(a=Sequence(Discrete(2)))],
)
def test_flatdim_of_dynamic_spaces_is_an_error(space):
    with pytest.raises(ValueError, match="cannot be flattened to a numpy array"):
        flatdim(space)


def test_flatdim_of_a_graph_is_an_error():
    with pytest.raises(ValueError, match="the Graph Space has a dynamic size"):
        flatdim(Graph(Discrete(2), None))


@pytest.mark.parametrize(
    ("space", "flat"),
    [(Discrete(3), np.zeros(3)), (MultiDiscrete([2, 2]), np.zeros(4))],
)
def test_unflattening_without_a_hot_entry_is_an_error(space, flat):
    with pytest.raises(ValueError, match="can not be unflattened to space"):
        unflatten(space, flat)


def test_unflattening_a_flattenable_tuple_needs_an_array():
    with pytest.raises(AssertionError, match="is numpy-flattenable"):
        unflatten(Tuple([Discrete(2)]), (np.array([0, 1]),))


def test_unflattening_a_dynamic_dict_needs_a_dict():
    with pytest.raises(AssertionError, match="is not numpy-flattenable"):
        unflatten(Dict(a=Sequence(Discrete(2))), np.zeros(2))


class Coin(Space[int]):
    """A custom space the flattening functions know nothing about."""

    @property
    def is_np_flattenable(self):
        return True

    def sample(self, mask=None, probability=None):
        return int(self.np_random.integers(2))

    def contains(self, x):
        return x in (0, 1)


@pytest.mark.parametrize(
    "call",
    [
        lambda: flatdim(Coin()),
        lambda: flatten(Coin(), 1),
        lambda: unflatten(Coin(), np.zeros(1)),
        lambda: flatten_space(Coin()),
    ],
)
def test_unregistered_spaces_are_not_implemented(call):
    with pytest.raises(NotImplementedError, match=re.escape("Unknown space")):
        call()


def test_custom_spaces_can_register_their_own_rules():
    class Bit(Coin):
        pass

    flatdim.register(Bit, lambda space: 1)
    flatten.register(Bit, lambda space, x: np.array([x]))
    unflatten.register(Bit, lambda space, x: int(x[0]))
    space = Tuple([Bit(), Discrete(2)])
    assert flatdim(space) == 3
    assert unflatten(space, flatten(space, (1, 0))) == (1, 0)


def test_dtype_shape_equivalence_ignores_bounds_but_not_structure():
    assert is_space_dtype_shape_equiv(Box(0, 1, (2,)), Box(-3, 3, (2,)))
    assert not is_space_dtype_shape_equiv(Box(0, 1, (2,)), Box(0, 1, (3,)))
    assert is_space_dtype_shape_equiv(Dict(a=Discrete(2)), Dict(a=Discrete(5)))
    assert not is_space_dtype_shape_equiv(Tuple([Discrete(2)]), OneOf([Discrete(2)]))
    assert is_space_dtype_shape_equiv(Graph(Discrete(2), None), Graph(Discrete(3), None))
    assert not is_space_dtype_shape_equiv(Sequence(Discrete(2)), Sequence(Discrete(2), stack=True))


def test_dtype_shape_equivalence_rejects_non_spaces():
    with pytest.raises(TypeError):
        is_space_dtype_shape_equiv(3, Discrete(2))
    with pytest.raises(NotImplementedError):
        is_space_dtype_shape_equiv(Coin(), Coin())
