"""Helpers shared by the functional-API tests."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from palaestra.envs.classic_control import (
    AcrobotEnv,
    CartPoleEnv,
    Continuous_MountainCarEnv,
    MountainCarEnv,
    PendulumEnv,
)
from palaestra.envs.phys2d import (
    AcrobotFunctional,
    CartPoleFunctional,
    ContinuousMountainCarFunctional,
    MountainCarFunctional,
    PendulumFunctional,
)
from palaestra.envs.tabular import (
    BlackjackFunctional,
    CliffWalkingFunctional,
    FrozenLakeFunctional,
    TaxiFunctional,
)
from palaestra.envs.toy_text import BlackjackEnv, CliffWalkingEnv, FrozenLakeEnv, TaxiEnv

# (functional class, its env class, the env's kwargs)
PAIRS = [
    (CartPoleFunctional, CartPoleEnv, {}),
    (PendulumFunctional, PendulumEnv, {}),
    (MountainCarFunctional, MountainCarEnv, {}),
    (ContinuousMountainCarFunctional, Continuous_MountainCarEnv, {}),
    (AcrobotFunctional, AcrobotEnv, {}),
    (FrozenLakeFunctional, FrozenLakeEnv, {}),
    (FrozenLakeFunctional, FrozenLakeEnv, {"map_name": "8x8", "success_rate": 0.6}),
    (CliffWalkingFunctional, CliffWalkingEnv, {"is_slippery": True}),
    (TaxiFunctional, TaxiEnv, {"is_rainy": True}),
    (BlackjackFunctional, BlackjackEnv, {"sab": True}),
    (BlackjackFunctional, BlackjackEnv, {"sab": False, "natural": True}),
]
PAIR_IDS = [f"{func.__name__}-{kwargs}" for func, _, kwargs in PAIRS]


def functional_options(func_class, kwargs):
    """The options that make ``func_class`` the numpy twin of its env with ``kwargs``."""
    if func_class is BlackjackFunctional:
        return {"backend": "numpy", **kwargs}
    if kwargs:
        return {"backend": "numpy", "env_kwargs": kwargs}
    return {"backend": "numpy"}


def random_action(space, rng):
    """One action of ``space`` from ``rng`` (continuous ones past the bounds too)."""
    if hasattr(space, "n"):
        return int(rng.integers(space.n))
    return rng.uniform(space.low * 1.5, space.high * 1.5).astype(space.dtype)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        yield


@pytest.fixture
def jax():
    """jax, or a skip when the ``jax`` extra is not installed."""
    return pytest.importorskip("jax")


def as_float32(state):
    return np.asarray(state, dtype=np.float32)
