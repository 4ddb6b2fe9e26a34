"""Constructors of the non-Box spaces: accepted arguments, repr and errors."""

from __future__ import annotations

import re
from collections import OrderedDict

import numpy as np
import pytest

from palaestra.spaces import (
    Box,
    Dict,
    Discrete,
    Graph,
    MultiBinary,
    MultiDiscrete,
    OneOf,
    Sequence,
    Text,
    Tuple,
)


@pytest.mark.parametrize(
    ("space", "expected"),
    [
        (Discrete(3), "Discrete(3)"),
        (Discrete(3, start=-1), "Discrete(3, start=-1)"),
        (Discrete(3, dtype=np.int32), "Discrete(3, dtype=int32)"),
        (MultiDiscrete([2, 3]), "MultiDiscrete([2 3])"),
        (MultiDiscrete([2, 3], start=[1, 0]), "MultiDiscrete([2 3], start=[1 0])"),
        (MultiBinary(4), "MultiBinary(4)"),
        (MultiBinary([2, 2]), "MultiBinary((2, 2))"),
        (Text(4, charset="cab"), "Text(1, 4, charset=abc)"),
        (Tuple([Discrete(2), MultiBinary(1)]), "Tuple(Discrete(2), MultiBinary(1))"),
        (Dict({"a": Discrete(2)}), "Dict('a': Discrete(2))"),
        (OneOf([Discrete(2)]), "OneOf(Discrete(2))"),
        (Sequence(Discrete(2), stack=True), "Sequence(Discrete(2), stack=True)"),
        (Graph(Discrete(2), None), "Graph(Discrete(2), None)"),
    ],
)
def test_repr(space, expected):
    assert repr(space) == expected


@pytest.mark.parametrize(
    ("build", "error", "message"),
    [
        (lambda: Discrete(2.0), TypeError, "Expects `n` to be an integer"),
        (lambda: Discrete(0), ValueError, "n (counts) have to be positive, actual value: 0"),
        (lambda: Discrete(2, start=0.5), TypeError, "Expects `start` to be an integer"),
        (lambda: Discrete(2, dtype=np.float32), TypeError, "must be an integer dtype"),
        (lambda: MultiDiscrete([2, 0]), ValueError, "nvec (counts) have to be positive"),
        (lambda: MultiDiscrete([2], start=[0, 0]), ValueError, "should have the same shape"),
        (lambda: MultiDiscrete([2], dtype=np.float64), ValueError, "must be an integer dtype"),
        (lambda: MultiBinary(0), ValueError, "n (counts) have to be positive, got 0"),
        (lambda: MultiBinary(2.5), ValueError, "Expected n to be an int or a sequence"),
        (lambda: Text(3.0), TypeError, "Expects the max_length to be an integer"),
        (lambda: Text(3, min_length=-1), ValueError, "must be non-negative, actual value: -1"),
        (lambda: Text(2, min_length=3), ValueError, "min_length: 3, max_length: 2"),
        (lambda: Text(2, charset=["ab"]), ValueError, "actual invalid elements: ['ab']"),
        (lambda: Tuple([Discrete(2), 3]), TypeError, "3 does not inherit from"),
        (lambda: Dict({"a": 3}), TypeError, "key='a', space=3"),
        (lambda: Dict(3), TypeError, "Unexpected Dict space input"),
        (lambda: Dict({"a": Discrete(2)}, a=Discrete(3)), ValueError, "'a' already exists"),
        (lambda: OneOf([]), ValueError, "Empty `OneOf` spaces are not supported."),
        (lambda: OneOf(3), TypeError, "3 is not an iterable"),
        (lambda: Sequence(3), TypeError, "Expects the feature space to be instance"),
    ],
)
def test_invalid_arguments_are_rejected(build, error, message):
    with pytest.raises(error, match=re.escape(message)):
        build()


def test_dict_sorts_plain_dict_keys():
    assert list(Dict({"b": Discrete(2), "a": Discrete(2)})) == ["a", "b"]


