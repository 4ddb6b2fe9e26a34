"""Side-by-side comparison of palaestra and Gymnasium: rollouts, spaces, errors, small envs.

Shared by the wrapper tests (single-env and vector). Everything here takes the two libraries
as modules, so one helper serves both sides of a comparison.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import palaestra

AUTORESET_MODES = ("NEXT_STEP", "SAME_STEP", "DISABLED")


def gymnasium_module() -> ModuleType:
    """Gymnasium, or skip the test when the reference oracle is not installed."""
    return pytest.importorskip("gymnasium", reason="Gymnasium is the reference oracle")


def assert_same(ours: Any, theirs: Any, path: str = "value", ignore: Iterable[str] = ()) -> None:
    """Assert two nested values are identical: same container types, keys, dtypes and bits."""
    ignore = set(ignore)
    if isinstance(theirs, dict):
        assert isinstance(ours, dict), f"{path}: {type(ours)} is not a dict"
        assert list(ours) == list(theirs), f"{path}: keys {list(ours)} != {list(theirs)}"
        for key in theirs:
            if key not in ignore:
                assert_same(ours[key], theirs[key], f"{path}[{key!r}]", ignore)
    elif isinstance(theirs, (tuple, list)):
        assert type(ours).__name__ == type(theirs).__name__, f"{path}: {type(ours)}"
        assert len(ours) == len(theirs), f"{path}: length {len(ours)} != {len(theirs)}"
        for index, (mine, reference) in enumerate(zip(ours, theirs)):
            assert_same(mine, reference, f"{path}[{index}]", ignore)
    elif isinstance(theirs, np.ndarray):
        assert isinstance(ours, np.ndarray), f"{path}: {type(ours)} is not an ndarray"
        assert ours.dtype == theirs.dtype, f"{path}: dtype {ours.dtype} != {theirs.dtype}"
        assert ours.shape == theirs.shape, f"{path}: shape {ours.shape} != {theirs.shape}"
        if theirs.dtype == object:
            for index in np.ndindex(theirs.shape):
                assert_same(ours[index], theirs[index], f"{path}{list(index)}", ignore)
        else:
            assert np.array_equal(ours, theirs, equal_nan=theirs.dtype.kind in "fc"), (
                f"{path}: {ours} != {theirs}"
            )
    else:
        assert type(ours).__name__ == type(theirs).__name__, (
            f"{path}: type {type(ours)} != {type(theirs)}"
        )
        assert ours == theirs or (ours != ours and theirs != theirs), f"{path}: {ours} != {theirs}"


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


def sample_actions(space: Any, count: int, seed: int = 7) -> list[Any]:
    """``count`` actions drawn from a seeded copy of a palaestra ``space``."""
    space = copy.deepcopy(space)
    space.seed(seed)
    return [space.sample() for _ in range(count)]


def rollout(env: Any, actions: Iterable[Any], seed: int = 42) -> list[Any]:
    """Reset with ``seed``, apply ``actions``, resetting after each episode; return everything."""
    trace: list[Any] = [env.reset(seed=seed)]
    for action in actions:
        step = env.step(copy.deepcopy(action))
        trace.append(step)
        if step[2] or step[3]:
            trace.append(env.reset())
    return trace


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
