"""Side-by-side runs of palaestra's Atari envs against ale-py's own (the oracle).

The root ``conftest.py`` leaves these tests out when ale-py is not installed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ale_py
import gymnasium
import numpy as np
import pytest

import palaestra

gymnasium.register_envs(ale_py)

# What a test's actions are drawn from: the env (for its action space) and a generator.
Policy = Callable[[Any, np.random.Generator], Any]


def random_actions(env: Any, rng: np.random.Generator) -> Any:
    """A uniform action of ``env``'s space (``[radius, theta, fire]`` for continuous envs)."""
    space = env.action_space
    if hasattr(space, "n"):
        return int(rng.integers(space.n))
    return rng.uniform(space.low, space.high).astype(np.float32)


def assert_same(ours: Any, theirs: Any) -> None:
    """Equal values of the same types, all the way down dicts and tuples (arrays bit for bit)."""
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and ours.keys() == theirs.keys(), (ours, theirs)
        for key in theirs:
            assert_same(ours[key], theirs[key])
    elif isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs), (ours, theirs)
        for mine, reference in zip(ours, theirs):
            assert_same(mine, reference)
    else:
        assert type(ours) is type(theirs), (type(ours), type(theirs))
        if isinstance(theirs, np.ndarray):
            assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        np.testing.assert_array_equal(ours, theirs)


def run_side_by_side(
    ours: Any, theirs: Any, seed: int, steps: int, policy: Policy = random_actions
) -> int:
    """Reset both envs with ``seed``, step them with the same actions, assert every result equal.

    Ended episodes are reset without a seed on both sides, so the generators must stay in
    step across episodes. Returns how many episodes were played.
    """
    rng = np.random.default_rng(seed)
    assert_same(ours.reset(seed=seed), theirs.reset(seed=seed))
    episodes = 1
    for _ in range(steps):
        action = policy(theirs, rng)
        outcome = theirs.step(action)
        assert_same(ours.step(action), outcome)
        if outcome[2] or outcome[3]:
            assert_same(ours.reset(), theirs.reset())
            episodes += 1
    return episodes


def compare_ids(env_id: str, seed: int, steps: int, **kwargs: Any) -> int:
    """Make ``env_id`` with ``kwargs`` in palaestra and in ale-py and run them side by side."""
    ours, theirs = palaestra.make(env_id, **kwargs), gymnasium.make(env_id, **kwargs)
    try:
        return run_side_by_side(ours, theirs, seed, steps)
    finally:
        ours.close()
        theirs.close()


@pytest.fixture
def make_pair() -> Any:
    """Make ``(ours, theirs)`` by id; every env made is closed when the test ends."""
    made: list[Any] = []

    def make(env_id: str, **kwargs: Any) -> tuple[Any, Any]:
        pair = palaestra.make(env_id, **kwargs), gymnasium.make(env_id, **kwargs)
        made.extend(pair)
        return pair

    yield make
    for env in made:
        env.close()
