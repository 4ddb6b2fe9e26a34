"""Table-driven toy-text worlds (CliffWalking, FrozenLake, Taxi) as functional environments.

:class:`TableFunctional` steps any of the table-driven toy-text environments (FrozenLake,
CliffWalking, Taxi) from the single environment's own transition table
(:attr:`~palaestra.envs.toy_text._discrete.DiscreteToyTextEnv.transition_arrays`): one
uniform draw picks the outcome, as ``categorical_sample`` does. With the numpy backend and
the env's generator it reproduces the env's trajectories; with jax it ``jit``s and ``vmap``s.

Example:
    >>> import numpy as np
    >>> env = CliffWalkingFunctional({"backend": "numpy"})
    >>> rng = np.random.default_rng(0)
    >>> state = env.initial(rng)
    >>> following = env.transition(state, 1, rng)
    >>> int(env.observation(state, rng)), int(env.observation(following, rng))
    (36, 36)
    >>> float(env.reward(state, 1, following, rng))
    -100.0
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.phys2d._common import Backend, JittedEnv
from palaestra.envs.toy_text.cliffwalking import CliffWalkingEnv
from palaestra.envs.toy_text.frozen_lake import FrozenLakeEnv
from palaestra.envs.toy_text.taxi import TaxiEnv
from palaestra.experimental.functional import FuncEnv

__all__ = [
    "TableFunctional",
    "CliffWalkingFunctional",
    "CliffWalkingJaxEnv",
    "FrozenLakeFunctional",
    "TaxiFunctional",
]


class TableFunctional(Backend, FuncEnv[Any, Any, int, float, bool, Any, None]):
    """A finite toy-text MDP as pure functions of its state number.

    The functional state is ``[state number, index of the outcome that led there]``: two
    outcomes may reach the same state with different rewards (CliffWalking's cliff and a
    step onto the start), so ``reward`` reads the outcome the transition picked.

    Args:
        options: attributes to set: ``backend`` (``"jax"`` or ``"numpy"``) and
            ``env_kwargs`` (keyword arguments of the single env).
    """

    env_class: type = CliffWalkingEnv
    env_kwargs: dict[str, Any] = {}

    def __init__(self, options: dict[str, Any] | None = None):
        super().__init__(options)
        env = self.env_class(**self.env_kwargs)
        self.single_env = env
        self.observation_space = env.observation_space
        self.action_space = env.action_space
        arrays = env.transition_arrays
        xp = self.xp()
        self._cumulative = xp.asarray(arrays.cumulative)
        self._next = xp.asarray(arrays.next_state)
        self._reward = xp.asarray(arrays.reward)
        self._terminated = xp.asarray(arrays.terminated)
        self._initial = xp.asarray(env.initial_cumulative)
        # Terminal states are absorbing: every outcome of every action stays put and ends.
        valid = arrays.cumulative > -np.inf
        stays = arrays.next_state == np.arange(len(arrays.next_state))[:, None, None]
        absorbing = np.all(~valid | (stays & arrays.terminated), axis=(1, 2))
        self._terminal_states = xp.asarray(absorbing)

    def _draw(self, rng: Any) -> Any:
        if self.backend == "numpy":
            return rng.random()
        return self.jax().random.uniform(rng)

    def initial(self, rng: Any, params: Any = None) -> Any:
        """Draw the initial state from the env's initial distribution (one uniform draw).

        The functional state is ``[state number, index of the outcome that led there]``.
        """
        xp = self.xp()
        return xp.stack([xp.argmax(self._initial > self._draw(rng)), 0])

    def transition(self, state: Any, action: Any, rng: Any, params: Any = None) -> Any:
        """Pick the outcome of ``action`` in ``state`` with one uniform draw."""
        xp = self.xp()
        picked = xp.argmax(self._cumulative[state[0], action] > self._draw(rng))
        return xp.stack([self._next[state[0], action, picked], picked])

    def observation(self, state: Any, rng: Any, params: Any = None) -> Any:
        """Return the state number."""
        return state[0]

    def reward(self, state: Any, action: Any, next_state: Any, rng: Any, params: Any = None) -> Any:
        """Return the reward of the outcome that led from ``state`` to ``next_state``."""
        return self._reward[state[0], action, next_state[1]]

    def terminal(self, state: Any, rng: Any, params: Any = None) -> Any:
        """Whether ``state`` is terminal (absorbing: a goal or a hole)."""
        return self._terminal_states[state[0]]

    def transition_info(self, state: Any, action: Any, next_state: Any, params: Any = None) -> dict:
        """Empty: the outcome's probability depends on the draw, not on the states alone."""
        return {}


class CliffWalkingFunctional(TableFunctional):
    """CliffWalking as a :class:`TableFunctional` (``env_kwargs`` may set ``is_slippery``).

    Example:
        >>> import jax
        >>> env = CliffWalkingFunctional()
        >>> int(env.observation(env.initial(jax.random.PRNGKey(0)), None))
        36
    """

    env_class = CliffWalkingEnv

    def terminal(self, state: Any, rng: Any, params: Any = None) -> Any:
        """Whether the walker reached the goal."""
        return state[0] == 47


class CliffWalkingJaxEnv(JittedEnv):
    """CliffWalking on jax, jitted (registered as ``tabular/CliffWalking-v0``).

    Example:
        >>> env = CliffWalkingJaxEnv()
        >>> int(env.reset(seed=0)[0])
        36
    """

    metadata = {"render_modes": [], "render_fps": 4, "jax": True}

    functional = CliffWalkingFunctional


class FrozenLakeFunctional(TableFunctional):
    """FrozenLake as a :class:`TableFunctional` (``env_kwargs``: the env's options).

    Example:
        >>> import numpy as np
        >>> env = FrozenLakeFunctional({"backend": "numpy", "env_kwargs": {"is_slippery": False}})
        >>> rng = np.random.default_rng(0)
        >>> int(env.observation(env.transition(env.initial(rng), 2, rng), rng))
        1
    """

    env_class = FrozenLakeEnv


class TaxiFunctional(TableFunctional):
    """Taxi as a :class:`TableFunctional` (dry or rainy; not the fickle passenger).

    Raises:
        ValueError: for ``fickle_passenger=True``, whose extra draw the table cannot express.

    Example:
        >>> import numpy as np
        >>> env = TaxiFunctional({"backend": "numpy"})
        >>> int(env.observation(env.initial(np.random.default_rng(0)), None))
        314
    """

    env_class = TaxiEnv

    def __init__(self, options: dict[str, Any] | None = None):
        if (options or {}).get("env_kwargs", {}).get("fickle_passenger"):
            raise ValueError(
                "TaxiFunctional steps the transition table; fickle_passenger=True changes "
                "destinations outside it. Use TaxiEnv or TaxiVectorEnv for a fickle passenger."
            )
        super().__init__(options)

    def terminal(self, state: Any, rng: Any, params: Any = None) -> Any:
        """Whether the passenger was delivered (at their destination, out of the taxi)."""
        return (state[0] // 4) % 5 == state[0] % 4
