"""A tiny environment that fails on purpose, for the pool's fault tests."""

from __future__ import annotations

import os
import signal
import time
from typing import Any

import numpy as np

from palaestra import Env, spaces


class FaultyEnv(Env):
    """Counts steps; at step ``fail_at`` it raises, hangs or kills its own process.

    With ``armed`` set, it fails only while that file exists, so a restarted worker runs
    cleanly once the test removes the file.
    """

    metadata = {"render_modes": []}

    def __init__(self, how: str = "raise", fail_at: int = 2, armed: str | None = None):
        self.how, self.fail_at, self.armed = how, fail_at, armed
        self.observation_space = spaces.Box(0, 1000, (1,), np.float32)
        self.action_space = spaces.Discrete(2)
        self.count = 0

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> Any:
        super().reset(seed=seed)
        self.count = 0
        return np.zeros(1, np.float32), {}

    def step(self, action: Any) -> Any:
        self.count += 1
        if self.count == self.fail_at and (self.armed is None or os.path.exists(self.armed)):
            if self.how == "raise":
                raise ValueError("boom at step 2")
            if self.how == "hang":
                time.sleep(60)
            if self.how == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
        return np.full(1, self.count, np.float32), 1.0, False, False, {}


class DictObservationEnv(FaultyEnv):
    """A FaultyEnv whose observations are dicts, which a shared block cannot hold."""

    def __init__(self):
        super().__init__()
        self.observation_space = spaces.Dict({"count": spaces.Box(0, 1000, (1,), np.float32)})
