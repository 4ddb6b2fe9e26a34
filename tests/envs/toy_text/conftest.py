"""Fixtures and helpers shared by the toy-text tests."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

# Every registered toy-text id with the option sets its trajectories are checked under.
VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("FrozenLake-v1", {}),
    ("FrozenLake-v1", {"is_slippery": False}),
    ("FrozenLake-v1", {"success_rate": 0.75, "reward_schedule": (5, -1, 0.5)}),
    ("FrozenLake-v1", {"desc": ["SFFHF", "FHFFF", "FFFHF", "HFFFF", "FFHFG"]}),
    ("FrozenLake-v1", {"map_name": "8x8", "is_slippery": True, "success_rate": 0.9}),
    ("FrozenLake8x8-v1", {}),
    ("CliffWalking-v1", {}),
    ("CliffWalkingSlippery-v1", {}),
    ("Taxi-v4", {}),
    ("Taxi-v4", {"is_rainy": True}),
    ("Taxi-v4", {"fickle_passenger": True, "fickle_probability": 0.9}),
    ("Taxi-v4", {"is_rainy": True, "fickle_passenger": True, "rainy_probability": 0.6}),
    ("Blackjack-v1", {}),
    ("Blackjack-v1", {"natural": True, "sab": False}),
    ("Blackjack-v1", {"natural": False, "sab": False}),
    ("Blackjack-v1", {"natural": True, "sab": True}),
]
VARIANT_IDS = [
    f"{env_id}-{'-'.join(f'{k}={v}' for k, v in kwargs.items()) or 'default'}"
    for env_id, kwargs in VARIANTS
]

ENV_IDS = [
    "FrozenLake-v1",
    "FrozenLake8x8-v1",
    "CliffWalking-v1",
    "CliffWalkingSlippery-v1",
    "Taxi-v4",
    "Blackjack-v1",
]
# id -> (rgb frame shape, render modes)
FRAMES = {
    "FrozenLake-v1": ((256, 256, 3), ["human", "ansi", "rgb_array"]),
    "FrozenLake8x8-v1": ((512, 512, 3), ["human", "ansi", "rgb_array"]),
    "CliffWalking-v1": ((256, 768, 3), ["human", "rgb_array", "ansi"]),
    "CliffWalkingSlippery-v1": ((256, 768, 3), ["human", "rgb_array", "ansi"]),
    "Taxi-v4": ((456, 536, 3), ["human", "ansi", "rgb_array"]),
    "Blackjack-v1": ((376, 384, 3), ["human", "rgb_array"]),
}


def assert_same_value(ours: Any, theirs: Any, context: str = "") -> None:
    """Equal values of the same types, recursively (dicts, tuples, arrays with dtypes)."""
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and ours.keys() == theirs.keys(), context
        for key in theirs:
            assert_same_value(ours[key], theirs[key], f"{context}/{key}")
    elif isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs), context
        for mine, other in zip(ours, theirs, strict=True):
            assert_same_value(mine, other, context)
    elif isinstance(theirs, np.ndarray):
        assert isinstance(ours, np.ndarray), context
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, context
        if theirs.dtype == object:
            for mine, other in zip(ours, theirs, strict=True):
                assert_same_value(mine, other, context)
        else:
            np.testing.assert_array_equal(ours, theirs, err_msg=context)
    else:
        assert type(ours) is type(theirs), f"{context}: {type(ours)} vs {type(theirs)}"
        assert ours == theirs, f"{context}: {ours!r} vs {theirs!r}"


@pytest.fixture
def gymnasium():
    """The reference implementation, or a skip when it is not installed."""
    return pytest.importorskip("gymnasium")


@pytest.fixture(autouse=True)
def _headless(monkeypatch):
    """Render without a display, and close any pygame window a test opened."""
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        yield
    try:
        import pygame
    except ImportError:
        return
    if pygame.display.get_init():
        pygame.display.quit()
