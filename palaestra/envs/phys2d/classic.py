"""MountainCar, MountainCarContinuous and Acrobot as functional environments (beyond Gymnasium).

Each is built from its single environment's parameters and the shared dynamics functions of
:mod:`palaestra.envs.classic_control.dynamics` (no second copy of an equation). With
``options={"backend": "numpy"}`` and the env's own generator it reproduces the env's
trajectories; with the jax backend the same functions run on ``jax.numpy`` and ``jit``.

Example:
    >>> import numpy as np
    >>> env = MountainCarFunctional({"backend": "numpy"})
    >>> rng = np.random.default_rng(0)
    >>> state = env.initial(rng)
    >>> float(env.reward(state, 2, env.transition(state, 2, rng), rng))
    -1.0
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.classic_control.acrobot import AcrobotEnv
from palaestra.envs.classic_control.continuous_mountain_car import Continuous_MountainCarEnv
from palaestra.envs.classic_control.dynamics import acrobot, mountain_car
from palaestra.envs.classic_control.mountain_car import MountainCarEnv
from palaestra.envs.phys2d._common import Backend
from palaestra.experimental.functional import FuncEnv

__all__ = [
    "ClassicFunctional",
    "MountainCarFunctional",
    "ContinuousMountainCarFunctional",
    "AcrobotFunctional",
    "JaxRandom",
]


class JaxRandom:
    """The ``uniform`` method the dynamics' initial-state functions call, on a jax key.

    Args:
        key: a jax PRNG key.
    """

    def __init__(self, key: Any):
        self.key = key

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None) -> Any:
        """Draw uniformly from ``[low, high)`` with shape ``size``."""
        import jax

        shape = () if size is None else (size,) if isinstance(size, int) else tuple(size)
        return jax.random.uniform(self.key, shape=shape, minval=low, maxval=high)


class ClassicFunctional(Backend, FuncEnv[Any, Any, Any, float, bool, Any, Any]):
    """A classic-control system as a FuncEnv; subclasses name the env and its functions.

    Args:
        options: attributes to set: ``backend`` and ``env_kwargs`` (the single env's
            keyword arguments, e.g. ``goal_velocity``).
    """

    env_class: type
    env_kwargs: dict[str, Any] = {}

    def __init__(self, options: dict[str, Any] | None = None):
        super().__init__(options)
        env = self.env_class(**self.env_kwargs)
        self.params = env.params
        self.observation_space = env.observation_space
        self.action_space = env.action_space

    def _rng(self, rng: Any) -> Any:
        return rng if self.backend == "numpy" else JaxRandom(rng)

    def observation(self, state: Any, rng: Any, params: Any = None) -> Any:
        """Return the state as float32."""
        return state.astype(np.float32)

    def terminal(self, state: Any, rng: Any, params: Any = None) -> Any:
        """Return whether ``state`` is terminal."""
        return self._ended(state)

    def _ended(self, state: Any) -> Any:
        raise NotImplementedError


class MountainCarFunctional(ClassicFunctional):
    """MountainCar (discrete throttle) as a FuncEnv.

    Example:
        >>> import jax
        >>> env = MountainCarFunctional()
        >>> state = env.initial(jax.random.PRNGKey(0))
        >>> bool(jax.jit(env.terminal)(state, None))
        False
    """

    env_class = MountainCarEnv

    def initial(self, rng: Any, params: Any = None) -> Any:
        """Draw a position in the reset range, at rest."""
        p = self.params
        return self.fn(mountain_car.mountain_car_initial_state)(
            self._rng(rng), p.reset_low, p.reset_high
        )

    def transition(self, state: Any, action: Any, rng: Any, params: Any = None) -> Any:
        """One step of the shared mountain-car equations."""
        return self.fn(mountain_car.mountain_car_step)(state, action, self.params)

    def _ended(self, state: Any) -> Any:
        return self.fn(mountain_car.mountain_car_terminated)(state, self.params)

    def reward(self, state: Any, action: Any, next_state: Any, rng: Any, params: Any = None) -> Any:
        """Return -1 per step."""
        return self.fn(mountain_car.mountain_car_reward)(self._ended(next_state))


class ContinuousMountainCarFunctional(MountainCarFunctional):
    """MountainCarContinuous as a FuncEnv (float64 at reset, float32 after a step, as the env).

    Example:
        >>> import numpy as np
        >>> env = ContinuousMountainCarFunctional({"backend": "numpy"})
        >>> state = env.initial(np.random.default_rng(0))
        >>> env.transition(state, np.ones(1, np.float32), None).dtype
        dtype('float32')
    """

    env_class = Continuous_MountainCarEnv

    def transition(self, state: Any, action: Any, rng: Any, params: Any = None) -> Any:
        """One step of the shared continuous mountain-car equations."""
        return self.fn(mountain_car.continuous_mountain_car_step)(state, action, self.params)

    def reward(self, state: Any, action: Any, next_state: Any, rng: Any, params: Any = None) -> Any:
        """Return 100 at the goal minus the squared throttle cost."""
        ended = self._ended(next_state)
        return self.fn(mountain_car.continuous_mountain_car_reward)(ended, action, self.params)


class AcrobotFunctional(ClassicFunctional):
    """Acrobot as a FuncEnv (torque noise, when set, is drawn from a numpy ``rng``).

    Example:
        >>> import numpy as np
        >>> env = AcrobotFunctional({"backend": "numpy"})
        >>> env.observation(env.initial(np.random.default_rng(0)), None).shape
        (6,)
    """

    env_class = AcrobotEnv

    def initial(self, rng: Any, params: Any = None) -> Any:
        """Draw angles and velocities uniformly from the reset range."""
        bound = self.params.reset_bound
        return self.fn(acrobot.acrobot_initial_state)(self._rng(rng), -bound, bound)

    def transition(self, state: Any, action: Any, rng: Any, params: Any = None) -> Any:
        """One RK4 step of the shared acrobot equations under the action's torque."""
        if self.backend == "numpy":
            torque = acrobot.acrobot_torque(action, self.params, rng)
        else:
            # The torque table indexed by a traced action (torque noise needs a numpy rng).
            torque = self.xp().asarray(self.params.torques)[action]
        return self.fn(acrobot.acrobot_step)(state, torque, self.params)

    def observation(self, state: Any, rng: Any, params: Any = None) -> Any:
        """Return ``(cos, sin)`` of both angles and both velocities."""
        return self.fn(acrobot.acrobot_observation)(state)

    def _ended(self, state: Any) -> Any:
        return self.fn(acrobot.acrobot_terminated)(state, self.params)

    def reward(self, state: Any, action: Any, next_state: Any, rng: Any, params: Any = None) -> Any:
        """Return -1 per step, 0 on reaching the goal height."""
        return self.fn(acrobot.acrobot_reward)(self._ended(next_state))
