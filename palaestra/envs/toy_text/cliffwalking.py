"""CliffWalking: walk along a cliff edge from the start to the goal without stepping off.

Example:
    >>> import palaestra as gym
    >>> env = gym.make("CliffWalking-v1")
    >>> env.reset(seed=0)
    (36, {'prob': 1})
    >>> env.step(1)
    (36, -100, False, False, {'prob': 1.0})
"""

from __future__ import annotations

from contextlib import closing
from io import StringIO
from typing import Any

import numpy as np

from palaestra import spaces
from palaestra.envs.toy_text._discrete import DiscreteToyTextEnv
from palaestra.envs.toy_text._drawing import ToyCanvas

__all__ = ["CliffWalkingEnv", "UP", "RIGHT", "DOWN", "LEFT", "POSITION_MAPPING"]

UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3
POSITION_MAPPING = {UP: [-1, 0], RIGHT: [0, 1], DOWN: [1, 0], LEFT: [0, -1]}


class CliffWalkingEnv(DiscreteToyTextEnv):
    """A 4x12 grid: start bottom-left, goal bottom-right, the cliff between them.

    Observation: ``row * 12 + col``. Actions: 0 up, 1 right, 2 down, 3 left. Every step
    costs -1; stepping into the cliff costs -100 and sends the agent back to the start
    (without ending the episode); reaching the goal terminates it. With ``is_slippery`` the
    agent moves in the intended or either perpendicular direction, each with probability
    1/3. Info: ``{"prob": p}``.

    Args:
        render_mode: ``None``, ``"human"``, ``"rgb_array"`` or ``"ansi"``.
        is_slippery: whether moves can slip sideways.

    Example:
        >>> env = CliffWalkingEnv()
        >>> _ = env.reset(seed=0)
        >>> env.step(UP)[:3]
        (24, -1, False)
    """

    metadata = {"render_modes": ["human", "rgb_array", "ansi"], "render_fps": 4}
    window_title = "CliffWalking"

    def __init__(self, render_mode: str | None = None, is_slippery: bool = False):
        self.shape = (4, 12)
        self.start_state_index = np.ravel_multi_index((3, 0), self.shape)
        self.nS = np.prod(self.shape)
        self.nA = 4
        self.is_slippery = is_slippery
        self._cliff = np.zeros(self.shape, dtype=bool)
        self._cliff[3, 1:-1] = True
        self.P = {
            s: {
                a: self._calculate_transition_prob(np.unravel_index(s, self.shape), a)
                for a in range(4)
            }
            for s in range(self.nS)
        }
        self.initial_state_distrib = np.zeros(self.nS)
        self.initial_state_distrib[self.start_state_index] = 1.0
        self.observation_space = spaces.Discrete(self.nS)
        self.action_space = spaces.Discrete(self.nA)
        self.render_mode = render_mode
        self.cell_size = (64, 64)
        self.window_size = (self.shape[1] * 64, self.shape[0] * 64)

    def _limit_coordinates(self, coord: np.ndarray) -> np.ndarray:
        """Clamp a ``(row, col)`` array to the grid, in place, and return it."""
        coord[0] = min(max(coord[0], 0), self.shape[0] - 1)
        coord[1] = min(max(coord[1], 0), self.shape[1] - 1)
        return coord

    def _calculate_transition_prob(
        self, current: Any, move: int
    ) -> list[tuple[float, Any, int, bool]]:
        """Return the outcomes of ``move`` from ``current`` ``(row, col)``, as ``P`` lists them."""
        moves = [(move - 1) % 4, move, (move + 1) % 4] if self.is_slippery else [move]
        goal = (self.shape[0] - 1, self.shape[1] - 1)
        outcomes = []
        for direction in moves:
            position = self._limit_coordinates(
                np.array(current) + np.array(POSITION_MAPPING[direction])
            )
            position = tuple(position.astype(int))
            if self._cliff[position]:
                outcomes.append((1 / len(moves), self.start_state_index, -100, False))
            else:
                state = np.ravel_multi_index(position, self.shape)
                outcomes.append((1 / len(moves), state, -1, position == goal))
        return outcomes

    def _render_text(self) -> str:
        with closing(StringIO()) as out:
            for s in range(self.nS):
                position = np.unravel_index(s, self.shape)
                if self.s == s:
                    cell = " x "
                elif position == (3, 11):
                    cell = " T "
                elif self._cliff[position]:
                    cell = " C "
                else:
                    cell = " o "
                if position[1] == 0:
                    cell = cell.lstrip()
                if position[1] == self.shape[1] - 1:
                    cell = cell.rstrip() + "\n"
                out.write(cell)
            out.write("\n")
            return out.getvalue()

    def draw(self, canvas: ToyCanvas) -> None:
        """Draw the grass, the cliff, the start, the goal and the walker."""
        draw_cliff_walking(canvas, self._cliff, int(self.s))


GRASS = (150, 196, 110)
GRASS_DARK = (126, 174, 92)
ROCK = (92, 80, 72)
ROCK_EDGE = (64, 52, 46)
CHASM = (36, 30, 40)


def draw_cliff_walking(canvas: ToyCanvas, cliff: np.ndarray, state: int, size: int = 64) -> None:
    """Draw a CliffWalking grid with ``cliff`` cells and the walker on ``state``."""
    nrow, ncol = cliff.shape
    canvas.clear(GRASS)
    for row in range(nrow):
        for col in range(ncol):
            x, y = col * size, row * size
            if cliff[row, col]:
                canvas.rect((x, y, size, size), CHASM)
                canvas.polygon(
                    [
                        (x, y),
                        (x + size, y),
                        (x + size * 0.8, y + size * 0.3),
                        (x + size * 0.2, y + size * 0.25),
                    ],
                    ROCK,
                )
                canvas.line((x, y + 2), (x + size, y + 2), ROCK_EDGE, 4)
                continue
            canvas.rect((x, y, size, size), GRASS if (row + col) % 2 else GRASS_DARK)
            for tuft in range(3):
                tx = x + 12 + tuft * 18 + (row * 7 + col * 3) % 6
                ty = y + 40 + (tuft * 11 + col) % 14
                canvas.line((tx, ty), (tx - 3, ty - 7), (96, 148, 70), 2)
                canvas.line((tx, ty), (tx + 3, ty - 7), (96, 148, 70), 2)
            canvas.rect((x, y, size, size), (120, 160, 90), 1)
    canvas.text("S", (8, (nrow - 1) * size + 8), 2, (40, 40, 40))
    canvas.flag(((ncol - 1) * size + 30, nrow * size - 10), 40, (220, 40, 40))
    canvas.text("G", ((ncol - 1) * size + 8, (nrow - 1) * size + 8), 2, (40, 40, 40))
    row, col = state // ncol, state % ncol
    canvas.walker((col * size + size / 2, row * size + size / 2), size * 0.7, (60, 90, 190))
