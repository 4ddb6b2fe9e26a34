"""OneOf's JSON conversion of options that nest a Tuple or Dict inside a Tuple or Dict."""

from __future__ import annotations

import json

import numpy as np
import pytest

from palaestra.spaces import Dict, Discrete, OneOf, Tuple

NESTED_COMPOSITE_BUG = (
    "OneOf.to_jsonable keeps only the first column of a nested Tuple/Dict option "
    "(_element_to_jsonable takes column[0]), so it raises IndexError/KeyError"
)


def round_trip(space, samples):
    return space.from_jsonable(json.loads(json.dumps(space.to_jsonable(samples))))


def test_flat_tuple_option_round_trips_through_json():
    space = OneOf((Tuple((Discrete(2), Discrete(3))),))
    sample = (np.int64(0), (np.int64(1), np.int64(2)))
    assert space.to_jsonable([sample]) == [[0, [1, 2]]]
    assert round_trip(space, [sample]) == [sample]


@pytest.mark.xfail(strict=True, raises=IndexError, reason=NESTED_COMPOSITE_BUG)
def test_tuple_option_holding_a_tuple_round_trips_through_json():
    space = OneOf((Tuple((Tuple((Discrete(2), Discrete(3))),)),))
    sample = (np.int64(0), ((np.int64(1), np.int64(2)),))
    assert round_trip(space, [sample]) == [sample]


@pytest.mark.xfail(strict=True, raises=KeyError, reason=NESTED_COMPOSITE_BUG)
def test_dict_option_holding_a_dict_round_trips_through_json():
    space = OneOf((Dict({"a": Dict({"b": Discrete(3)})}),))
    sample = (np.int64(0), {"a": {"b": np.int64(2)}})
    assert round_trip(space, [sample]) == [sample]
