"""CartPole as a functional environment, from the classic-control dynamics, and its jax envs.

The equations are those of :mod:`palaestra.envs.classic_control.dynamics.cartpole`, the very
functions :class:`~palaestra.envs.classic_control.CartPoleEnv` steps with, rebound to
``jax.numpy`` for the jax backend (see :mod:`palaestra.experimental._array_namespace`).
With ``options={"backend": "numpy"}`` and the env's own generator, the functional env gives
the env's trajectories exactly.

Example:
    >>> import numpy as np
    >>> env = CartPoleFunctional({"backend": "numpy"})
    >>> state = env.initial(np.random.default_rng(0))
    >>> state.shape, bool(env.terminal(env.transition(state, 1, None), None))
    ((4,), False)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from palaestra import spaces
from palaestra.envs.classic_control.dynamics import cartpole as dynamics
from palaestra.envs.phys2d._common import Backend, JittedEnv, JittedVectorEnv
from palaestra.envs.phys2d._common import self_jit as self_jit  # its former home
from palaestra.experimental.functional import FuncEnv
from palaestra.vector.vector_env import AutoresetMode

__all__ = ["CartPoleParams", "CartPoleFunctional", "CartPoleJaxEnv", "CartPoleJaxVectorEnv"]


@dataclass(frozen=True)
class CartPoleParams:
    """The cart-pole constants under Gymnasium's phys2d names.

    Attributes:
        gravity, masscart, masspole, length, force_mag, tau, theta_threshold_radians,
        x_threshold: as in :class:`~palaestra.envs.classic_control.CartPoleEnv`.
        x_init: initial components are uniform in ``[-x_init, x_init)``.
        sutton_barto_reward: 0 per step and -1 on termination instead of 1 per step.
        screen_width, screen_height: the frame size.

    Example:
        >>> CartPoleParams().dynamics().total_mass
        1.1
    """

    gravity: float = 9.8
    masscart: float = 1.0
    masspole: float = 0.1
    length: float = 0.5
    force_mag: float = 10.0
    tau: float = 0.02
    theta_threshold_radians: float = 12 * 2 * np.pi / 360
    x_threshold: float = 2.4
    x_init: float = 0.05
    sutton_barto_reward: bool = False
    screen_width: int = 600
    screen_height: int = 400

    def dynamics(self) -> dynamics.CartPoleParams:
        """Return the parameters of the shared dynamics functions."""
        return dynamics.CartPoleParams(
            gravity=self.gravity,
            cart_mass=self.masscart,
            pole_mass=self.masspole,
            pole_half_length=self.length,
            force_magnitude=self.force_mag,
            tau=self.tau,
            x_threshold=self.x_threshold,
            theta_threshold_radians=self.theta_threshold_radians,
            reset_bound=self.x_init,
        )


_DEFAULT = CartPoleParams()


class CartPoleFunctional(Backend, FuncEnv[Any, Any, int, float, bool, Any, CartPoleParams]):
    """CartPole as pure functions of the state (see the module docstring).

    Args:
        options: attributes to set, e.g. ``{"backend": "numpy"}``.

    Example:
        >>> env = CartPoleFunctional()
        >>> import jax
        >>> state = env.initial(jax.random.PRNGKey(0))
        >>> float(env.reward(state, 1, env.transition(state, 1, None), None))
        1.0
    """

    observation_space = spaces.Box(-np.inf, np.inf, shape=(4,), dtype=np.float32)
    action_space = spaces.Discrete(2)

    def initial(self, rng: Any, params: CartPoleParams = _DEFAULT) -> Any:
        """Draw every component uniformly from ``[-x_init, x_init)``."""
        if self.backend == "numpy":
            return dynamics.cartpole_initial_state(rng, -params.x_init, params.x_init)
        return self.jax().random.uniform(
            key=rng, minval=-params.x_init, maxval=params.x_init, shape=(4,)
        )

    def transition(
        self, state: Any, action: Any, rng: Any = None, params: CartPoleParams = _DEFAULT
    ) -> Any:
        """One step of the shared cart-pole equations."""
        p = params.dynamics()
        force = self.fn(dynamics.cartpole_force)(action, p)
        x, x_dot, theta, theta_dot = (state[i] for i in range(4))
        following = self.fn(dynamics.cartpole_next_components)(x, x_dot, theta, theta_dot, force, p)
        if self.backend == "numpy":
            return dynamics.stack_components(*following)
        xp = self.xp()
        return xp.stack(following).astype(xp.float64)

    def observation(self, state: Any, rng: Any, params: CartPoleParams = _DEFAULT) -> Any:
        """Return the state as float32."""
        return state.astype(np.float32)

    def terminal(self, state: Any, rng: Any, params: CartPoleParams = _DEFAULT) -> Any:
        """Whether the cart left the track or the pole fell."""
        return self._ended(state, params)

    def _ended(self, state: Any, params: CartPoleParams) -> Any:
        # Not transformed by ``transform``: reward calls it with the params.
        return self.fn(dynamics.cartpole_terminated)(state, params.dynamics())

    def reward(
        self, state: Any, action: Any, next_state: Any, rng: Any, params: CartPoleParams = _DEFAULT
    ) -> Any:
        """Return the classic env's reward of reaching ``next_state`` (1, or Sutton-Barto's)."""
        ended = self._ended(next_state, params)
        return self.fn(dynamics.cartpole_reward)(ended, params.sutton_barto_reward)

    def render_init(self, params: CartPoleParams = _DEFAULT, **kwargs: Any) -> Any:
        """Create the canvas the classic env draws on."""
        from palaestra.envs.classic_control.rendering import Canvas

        return Canvas(params.screen_width, params.screen_height, "rgb_array", 50, title="CartPole")

    def render_image(
        self, state: Any, render_state: Any, params: CartPoleParams = _DEFAULT
    ) -> tuple[Any, np.ndarray]:
        """Draw ``state`` as :class:`~palaestra.envs.classic_control.CartPoleEnv` draws it."""
        from palaestra.envs.classic_control.cartpole import draw_cartpole

        render_state.clear()
        draw_cartpole(render_state, np.asarray(state, dtype=np.float64), params.dynamics())
        return render_state, render_state.finish()

    def render_close(self, render_state: Any, params: CartPoleParams = _DEFAULT) -> None:
        """Close the canvas."""
        render_state.close()

    def get_default_params(self, **kwargs: Any) -> CartPoleParams:
        """Return :class:`CartPoleParams` with ``kwargs`` applied."""
        return CartPoleParams(**kwargs)


class CartPoleJaxEnv(JittedEnv):
    """CartPole on jax, jitted (registered as ``phys2d/CartPole-v0`` and ``-v1``).

    Args:
        render_mode: ``None`` or ``"rgb_array"``.
        kwargs: passed to :class:`CartPoleFunctional`.

    Example:
        >>> env = CartPoleJaxEnv()
        >>> env.reset(seed=0)[0].dtype
        dtype('float32')
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 50, "jax": True}

    functional = CartPoleFunctional


class CartPoleJaxVectorEnv(JittedVectorEnv):
    """``num_envs`` jax cart-poles, vmapped and jitted.

    Args:
        num_envs: the number of sub-environments.
        render_mode: ``None`` or ``"rgb_array"``.
        max_episode_steps: the time limit (0: none).
        kwargs: passed to :class:`CartPoleFunctional`.

    Example:
        >>> envs = CartPoleJaxVectorEnv(num_envs=2)
        >>> envs.reset(seed=0)[0].shape
        (2, 4)
    """

    metadata = {
        "render_modes": ["rgb_array"],
        "render_fps": 50,
        "jax": True,
        "autoreset_mode": AutoresetMode.NEXT_STEP,
    }

    functional = CartPoleFunctional
