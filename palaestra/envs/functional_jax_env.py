"""Environments and vector environments that run a jax ``FuncEnv``.

jax (the ``jax`` extra) is imported when one is made, not when this module is imported.
Randomness comes from a jax PRNG key, split at every call: ``reset(seed=s)`` restarts the key
from ``s``, so the same seed gives the same trajectory (jax's, not numpy's).

Example:
    >>> import palaestra as gym
    >>> env = gym.make("phys2d/CartPole-v1")
    >>> observation, info = env.reset(seed=0)
    >>> observation.shape
    (4,)
"""

from __future__ import annotations

from typing import Any, Generic

import numpy as np

from palaestra.core import Env
from palaestra.experimental._array_namespace import import_jax
from palaestra.experimental.functional import ActType, FuncEnv, ObsType, StateType
from palaestra.utils import seeding
from palaestra.vector.utils import batch_space
from palaestra.vector.vector_env import AutoresetMode, VectorEnv

__all__ = ["FunctionalJaxEnv", "FunctionalJaxVectorEnv"]


def _fresh_key(jax: Any) -> Any:
    """Return a PRNG key from OS entropy (through numpy's seeding, as an unseeded env)."""
    np_random, _ = seeding.np_random()
    return jax.random.PRNGKey(np_random.integers(0, 2**32 - 1, dtype="uint32"))


class FunctionalJaxEnv(Env, Generic[StateType]):
    """An :class:`~palaestra.Env` that steps a jax ``FuncEnv``, keeping its state and key.

    Args:
        func_env: the functional environment (typically transformed with ``jax.jit``).
        metadata: the env's metadata (default ``{"render_mode": [], "jax": True}``).
        render_mode: ``None`` or ``"rgb_array"``.
        spec: the env's spec, if any.

    Raises:
        palaestra.error.DependencyNotInstalled: if jax is not installed.

    Example:
        >>> from palaestra.envs.phys2d.cartpole import CartPoleFunctional
        >>> env = FunctionalJaxEnv(CartPoleFunctional())
        >>> _ = env.reset(seed=1)
        >>> env.step(1)[1:4]
        (1.0, False, False)
    """

    state: StateType
    rng: Any

    def __init__(
        self,
        func_env: FuncEnv,
        metadata: dict[str, Any] | None = None,
        render_mode: str | None = None,
        spec: Any = None,
    ):
        self._jax = import_jax()
        if metadata is None:
            metadata = {"render_mode": [], "jax": True}
        self.func_env = func_env
        self.observation_space = func_env.observation_space
        self.action_space = func_env.action_space
        self.metadata = metadata
        self.render_mode = render_mode
        self.spec = spec
        self.render_state = self.func_env.render_init() if render_mode == "rgb_array" else None
        self.rng = _fresh_key(self._jax)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        """Draw an initial state with a fresh split of the key (restarted from ``seed``)."""
        super().reset(seed=seed)
        random = self._jax.random
        if seed is not None:
            self.rng = random.PRNGKey(seed)
        rng, self.rng = random.split(self.rng)
        self.state = self.func_env.initial(rng=rng)
        return self.func_env.observation(self.state, rng), self.func_env.state_info(self.state)

    def step(self, action: ActType) -> tuple[Any, float, bool, bool, dict]:
        """Apply ``action``; the reward is a Python float, the flags Python bools."""
        rng, self.rng = self._jax.random.split(self.rng)
        next_state = self.func_env.transition(self.state, action, rng)
        observation = self.func_env.observation(next_state, rng)
        reward = self.func_env.reward(self.state, action, next_state, rng)
        terminated = self.func_env.terminal(next_state, rng)
        info = self.func_env.transition_info(self.state, action, next_state)
        self.state = next_state
        return observation, float(reward), bool(terminated), False, info

    def render(self) -> np.ndarray:
        """Return an RGB frame of the state (``render_mode="rgb_array"`` only).

        Raises:
            NotImplementedError: for any other render mode.
        """
        if self.render_mode == "rgb_array":
            self.render_state, image = self.func_env.render_image(self.state, self.render_state)
            return image
        raise NotImplementedError

    def close(self) -> None:
        """Release the render state, if any."""
        if self.render_state is not None:
            self.func_env.render_close(self.render_state)
            self.render_state = None


