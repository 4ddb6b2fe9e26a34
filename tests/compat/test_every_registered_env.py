"""Every registered palaestra id, through the adapters: the checkers pass, round trips hold.

The ids are read from the registry when the tests are collected, so environments that land
later are covered without editing this file; ids whose optional dependency is missing are
skipped with the reason (``pytest -rs`` lists them). JAX environments (``metadata["jax"]``)
go behind :class:`~palaestra.wrappers.JaxToNumpy` first, as an SB3 user would put them: SB3
and Gymnasium's checker want numpy arrays.
"""

from __future__ import annotations

import warnings

import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from palaestra.compat import from_gymnasium, to_gymnasium
from tests.compat.conftest import assert_same_episodes, make_or_skip, registered_ids


def numpy_env(env_id: str):
    """Make ``env_id`` (or skip); a JAX env is wrapped to take and give numpy arrays."""
    env = make_or_skip(env_id)
    if env.metadata.get("jax", False):
        from palaestra.wrappers import JaxToNumpy

        env = JaxToNumpy(env)
    return env


STEPS = 120


@pytest.fixture(autouse=True)
def _quiet_checker_warnings():
    # The checkers warn about legitimate choices (infinite bounds, float64 boxes); the
    # tests are about errors.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.mark.parametrize("env_id", registered_ids())
def test_sb3_check_env_passes_through_to_gymnasium(env_id):
    env = to_gymnasium(numpy_env(env_id))

    sb3_check_env(env, warn=False)
    env.close()


@pytest.mark.parametrize("env_id", registered_ids())
def test_gymnasium_check_env_passes_through_to_gymnasium(env_id):
    env = to_gymnasium(numpy_env(env_id))

    gymnasium_check_env(env, skip_render_check=True)
    env.close()


@pytest.mark.parametrize("env_id", registered_ids())
def test_round_trip_behaves_as_the_env(env_id):
    env = make_or_skip(env_id)
    round_trip = from_gymnasium(to_gymnasium(make_or_skip(env_id)))
    env.action_space.seed(4)
    actions = [env.action_space.sample() for _ in range(STEPS)]

    assert round_trip.observation_space == env.observation_space
    assert round_trip.action_space == env.action_space
    assert_same_episodes(round_trip, env, actions, seed=9)
    env.close()
    round_trip.close()
