"""Writing a custom environment and checking it.

An environment is a subclass of `palaestra.Env` with an `observation_space`, an
`action_space`, `reset(seed=..., options=...)` and `step(action)`. This one is a corridor: the
agent starts in cell 0 and walks left or right; reaching the last cell ends the episode with
reward 1, every other step costs 0.01.

`palaestra.utils.env_checker.check_env` checks it the way Gymnasium's checker does (spaces,
seeding determinism, return types), `register` gives it an id, and `make` wraps it with the
time limit and the passive checker like any built-in env.
"""

import numpy as np

import palaestra as gym
from palaestra import spaces
from palaestra.utils.env_checker import check_env


class Corridor(gym.Env):
    """Walk right to the end of a corridor of ``length`` cells."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, length=8, render_mode=None):
        self.length = length
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, 1.0, shape=(1,), dtype=np.float32)
        self.action_space = spaces.Discrete(2)  # 0 left, 1 right
        self.position = 0

    def _observation(self):
        return np.array([self.position / (self.length - 1)], dtype=np.float32)

    def reset(self, *, seed=None, options=None):
        """Start in a random cell of the left half."""
        super().reset(seed=seed)  # seeds self.np_random
        self.position = int(self.np_random.integers(0, self.length // 2))
        return self._observation(), {}

    def step(self, action):
        """Move one cell; the last cell ends the episode."""
        move = 1 if action == 1 else -1
        self.position = int(np.clip(self.position + move, 0, self.length - 1))
        terminated = self.position == self.length - 1
        reward = 1.0 if terminated else -0.01
        return self._observation(), reward, terminated, False, {}

    def render(self):
        """Draw the corridor as text, ``A`` for the agent."""
        if self.render_mode == "ansi":
            return "".join("A" if i == self.position else "." for i in range(self.length))
        return None


check_env(Corridor())  # raises (or warns) on anything Gymnasium's API does not allow

gym.register(id="Corridor-v0", entry_point=Corridor, max_episode_steps=50)
env = gym.make("Corridor-v0", length=6, render_mode="ansi")
observation, info = env.reset(seed=0)
print("start:", env.render())

total, steps = 0.0, 0
terminated = truncated = False
while not (terminated or truncated):
    observation, reward, terminated, truncated, info = env.step(1)  # always right
    total, steps = total + reward, steps + 1
print(f"reached the end after {steps} steps, return {total:.2f}:", env.render())
assert terminated and not truncated
print(env.spec.max_episode_steps, env.spec.kwargs)  # 50 {'length': 6, 'render_mode': 'ansi'}
env.close()
