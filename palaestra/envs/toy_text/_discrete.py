"""The base of the table-driven toy-text environments (FrozenLake, CliffWalking, Taxi).

:class:`DiscreteToyTextEnv` keeps the current state in ``s`` and the last action in
``lastaction``, as Gymnasium's do; it samples the initial state from
``initial_state_distrib`` and each step's outcome from the table ``P`` with one uniform
draw of ``np_random`` each. Subclasses build ``P`` and say how to draw and print a state.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra import logger
from palaestra.core import Env
from palaestra.envs.toy_text._drawing import ToyCanvas
from palaestra.envs.toy_text.utils import TransitionArrays, TransitionTable, first_exceeding

__all__ = ["DiscreteToyTextEnv", "warn_no_render_mode"]


def warn_no_render_mode(env: Env) -> None:
    """Warn that ``render`` was called on an env made without a render mode."""
    env_id = env.spec.id if env.spec is not None else type(env).__name__
    logger.warn(
        "You are calling render method without specifying any render mode. "
        "You can specify the render_mode at initialization, "
        f'e.g. gym.make("{env_id}", render_mode="rgb_array")'
    )


class DiscreteToyTextEnv(Env):
    """A finite MDP given by Gymnasium's transition table layout ``P``.

    Subclasses set ``P``, ``initial_state_distrib``, the spaces, ``render_mode``,
    ``window_size`` and ``metadata``, and implement :meth:`draw` and :meth:`_render_text`.

    Example:
        >>> class Coin(DiscreteToyTextEnv):
        ...     metadata = {"render_modes": [], "render_fps": 4}
        ...     def __init__(self):
        ...         from palaestra import spaces
        ...         self.P = {0: {0: [(0.5, 0, 0, True), (0.5, 1, 1, True)]},
        ...                   1: {0: [(1.0, 1, 0, True)]}}
        ...         self.initial_state_distrib = np.array([1.0, 0.0])
        ...         self.observation_space = spaces.Discrete(2)
        ...         self.action_space = spaces.Discrete(1)
        >>> env = Coin()
        >>> env.reset(seed=0)
        (0, {'prob': 1})
        >>> env.step(0)
        (0, 0, True, False, {'prob': 0.5})
    """

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 4}
    P: TransitionTable
    initial_state_distrib: np.ndarray
    window_size: tuple[int, int] = (64, 64)
    # The info ``prob`` of a reset (Gymnasium's envs differ: 1 or 1.0).
    reset_probability: Any = 1
    render_mode: str | None = None
    s: Any = None
    lastaction: Any = None
    _canvas: ToyCanvas | None = None
    _arrays: TransitionArrays | None = None
    _initial_cumulative: np.ndarray | None = None

    @property
    def transition_arrays(self) -> TransitionArrays:
        """The table ``P`` as arrays (built once), shared with the batched environments."""
        if self._arrays is None:
            self._arrays = TransitionArrays.from_table(
                self.P, int(self.observation_space.n), int(self.action_space.n)
            )
        return self._arrays

    @property
    def initial_cumulative(self) -> np.ndarray:
        """The cumulative initial-state probabilities, as :func:`categorical_sample` sums them."""
        if self._initial_cumulative is None:
            self._initial_cumulative = np.cumsum(self.initial_state_distrib)
        return self._initial_cumulative

    def step(self, a: Any) -> tuple[int, Any, bool, bool, dict[str, Any]]:
        """Take action ``a``: sample its outcome from ``P`` with one uniform draw.

        Returns:
            The next state, the reward, whether it is terminal, ``False`` (registration adds
            the time limit) and ``{"prob": probability of the outcome}``.

        Raises:
            KeyError: for an action that is not in the table (or before ``reset``).
        """
        transitions = self.P[self.s][a]
        p, s, r, t = transitions[first_exceeding(transitions, self.np_random.random())]
        self.s = s
        self.lastaction = a
        if self.render_mode == "human":
            self.render()
        return int(s), r, t, False, {"prob": p}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[int, dict[str, Any]]:
        """Start an episode in a state drawn from ``initial_state_distrib``.

        Args:
            seed: seeds ``np_random``.
            options: unused.
        """
        super().reset(seed=seed)
        self.s = np.argmax(self.initial_cumulative > self.np_random.random())
        self.lastaction = None
        self._start_episode()
        if self.render_mode == "human":
            self.render()
        return int(self.s), self._reset_info()

    def _start_episode(self) -> None:
        """Per-episode bookkeeping after the initial state is drawn."""

    def _reset_info(self) -> dict[str, Any]:
        return {"prob": self.reset_probability}

    def render(self) -> Any:
        """Draw the current state: text for ``"ansi"``, an RGB frame for ``"rgb_array"``.

        ``"human"`` shows the frame in a window paced by ``metadata["render_fps"]`` and
        returns ``None``; without a render mode it warns and returns ``None``.

        Raises:
            palaestra.error.DependencyNotInstalled: for image modes without pygame.
        """
        if self.render_mode is None:
            warn_no_render_mode(self)
            return None
        if self.render_mode == "ansi":
            return self._render_text()
        if self._canvas is None:
            width, height = self.window_size
            self._canvas = ToyCanvas(
                width, height, self.render_mode, self.metadata["render_fps"], self.window_title
            )
        self.draw(self._canvas)
        return self._canvas.finish()

    window_title: str = ""

    def draw(self, canvas: ToyCanvas) -> None:
        """Draw the current state on ``canvas``."""
        raise NotImplementedError

    def _render_text(self) -> str:
        raise NotImplementedError

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_canvas", None)
        return state

    def close(self) -> None:
        """Close the render window, if one is open."""
        if self._canvas is not None:
            self._canvas.close()
            self._canvas = None
