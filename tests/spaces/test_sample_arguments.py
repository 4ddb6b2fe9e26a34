"""Validation of ``sample(mask=..., probability=...)``: exception types and messages."""

from __future__ import annotations

import re

import numpy as np
import pytest

from palaestra.spaces import (
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

INT8 = np.int8

SPACES_WITH_MASKS = {
    "Discrete": (Discrete(3), np.ones(3, INT8), np.full(3, 1 / 3)),
    "MultiDiscrete": (
        MultiDiscrete([2, 2]),
        (np.ones(2, INT8), np.ones(2, INT8)),
        (np.full(2, 0.5), np.full(2, 0.5)),
    ),
    "MultiBinary": (MultiBinary(2), np.full(2, 2, INT8), np.full(2, 0.5)),
    "Text": (Text(3, charset="ab"), (None, np.ones(2, INT8)), (None, np.full(2, 0.5))),
    "Tuple": (Tuple([Discrete(2)]), (None,), (None,)),
    "Dict": (Dict(a=Discrete(2)), {"a": None}, {"a": None}),
    "OneOf": (OneOf([Discrete(2)]), (None,), (None,)),
    "Sequence": (Sequence(Discrete(2)), (1, None), (1, None)),
    "Graph": (Graph(Discrete(2), None), (None, None), (None, None)),
}


@pytest.mark.parametrize(
    ("space", "mask", "probability"), SPACES_WITH_MASKS.values(), ids=SPACES_WITH_MASKS.keys()
)
def test_mask_and_probability_together_are_rejected(space, mask, probability):
    with pytest.raises(ValueError, match="Only one of `mask` or `probability` can be provided"):
        space.sample(mask=mask, probability=probability)


@pytest.mark.parametrize(
    ("space", "mask", "message"),
    [
        (Discrete(3), [1, 1, 1], "The expected type of the sample mask is np.ndarray"),
        (Discrete(3), np.ones(3), "The expected dtype of the sample mask is np.int8"),
        (Discrete(3), np.ones(2, INT8), "The expected shape of the sample mask is (3,)"),
        (Discrete(3), np.array([0, 2, 1], INT8), "should be 0 or 1, actual values: [0 2 1]"),
        (MultiBinary(2), np.ones(2), "The expected dtype of the mask is np.int8"),
        (MultiBinary(2), np.ones(3, INT8), "The expected shape of the mask is (2,)"),
        (MultiBinary(2), np.array([3, 0], INT8), "should be 0, 1 or 2, actual values: [3 0]"),
        (MultiDiscrete([2, 2]), np.ones(2, INT8), "Expects the mask to be a tuple"),
        (MultiDiscrete([2, 2]), (np.ones(2, INT8),), "Expects the mask length to be equal"),
        (MultiDiscrete([2, 2]), (np.ones(2), np.ones(2)), "Expects the mask dtype to be np.int8"),
        (MultiDiscrete([2]), (np.ones(3, INT8),), "mask length: 3, action: 2"),
        (Text(3), [None, None], "Expects the `mask` type to be a tuple"),
        (Text(3), (None,), "Expects the `mask` length to be two"),
        (Text(3), (5, None), "Expects the Text sample length be between 1 and 3"),
        (Text(3, charset="ab"), (None, np.ones(3, INT8)), "to be (2,), actual shape: (3,)"),
        (Tuple([Discrete(2)]), [None], "Expected type of `mask` to be tuple"),
        (Tuple([Discrete(2)]), (None, None), "Expected length of `mask` to be 1"),
        (Dict(a=Discrete(2)), (None,), "Expected sample mask to be a dict"),
        (Dict(a=Discrete(2)), {"b": None}, "Expected sample mask keys to be same as space keys"),
        (OneOf([Discrete(2)]), (None, None), "Expected length of `mask` is 1"),
        (Sequence(Discrete(2)), (-1, None), "to be greater than or equal to zero"),
        (Sequence(Discrete(2)), (np.ones((2, 2), int), None), "to be 1-dimensional"),
        (Sequence(Discrete(2)), (np.ones(2), None), "to have dtype of np.integer"),
    ],
)
def test_malformed_masks_raise_assertion_errors_naming_the_problem(space, mask, message):
    with pytest.raises(AssertionError, match=re.escape(message)):
        space.sample(mask=mask)


@pytest.mark.parametrize(
    ("space", "probability", "message"),
    [
        (Discrete(2), np.ones(2, np.float32) / 2, "dtype of the sample probability is np.float64"),
        (Discrete(2), np.full(3, 1 / 3), "The expected shape of the sample probability is (2,)"),
        (Discrete(2), np.array([1.5, -0.5]), "should be between 0 and 1"),
        (Discrete(2), np.array([0.2, 0.2]), "should be equal to 1, actual sum: 0.4"),
        (MultiBinary(2), np.array([0.2, 1.2]), "should be between 0 and 1"),
        (MultiDiscrete([2]), (np.array([0.2, 0.2]),), "Expects the sum of all mask values to be 1"),
        (Text(2, charset="ab"), (None, np.array([0.2, 0.2])), "probability mask to be 1"),
    ],
)
def test_invalid_probabilities_raise_assertion_errors(space, probability, message):
    with pytest.raises(AssertionError, match=re.escape(message)):
        space.sample(probability=probability)


def test_sequence_length_mask_of_wrong_type_is_a_type_error():
    with pytest.raises(TypeError, match=re.escape("to be an integer or a np.ndarray")):
        Sequence(Discrete(2)).sample(mask=(1.5, None))


def test_discrete_with_everything_masked_returns_start():
    assert Discrete(3, start=4).sample(mask=np.zeros(3, INT8)) == 4


def test_multi_discrete_entry_with_everything_masked_returns_its_start():
    space = MultiDiscrete([2, 3], start=[5, -1])
    sample = space.sample(mask=(np.zeros(2, INT8), np.array([0, 0, 1], INT8)))
    np.testing.assert_array_equal(sample, [5, 1])


def test_text_with_no_allowed_character_and_zero_min_length_is_empty():
    assert Text(3, min_length=0, charset="ab").sample(mask=(2, np.zeros(2, INT8))) == ""


def test_text_with_no_allowed_character_but_positive_min_length_is_an_error():
    with pytest.raises(ValueError, match="the character mask is all zero"):
        Text(3, charset="ab").sample(mask=(None, np.zeros(2, INT8)))


def test_sequence_length_mask_array_picks_one_of_the_lengths():
    space = Sequence(Discrete(2), seed=0)
    lengths = {len(space.sample(mask=(np.array([1, 4]), None))) for _ in range(30)}
    assert lengths == {1, 4}


def test_stacked_sequence_of_length_zero_is_an_empty_batch():
    sample = Sequence(MultiBinary(3), stack=True, seed=0).sample(mask=(0, None))
    assert sample.shape == (0, 3) and sample.dtype == np.int8


def test_graph_needs_at_least_one_node():
    with pytest.raises(AssertionError, match="The number of nodes is expected to be greater"):
        Graph(Discrete(2), None).sample(num_nodes=0)


def test_graph_rejects_a_negative_edge_count():
    with pytest.raises(AssertionError, match="Expects the number of edges"):
        Graph(Discrete(2), Discrete(2)).sample(num_edges=-1)


def test_graph_warns_when_edges_are_requested_without_an_edge_space():
    with pytest.warns(UserWarning, match=re.escape("The number of edges is set (3)")):
        graph = Graph(Discrete(2), None, seed=0).sample(num_edges=3)
    assert graph.edges is None and graph.edge_links is None


def test_graph_with_fixed_counts_has_matching_shapes():
    graph = Graph(Discrete(2), Discrete(5), seed=0).sample(num_nodes=4, num_edges=6)
    assert graph.nodes.shape == (4,) and graph.edges.shape == (6,)
    assert graph.edge_links.shape == (6, 2) and graph.edge_links.dtype == np.int32