def test_dict_keeps_order_when_asked_or_given_ordered_input():
    assert list(Dict({"b": Discrete(2), "a": Discrete(2)}, sort_keys=False)) == ["b", "a"]
    assert list(Dict(OrderedDict(b=Discrete(2), a=Discrete(2)))) == ["b", "a"]
    assert list(Dict([("b", Discrete(2)), ("a", Discrete(2))])) == ["b", "a"]


def test_dict_keeps_order_of_unsortable_keys():
    assert list(Dict({2: Discrete(2), "a": Discrete(2)})) == [2, "a"]


def test_dict_item_assignment_accepts_only_spaces():
    space = Dict(a=Discrete(2))
    space["b"] = Discrete(3)
    assert space["b"] == Discrete(3)
    with pytest.raises(TypeError, match="that is not a palaestra space"):
        space["c"] = 3


def test_containers_behave_like_sequences_and_mappings():
    tup = Tuple([Discrete(2), Discrete(3)])
    assert len(tup) == 2 and tup[1] == Discrete(3) and list(tup) == [Discrete(2), Discrete(3)]
    dct = Dict(a=Discrete(2))
    assert len(dct) == 1 and list(dct.keys()) == ["a"] and dct["a"] == Discrete(2)
    assert OneOf([Discrete(2)])[0] == Discrete(2)


def test_multi_discrete_indexing_gives_subspaces_that_share_the_stream():
    space = MultiDiscrete([[2, 3], [4, 5]], start=[[0, 1], [2, 3]], seed=0)
    assert space[1] == MultiDiscrete([4, 5], start=[2, 3])
    assert space[0, 1] == Discrete(3, start=1)
    assert space[1].np_random.bit_generator.state == space.np_random.bit_generator.state


def test_len_of_a_multi_dimensional_multi_discrete_warns():
    with pytest.warns(UserWarning, match="multi-dimensional MultiDiscrete"):
        assert len(MultiDiscrete([[2, 3]])) == 1


def test_text_keeps_string_charset_order_and_sorts_sets():
    assert Text(2, charset="cab").character_list == ("c", "a", "b")
    assert Text(2, charset=frozenset("cab")).character_list == ("a", "b", "c")
    assert Text(2, charset="cab").character_index("b") == 2


@pytest.mark.parametrize(
    ("space", "shape", "dtype", "flattenable"),
    [
        (Discrete(2), (), np.dtype(np.int64), True),
        (MultiDiscrete([[1, 2]]), (1, 2), np.dtype(np.int64), True),
        (MultiBinary(3), (3,), np.dtype(np.int8), True),
        (Text(3), None, np.dtype(str), True),
        (Tuple([Discrete(2)]), None, None, True),
        (Dict(a=Box(0, 1)), None, None, True),
        (OneOf([Discrete(2)]), None, None, True),
        (Sequence(Discrete(2)), None, None, False),
        (Graph(Discrete(2), None), None, None, False),
        (Tuple([Sequence(Discrete(2))]), None, None, False),
    ],
)
def test_shape_dtype_and_flattenability(space, shape, dtype, flattenable):
    assert space.shape == shape
    assert space.dtype == dtype
    assert space.is_np_flattenable is flattenable


def test_equality_compares_structure_and_parameters():
    assert Discrete(3) == Discrete(3) and Discrete(3) != Discrete(3, start=1)
    assert Tuple([Discrete(2)]) != Tuple([Discrete(3)])
    assert Dict(a=Discrete(2)) != Dict(b=Discrete(2))
    assert Text(3, charset="ab") == Text(3, charset="ba")
    assert Sequence(Discrete(2)) != Sequence(Discrete(2), stack=True)
    assert Graph(Discrete(2), None) != Graph(Discrete(2), Discrete(2))
    assert MultiBinary(3) != MultiDiscrete([2, 2, 2])
