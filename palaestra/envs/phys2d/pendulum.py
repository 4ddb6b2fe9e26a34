"""Pendulum as a functional environment, from the classic-control dynamics, and its jax envs.

The state is ``(theta, theta_dot)``; the functions are those of
:mod:`palaestra.envs.classic_control.dynamics.pendulum` that
:class:`~palaestra.envs.classic_control.PendulumEnv` steps with (rebound to ``jax.numpy`` for
the jax backend). With ``options={"backend": "numpy"}`` it gives the env's trajectories.

Example:
    >>> import numpy as np
    >>> env = PendulumFunctional({"backend": "numpy"})
    >>> state = env.initial(np.random.default_rng(0))
    >>> env.observation(state, None).shape
    (3,)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from palaestra import spaces
from palaestra.envs.classic_control.dynamics import pendulum as dynamics
from palaestra.envs.phys2d._common import Backend, JittedEnv, JittedVectorEnv
from palaestra.experimental.functional import FuncEnv
from palaestra.vector.vector_env import AutoresetMode

__all__ = ["PendulumParams", "PendulumFunctional", "PendulumJaxEnv", "PendulumJaxVectorEnv"]


@dataclass(frozen=True)
class PendulumParams:
    """The pendulum constants under Gymnasium's phys2d names.

    Example:
        >>> PendulumParams().dynamics().max_torque
        2.0
    """

    max_speed: float = 8.0
    dt: float = 0.05
    g: float = 10.0
    m: float = 1.0
    l: float = 1.0  # noqa: E741
    high_x: float = np.pi
    high_y: float = 1.0
    screen_dim: int = 500
    max_torque: float = 2.0

    def dynamics(self) -> dynamics.PendulumParams:
        """Return the parameters of the shared dynamics functions."""
        return dynamics.PendulumParams(
            max_speed=self.max_speed,
            max_torque=self.max_torque,
            dt=self.dt,
            g=self.g,
            m=self.m,
            l=self.l,
        )


_DEFAULT = PendulumParams()


class PendulumFunctional(Backend, FuncEnv[Any, Any, Any, float, bool, Any, PendulumParams]):
    """Pendulum as pure functions of the state (see the module docstring).

    Example:
        >>> import jax
        >>> env = PendulumFunctional()
        >>> state = env.initial(jax.random.PRNGKey(0))
        >>> env.observation(state, None).shape
        (3,)
    """

    observation_space = spaces.Box(
        -np.array([1.0, 1.0, 8.0], dtype=np.float32),
        np.array([1.0, 1.0, 8.0], dtype=np.float32),
        dtype=np.float32,
    )
    action_space = spaces.Box(-2.0, 2.0, shape=(1,), dtype=np.float32)

    def initial(self, rng: Any, params: PendulumParams = _DEFAULT) -> Any:
        """Draw ``(theta, theta_dot)`` uniformly from ``[-high, high)``."""
        high = np.array([params.high_x, params.high_y])
        if self.backend == "numpy":
            return dynamics.pendulum_initial_state(rng, high)
        return self.jax().random.uniform(key=rng, minval=-high, maxval=high, shape=(2,))

    def transition(
        self, state: Any, action: Any, rng: Any = None, params: PendulumParams = _DEFAULT
    ) -> Any:
        """One step of the shared pendulum equations under the clipped torque."""
        p = params.dynamics()
        torque = self.fn(dynamics.pendulum_torque)(action, p)
        return self.fn(dynamics.pendulum_step)(state, torque, p)

    def observation(self, state: Any, rng: Any, params: PendulumParams = _DEFAULT) -> Any:
        """``(cos theta, sin theta, theta_dot)`` as float32."""
        return self.fn(dynamics.pendulum_observation)(state)

    def reward(
        self, state: Any, action: Any, next_state: Any, rng: Any, params: PendulumParams = _DEFAULT
    ) -> Any:
        """Return the negative cost of ``state`` and the clipped torque."""
        p = params.dynamics()
        torque = self.fn(dynamics.pendulum_torque)(action, p)
        return self.fn(dynamics.pendulum_reward)(state, torque, p)

    def terminal(self, state: Any, rng: Any, params: PendulumParams = _DEFAULT) -> Any:
        """Never terminal (the time limit truncates)."""
        if self.backend == "numpy":
            return False
        return self.xp().asarray(False)

    def render_init(self, params: PendulumParams = _DEFAULT, **kwargs: Any) -> Any:
        """Create the canvas the classic env draws on."""
        from palaestra.envs.classic_control.rendering import Canvas

        return Canvas(params.screen_dim, params.screen_dim, "rgb_array", 30, title="Pendulum")

    def render_image(
        self, state: Any, render_state: Any, params: PendulumParams = _DEFAULT
    ) -> tuple[Any, np.ndarray]:
        """Draw ``state`` as :class:`~palaestra.envs.classic_control.PendulumEnv` draws it."""
        from palaestra.envs.classic_control.pendulum import draw_pendulum

        render_state.clear()
        draw_pendulum(render_state, np.asarray(state, dtype=np.float64), None, params.dynamics())
        return render_state, render_state.finish()

    def render_close(self, render_state: Any, params: PendulumParams = _DEFAULT) -> None:
        """Close the canvas."""
        render_state.close()

    def get_default_params(self, **kwargs: Any) -> PendulumParams:
        """Return :class:`PendulumParams` with ``kwargs`` applied."""
        return PendulumParams(**kwargs)


class PendulumJaxEnv(JittedEnv):
    """Pendulum on jax, jitted (registered as ``phys2d/Pendulum-v0``).

    Example:
        >>> env = PendulumJaxEnv()
        >>> env.reset(seed=0)[0].shape
        (3,)
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 30, "jax": True}

    functional = PendulumFunctional


class PendulumJaxVectorEnv(JittedVectorEnv):
    """``num_envs`` jax pendulums, vmapped and jitted.

    Example:
        >>> envs = PendulumJaxVectorEnv(num_envs=2)
        >>> envs.reset(seed=0)[0].shape
        (2, 3)
    """

    metadata = {
        "render_modes": ["rgb_array"],
        "render_fps": 30,
        "jax": True,
        "autoreset_mode": AutoresetMode.NEXT_STEP,
    }

    functional = PendulumFunctional
