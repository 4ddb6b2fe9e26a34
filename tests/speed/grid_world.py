"""A grid world shaped like the one in Gymnasium's environment-creation tutorial.

Written here from the tutorial's description: an agent and a target on a ``size`` x
``size`` grid; observations are a ``Dict`` of two integer ``Box`` positions, actions a
``Discrete(4)`` of moves; reward 1 and termination on reaching the target.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra import Env, spaces

_MOVES = np.array([[1, 0], [0, 1], [-1, 0], [0, -1]])


class GridWorldEnv(Env):
    """Walk the agent to the target on a square grid."""

    metadata = {"render_modes": [], "render_fps": 4}

    def __init__(self, size: int = 5):
        self.size = size
        position = spaces.Box(0, size - 1, shape=(2,), dtype=np.int64)
        self.observation_space = spaces.Dict({"agent": position, "target": position})
        self.action_space = spaces.Discrete(4)
        self.agent = np.zeros(2, dtype=np.int64)
        self.target = np.zeros(2, dtype=np.int64)

    def _observation(self) -> dict[str, np.ndarray]:
        return {"agent": self.agent.copy(), "target": self.target.copy()}

    def _info(self) -> dict[str, Any]:
        return {"distance": int(np.abs(self.agent - self.target).sum())}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> Any:
        super().reset(seed=seed)
        self.agent = self.np_random.integers(0, self.size, size=2, dtype=np.int64)
        self.target = self.agent
        while np.array_equal(self.target, self.agent):
            self.target = self.np_random.integers(0, self.size, size=2, dtype=np.int64)
        return self._observation(), self._info()

    def step(self, action: Any) -> Any:
        self.agent = np.clip(self.agent + _MOVES[int(action)], 0, self.size - 1)
        terminated = bool(np.array_equal(self.agent, self.target))
        return self._observation(), float(terminated), terminated, False, self._info()