class FunctionalJaxVectorEnv(VectorEnv, Generic[ObsType, ActType, StateType]):
    """``num_envs`` copies of a jax ``FuncEnv`` stepped with ``jax.vmap`` (NEXT_STEP autoreset).

    Args:
        func_env: the functional environment; its functions are replaced by their vmaps.
        num_envs: the number of sub-environments.
        max_episode_steps: truncate after this many steps (0: never).
        metadata: the metadata (default ``{"autoreset_mode": AutoresetMode.NEXT_STEP}``).
        render_mode: ``None`` or ``"rgb_array"``.
        spec: the spec, if any.

    Raises:
        palaestra.error.DependencyNotInstalled: if jax is not installed.

    Example:
        >>> from palaestra.envs.phys2d.cartpole import CartPoleFunctional
        >>> envs = FunctionalJaxVectorEnv(CartPoleFunctional(), num_envs=3, max_episode_steps=10)
        >>> observations, _ = envs.reset(seed=0)
        >>> observations.shape
        (3, 4)
    """

    state: StateType
    rng: Any

    def __init__(
        self,
        func_env: FuncEnv,
        num_envs: int,
        max_episode_steps: int = 0,
        metadata: dict[str, Any] | None = None,
        render_mode: str | None = None,
        spec: Any = None,
    ):
        jax = self._jax = import_jax()
        import jax.numpy as jnp

        self._jnp = jnp
        if metadata is None:
            metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}
        self.func_env = func_env
        self.num_envs = num_envs
        self.single_observation_space = func_env.observation_space
        self.single_action_space = func_env.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.metadata = metadata
        self.render_mode = render_mode
        self.spec = spec
        self.time_limit = max_episode_steps
        self.steps = jnp.zeros(num_envs, dtype=jnp.int32)
        self.prev_done = jnp.zeros(num_envs, dtype=jnp.bool_)
        self.render_state = self.func_env.render_init() if render_mode == "rgb_array" else None
        self.rng = _fresh_key(jax)
        self.func_env.transform(jax.vmap)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        """Draw initial states for every sub-env from a split of the key."""
        super().reset(seed=seed)
        random = self._jax.random
        if seed is not None:
            self.rng = random.PRNGKey(seed)
        rng, self.rng = random.split(self.rng)
        keys = random.split(rng, self.num_envs)
        self.state = self.func_env.initial(rng=keys)
        observation = self.func_env.observation(self.state, keys)
        info = self.func_env.state_info(self.state)
        self.steps = self._jnp.zeros(self.num_envs, dtype=self._jnp.int32)
        return observation, info

    def step(self, action: ActType) -> tuple[Any, Any, Any, Any, dict]:
        """Step every sub-env; those that ended on the previous step are reset instead."""
        jnp, random = self._jnp, self._jax.random
        self.steps += 1
        rng, self.rng = random.split(self.rng)
        keys = random.split(rng, self.num_envs)
        next_state = self.func_env.transition(self.state, action, keys)
        reward = self.func_env.reward(self.state, action, next_state, keys)
        terminated = self.func_env.terminal(next_state, keys)
        if self.time_limit > 0:
            truncated = self.steps >= self.time_limit
        else:
            truncated = jnp.zeros_like(terminated)
        info = self.func_env.transition_info(self.state, action, next_state)
        if jnp.any(self.prev_done):
            to_reset = jnp.where(self.prev_done)[0]
            rng, self.rng = random.split(self.rng)
            new_initials = self.func_env.initial(random.split(rng, to_reset.shape[0]))
            next_state = self.state.at[to_reset].set(new_initials)
            self.steps = self.steps.at[to_reset].set(0)
            terminated = terminated.at[to_reset].set(False)
            truncated = truncated.at[to_reset].set(False)
        self.prev_done = jnp.logical_or(terminated, truncated)
        observation = self.func_env.observation(next_state, random.split(self.rng, self.num_envs))
        self.state = next_state
        return observation, reward, terminated, truncated, info

    def render(self) -> Any:
        """Return the frames of the state (``render_mode="rgb_array"`` only).

        Raises:
            NotImplementedError: for any other render mode.
        """
        if self.render_mode == "rgb_array":
            self.render_state, image = self.func_env.render_image(self.state, self.render_state)
            return image
        raise NotImplementedError

    def close(self, **kwargs: Any) -> None:
        """Release the render state, if any."""
        if self.render_state is not None:
            self.func_env.render_close(self.render_state)
            self.render_state = None
