"""Property tests of the wrapper helpers: running moments, box rescaling, area resizing."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from palaestra import spaces
from palaestra.wrappers.utils import AreaResizer, RunningMeanStd, rescale_box

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
batches = st.lists(
    hnp.arrays(np.float64, st.tuples(st.integers(1, 6), st.just(2)), elements=finite),
    min_size=1,
    max_size=4,
)


@settings(max_examples=40, deadline=None)
@given(batches)
def test_running_moments_equal_the_moments_of_all_batches_together(batch_list):
    rms = RunningMeanStd(epsilon=1e-12, shape=(2,))
    for batch in batch_list:
        rms.update(batch)
    everything = np.concatenate(batch_list)
    np.testing.assert_allclose(rms.mean, everything.mean(axis=0), rtol=1e-7, atol=1e-6)
    np.testing.assert_allclose(rms.var, everything.var(axis=0), rtol=1e-6, atol=1e-4)
    assert rms.count == pytest.approx(len(everything))


bounds = st.tuples(finite, st.floats(1e-2, 1e3)).map(lambda pair: (pair[0], pair[0] + pair[1]))


@settings(max_examples=40, deadline=None)
@given(bounds, bounds, st.floats(0, 1))
def test_rescaling_maps_bounds_onto_bounds_and_inverts(old, new, fraction):
    box = spaces.Box(old[0], old[1], (1,), np.float64)
    new_box, forward, backward = rescale_box(box, new[0], new[1])
    np.testing.assert_allclose(forward(box.low), new_box.low, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(forward(box.high), new_box.high, rtol=1e-9, atol=1e-6)
    value = box.low + fraction * (box.high - box.low)
    np.testing.assert_allclose(backward(forward(value)), value, rtol=1e-9, atol=1e-6)


images = st.tuples(st.integers(1, 12), st.integers(1, 12), st.integers(1, 12), st.integers(1, 12))


@settings(max_examples=40, deadline=None)
@given(images, st.integers(0, 2**32 - 1))
def test_resized_pixels_stay_within_the_input_range(sizes, seed):
    in_h, in_w, out_h, out_w = sizes
    image = np.random.default_rng(seed).integers(0, 256, (in_h, in_w, 3), dtype=np.uint8)
    resized = AreaResizer((in_h, in_w), (out_h, out_w))(image)
    assert resized.shape == (out_h, out_w, 3)
    assert image.min() <= resized.min()
    assert resized.max() <= image.max()


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_integer_shrink_rounds_each_block_mean_half_up(block_h, block_w, out, seed):
    image = np.random.default_rng(seed).integers(0, 256, (out * block_h, out * block_w))
    image = image.astype(np.uint8)
    resized = AreaResizer(image.shape, (out, out))(image)
    means = image.reshape(out, block_h, out, block_w).mean(axis=(1, 3))
    assert np.array_equal(resized, np.floor(means + 0.5).astype(np.uint8))
