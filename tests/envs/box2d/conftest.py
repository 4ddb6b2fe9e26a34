"""Fixtures and helpers shared by the Box2D tests: side-by-side runs against Gymnasium.

The root ``conftest.py`` leaves these tests out when Box2D is not installed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import palaestra

BOX2D_IDS = [
    "LunarLander-v3",
    "LunarLanderContinuous-v3",
    "BipedalWalker-v3",
    "BipedalWalkerHardcore-v3",
    "CarRacing-v3",
]

Policy = Callable[[Any, Any, np.random.Generator], Any]


def random_policy(overshoot: float = 1.0) -> Policy:
    """Uniform actions from the policy's own generator; ``overshoot`` widens a Box's bounds."""

    def act(env: Any, observation: Any, rng: np.random.Generator) -> Any:
        space = env.action_space
        if hasattr(space, "n"):
            return int(rng.integers(space.n))
        draw = rng.uniform(space.low * overshoot, space.high * overshoot)
        return draw.astype(space.dtype)

    return act


def driving_policy(continuous: bool = True) -> Policy:
    """CarRacing actions that mostly accelerate, so the car travels over tiles and grass."""

    def act(env: Any, observation: Any, rng: np.random.Generator) -> Any:
        if not continuous:
            return int(rng.choice(5, p=[0.1, 0.2, 0.2, 0.4, 0.1]))
        brake = rng.uniform(0.0, 0.3) if rng.random() < 0.8 else 1.0
        return np.array([rng.uniform(-1, 1), rng.uniform(0.3, 1.0), brake], dtype=np.float32)

    return act


def run_side_by_side(
    gymnasium: Any,
    env_id: str,
    seed: int,
    steps: int,
    policy: Policy,
    kwargs: dict[str, Any] | None = None,
    on_step: Callable[[Any, Any, int], None] | None = None,
) -> int:
    """Step palaestra's and Gymnasium's ``env_id`` with the same actions; assert equality.

    Observations must be equal element for element, rewards, flags and infos equal; ended
    episodes are reset without a seed on both sides (so the generators must stay in step).
    ``on_step(ours, theirs, t)`` may compare more (frames). Returns the number of episodes.
    """
    kwargs = kwargs or {}
    ours = palaestra.make(env_id, **kwargs)
    theirs = gymnasium.make(env_id, **kwargs)
    rng = np.random.default_rng(seed)
    observation, info = ours.reset(seed=seed)
    expected, expected_info = theirs.reset(seed=seed)
    np.testing.assert_array_equal(observation, expected)
    assert info == expected_info
    episodes = 1
    for t in range(steps):
        action = policy(theirs, expected, rng)
        observation, reward, terminated, truncated, info = ours.step(action)
        expected, expected_reward, expected_terminated, expected_truncated, expected_info = (
            theirs.step(action)
        )
        np.testing.assert_array_equal(observation, expected, err_msg=f"step {t}")
        assert observation.dtype == expected.dtype
        assert reward == expected_reward, f"step {t}"
        assert (terminated, truncated) == (expected_terminated, expected_truncated), f"step {t}"
        assert info == expected_info, f"step {t}"
        if on_step is not None:
            on_step(ours, theirs, t)
        if terminated or truncated:
            observation, info = ours.reset()
            expected, expected_info = theirs.reset()
            np.testing.assert_array_equal(observation, expected)
            episodes += 1
    ours.close()
    theirs.close()
    return episodes


@pytest.fixture
def gymnasium():
    """The reference implementation with its Box2D environments, or a skip."""
    module = pytest.importorskip("gymnasium")
    pytest.importorskip("gymnasium.envs.box2d")
    return module


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
