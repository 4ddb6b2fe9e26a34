"""Properties every space must have, checked on generated (nested) spaces."""

from __future__ import annotations

import copy
import json
import pickle

from hypothesis import assume, given
from hypothesis import strategies as st

from palaestra.spaces import flatdim, flatten, flatten_space, unflatten
from tests.spaces.helpers import assert_samples_equal
from tests.spaces.strategies import (
    flattenable_spaces,
    masks_for,
    probabilities_for,
    respects_mask,
    respects_probability,
    seeds,
    space_test_settings,
    spaces,
    supports_flatten,
)

property_settings = space_test_settings()


@property_settings
@given(spaces(), seeds())
def test_samples_are_contained(space, seed):
    space.seed(seed)
    for _ in range(3):
        assert space.sample() in space


@property_settings
@given(st.data(), seeds())
def test_masked_samples_are_contained_and_never_use_masked_out_values(data, seed):
    space = data.draw(spaces())
    mask = data.draw(masks_for(space))
    space.seed(seed)
    for _ in range(3):
        sample = space.sample(mask=mask)
        assert sample in space
        assert respects_mask(space, mask, sample)


@property_settings
@given(st.data(), seeds())
def test_probability_samples_never_use_zero_probability_values(data, seed):
    space = data.draw(spaces())
    probability = data.draw(probabilities_for(space))
    space.seed(seed)
    for _ in range(3):
        sample = space.sample(probability=probability)
        assert sample in space
        assert respects_probability(space, probability, sample)


@property_settings
@given(spaces(), seeds())
def test_same_seed_gives_same_samples(space, seed):
    twin = copy.deepcopy(space)
    assert space.seed(seed) == twin.seed(seed)
    for _ in range(3):
        assert_samples_equal(space.sample(), twin.sample())


@property_settings
@given(spaces(), seeds())
def test_flatten_then_unflatten_returns_the_sample(space, seed):
    assume(supports_flatten(space))
    space.seed(seed)
    sample = space.sample()
    assert_samples_equal(unflatten(space, flatten(space, sample)), sample)


@property_settings
@given(flattenable_spaces(), seeds())
def test_flattened_sample_has_flatdim_entries_and_lies_in_flatten_space(space, seed):
    space.seed(seed)
    flat = flatten(space, space.sample())
    flat_space = flatten_space(space)
    assert flat.shape == (flatdim(space),) == flat_space.shape
    assert flat in flat_space


@property_settings
@given(spaces(), seeds())
def test_jsonable_round_trip_survives_json(space, seed):
    space.seed(seed)
    samples = [space.sample() for _ in range(2)]
    encoded = json.loads(json.dumps(space.to_jsonable(samples)))
    for restored, original in zip(space.from_jsonable(encoded), samples):
        assert_samples_equal(restored, original)


@property_settings
@given(spaces(), seeds())
def test_pickled_space_is_equal_and_continues_the_same_stream(space, seed):
    space.seed(seed)
    space.sample()
    restored = pickle.loads(pickle.dumps(space))
    assert restored == space
    assert repr(restored) == repr(space)
    for _ in range(2):
        assert_samples_equal(restored.sample(), space.sample())


@property_settings
@given(spaces())
def test_space_equals_its_deep_copy(space):
    assert copy.deepcopy(space) == space
