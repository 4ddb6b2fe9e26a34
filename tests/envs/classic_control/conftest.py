"""Fixtures shared by the classic-control tests."""

from __future__ import annotations

import numpy as np
import pytest

ENV_IDS = [
    "CartPole-v0",
    "CartPole-v1",
    "MountainCar-v0",
    "MountainCarContinuous-v0",
    "Pendulum-v1",
    "Acrobot-v1",
]
RENDERED_IDS = [
    "CartPole-v1",
    "MountainCar-v0",
    "MountainCarContinuous-v0",
    "Pendulum-v1",
    "Acrobot-v1",
]
FRAME_SHAPES = {
    "CartPole-v1": (400, 600, 3),
    "MountainCar-v0": (400, 600, 3),
    "MountainCarContinuous-v0": (400, 600, 3),
    "Pendulum-v1": (500, 500, 3),
    "Acrobot-v1": (500, 500, 3),
}


def random_actions(action_space, seed: int, count: int, overshoot: float = 1.0) -> list:
    """A reproducible action sequence for ``action_space``, drawn from its own generator.

    Continuous actions are scaled by ``overshoot``, so values past the bounds (which the
    environments clip) are exercised too.
    """
    rng = np.random.default_rng(seed)
    if hasattr(action_space, "n"):
        return [int(a) for a in rng.integers(action_space.n, size=count)]
    low, high = action_space.low * overshoot, action_space.high * overshoot
    draws = rng.uniform(low, high, size=(count, *action_space.shape))
    return list(draws.astype(action_space.dtype))


@pytest.fixture
def gymnasium():
    """The reference implementation, or a skip when it is not installed."""
    return pytest.importorskip("gymnasium")


@pytest.fixture(autouse=True)
def _quiet_pygame_window():
    """Close any pygame display a test opened, so windows never leak between tests."""
    yield
    try:
        import pygame
    except ImportError:
        return
    if pygame.display.get_init():
        pygame.display.quit()
