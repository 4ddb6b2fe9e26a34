"""``make_vec(...).spec`` is Gymnasium's, field for field, for the modes both libraries have.

The one documented difference: palaestra registers a natively batched ``vector_entry_point``
for every classic-control id (SPEC section 7), where Gymnasium has one for CartPole only, so
that field names palaestra's class where Gymnasium's is ``None``.
"""

from __future__ import annotations

import dataclasses
import warnings

import pytest

import palaestra

gymnasium = pytest.importorskip("gymnasium")

IDS = ["CartPole-v1", "Pendulum-v1", "Acrobot-v1", "MountainCar-v0", "MountainCarContinuous-v0"]


def spec_fields(gym, env_id: str, mode: str) -> dict:
    """The vector env's spec as a dict, with the library's own module prefix made neutral."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # async workers on a forked JAX-importing process
        envs = gym.make_vec(env_id, num_envs=2, vectorization_mode=mode)
    fields = dataclasses.asdict(envs.spec)
    envs.close()
    for name in ("entry_point", "vector_entry_point"):
        if isinstance(fields[name], str):
            fields[name] = fields[name].replace(f"{gym.__name__}.", "LIBRARY.", 1)
    return fields


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_vector_spec_is_gymnasiums_but_for_palaestras_native_entry_point(env_id, mode):
    ours, theirs = spec_fields(palaestra, env_id, mode), spec_fields(gymnasium, env_id, mode)
    if theirs["vector_entry_point"] is None:
        assert ours.pop("vector_entry_point").startswith("LIBRARY.envs.classic_control.")
        theirs.pop("vector_entry_point")
    assert ours == theirs


def test_cartpoles_native_spec_is_gymnasiums():
    ours = spec_fields(palaestra, "CartPole-v1", "vector_entry_point")
    theirs = spec_fields(gymnasium, "CartPole-v1", "vector_entry_point")
    # The module differs (palaestra's class lives in its own vector package), not the class.
    for fields in (ours, theirs):
        fields["vector_entry_point"] = fields["vector_entry_point"].rsplit(":", 1)[1]
    assert ours == theirs
