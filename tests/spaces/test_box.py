"""Box: construction rules, bound validation, sampling regimes and membership."""

from __future__ import annotations

import pickle
import re

import numpy as np
import pytest

from palaestra import error
from palaestra.spaces import Box


@pytest.mark.parametrize(
    ("box", "expected"),
    [
        (Box(-1.0, 1.0, (3,)), "Box(-1.0, 1.0, (3,), float32)"),
        (Box(0, 255, (2, 2), dtype=np.uint8), "Box(0, 255, (2, 2), uint8)"),
        (
            Box(np.array([0.0, -1.0]), np.array([1.0, 1.0]), dtype=np.float64),
            "Box([ 0. -1.], 1.0, (2,), float64)",
        ),
        (Box(-np.inf, np.inf, (1,)), "Box(-inf, inf, (1,), float32)"),
    ],
)
def test_repr_shows_constant_bounds_as_one_value(box, expected):
    assert repr(box) == expected


def test_scalar_bounds_without_shape_give_shape_one():
    assert Box(0.0, 1.0).shape == (1,)


def test_shape_is_taken_from_array_bounds():
    assert Box(np.zeros((2, 3), np.float32), 1.0).shape == (2, 3)


def test_scalar_bounds_are_broadcast_to_the_shape():
    box = Box(-2, 3, (2,), dtype=np.int64)
    np.testing.assert_array_equal(box.low, [-2, -2])
    np.testing.assert_array_equal(box.high, [3, 3])


def test_missing_dtype_is_rejected():
    with pytest.raises(ValueError, match="Box dtype must be explicitly provided"):
        Box(0, 1, dtype=None)


def test_non_numeric_dtype_is_rejected():
    with pytest.raises(ValueError, match=re.escape("Invalid Box dtype (<U1)")):
        Box(0, 1, dtype="U1")


def test_non_iterable_shape_is_rejected():
    with pytest.raises(TypeError, match="Expected Box shape to be an iterable"):
        Box(0, 1, shape=3)


def test_non_integer_shape_entries_are_rejected():
    with pytest.raises(TypeError, match="Expected all Box shape elements to be integer"):
        Box(0, 1, shape=(2.0,))


def test_bounds_without_shape_must_be_numbers_or_arrays():
    with pytest.raises(ValueError, match="Box shape is not specified"):
        Box([0, 0], [1, 1])


def test_array_bounds_of_different_shapes_are_rejected():
    with pytest.raises(ValueError, match=re.escape("low.shape=(2,), high.shape=(3,)")):
        Box(np.zeros(2), np.ones(3))


def test_bound_not_matching_the_given_shape_is_rejected():
    with pytest.raises(ValueError, match=re.escape("low.shape=(2,), shape=(3,)")):
        Box(np.zeros(2, np.float32), 1.0, shape=(3,))


def test_low_above_high_is_rejected_naming_both_bounds():
    with pytest.raises(ValueError, match=re.escape("low=[0. 2.], high=[1. 1.]")):
        Box(np.array([0.0, 2.0]), np.array([1.0, 1.0]), dtype=np.float64)


@pytest.mark.parametrize(
    ("low", "high", "which"),
    [(np.nan, 1.0, "low"), (0.0, np.nan, "high"), (np.array([0.0, np.nan]), 1.0, "low")],
)
def test_nan_bounds_are_rejected(low, high, which):
    with pytest.raises(ValueError, match=f"No {which} value can be equal to `np.nan`"):
        Box(low, high, shape=(2,))


