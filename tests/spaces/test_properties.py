"""Properties every space must have, checked on generated (nested) spaces of every kind.

Each property runs once per outermost space kind, so no kind can go untested however
Hypothesis happens to draw.
"""

from __future__ import annotations

import copy
import json
import pickle

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from palaestra.spaces import (
    flatdim,
    flatten,
    flatten_space,
    unflatten,
)
from tests.spaces.helpers import assert_samples_equal
from tests.spaces.strategies import (
    FLATTENABLE_KINDS,
    SPACE_KINDS,
    masks_for,
    probabilities_for,
    respects_mask,
    respects_probability,
    seeds,
    space_test_settings,
    spaces_of_kind,
    supports_flatten,
)

property_settings = space_test_settings(max_examples=12)
every_kind = pytest.mark.parametrize("kind", SPACE_KINDS)


@every_kind
@property_settings
@given(data=st.data(), seed=seeds())
def test_samples_are_contained(kind, data, seed):
    space = data.draw(spaces_of_kind(kind))
    space.seed(seed)
    for _ in range(3):
        assert space.sample() in space


@every_kind
@property_settings
@given(data=st.data(), seed=seeds())
def test_masked_samples_are_contained_and_never_use_masked_out_values(kind, data, seed):
    space = data.draw(spaces_of_kind(kind))
    mask = data.draw(masks_for(space))
    space.seed(seed)
    for _ in range(3):
        sample = space.sample(mask=mask)
        assert sample in space
        assert respects_mask(space, mask, sample)


@every_kind
@property_settings
@given(data=st.data(), seed=seeds())
def test_probability_samples_never_use_zero_probability_values(kind, data, seed):
    space = data.draw(spaces_of_kind(kind))
    probability = data.draw(probabilities_for(space))
    space.seed(seed)
    for _ in range(3):
        sample = space.sample(probability=probability)
        assert sample in space
        assert respects_probability(space, probability, sample)


@every_kind
@property_settings
@given(data=st.data(), seed=seeds())
def test_same_seed_gives_same_samples(kind, data, seed):
    space = data.draw(spaces_of_kind(kind))
    twin = copy.deepcopy(space)
    assert space.seed(seed) == twin.seed(seed)
    for _ in range(3):
        assert_samples_equal(space.sample(), twin.sample())


@every_kind
@property_settings
@given(data=st.data(), seed=seeds())
def test_flatten_then_unflatten_returns_the_sample(kind, data, seed):
    space = data.draw(spaces_of_kind(kind))
    assume(supports_flatten(space))
    space.seed(seed)
    sample = space.sample()
    assert_samples_equal(unflatten(space, flatten(space, sample)), sample)


@pytest.mark.parametrize("kind", FLATTENABLE_KINDS)
@property_settings
@given(data=st.data(), seed=seeds())
def test_flattened_sample_has_flatdim_entries_and_lies_in_flatten_space(kind, data, seed):
    space = data.draw(spaces_of_kind(kind))
    space.seed(seed)
    flat = flatten(space, space.sample())
    flat_space = flatten_space(space)
    assert flat.shape == (flatdim(space),) == flat_space.shape
    assert flat in flat_space


@every_kind
@property_settings
@given(data=st.data(), seed=seeds())
def test_jsonable_round_trip_survives_json(kind, data, seed):
    space = data.draw(spaces_of_kind(kind))
    space.seed(seed)
    samples = [space.sample() for _ in range(2)]
    encoded = json.loads(json.dumps(space.to_jsonable(samples)))
    for restored, original in zip(space.from_jsonable(encoded), samples):
        assert_samples_equal(restored, original)


@every_kind
@property_settings
@given(data=st.data(), seed=seeds())
def test_pickled_space_is_equal_and_continues_the_same_stream(kind, data, seed):
    space = data.draw(spaces_of_kind(kind))
    space.seed(seed)
    space.sample()
    restored = pickle.loads(pickle.dumps(space))
    assert restored == space
    assert repr(restored) == repr(space)
    for _ in range(2):
        assert_samples_equal(restored.sample(), space.sample())


@every_kind
@property_settings
@given(data=st.data())
def test_space_equals_its_deep_copy(kind, data):
    space = data.draw(spaces_of_kind(kind))
    assert copy.deepcopy(space) == space
