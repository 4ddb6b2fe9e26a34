"""A tiny environment that fails on purpose, for the pool's fault tests."""

from __future__ import annotations

import os
import signal
import time
from typing import Any

import numpy as np

from palaestra import Env, spaces
from palaestra.vector import VectorEnv
from palaestra.vector.utils import batch_space


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


class SlowEnv(FaultyEnv):
    """A FaultyEnv that never fails and takes ``delay`` seconds per step."""

    def __init__(self, delay: float = 0.4):
        super().__init__(fail_at=-1)
        self.delay = delay

    def step(self, action: Any) -> Any:
        time.sleep(self.delay)
        return super().step(action)


class ResetFailsEnv(FaultyEnv):
    """A FaultyEnv (killed at step 2) whose ``reset`` raises while the file ``broken`` exists."""

    def __init__(self, broken: str, armed: str | None = None):
        super().__init__(how="kill", armed=armed)
        self.broken = broken

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> Any:
        if os.path.exists(self.broken):
            raise RuntimeError("reset failed on purpose")
        return super().reset(seed=seed, options=options)


class InitFailsEnv(FaultyEnv):
    """A FaultyEnv whose constructor raises."""

    def __init__(self):
        raise TypeError("bad constructor argument")


class WideActionEnv(FaultyEnv):
    """A FaultyEnv with a ``Discrete(5)`` action space, to mix among ``Discrete(2)`` ones."""

    def __init__(self):
        super().__init__()
        self.action_space = spaces.Discrete(5)


class TextObservationEnv(FaultyEnv):
    """A FaultyEnv observing ``{"count": Box, "label": Text}``: the label has no fixed shape."""

    def __init__(self):
        super().__init__(fail_at=-1)
        self.observation_space = spaces.Dict(
            {"count": spaces.Box(0, 1000, (1,), np.float32), "label": spaces.Text(8)}
        )

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> Any:
        observation, info = super().reset(seed=seed, options=options)
        return {"count": observation, "label": "start"}, info

    def step(self, action: Any) -> Any:
        observation, reward, terminated, _, info = super().step(action)
        label = f"n{self.count}a{int(action)}"
        return {"count": observation, "label": label}, reward, terminated, self.count >= 5, info


class CountingVectorEnv(VectorEnv):
    """A user's natively batched env without ``call``/``get_attr``/``set_attr``.

    Each sub-env counts its steps; ``speed`` is one attribute shared by all of them.
    """

    metadata = {"render_modes": [], "autoreset_mode": None}

    def __init__(self, num_envs: int):
        from palaestra.vector import AutoresetMode

        self.num_envs = num_envs
        self.metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}
        self.single_observation_space = spaces.Box(0, 1000, (1,), np.float32)
        self.single_action_space = spaces.Discrete(2)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.speed = 1
        self.counts = np.zeros((num_envs, 1), np.float32)

    def reset(self, *, seed: Any = None, options: dict | None = None) -> Any:
        self.counts[:] = 0
        return self.counts.copy(), {}

    def step(self, actions: Any) -> Any:
        self.counts += self.speed
        zeros = np.zeros(self.num_envs, dtype=np.bool_)
        return self.counts.copy(), np.ones(self.num_envs), zeros, zeros.copy(), {}