@pytest.mark.parametrize(
    ("low", "high", "message"),
    [
        (-1, 1, "Box low is out of bounds of the dtype range, low=-1, min dtype=0"),
        (0, 256, "Box high is out of bounds of the dtype range, high=256, max dtype=255"),
        (np.array([-1, 0]), 1, "Box low is out of bounds of the dtype range, low=[-1  0]"),
    ],
)
def test_bounds_outside_the_dtype_range_are_rejected(low, high, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        Box(low, high, shape=(2,), dtype=np.uint8)


@pytest.mark.parametrize(("low", "high"), [(-np.inf, 1), (0, np.inf)])
def test_unsigned_boxes_reject_infinite_bounds(low, high):
    with pytest.raises(ValueError, match="Box unsigned int dtype don't support"):
        Box(low, high, shape=(1,), dtype=np.uint8)


@pytest.mark.parametrize("dtype", [np.int8, np.int64])
def test_signed_integer_boxes_replace_infinity_by_the_dtype_extremes(dtype):
    box = Box(np.array([-np.inf, 0.0]), np.array([np.inf, 5.0]), dtype=dtype)
    info = np.iinfo(dtype)
    np.testing.assert_array_equal(box.low, [info.min, 0])
    np.testing.assert_array_equal(box.high, [info.max, 5])
    np.testing.assert_array_equal(box.bounded_below, [False, True])
    np.testing.assert_array_equal(box.bounded_above, [False, True])


def test_casting_float64_bounds_to_float32_warns_about_precision():
    with pytest.warns(UserWarning, match="Box low's precision lowered by casting to float32"):
        Box(np.zeros(2, dtype=np.float64), np.ones(2, dtype=np.float32))


def test_bounds_are_copied_not_aliased():
    low = np.array([-np.inf, 0.0])
    Box(low, 1.0, dtype=np.int32)
    assert np.isneginf(low[0])


@pytest.mark.parametrize(
    ("low", "high", "below", "above", "both"),
    [
        (0.0, 1.0, True, True, True),
        (0.0, np.inf, True, False, False),
        (-np.inf, 0.0, False, True, False),
        (-np.inf, np.inf, False, False, False),
    ],
)
def test_is_bounded_reports_each_manner(low, high, below, above, both):
    box = Box(low, high, (2,))
    assert (box.is_bounded("below"), box.is_bounded("above"), box.is_bounded()) == (
        below,
        above,
        both,
    )


def test_is_bounded_rejects_an_unknown_manner():
    with pytest.raises(ValueError, match=re.escape("manner is not in {'below', 'above', 'both'}")):
        Box(0, 1).is_bounded("sideways")


@pytest.mark.parametrize(("argument", "value"), [("mask", np.ones(1)), ("probability", 0.5)])
def test_sample_rejects_masks_and_probabilities(argument, value):
    with pytest.raises(error.Error, match=f"Box.sample cannot be provided a {argument}"):
        Box(0, 1).sample(**{argument: value})


def test_integer_samples_reach_both_inclusive_bounds():
    box = Box(0, 1, (1000,), dtype=np.int64, seed=0)
    assert set(np.unique(box.sample()).tolist()) == {0, 1}


def test_unbounded_entries_are_standard_normal():
    samples = Box(-np.inf, np.inf, (20_000,), dtype=np.float64, seed=0).sample()
    assert abs(samples.mean()) < 0.05 and abs(samples.std() - 1) < 0.05


def test_half_bounded_entries_are_exponential_away_from_the_bound():
    below = Box(2.0, np.inf, (20_000,), dtype=np.float64, seed=0).sample()
    above = Box(-np.inf, 2.0, (20_000,), dtype=np.float64, seed=0).sample()
    assert below.min() >= 2.0 and abs(below.mean() - 3.0) < 0.05
    assert above.max() <= 2.0 and abs(above.mean() - 1.0) < 0.05


def test_samples_have_the_box_dtype_and_shape():
    sample = Box(-1, 1, (2, 3), dtype=np.int16, seed=0).sample()
    assert sample.dtype == np.int16 and sample.shape == (2, 3)


def test_contains_needs_matching_shape_and_castable_dtype():
    box = Box(0.0, 1.0, (2,))
    assert np.array([0.5, 1.0], dtype=np.float32) in box
    assert np.array([0.5], dtype=np.float32) not in box
    assert np.array([0.5, 1.0], dtype=np.float64) not in box
    assert np.array([0.5, 1.5], dtype=np.float32) not in box


def test_contains_converts_lists_with_a_warning():
    with pytest.warns(UserWarning, match="Casting input x to numpy array"):
        assert [0.5, 0.5] in Box(0.0, 1.0, (2,))


def test_boxes_with_close_bounds_are_equal():
    assert Box(0.0, 1.0, (2,)) == Box(0.0, 1.0 + 1e-9, (2,))
    assert Box(0.0, 1.0, (2,)) != Box(0.0, 1.0, (3,))
    assert Box(0.0, 1.0, (2,)) != Box(0.0, 1.0, (2,), dtype=np.float64)


def test_unpickling_a_box_without_cached_reprs_rebuilds_them():
    box = Box(0.0, 1.0, (2,))
    state = {k: v for k, v in box.__dict__.items() if k not in ("low_repr", "high_repr")}
    restored = Box.__new__(Box)
    restored.__setstate__(state)
    assert repr(restored) == "Box(0.0, 1.0, (2,), float32)"


def test_pickled_box_keeps_its_stream():
    box = Box(0.0, 1.0, (2,), seed=3)
    restored = pickle.loads(pickle.dumps(box))
    np.testing.assert_array_equal(restored.sample(), box.sample())
