"""make_vec: vectorization modes, arguments, errors and rebuildable specs."""

from __future__ import annotations

import numpy as np
import pytest

import palaestra
from palaestra import VectorizeMode
from palaestra.error import Error
from palaestra.vector import AsyncVectorEnv, SyncVectorEnv, VectorEnv
from tests.vector.helpers import PalaestraInfoEnv

NATIVE_ID = "VectorTests/Native-v0"
PLAIN_ID = "VectorTests/Plain-v0"


class NativeVectorEnv(VectorEnv):
    """A stand-in for a natively batched env built from its ``vector_entry_point``."""

    def __init__(self, num_envs: int = 1, scale: float = 1.0, render_mode=None):
        self.num_envs = num_envs
        self.scale = scale
        self.render_mode = render_mode
        self.metadata = {"autoreset_mode": palaestra.vector.AutoresetMode.NEXT_STEP}


@pytest.fixture(autouse=True)
def registered_test_ids():
    palaestra.register(NATIVE_ID, entry_point=PalaestraInfoEnv, vector_entry_point=NativeVectorEnv)
    palaestra.register(PLAIN_ID, entry_point=PalaestraInfoEnv, max_episode_steps=50)
    yield
    del palaestra.registry[NATIVE_ID]
    del palaestra.registry[PLAIN_ID]


@pytest.mark.parametrize(
    ("mode", "vector_class"),
    [("sync", SyncVectorEnv), ("async", AsyncVectorEnv), (VectorizeMode.SYNC, SyncVectorEnv)],
)
def test_mode_selects_the_vector_class(mode, vector_class):
    envs = palaestra.make_vec("CartPole-v1", num_envs=2, vectorization_mode=mode)
    assert type(envs) is vector_class
    assert repr(envs) == f"{vector_class.__name__}(CartPole-v1, num_envs=2)"
    envs.close()


def test_no_mode_picks_the_vector_entry_point_when_the_spec_has_one():
    envs = palaestra.make_vec(NATIVE_ID, num_envs=3, scale=2.0)
    assert type(envs) is NativeVectorEnv
    assert envs.num_envs == 3 and envs.scale == 2.0


def test_no_mode_without_vector_entry_point_is_sync():
    envs = palaestra.make_vec(PLAIN_ID, num_envs=2)
    assert type(envs) is SyncVectorEnv
    envs.close()


def test_unknown_mode_is_a_value_error_listing_the_valid_ones():
    with pytest.raises(ValueError) as caught:
        palaestra.make_vec("CartPole-v1", vectorization_mode="bogus")
    assert str(caught.value) == (
        "Invalid vectorization mode: 'bogus', valid modes: ['async', 'sync', "
        "'vector_entry_point'], and palaestra's ['pool', 'ray']"
    )


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"wrappers": [palaestra.wrappers.TimeAwareObservation]}, "wrappers"),
        ({"vector_kwargs": {"copy": False}}, "vector_kwargs"),
    ],
)
def test_vector_entry_point_mode_rejects_sync_async_arguments(arguments, message):
    with pytest.raises(Error, match=message):
        palaestra.make_vec(NATIVE_ID, vectorization_mode="vector_entry_point", **arguments)


def test_vector_entry_point_mode_needs_a_vector_entry_point():
    with pytest.raises(Error, match="doesn't have a vector entry point defined"):
        palaestra.make_vec(PLAIN_ID, vectorization_mode="vector_entry_point")


def test_kwargs_vector_kwargs_and_wrappers_reach_their_targets():
    envs = palaestra.make_vec(
        PLAIN_ID,
        num_envs=2,
        vectorization_mode="async",
        vector_kwargs={"copy": False, "context": "fork"},
        wrappers=[palaestra.wrappers.TimeAwareObservation],
        episode_length=3,
    )
    assert envs.copy is False
    assert envs.get_attr("episode_length") == (3, 3)
    assert envs.call("class_name") == ("TimeAwareObservation", "TimeAwareObservation")
    envs.close()


def test_spec_records_what_rebuilds_the_vector_env():
    wrappers = [palaestra.wrappers.TimeAwareObservation]
    envs = palaestra.make_vec(
        PLAIN_ID,
        num_envs=2,
        vectorization_mode="sync",
        vector_kwargs={"copy": False},
        wrappers=wrappers,
        episode_length=3,
    )
    assert envs.spec.kwargs == {
        "episode_length": 3,
        "num_envs": 2,
        "vectorization_mode": "sync",
        "vector_kwargs": {"copy": False},
        "wrappers": wrappers,
    }
    rebuilt = palaestra.make_vec(envs.spec)
    assert type(rebuilt) is SyncVectorEnv and rebuilt.num_envs == 2 and rebuilt.copy is False
    assert rebuilt.get_attr("episode_length") == (3, 3)
    assert rebuilt.spec.kwargs == envs.spec.kwargs
    envs.close()
    rebuilt.close()


def test_module_prefixed_ids_import_the_module_first():
    envs = palaestra.make_vec(
        "tests.vector.helpers:CartPole-v1", num_envs=2, vectorization_mode="sync"
    )
    assert envs.num_envs == 2
    envs.close()


def test_matches_gymnasium_spec_kwargs_and_first_observations():
    gymnasium = pytest.importorskip("gymnasium")
    ours = palaestra.make_vec("CartPole-v1", num_envs=3, vectorization_mode="sync")
    theirs = gymnasium.make_vec("CartPole-v1", num_envs=3, vectorization_mode="sync")
    assert ours.spec.kwargs == theirs.spec.kwargs
    np.testing.assert_array_equal(ours.reset(seed=9)[0], theirs.reset(seed=9)[0])
    ours.close()
    theirs.close()
