"""OneOf's JSON conversion of options that nest a Tuple or Dict inside a Tuple or Dict."""

from __future__ import annotations

import json

import numpy as np

from palaestra.spaces import Dict, Discrete, OneOf, Tuple


def round_trip(space, samples):
    return space.from_jsonable(json.loads(json.dumps(space.to_jsonable(samples))))


def test_flat_tuple_option_round_trips_through_json():
    space = OneOf((Tuple((Discrete(2), Discrete(3))),))
    sample = (np.int64(0), (np.int64(1), np.int64(2)))
    assert space.to_jsonable([sample]) == [[0, [1, 2]]]
    assert round_trip(space, [sample]) == [sample]


def test_tuple_option_holding_a_tuple_round_trips_through_json():
    space = OneOf((Tuple((Tuple((Discrete(2), Discrete(3))),)),))
    sample = (np.int64(0), ((np.int64(1), np.int64(2)),))
    assert round_trip(space, [sample]) == [sample]


def test_dict_option_holding_a_dict_round_trips_through_json():
    space = OneOf((Dict({"a": Dict({"b": Discrete(3)})}),))
    sample = (np.int64(0), {"a": {"b": np.int64(2)}})
    assert round_trip(space, [sample]) == [sample]
