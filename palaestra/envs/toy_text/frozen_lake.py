"""FrozenLake: walk across a frozen lake from the start to the goal without falling in a hole.

Example:
    >>> import palaestra as gym
    >>> env = gym.make("FrozenLake-v1", is_slippery=False)
    >>> env.reset(seed=0)
    (0, {'prob': 1})
    >>> env.step(2)
    (1, 0, False, False, {'prob': 1.0})
"""

from __future__ import annotations

from contextlib import closing
from io import StringIO
from typing import Any

import numpy as np

from palaestra import spaces
from palaestra.envs.toy_text._discrete import DiscreteToyTextEnv
from palaestra.envs.toy_text._drawing import ToyCanvas
from palaestra.utils import colorize, seeding

__all__ = [
    "FrozenLakeEnv",
    "generate_random_map",
    "is_valid",
    "MAPS",
    "LEFT",
    "DOWN",
    "RIGHT",
    "UP",
]

LEFT, DOWN, RIGHT, UP = 0, 1, 2, 3

MAPS: dict[str, list[str]] = {
    "4x4": ["SFFF", "FHFH", "FFFH", "HFFG"],
    "8x8": [
        "SFFFFFFF",
        "FFFFFFFF",
        "FFFHFFFF",
        "FFFFFHFF",
        "FFFHFFFF",
        "FHHFFFHF",
        "FHFFHFHF",
        "FFFHFFFG",
    ],
}

_MOVES = {LEFT: (0, -1), DOWN: (1, 0), RIGHT: (0, 1), UP: (-1, 0)}


def is_valid(board: Any, max_size: int) -> bool:
    """Whether a goal ``"G"`` is reachable from the top-left tile without crossing a hole.

    Args:
        board: rows of tile letters (strings or sequences of one-letter strings).
        max_size: the board's side length.

    Example:
        >>> is_valid(["SF", "HG"], 2), is_valid(["SH", "HG"], 2)
        (True, False)
    """
    seen: set[tuple[int, int]] = set()
    frontier = [(0, 0)]
    while frontier:
        row, col = frontier.pop()
        if (row, col) in seen:
            continue
        seen.add((row, col))
        for d_row, d_col in ((1, 0), (0, 1), (-1, 0), (0, -1)):
            r, c = row + d_row, col + d_col
            if not (0 <= r < max_size and 0 <= c < max_size):
                continue
            if board[r][c] == "G":
                return True
            if board[r][c] != "H":
                frontier.append((r, c))
    return False


def generate_random_map(size: int = 8, p: float = 0.8, seed: int | None = None) -> list[str]:
    """Draw a random ``size`` x ``size`` map with a path from the start to the goal.

    Tiles are frozen with probability ``p`` and holes otherwise; maps are redrawn until the
    goal is reachable. The same ``seed`` gives the same map as Gymnasium's function.

    Args:
        size: the side length.
        p: the probability that a tile is frozen (capped at 1).
        seed: seeds the draw; ``None`` draws from OS entropy.

    Example:
        >>> generate_random_map(size=3, seed=1)
        ['SFF', 'FFF', 'FFG']
    """
    rng, _ = seeding.np_random(seed)
    p = min(1, p)
    while True:
        board = rng.choice(["F", "H"], (size, size), p=[p, 1 - p])
        board[0][0] = "S"
        board[-1][-1] = "G"
        if is_valid(board, size):
            return ["".join(row) for row in board]


