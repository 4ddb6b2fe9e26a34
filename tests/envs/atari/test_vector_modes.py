"""Vectors of the single Atari envs (``sync``, ``pool``) equal Gymnasium's sync vector of ale-py's.

There is no natively batched Atari env yet: ``make_vec`` builds a sync vector by default.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import palaestra
from tests.envs.atari.conftest import assert_same


@pytest.mark.parametrize("mode", ["sync", "pool"])
def test_a_vector_of_two_matches_gymnasiums_sync_vector_of_ale_py(mode):
    ours = palaestra.make_vec("ALE/Breakout-v5", 2, vectorization_mode=mode)
    theirs = gymnasium.make_vec("ALE/Breakout-v5", 2, vectorization_mode="sync")
    try:
        assert_same(ours.reset(seed=4), theirs.reset(seed=4))
        rng = np.random.default_rng(4)
        for _ in range(40):
            actions = rng.integers(4, size=2)
            assert_same(ours.step(actions), theirs.step(actions))
    finally:
        ours.close()
        theirs.close()
