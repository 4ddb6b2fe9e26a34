"""Synthetic environments that burn CPU per step, registered in palaestra and Gymnasium.

``BusyEnv-v0`` burns 1 ms of CPU per step; ``JitteryEnv-v0`` burns a uniform 0.2-2 ms. They measure
how well a vectorization mode spreads CPU-bound steps over cores. Importing this module (or
using ids ``benchmarks.busy_env:BusyEnv-v0``) registers both with both libraries.

Example:
    >>> import palaestra
    >>> env = palaestra.make("BusyEnv-v0", step_seconds=0.0)
    >>> env.reset(seed=0)[0].tolist()
    [0.0]
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

import palaestra
from palaestra import spaces


def burn(seconds: float) -> None:
    """Keep the CPU busy until this thread has used ``seconds`` of CPU time.

    CPU time, not wall time: a burner that loses its core to another process keeps
    burning until it has done its share of work, so the step costs the same CPU however
    the cores are shared, and the two-core bound (at most 2x one core's rate) is real.
    """
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


class _Busy:
    """The shared logic: count steps, burn CPU, never end (the time limit truncates)."""

    def _setup(self, step_seconds: float, jitter: tuple[float, float] | None) -> None:
        self.step_seconds = step_seconds
        self.jitter = jitter
        self.count = 0

    def _observation(self) -> np.ndarray:
        return np.array([self.count], dtype=np.float32)

    def _reset(self) -> tuple[np.ndarray, dict]:
        self.count = 0
        return self._observation(), {}

    def _step(self, rng: np.random.Generator) -> tuple:
        low_high = self.jitter
        burn(self.step_seconds if low_high is None else rng.uniform(*low_high))
        self.count += 1
        return self._observation(), 1.0, False, False, {}


class BusyEnv(_Busy, palaestra.Env):
    """palaestra version: ``step_seconds`` of CPU per step, or a uniform draw from ``jitter``.

    Args:
        step_seconds: CPU seconds per step.
        jitter: ``(low, high)`` seconds; overrides ``step_seconds`` when given.
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, step_seconds: float = 1e-3, jitter: tuple[float, float] | None = None):
        self._setup(step_seconds, jitter)
        self.observation_space = spaces.Box(0, np.inf, (1,), np.float32)
        self.action_space = spaces.Discrete(2)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> Any:
        """Start counting from zero."""
        super().reset(seed=seed)
        return self._reset()

    def step(self, action: Any) -> Any:
        """Burn the step's CPU time and count it."""
        return self._step(self.np_random)


def _register_gymnasium() -> None:
    try:
        import gymnasium
    except ImportError:
        return

    class GymnasiumBusyEnv(_Busy, gymnasium.Env):
        metadata: dict[str, Any] = {"render_modes": []}

        def __init__(self, step_seconds: float = 1e-3, jitter: Any = None):
            self._setup(step_seconds, jitter)
            self.observation_space = gymnasium.spaces.Box(0, np.inf, (1,), np.float32)
            self.action_space = gymnasium.spaces.Discrete(2)

        def reset(self, *, seed: int | None = None, options: dict | None = None) -> Any:
            super().reset(seed=seed)
            return self._reset()

        def step(self, action: Any) -> Any:
            return self._step(self.np_random)

    for env_id, kwargs in _IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                env_id, GymnasiumBusyEnv, max_episode_steps=10_000, kwargs=dict(kwargs)
            )


_IDS = {"BusyEnv-v0": {"step_seconds": 1e-3}, "JitteryEnv-v0": {"jitter": (2e-4, 2e-3)}}
for _id, _kwargs in _IDS.items():
    if _id not in palaestra.registry:
        palaestra.register(_id, BusyEnv, max_episode_steps=10_000, kwargs=dict(_kwargs))
_register_gymnasium()
