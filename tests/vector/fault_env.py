"""An env that fails on demand, once, for the fault matrix (tests/vector/test_fault_matrix.py).

Its observation is ``[seed, steps]`` and its reward the step count, so every row of a batch
tells whose data it is and how far that sub-env got. The fault fires while the file
``armed`` exists and removes it, so a restarted worker (a new process) runs healthy.
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any

import numpy as np

import palaestra

FAULTS = ("init", "reset", "step", "sigkill", "hang", "invalid_action", "ctrl_c")


class FaultError(ValueError):
    """What the faulty sub-env raises."""


class FaultEnv(palaestra.Env):
    """A two-action env whose ``fault`` fires once (while ``armed`` exists).

    Args:
        fault: one of :data:`FAULTS`, or ``None`` for a healthy env. ``"step"``,
            ``"sigkill"`` and ``"hang"`` fire on the second step; ``"ctrl_c"`` makes every
            step slow (the test interrupts the parent meanwhile); ``"invalid_action"`` is the
            test's own doing.
        armed: the file whose existence arms the fault.
    """

    def __init__(self, fault: str | None = None, armed: str | None = None):
        self.observation_space = palaestra.spaces.Box(-1e6, 1e6, shape=(2,), dtype=np.float64)
        self.action_space = palaestra.spaces.Discrete(2)
        self.fault, self.armed = fault, armed
        self.seed_value = -1.0
        self.steps = 0
        self._fire("init")

    def _fire(self, where: str) -> bool:
        if self.fault != where or self.armed is None or not os.path.exists(self.armed):
            return False
        if where != "ctrl_c":
            os.unlink(self.armed)
        if where == "sigkill":
            os.kill(os.getpid(), signal.SIGKILL)
        if where == "hang":
            time.sleep(60)
        if where == "ctrl_c":
            time.sleep(0.5)
            return True
        raise FaultError(f"fault in {where}")

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self._fire("reset")
        self.seed_value = float(-1 if seed is None else seed)
        self.steps = 0
        return np.array([self.seed_value, 0.0]), {}

    def step(self, action: Any):
        assert self.action_space.contains(action), f"{action!r} invalid"
        if self.steps == 1:
            for where in ("step", "sigkill", "hang"):
                self._fire(where)
        self._fire("ctrl_c")
        self.steps += 1
        return np.array([self.seed_value, float(self.steps)]), float(self.steps), False, False, {}