class FrozenLakeEnv(DiscreteToyTextEnv):
    """Cross a frozen lake (``F`` tiles) from the start ``S`` to the goal ``G``; holes ``H`` end it.

    Observation: ``row * ncols + col``. Actions: 0 left, 1 down, 2 right, 3 up. On a
    slippery lake the agent moves in the intended direction with probability
    ``success_rate`` and in each perpendicular direction with half the rest. Reaching the
    goal, a hole or a frozen tile (the start included) pays ``reward_schedule[0]``, ``[1]``
    or ``[2]``; the goal and holes terminate the episode. Info: ``{"prob": p}``, the
    probability of the outcome.

    Args:
        render_mode: ``None``, ``"human"``, ``"ansi"`` or ``"rgb_array"``.
        desc: the map as rows of letters; ``None`` uses ``map_name`` (both ``None``: a
            random 8x8 map).
        map_name: ``"4x4"`` or ``"8x8"``.
        is_slippery: whether moves can slip sideways.
        success_rate: the probability of moving as intended on a slippery lake.
        reward_schedule: rewards for reaching the goal, a hole, a frozen tile.

    Raises:
        KeyError: for an unknown ``map_name``.

    Example:
        >>> env = FrozenLakeEnv(desc=["SF", "HG"], is_slippery=False)
        >>> _ = env.reset(seed=0)
        >>> env.step(RIGHT)[:3], env.step(DOWN)[:3]
        ((1, 0, False), (3, 1, True))
    """

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 4}
    window_title = "Frozen Lake"

    def __init__(
        self,
        render_mode: str | None = None,
        desc: list[str] | None = None,
        map_name: str = "4x4",
        is_slippery: bool = True,
        success_rate: float = 1.0 / 3.0,
        reward_schedule: tuple[Any, Any, Any] = (1, 0, 0),
    ):
        if desc is None and map_name is None:
            desc = generate_random_map()
        elif desc is None:
            desc = MAPS[map_name]
        self.desc = np.asarray(desc, dtype="c")
        self.nrow, self.ncol = nrow, ncol = self.desc.shape
        self.reward_range = (min(reward_schedule), max(reward_schedule))
        num_states, num_actions = nrow * ncol, 4
        start = (self.desc == b"S").astype(np.float64).ravel()
        self.initial_state_distrib = start / start.sum()
        self.P = self._build_table(is_slippery, success_rate, reward_schedule)
        self.observation_space = spaces.Discrete(num_states)
        self.action_space = spaces.Discrete(num_actions)
        self.render_mode = render_mode
        self.window_size = (min(64 * ncol, 512), min(64 * nrow, 512))
        self.cell_size = (self.window_size[0] // ncol, self.window_size[1] // nrow)

    def _build_table(
        self, is_slippery: bool, success_rate: float, reward_schedule: tuple[Any, Any, Any]
    ) -> dict[int, dict[int, list[tuple[float, int, Any, bool]]]]:
        nrow, ncol = self.nrow, self.ncol
        slip = (1.0 - success_rate) / 2.0

        def arrive(row: int, col: int, action: int) -> tuple[int, Any, bool]:
            d_row, d_col = _MOVES[action]
            row = min(max(row + d_row, 0), nrow - 1)
            col = min(max(col + d_col, 0), ncol - 1)
            letter = bytes(self.desc[row, col])
            # The start counts as frozen, as does any letter other than G and H.
            reward = reward_schedule[b"GHF".index(letter) if letter in (b"G", b"H") else 2]
            return row * ncol + col, reward, letter in (b"G", b"H")

        table: dict[int, dict[int, list[tuple[float, int, Any, bool]]]] = {}
        for row in range(nrow):
            for col in range(ncol):
                state = row * ncol + col
                table[state] = {}
                ended = bytes(self.desc[row, col]) in (b"G", b"H")
                for action in range(4):
                    if ended:
                        outcomes = [(1.0, state, 0, True)]
                    elif is_slippery:
                        outcomes = [
                            (success_rate if b == action else slip, *arrive(row, col, b))
                            for b in ((action - 1) % 4, action, (action + 1) % 4)
                        ]
                    else:
                        outcomes = [(1.0, *arrive(row, col, action))]
                    table[state][action] = outcomes
        return table

    def _render_text(self) -> str:
        row, col = int(self.s) // self.ncol, int(self.s) % self.ncol
        lines = [[letter.decode("utf-8") for letter in line] for line in self.desc.tolist()]
        lines[row][col] = colorize(lines[row][col], "red", highlight=True)
        with closing(StringIO()) as out:
            if self.lastaction is not None:
                out.write(f"  ({['Left', 'Down', 'Right', 'Up'][self.lastaction]})\n")
            else:
                out.write("\n")
            out.write("\n".join("".join(line) for line in lines) + "\n")
            return out.getvalue()

    def draw(self, canvas: ToyCanvas) -> None:
        """Draw the lake, its holes, the start, the goal flag and the walker."""
        draw_frozen_lake(canvas, self.desc, int(self.s), self.cell_size)


ICE = (214, 236, 250)
ICE_SHINE = (240, 250, 255)
ICE_CRACK = (160, 196, 226)
WATER = (24, 64, 120)
WATER_RIM = (120, 160, 200)
GRID = (180, 200, 230)


def draw_frozen_lake(
    canvas: ToyCanvas, desc: np.ndarray, state: int, cell: tuple[int, int]
) -> None:
    """Draw a FrozenLake map ``desc`` with the walker on ``state`` (a hole swallows it)."""
    width, height = cell
    nrow, ncol = desc.shape
    canvas.clear(ICE)
    for row in range(nrow):
        for col in range(ncol):
            x, y = col * width, row * height
            tile = bytes(desc[row, col])
            if tile == b"H":
                canvas.rect((x, y, width, height), WATER_RIM)
                canvas.ellipse(
                    (x + width * 0.08, y + height * 0.12, width * 0.84, height * 0.76), WATER
                )
            else:
                canvas.rect((x, y, width, height), ICE)
                canvas.line(
                    (x + width * 0.15, y + height * 0.2),
                    (x + width * 0.4, y + height * 0.12),
                    ICE_SHINE,
                    2,
                )
                if tile == b"F" and (col * 3 + row * 5) % 7 < 2:
                    canvas.line(
                        (x + width * 0.2, y + height * 0.7),
                        (x + width * 0.5, y + height * 0.55),
                        ICE_CRACK,
                        2,
                    )
                    canvas.line(
                        (x + width * 0.5, y + height * 0.55),
                        (x + width * 0.75, y + height * 0.75),
                        ICE_CRACK,
                        2,
                    )
                elif tile == b"S":
                    canvas.text("S", (x + 4, y + 4), max(1, width // 32), (60, 90, 140))
                elif tile == b"G":
                    canvas.flag((x + width * 0.45, y + height * 0.85), height * 0.6, (220, 40, 40))
                    canvas.text("G", (x + 4, y + 4), max(1, width // 32), (60, 90, 140))
            canvas.rect((x, y, width, height), GRID, 1)
    row, col = state // ncol, state % ncol
    if bytes(desc[row, col]) != b"H":
        center = (col * width + width / 2, row * height + height / 2)
        canvas.walker(center, min(width, height) * 0.7, (200, 60, 50))
