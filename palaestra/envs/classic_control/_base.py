"""What the classic-control environments share: a parameter set and canvas rendering.

Each environment keeps its constants in one frozen ``params`` dataclass (from
:mod:`~palaestra.envs.classic_control.dynamics`) and exposes them under Gymnasium's attribute
names through :class:`ParamAttribute`. It draws its scene with a ``draw`` method on a
:class:`~palaestra.envs.classic_control.rendering.Canvas` that :class:`ClassicControlEnv`
creates on the first ``render()`` and releases in ``close()``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from palaestra import logger
from palaestra.core import Env
from palaestra.envs._actions import as_array_action
from palaestra.envs.classic_control.rendering import Canvas

__all__ = ["ClassicControlEnv", "ParamAttribute"]


class ParamAttribute:
    """An environment attribute that reads and writes one field of ``env.params``.

    Writing replaces ``params`` with a copy holding the new value, so derived constants
    are recomputed and the parameters stay immutable.

    Read on the class itself, it gives the field's default value when ``params_type`` is
    known, as Gymnasium's class-level constants do.

    Args:
        field: the name of the field in the params dataclass.
        params_type: the params dataclass, for class-level reads.

    Example:
        >>> from palaestra.envs.classic_control.dynamics.cartpole import CartPoleParams
        >>> class Holder:
        ...     params = CartPoleParams()
        ...     masspole = ParamAttribute("pole_mass")
        >>> holder = Holder()
        >>> holder.masspole = 0.4
        >>> holder.params.total_mass
        1.4
    """

    def __init__(self, field: str, params_type: type | None = None):
        self.field = field
        self.params_type = params_type

    def __get__(self, env: Any, owner: type | None = None) -> Any:
        if env is None:
            if self.params_type is None:
                return self
            return self.params_type.__dataclass_fields__[self.field].default
        return getattr(env.params, self.field)

    def __set__(self, env: Any, value: Any) -> None:
        env.params = dataclasses.replace(env.params, **{self.field: value})


class ClassicControlEnv(Env):
    """Base class of the classic-control environments: the step and reset sequence, rendering.

    ``step`` checks the action (where ``checks_action`` is set, as Gymnasium's discrete
    environments do) and that ``reset`` came first, lets the subclass advance its state with
    :meth:`_transition`, renders in ``"human"`` mode, and returns Gymnasium's five values,
    never truncated (registration adds the time limit). ``reset`` seeds ``np_random``, lets
    the subclass draw the initial state with :meth:`_start_episode`, renders, and returns
    :meth:`_observation`.

    Subclasses set ``screen_width``, ``screen_height`` and ``metadata``, keep their state in
    ``self.state`` (``None`` before the first reset) and implement :meth:`draw`.

    Example:
        >>> class Dot(ClassicControlEnv):
        ...     metadata = {"render_modes": ["rgb_array"], "render_fps": 10}
        ...     screen_width = screen_height = 20
        ...     def __init__(self):
        ...         self.render_mode = "rgb_array"
        ...     def _start_episode(self, options):
        ...         self.state = 0.0
        ...     def _observation(self):
        ...         return np.array([self.state])
        ...     def _transition(self, action):
        ...         self.state += action
        ...         return self._observation(), 1.0, self.state > 1
        ...     def draw(self, canvas):
        ...         canvas.circle((10, 10), 4, (0, 0, 0))
        >>> env = Dot()
        >>> env.reset(seed=0)
        (array([0.]), {})
        >>> env.step(2.0)
        (array([2.]), 1.0, True, False, {})
        >>> frame = env.render()
        >>> frame.shape, frame[10, 10].tolist()
        ((20, 20, 3), [0, 0, 0])
    """

    screen_width: int = 600
    screen_height: int = 400
    state: Any = None
    _canvas: Canvas | None = None
    checks_action: bool = False
    reset_first_message: str = "Call reset before using step method."

    def step(self, action: Any) -> tuple[np.ndarray, Any, bool, bool, dict[str, Any]]:
        """Advance the system by one time step under ``action``.

        Raises:
            AssertionError: before ``reset``, or (where ``checks_action`` is set) if
                ``action`` is not in the action space.
        """
        if self.checks_action:
            assert self.action_space.contains(action), (
                f"{action!r} ({type(action)}) invalid: expected an element of {self.action_space}"
            )
        assert self.state is not None, self.reset_first_message
        observation, reward, terminated = self._transition(as_array_action(action))
        if self.render_mode == "human":
            self.render()
        return observation, reward, terminated, False, {}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start an episode from a random initial state; ``options`` may change its range.

        Raises:
            ValueError: if an option is not a number, or a lower bound exceeds an upper one.
        """
        super().reset(seed=seed)
        self._start_episode(options)
        if self.render_mode == "human":
            self.render()
        return self._observation(), {}

    def _transition(self, action: Any) -> tuple[np.ndarray, Any, bool]:
        """Advance ``self.state``; return the observation, the reward and the termination."""
        raise NotImplementedError

    def _start_episode(self, options: dict[str, Any] | None) -> None:
        """Draw ``self.state`` from ``np_random`` and reset any per-episode bookkeeping."""
        raise NotImplementedError

    def _observation(self) -> np.ndarray:
        """Return the observation of ``self.state``."""
        raise NotImplementedError

    def draw(self, canvas: Canvas) -> None:
        """Draw the current state on a cleared ``canvas`` (y axis up)."""
        raise NotImplementedError

    def render(self) -> np.ndarray | None:
        """Draw the current state: an ``(H, W, 3)`` uint8 frame for ``"rgb_array"``.

        In ``"human"`` mode the frame goes to a window, paced by ``metadata["render_fps"]``,
        and nothing is returned. Without a render mode it warns and returns ``None``.

        Raises:
            palaestra.error.DependencyNotInstalled: if pygame is not installed.
        """
        if self.render_mode is None:
            env_id = self.spec.id if self.spec is not None else type(self).__name__
            logger.warn(
                "You are calling render method without specifying any render mode. "
                "You can specify the render_mode at initialization, "
                f'e.g. gym.make("{env_id}", render_mode="rgb_array")'
            )
            return None
        if self.state is None:
            return None
        if self._canvas is None:
            self._canvas = Canvas(
                self.screen_width,
                self.screen_height,
                self.render_mode,
                self.metadata["render_fps"],
                title=type(self).__name__,
            )
        self._canvas.clear()
        self.draw(self._canvas)
        return self._canvas.finish()

    def __getstate__(self) -> dict[str, Any]:
        # pygame surfaces cannot be pickled; a copy opens its own canvas when it renders.
        state = dict(self.__dict__)
        state.pop("_canvas", None)
        return state

    def close(self) -> None:
        """Close the render window, if one is open."""
        if self._canvas is not None:
            self._canvas.close()
            self._canvas = None
