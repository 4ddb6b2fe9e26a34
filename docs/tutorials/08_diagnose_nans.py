"""Diagnosing NaNs with the diagnostics tools.

A NaN that enters training silently ruins it: the loss turns NaN a few updates later and the
policy never recovers. palaestra stops at the first bad value and names it:

- `DiagnosticsWrapper(env)` checks every observation, action and reward of a single or vector
  env (finite, inside its space) without training, and with `step_timeout=` turns a `step`
  that never returns into an error. `on_problem="warn"` warns once per kind of problem instead.
- Training checks non-finite rewards, losses and gradients always (`check_finite=True`, the
  default) and raises `NonFiniteError` naming the env step and the likely fix;
  `palaestra train ENV --diagnostics` adds the wrapper's checks.

Here an env whose reward divides by a quantity that reaches zero is caught three ways.
"""

import warnings

import numpy as np

import palaestra as gym
from palaestra.train import (
    PPO,
    DiagnosticsError,
    DiagnosticsWarning,
    DiagnosticsWrapper,
    NonFiniteError,
)


class DivideByDistance(gym.Wrapper):
    """CartPole with a reward of 1 / cart position: infinite when the cart is at 0."""

    def step(self, action):
        """Step CartPole and replace its reward."""
        observation, _, terminated, truncated, info = self.env.step(action)
        with np.errstate(divide="ignore", invalid="ignore"):
            reward = float(np.float32(1.0) / np.float32(round(float(observation[0]), 2)))
        return observation, reward, terminated, truncated, info


gym.register(
    id="DivideByDistance-v0", entry_point=lambda: DivideByDistance(gym.make("CartPole-v1"))
)

# 1. The wrapper alone: it raises at the first bad value, naming it and the step.
env = DiagnosticsWrapper(gym.make("DivideByDistance-v0"))
env.reset(seed=0)
try:
    for _ in range(500):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            env.reset()
except DiagnosticsError as error:
    print("DiagnosticsWrapper:", str(error).splitlines()[0])
else:
    raise AssertionError("the infinite reward went unnoticed")

# 2. Warn instead of raising, and keep going (here on a batch of 4 sub-envs).
envs = DiagnosticsWrapper(
    gym.make_vec("DivideByDistance-v0", 4, vectorization_mode="sync"), on_problem="warn"
)
envs.reset(seed=0)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for _ in range(200):
        envs.step(envs.action_space.sample())
ours = [w for w in caught if issubclass(w.category, DiagnosticsWarning)]
print(f"on_problem='warn': {len(ours)} warning(s), e.g. {str(ours[0].message).splitlines()[0]}")
envs.close()

# 3. Training: check_finite stops PPO at the step where the infinite reward appears.
try:
    PPO("MlpPolicy", "DivideByDistance-v0", num_envs=2, n_steps=64, seed=0).learn(
        4096, progress_bar=False
    )
except NonFiniteError as error:
    lines = str(error).splitlines()
    print("PPO:", lines[0])
    print(lines[1])  # the likely fix
else:
    raise AssertionError("training went on with an infinite reward")
