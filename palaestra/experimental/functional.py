"""The functional environment API: an environment as pure functions of an explicit state.

A :class:`FuncEnv` is stateless: the caller passes the state (and a random key or generator)
to each function and keeps what comes back, which is what ``jax.jit`` and ``jax.vmap`` need.
:class:`palaestra.envs.functional_jax_env.FunctionalJaxEnv` turns one back into an
:class:`~palaestra.Env`.

Example:
    >>> import numpy as np
    >>> from palaestra import spaces
    >>> class Walk(FuncEnv):
    ...     observation_space = spaces.Box(-10, 10, (1,))
    ...     action_space = spaces.Discrete(2)
    ...     def initial(self, rng, params=None):
    ...         return np.zeros(1)
    ...     def transition(self, state, action, rng, params=None):
    ...         return state + (1 if action else -1)
    ...     def observation(self, state, rng, params=None):
    ...         return state
    ...     def reward(self, state, action, next_state, rng, params=None):
    ...         return float(next_state[0])
    ...     def terminal(self, state, rng, params=None):
    ...         return bool(abs(state[0]) >= 2)
    >>> env = Walk()
    >>> state = env.transition(env.initial(None), 1, None)
    >>> env.observation(state, None), env.terminal(state, None)
    (array([1.]), False)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

import numpy as np

from palaestra.spaces import Space

__all__ = [
    "FuncEnv",
    "StateType",
    "ActType",
    "ObsType",
    "RewardType",
    "TerminalType",
    "RenderStateType",
    "Params",
]

StateType = TypeVar("StateType")
ActType = TypeVar("ActType")
ObsType = TypeVar("ObsType")
RewardType = TypeVar("RewardType")
TerminalType = TypeVar("TerminalType")
RenderStateType = TypeVar("RenderStateType")
Params = TypeVar("Params")


class FuncEnv(
    Generic[StateType, ObsType, ActType, RewardType, TerminalType, RenderStateType, Params]
):
    """Template of a functional environment: ``initial``, ``transition``, ``observation``...

    Subclasses set ``observation_space`` and ``action_space`` and implement the functions;
    ``state_info``, ``transition_info`` and ``get_default_params`` have defaults.

    Args:
        options: attributes to set on the instance (constants the functions read).

    Example:
        >>> FuncEnv({"gravity": 3.0}).gravity
        3.0
    """

    observation_space: Space
    action_space: Space

    def __init__(self, options: dict[str, Any] | None = None):
        self.__dict__.update(options or {})
        self.default_params = self.get_default_params()

    def initial(self, rng: Any, params: Params | None = None) -> StateType:
        """Return an initial state drawn with ``rng``."""
        raise NotImplementedError

    def transition(
        self, state: StateType, action: ActType, rng: Any, params: Params | None = None
    ) -> StateType:
        """Return the state after taking ``action`` in ``state``."""
        raise NotImplementedError

    def observation(self, state: StateType, rng: Any, params: Params | None = None) -> ObsType:
        """Return the observation of ``state``."""
        raise NotImplementedError

    def reward(
        self,
        state: StateType,
        action: ActType,
        next_state: StateType,
        rng: Any,
        params: Params | None = None,
    ) -> RewardType:
        """Return the reward of the transition ``state --action--> next_state``."""
        raise NotImplementedError

    def terminal(self, state: StateType, rng: Any, params: Params | None = None) -> TerminalType:
        """Return whether ``state`` is terminal."""
        raise NotImplementedError

    def state_info(self, state: StateType, params: Params | None = None) -> dict:
        """Return the info of a state (after ``initial``); empty by default."""
        return {}

    def transition_info(
        self, state: StateType, action: ActType, next_state: StateType, params: Params | None = None
    ) -> dict:
        """Return the info of a transition; empty by default."""
        return {}

    def transform(self, func: Callable[[Callable], Callable]) -> None:
        """Replace every function by ``func(function)``, e.g. ``jax.jit`` or ``jax.vmap``.

        As in Gymnasium, the transformed ``transition_info`` is stored as ``step_info``.
        """
        self.initial = func(self.initial)
        self.transition = func(self.transition)
        self.observation = func(self.observation)
        self.reward = func(self.reward)
        self.terminal = func(self.terminal)
        self.state_info = func(self.state_info)
        self.step_info = func(self.transition_info)

    def render_image(
        self, state: StateType, render_state: RenderStateType, params: Params | None = None
    ) -> tuple[RenderStateType, np.ndarray]:
        """Draw ``state``: return the updated render state and an RGB frame."""
        raise NotImplementedError

    def render_init(self, params: Params | None = None, **kwargs: Any) -> RenderStateType:
        """Create the render state."""
        raise NotImplementedError

    def render_close(self, render_state: RenderStateType, params: Params | None = None) -> None:
        """Release the render state."""
        raise NotImplementedError

    def get_default_params(self, **kwargs: Any) -> Params | None:
        """Return the default parameters (``None`` here)."""
        return None
