"""The shortcuts that keep one environment's step cheap give the general paths' results."""

from __future__ import annotations

import numpy as np
import pytest

from palaestra.envs.classic_control.dynamics._arrays import components
from palaestra.spaces import Discrete

CANDIDATES = [
    True,
    np.True_,
    0,
    2,
    3,
    -1,
    127,
    128,
    2**63 - 1,
    2**63,
    2**70,
    np.int64(1),
    np.int64(5),
    np.int32(1),
    np.int8(-128),
    np.int8(127),
    np.uint64(1),
    np.array(1),
    np.array([1]),
    1.0,
]
SPACES = [
    {"n": 3},
    {"n": 3, "start": -2},
    {"n": 100, "start": 50, "dtype": np.int8},
    {"n": np.int64(2**62), "start": 2**62},
]


@pytest.mark.parametrize("space_kwargs", SPACES)
def test_discrete_contains_agrees_with_gymnasium_for_every_kind_of_value(gymnasium, space_kwargs):
    ours, theirs = Discrete(**space_kwargs), gymnasium.spaces.Discrete(**space_kwargs)
    verdicts = [ours.contains(x) for x in CANDIDATES]
    assert verdicts == [theirs.contains(x) for x in CANDIDATES]
    assert {type(verdict) for verdict in verdicts} == {bool}


def test_discrete_contains_follows_a_replaced_n():
    space = Discrete(3)
    assert not space.contains(4)
    space.n = np.int64(5)
    assert space.contains(4)


def test_discrete_contains_follows_a_replaced_start():
    space = Discrete(3)
    assert space.contains(np.int64(0))
    space.start = np.int64(1)
    assert not space.contains(np.int64(0))


def test_components_of_one_float64_state_are_python_floats():
    assert components(np.array([0.5, -1.0])) == [0.5, -1.0]
    assert {type(value) for value in components(np.array([0.5, -1.0]))} == {float}


def test_components_of_one_float32_state_keep_their_dtype():
    values = components(np.array([0.5, -1.0], dtype=np.float32))
    assert [type(value) for value in values] == [np.float32, np.float32]


def test_components_of_a_batch_are_its_columns():
    batch = np.arange(6.0).reshape(3, 2)
    first, second = components(batch)
    assert first.tolist() == [0.0, 2.0, 4.0]
    assert second.tolist() == [1.0, 3.0, 5.0]
