"""Side-by-side comparison of palaestra and Gymnasium: rollouts, spaces, errors, small envs.

Shared by the wrapper tests (single-env and vector). Everything here takes the two libraries
as modules, so one helper serves both sides of a comparison. Values are compared with the
suite's one comparator, :func:`palaestra.vector.contract.assert_same`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import palaestra
from palaestra.vector.contract import assert_same as assert_same  # the one comparator
from palaestra.vector.contract import rollout as rollout
from palaestra.vector.contract import sample_actions as sample_actions

AUTORESET_MODES = ("NEXT_STEP", "SAME_STEP", "DISABLED")


def gymnasium_module() -> ModuleType:
    """Gymnasium, or skip the test when the reference oracle is not installed."""
    return pytest.importorskip("gymnasium", reason="Gymnasium is the reference oracle")


def assert_same_space(ours: Any, theirs: Any) -> None:
    """Assert two spaces have the same kind, repr, bounds and dtype (recursively)."""
    assert type(ours).__name__ == type(theirs).__name__
    assert repr(ours) == repr(theirs)
    assert ours.shape == theirs.shape
    assert ours.dtype == theirs.dtype
    if type(theirs).__name__ == "Box":
        assert_same(ours.low, theirs.low, "low")
        assert_same(ours.high, theirs.high, "high")
    elif type(theirs).__name__ == "Dict":
        assert list(ours.spaces) == list(theirs.spaces)
        for key in theirs.spaces:
            assert_same_space(ours[key], theirs[key])
    elif type(theirs).__name__ == "Tuple":
        for mine, reference in zip(ours.spaces, theirs.spaces):
            assert_same_space(mine, reference)


def assert_same_error(build_ours: Callable[[], Any], build_theirs: Callable[[], Any]) -> None:
    """Assert both builders raise an exception of the same class name."""
    with pytest.raises(Exception) as reference:
        build_theirs()
    with pytest.raises(Exception) as mine:
        build_ours()
    assert type(mine.value).__name__ == type(reference.value).__name__, (
        f"ours raised {mine.value!r}, Gymnasium raised {reference.value!r}"
    )


def vector_rollout(
    envs: Any, actions: Iterable[Any], mode: str, seed: int = 42, reset_all: bool = False
) -> list[Any]:
    """Like :func:`rollout` for vector envs; in ``DISABLED`` mode, reset finished sub-envs.

    With ``reset_all``, every sub-env is reset (by a full mask) as soon as any one finishes.
    """
    trace: list[Any] = [envs.reset(seed=seed)]
    for action in actions:
        step = envs.step(copy.deepcopy(action))
        trace.append(step)
        dones = np.logical_or(np.asarray(step[2]), np.asarray(step[3]))
        if mode == "DISABLED" and dones.any():
            mask = np.ones_like(dones) if reset_all else dones
            trace.append(envs.reset(options={"reset_mask": mask}))
    return trace


def make_vec_pair(env_id: str, num_envs: int, mode: str, **kwargs: Any) -> tuple[Any, Any]:
    """The same sync vector env from palaestra and from Gymnasium, in autoreset ``mode``."""
    gym = gymnasium_module()
    ours = palaestra.make_vec(
        env_id,
        num_envs,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": palaestra.vector.AutoresetMode[mode]},
        **kwargs,
    )
    theirs = gym.make_vec(
        env_id,
        num_envs,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode[mode]},
        **kwargs,
    )
    return ours, theirs


def image_env_class(gym: ModuleType) -> type:
    """An env observing random ``(12, 16, 3)`` uint8 images drawn from its ``np_random``."""

    class ImageEnv(gym.Env):
        def __init__(self, episode_length: int = 4):
            self.observation_space = gym.spaces.Box(0, 255, (12, 16, 3), np.uint8)
            self.action_space = gym.spaces.Discrete(2)
            self.episode_length = episode_length
            self.steps = 0

        def _image(self) -> np.ndarray:
            return self.np_random.integers(0, 256, (12, 16, 3), dtype=np.uint8)

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            self.steps = 0
            return self._image(), {}

        def step(self, action):
            self.steps += 1
            done = self.steps >= self.episode_length
            return self._image(), float(action), done, False, {"steps": self.steps}

    return ImageEnv


def composite_env_class(gym: ModuleType, kind: str) -> type:
    """An env with ``Dict`` (``kind="dict"``) or ``Tuple`` observations from its ``np_random``."""

    class CompositeEnv(gym.Env):
        def __init__(self, episode_length: int = 5):
            parts = {
                "position": gym.spaces.Box(-1.0, 1.0, (2,)),
                "gear": gym.spaces.Discrete(3),
                "flags": gym.spaces.MultiBinary(2),
            }
            if kind == "dict":
                self.observation_space = gym.spaces.Dict(parts)
            else:
                self.observation_space = gym.spaces.Tuple(tuple(parts.values()))
            self.action_space = gym.spaces.Discrete(2)
            self.episode_length = episode_length
            self.steps = 0

        def _observation(self) -> Any:
            parts = {
                "position": self.np_random.uniform(-1, 1, 2).astype(np.float32),
                "gear": np.int64(self.np_random.integers(3)),
                "flags": self.np_random.integers(0, 2, 2).astype(np.int8),
            }
            return parts if kind == "dict" else tuple(parts.values())

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            self.steps = 0
            return self._observation(), {}

        def step(self, action):
            self.steps += 1
            done = self.steps >= self.episode_length
            return self._observation(), 1.0, done, False, {}

    return CompositeEnv
