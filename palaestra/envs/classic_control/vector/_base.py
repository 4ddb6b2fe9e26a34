"""The natively batched classic-control environments' common base: parameters and drawing.

Everything batched (seeding, bookkeeping, autoreset, the accelerator) comes from
:class:`palaestra.vector.native.NativeVectorEnv`; this adds the single environment's frozen
parameters (``params``) and draws frames with the family's :class:`Canvas`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.classic_control._base import ClassicControlEnv
from palaestra.envs.classic_control.rendering import Canvas
from palaestra.vector.native import NativeVectorEnv, Transition

__all__ = ["ClassicControlVectorEnv", "Transition"]


class ClassicControlVectorEnv(NativeVectorEnv):
    """Base class of the natively batched classic-control environments.

    Takes the arguments of :class:`~palaestra.vector.native.NativeVectorEnv`; subclasses
    implement :meth:`draw_frame` instead of ``render_sub_env``.

    Example:
        >>> from palaestra.envs.classic_control.vector import CartPoleVectorEnv
        >>> envs = CartPoleVectorEnv(num_envs=2, render_mode="rgb_array")
        >>> _ = envs.reset(seed=0)
        >>> [frame.shape for frame in envs.render()]
        [(400, 600, 3), (400, 600, 3)]
    """

    single_env_class: type[ClassicControlEnv]

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.params = self.single_env.params
        self._canvas: Canvas | None = None

    def draw_frame(self, canvas: Canvas, index: int) -> None:
        """Draw sub-environment ``index`` on a cleared ``canvas``."""
        raise NotImplementedError

    def render_sub_env(self, index: int) -> np.ndarray:
        """Draw sub-environment ``index`` as the single environment draws itself.

        Raises:
            palaestra.error.DependencyNotInstalled: if pygame is not installed.
        """
        if self._canvas is None:
            self._canvas = Canvas(
                self.single_env.screen_width,
                self.single_env.screen_height,
                self.render_mode,
                self.metadata["render_fps"],
                title=type(self).__name__,
            )
        self._canvas.clear()
        self.draw_frame(self._canvas, index)
        return self._canvas.finish()

    def close_extras(self, **kwargs: Any) -> None:
        """Release the drawing surface, if one was made."""
        if self._canvas is not None:
            self._canvas.close()
            self._canvas = None
