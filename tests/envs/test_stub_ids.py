"""Moved suites keep their ids, and ``make`` fails on them as Gymnasium's does."""

import warnings

import gymnasium
import pytest

import palaestra
from palaestra.envs._stub_ids import MUJOCO_PY_IDS, SHIMMY_IDS


def test_the_stub_ids_are_exactly_gymnasiums():
    reference = {
        env_id
        for env_id, spec in gymnasium.registry.items()
        if callable(spec.entry_point) and spec.entry_point.__name__.startswith("_raise_")
    }
    assert set(MUJOCO_PY_IDS + SHIMMY_IDS) == reference


@pytest.mark.parametrize("env_id", MUJOCO_PY_IDS + SHIMMY_IDS)
def test_make_raises_gymnasiums_import_error(env_id):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ImportError) as expected:
            gymnasium.make(env_id)
        with pytest.raises(ImportError) as got:
            palaestra.make(env_id)
    assert str(expected.value) in str(got.value)
    assert type(got.value) is type(expected.value)
