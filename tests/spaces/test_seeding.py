"""Seeding: return values, composite seeds and their errors, lazy generators."""

from __future__ import annotations

import re

import numpy as np
import pytest

from palaestra import error
from palaestra.spaces import (
    Box,
    Dict,
    Discrete,
    Graph,
    MultiDiscrete,
    OneOf,
    Sequence,
    Space,
    Tuple,
)


def test_seed_returns_the_seed_used():
    assert Discrete(3).seed(5) == 5


def test_seed_none_returns_fresh_entropy_that_replays_the_stream():
    first, second = Discrete(1000), Discrete(1000)
    seed = first.seed(None)
    assert seed != second.seed(None)
    replay = Discrete(1000, seed=seed)
    assert [first.sample() for _ in range(5)] == [replay.sample() for _ in range(5)]


def test_generator_is_created_on_first_use():
    space = Discrete(3)
    assert space._np_random is None
    assert isinstance(space.np_random, np.random.Generator)


def test_a_generator_passed_as_seed_is_used_as_is():
    rng = np.random.default_rng(0)
    assert Box(0, 1, seed=rng).np_random is rng


def test_constructor_seed_equals_seeding_later():
    later = Discrete(100)
    later.seed(9)
    assert [Discrete(100, seed=9).sample() for _ in range(1)] == [later.sample()]


@pytest.mark.parametrize(
    ("seed", "message"),
    [
        (-1, "Seed must be >= 0, got -1"),
        (1.5, "Seed must be a python integer, actual type: <class 'float'> (value 1.5)"),
        ("1", "Seed must be a python integer, actual type: <class 'str'> (value '1')"),
    ],
)
def test_invalid_seeds_are_rejected(seed, message):
    with pytest.raises(error.Error, match=re.escape(message)):
        Discrete(3).seed(seed)


def test_int_seed_of_a_tuple_seeds_each_subspace_from_its_own_stream():
    space = Tuple([Discrete(2), Discrete(2)])
    seeds = space.seed(0)
    assert seeds == (1826701614, 1367864806)
    assert all(isinstance(seed, int) for seed in seeds)


def test_tuple_accepts_one_seed_per_subspace():
    assert Tuple([Discrete(2), Discrete(2)]).seed([3, 4]) == (3, 4)


def test_dict_accepts_one_seed_per_key():
    assert Dict(a=Discrete(2), b=Discrete(2)).seed({"b": 1, "a": 2}) == {"b": 1, "a": 2}


def test_dict_int_seed_returns_seeds_by_key():
    assert list(Dict(b=Discrete(2), a=Discrete(2)).seed(0)) == ["b", "a"]


def test_nested_seeds_follow_the_structure():
    space = Dict(a=Tuple([Discrete(2), Discrete(3)]), b=Discrete(2))
    assert space.seed({"a": [1, 2], "b": 3}) == {"a": (1, 2), "b": 3}


def test_oneof_seed_starts_with_its_own():
    assert OneOf([Discrete(2), Discrete(3)]).seed([7, 8, 9]) == (7, 8, 9)
    assert OneOf([Discrete(2)]).seed(5)[0] == 5


def test_sequence_and_graph_seed_pairs_and_triples():
    assert Sequence(Discrete(2)).seed((1, 2)) == (1, 2)
    assert Graph(Discrete(2), None).seed((1, 2)) == (1, 2)
    assert Graph(Discrete(2), Discrete(2)).seed((1, 2, 3)) == (1, 2, 3)


def test_int_seeded_composites_repeat_their_samples():
    space = Dict(a=Tuple([Discrete(5), Box(0, 1, (2,))]), b=MultiDiscrete([3, 3]))
    space.seed(11)
    first = [space.sample() for _ in range(3)]
    space.seed(11)
    second = [space.sample() for _ in range(3)]
    assert repr(first) == repr(second)


@pytest.mark.parametrize(
    ("space", "seed", "error_type", "message"),
    [
        (Tuple([Discrete(2)]), [1, 2], ValueError, "Actual length of seeds: 2"),
        (Tuple([Discrete(2)]), {"a": 1}, TypeError, "Expected seed type: list, tuple, int"),
        (Dict(a=Discrete(2)), {"b": 1}, ValueError, "are not identical to space keys"),
        (Dict(a=Discrete(2)), [1], TypeError, "Expected seed type: dict, int or None"),
        (OneOf([Discrete(2)]), [1], ValueError, "number of subspaces + 1"),
        (OneOf([Discrete(2)]), 1.5, TypeError, "Expected None, int, or tuple of ints"),
        (Sequence(Discrete(2)), [1, 2, 3], ValueError, "to have two elements"),
        (Sequence(Discrete(2)), 1.5, TypeError, "Expected None, int, tuple of ints"),
        (Graph(Discrete(2), None), [1, 2, 3], ValueError, "two values for Graph and node"),
        (Graph(Discrete(2), Discrete(2)), [1, 2], ValueError, "three values for Graph"),
        (Graph(Discrete(2), None), 1.5, TypeError, "Expects `None`, int or tuple of ints"),
    ],
)
def test_malformed_composite_seeds_are_rejected(space, seed, error_type, message):
    with pytest.raises(error_type, match=re.escape(message)):
        space.seed(seed)


def test_base_space_leaves_sampling_and_membership_to_subclasses():
    space = Space()
    with pytest.raises(NotImplementedError):
        space.sample()
    with pytest.raises(NotImplementedError):
        space.contains(1)
    with pytest.raises(NotImplementedError):
        _ = space.is_np_flattenable


def test_legacy_state_names_are_renamed_on_unpickling():
    space = Space.__new__(Space)
    rng = np.random.default_rng(0)
    space.__setstate__({"shape": (2,), "dtype": None, "np_random": rng})
    assert space.shape == (2,) and space.np_random is rng


def test_legacy_discrete_state_without_start_starts_at_zero():
    state = dict(Discrete(3).__dict__)
    del state["start"]
    space = Discrete.__new__(Discrete)
    space.__setstate__(state)
    assert space.start == 0 and space == Discrete(3)


def test_legacy_multi_discrete_state_without_start_starts_at_zero():
    state = dict(MultiDiscrete([2, 3]).__dict__)
    del state["start"]
    space = MultiDiscrete.__new__(MultiDiscrete)
    space.__setstate__(state)
    assert space == MultiDiscrete([2, 3])
