"""Space conversion: every palaestra space has an equal Gymnasium twin, and back."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from palaestra import spaces
from palaestra.compat import from_gymnasium_space, to_gymnasium_space

SPACES = {
    "box": spaces.Box(-1.0, 2.0, (2, 3), np.float32),
    "box_bounds": spaces.Box(np.array([0, -5]), np.array([3, 5]), dtype=np.int64),
    "discrete": spaces.Discrete(5, start=-2),
    "multi_discrete": spaces.MultiDiscrete([[2, 3], [4, 5]], start=[[0, 1], [1, 0]]),
    "multi_binary": spaces.MultiBinary([2, 2]),
    "text": spaces.Text(6, min_length=2, charset="abcXYZ"),
    "tuple": spaces.Tuple([spaces.Discrete(2), spaces.Box(0.0, 1.0, (1,))]),
    "dict_unsorted": spaces.Dict(
        {"z": spaces.Discrete(3), "a": spaces.MultiBinary(2)}, sort_keys=False
    ),
    "sequence": spaces.Sequence(spaces.Discrete(4), stack=True),
    "graph": spaces.Graph(spaces.Box(0.0, 1.0, (2,)), spaces.Discrete(3)),
    "oneof": spaces.OneOf([spaces.Discrete(2), spaces.Box(-1.0, 1.0, (2,))]),
    "nested": spaces.Dict(
        {"inner": spaces.Tuple([spaces.Dict({"x": spaces.Discrete(2)}), spaces.Text(3)])}
    ),
}


@pytest.mark.parametrize("name", sorted(SPACES))
def test_converted_space_is_a_gymnasium_space_of_the_same_kind(name):
    converted = to_gymnasium_space(SPACES[name])

    assert isinstance(converted, gymnasium.spaces.Space)
    assert type(converted).__name__ == type(SPACES[name]).__name__
    assert repr(converted) == repr(SPACES[name])


@pytest.mark.parametrize("name", sorted(SPACES))
def test_round_trip_gives_an_equal_palaestra_space(name):
    back = from_gymnasium_space(to_gymnasium_space(SPACES[name]))

    assert isinstance(back, spaces.Space)
    assert back == SPACES[name]


@pytest.mark.parametrize("name", sorted(SPACES))
def test_seeded_twins_sample_the_same_values(name):
    space = SPACES[name]
    space.seed(7)
    expected = [space.sample() for _ in range(3)]
    space.seed(7)
    twin = to_gymnasium_space(space)
    twin.seed(7)

    samples = [twin.sample() for _ in range(3)]

    assert [repr(s) for s in samples] == [repr(e) for e in expected]


def test_converted_space_shares_the_original_generator():
    space = spaces.Discrete(1000, seed=3)
    twin = to_gymnasium_space(space)
    reference = spaces.Discrete(1000, seed=3)

    drawn = [twin.sample(), space.sample(), twin.sample()]

    assert drawn == [reference.sample() for _ in range(3)]


def test_samples_of_the_twin_belong_to_the_original():
    space = SPACES["nested"]
    twin = to_gymnasium_space(space)
    twin.seed(0)

    assert all(space.contains(twin.sample()) for _ in range(5))


def test_dict_key_order_is_kept():
    twin = to_gymnasium_space(SPACES["dict_unsorted"])

    assert list(twin.spaces) == ["z", "a"]


def test_unconvertible_space_names_itself_and_the_supported_kinds():
    class Custom(spaces.Space):
        pass

    with pytest.raises(TypeError, match=r"Cannot convert the space .*Custom.* only Box, Discrete"):
        to_gymnasium_space(Custom())


def test_a_non_space_is_rejected_with_its_type():
    with pytest.raises(TypeError, match=r"Expected a palaestra space, got 3 of type <class 'int'>"):
        to_gymnasium_space(3)
    with pytest.raises(TypeError, match=r"Expected a Gymnasium space, got .*Discrete"):
        from_gymnasium_space(spaces.Discrete(2))
