"""Wrappers named in ``register(additional_wrappers=...)`` behave as in Gymnasium 1.4.

Gymnasium is the oracle: the same registration on both libraries gives the same wrapper
stack, the same recorded spec and the same rewards for the same seed and actions.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

import palaestra

gymnasium = pytest.importorskip("gymnasium")

TEST_ID = "AdditionalWrappersTest-v0"

WRAPPERS = [
    ("ClipReward", {"min_reward": -0.5, "max_reward": 0.5}),
    ("NormalizeReward", {"gamma": 0.9}),
    ("TransformReward", {"func": np.negative}),
]


@pytest.fixture(autouse=True)
def unregister_test_id():
    yield
    for gym in (palaestra, gymnasium):
        gym.envs.registration.registry.pop(TEST_ID, None)


def register_with(gym: ModuleType, wrapper: str, kwargs: dict) -> None:
    cartpole = f"{gym.__name__}.envs.classic_control:CartPoleEnv"
    wrapper_spec = getattr(gym.wrappers, wrapper).wrapper_spec(**kwargs)
    gym.register(TEST_ID, entry_point=cartpole, additional_wrappers=(wrapper_spec,))


def rewards_of(env, steps: int = 8) -> list[float]:
    env.reset(seed=7)
    return [float(env.step(step % 2)[1]) for step in range(steps)]


@pytest.mark.parametrize(("wrapper", "kwargs"), WRAPPERS, ids=[w for w, _ in WRAPPERS])
def test_wrapper_spec_records_the_keyword_arguments_given(wrapper, kwargs):
    ours = getattr(palaestra.wrappers, wrapper).wrapper_spec(**kwargs)
    theirs = getattr(gymnasium.wrappers, wrapper).wrapper_spec(**kwargs)
    assert (ours.name, ours.kwargs) == (theirs.name, theirs.kwargs) == (wrapper, kwargs)


@pytest.mark.parametrize(("wrapper", "kwargs"), WRAPPERS, ids=[w for w, _ in WRAPPERS])
def test_make_applies_a_registered_additional_wrapper_as_gymnasium_does(wrapper, kwargs):
    envs = []
    for gym in (palaestra, gymnasium):
        register_with(gym, wrapper, kwargs)
        envs.append(gym.make(TEST_ID))
    ours, theirs = envs
    stack = f"<{wrapper}<OrderEnforcing<PassiveEnvChecker<CartPoleEnv<{TEST_ID}>>>>>"
    assert str(ours) == str(theirs) == stack
    assert ours.spec.additional_wrappers[-1].kwargs == theirs.spec.additional_wrappers[-1].kwargs
    assert rewards_of(ours) == rewards_of(theirs)


@pytest.mark.parametrize(("wrapper", "kwargs"), WRAPPERS, ids=[w for w, _ in WRAPPERS])
def test_make_rebuilds_an_env_with_an_additional_wrapper_from_its_spec(wrapper, kwargs):
    register_with(palaestra, wrapper, kwargs)
    env = palaestra.make(TEST_ID)
    rebuilt = palaestra.make(env.spec)
    assert str(rebuilt) == str(env)
    assert rewards_of(rebuilt) == rewards_of(env)
