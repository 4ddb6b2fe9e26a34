"""Small environments the training tests learn on (written here, for the tests)."""

from __future__ import annotations

import time

import numpy as np

import palaestra as gym
from palaestra import spaces


class GridWorldEnv(gym.Env):
    """Gymnasium's GridWorld tutorial env: walk to the target on a square grid.

    Observations are ``{"agent": (x, y), "target": (x, y)}``; actions 0..3 move right, up,
    left, down (clipped at the walls); the episode terminates with reward 1 on the target.
    """

    metadata = {"render_modes": []}
    MOVES = np.array([[1, 0], [0, 1], [-1, 0], [0, -1]])

    def __init__(self, size: int = 5):
        self.size = size
        cell = spaces.Box(0, size - 1, shape=(2,), dtype=np.int64)
        self.observation_space = spaces.Dict({"agent": cell, "target": cell})
        self.action_space = spaces.Discrete(4)

    def _observation(self):
        return {"agent": self._agent.copy(), "target": self._target.copy()}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self._agent = self.np_random.integers(0, self.size, size=2)
        self._target = self._agent
        while np.array_equal(self._target, self._agent):
            self._target = self.np_random.integers(0, self.size, size=2)
        return self._observation(), {}

    def step(self, action):
        self._agent = np.clip(self._agent + self.MOVES[int(action)], 0, self.size - 1)
        terminated = bool(np.array_equal(self._agent, self._target))
        return self._observation(), float(terminated), terminated, False, {}


class DotImageEnv(gym.Env):
    """A uint8 image with one bright dot; action 1 says "the dot is on the right".

    Reward 1 for a right answer, 0 otherwise; each episode asks ``length`` questions.
    """

    metadata = {"render_modes": []}

    def __init__(self, size: int = 36, length: int = 8):
        self.size, self.length = size, length
        self.observation_space = spaces.Box(0, 255, (size, size, 1), np.uint8)
        self.action_space = spaces.Discrete(2)

    def _draw(self):
        self._right = bool(self.np_random.integers(2))
        image = np.zeros((self.size, self.size, 1), np.uint8)
        row = int(self.np_random.integers(4, self.size - 4))
        half = self.size // 2
        column = (
            int(self.np_random.integers(half + 2, self.size - 4))
            if self._right
            else int(self.np_random.integers(4, half - 2))
        )
        image[row - 2 : row + 2, column - 2 : column + 2] = 255
        return image

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self._t = 0
        return self._draw(), {}

    def step(self, action):
        reward = float(int(action) == int(self._right))
        self._t += 1
        return self._draw(), reward, self._t >= self.length, False, {}


class ActionSpaceEnv(gym.Env):
    """Random observations of ``observation_space``; reward for actions near a fixed goal.

    The reward is the share of action elements equal to 1 (discrete kinds) or
    ``-|a - 0.5|`` summed (Box); episodes last 10 steps.
    """

    metadata = {"render_modes": []}

    def __init__(self, action_space, observation_space=None):
        self.action_space = action_space
        self.observation_space = observation_space or spaces.Box(-1, 1, (3,), np.float32)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.observation_space.seed(int(self.np_random.integers(2**31)))
        self._t = 0
        return self.observation_space.sample(), {}

    def step(self, action):
        assert self.action_space.contains(action), (action, self.action_space)
        if type(self.action_space).__name__ == "Box":
            reward = -float(np.abs(np.asarray(action) - 0.5).sum())
        else:
            reward = float(np.mean(np.asarray(action) == 1))
        self._t += 1
        return self.observation_space.sample(), reward, self._t >= 10, False, {}


class NaNRewardEnv(gym.Env):
    """CartPole-like spaces whose reward turns NaN at step ``bad_step``."""

    metadata = {"render_modes": []}

    def __init__(self, bad_step: int = 12):
        self.bad_step = bad_step
        self.observation_space = spaces.Box(-1, 1, (4,), np.float32)
        self.action_space = spaces.Discrete(2)
        self.steps = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return np.zeros(4, np.float32), {}

    def step(self, action):
        self.steps += 1
        reward = float("nan") if self.steps >= self.bad_step else 1.0
        return np.zeros(4, np.float32), reward, False, self.steps % 20 == 0, {}


class NaNObservationEnv(NaNRewardEnv):
    """:class:`NaNRewardEnv` with finite rewards whose observation turns NaN instead."""

    def step(self, action):
        self.steps += 1
        observation = np.zeros(4, np.float32)
        if self.steps >= self.bad_step:
            observation[2] = np.nan
        return observation, 1.0, False, self.steps % 20 == 0, {}


class NeverEndingEnv(gym.Env):
    """Episodes that never terminate; a step past ``limit`` in one episode fails the test.

    Register it without ``max_episode_steps``: the code under test must cut its episodes.
    """

    metadata = {"render_modes": []}

    def __init__(self, limit: int = 5000):
        self.limit = limit
        self.observation_space = spaces.Box(-1, 1, (4,), np.float32)
        self.action_space = spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.zeros(4, np.float32), {}

    def step(self, action):
        self.t += 1
        assert self.t <= self.limit, "an episode that never ends was not cut"
        return np.zeros(4, np.float32), 1.0, False, False, {}


class HangsAfterEnv(gym.Env):
    """An env whose instances built after some instance has stepped block in ``step``.

    The training envs are all built before training steps; the evaluation's envs, built
    later, hang for ``hang_seconds``. Reset :attr:`stepped` before each use.
    """

    metadata = {"render_modes": []}
    stepped = False

    def __init__(self, hang_seconds: float = 30.0):
        self.hangs = HangsAfterEnv.stepped
        self.hang_seconds = hang_seconds
        self.observation_space = spaces.Box(-1, 1, (4,), np.float32)
        self.action_space = spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return np.zeros(4, np.float32), {}

    def step(self, action):
        HangsAfterEnv.stepped = True
        if self.hangs:
            time.sleep(self.hang_seconds)
        return np.zeros(4, np.float32), 1.0, False, False, {}
