"""Taxi: pick a passenger up at one of four stands and drop them at their destination.

Example:
    >>> import palaestra as gym
    >>> env = gym.make("Taxi-v4")
    >>> state, info = env.reset(seed=0)
    >>> state, info["action_mask"].tolist()
    (314, [1, 1, 0, 0, 0, 0])
"""

from __future__ import annotations

from contextlib import closing
from io import StringIO
from typing import Any

import numpy as np

from palaestra import spaces
from palaestra.envs.toy_text._discrete import DiscreteToyTextEnv
from palaestra.envs.toy_text._drawing import ToyCanvas
from palaestra.envs.toy_text.utils import first_exceeding
from palaestra.utils import colorize

__all__ = ["TaxiEnv", "MAP", "WINDOW_SIZE", "passenger_may_change", "with_new_destination"]

MAP = [
    "+---------+",
    "|R: | : :G|",
    "| : | : : |",
    "| : : : : |",
    "| | : | : |",
    "|Y| : |B: |",
    "+---------+",
]
WINDOW_SIZE = (536, 456)

# Moves of the navigation actions: (forward, left, right) for south, north, east, west.
_RAINY_MOVES = {
    0: ((1, 0), (0, 1), (0, -1)),
    1: ((-1, 0), (0, -1), (0, 1)),
    2: ((0, 1), (-1, 0), (1, 0)),
    3: ((0, -1), (1, 0), (-1, 0)),
}


class TaxiEnv(DiscreteToyTextEnv):
    """Drive a taxi on a 5x5 grid with walls; fetch the passenger and deliver them.

    Observation: ``((taxi_row * 5 + taxi_col) * 5 + passenger_location) * 4 + destination``,
    where the passenger location is a stand (0 R, 1 G, 2 Y, 3 B) or 4 (in the taxi).
    Actions: 0 south, 1 north, 2 east, 3 west, 4 pick up, 5 drop off. Rewards: -1 per step,
    +20 for delivering, -10 for an illegal pick-up or drop-off; delivery terminates.
    Info: ``{"prob": p, "action_mask": int8 mask of the actions that change the state}``.

    Args:
        render_mode: ``None``, ``"human"``, ``"ansi"`` or ``"rgb_array"``.
        is_rainy: moves go as intended with probability ``rainy_probability`` and slide to
            either side with half the rest.
        fickle_passenger: with probability ``fickle_probability`` per episode, the
            passenger changes destination once, on the first move after boarding.
        rainy_probability: see ``is_rainy``.
        fickle_probability: see ``fickle_passenger``.

    Example:
        >>> env = TaxiEnv()
        >>> env.decode(env.encode(3, 1, 2, 0))
        (3, 1, 2, 0)
    """

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 4}
    window_title = "Taxi"
    reset_probability = 1.0

    def __init__(
        self,
        render_mode: str | None = None,
        is_rainy: bool = False,
        fickle_passenger: bool = False,
        rainy_probability: float = 0.8,
        fickle_probability: float = 0.3,
    ):
        self.desc = np.asarray(MAP, dtype="c")
        self.locs = [(0, 0), (0, 4), (4, 0), (4, 3)]
        self.locs_colors = [(255, 0, 0), (0, 255, 0), (255, 255, 0), (0, 0, 255)]
        self.rainy_probability = rainy_probability
        self._rainy_lateral_probability = (1.0 - rainy_probability) / 2.0
        self.fickle_probability = fickle_probability
        self.max_row = self.max_col = 4
        num_states, num_actions = 500, 6
        self.initial_state_distrib = np.zeros(num_states)
        self.P: dict[int, dict[int, list[tuple[float, int, int, bool]]]] = {}
        for row in range(5):
            for col in range(5):
                for passenger in range(5):
                    for destination in range(4):
                        state = self.encode(row, col, passenger, destination)
                        if passenger < 4 and passenger != destination:
                            self.initial_state_distrib[state] += 1
                        self.P[state] = {
                            action: self._outcomes(
                                row, col, passenger, destination, action, is_rainy
                            )
                            for action in range(num_actions)
                        }
        self.initial_state_distrib /= self.initial_state_distrib.sum()
        self.action_space = spaces.Discrete(num_actions)
        self.observation_space = spaces.Discrete(num_states)
        self.render_mode = render_mode
        self.fickle_passenger = fickle_passenger
        self.fickle_step = False
        self.lastaction: Any = None
        self.window_size = WINDOW_SIZE
        self.taxi_orientation = 0
        self.cell_size = CELL

    # The table ----------------------------------------------------------------------------

    def _open_east(self, row: int, col: int) -> bool:
        return self.desc[1 + row, 2 * col + 2] == b":"

    def _open_west(self, row: int, col: int) -> bool:
        return self.desc[1 + row, 2 * col] == b":"

    def _pick_up(self, taxi: tuple[int, int], passenger: int) -> tuple[int, int]:
        if passenger < 4 and taxi == self.locs[passenger]:
            return 4, -1
        return passenger, -10

    def _drop_off(
        self, taxi: tuple[int, int], passenger: int, destination: int
    ) -> tuple[int, int, bool]:
        if passenger == 4 and taxi == self.locs[destination]:
            return destination, 20, True
        if passenger == 4 and taxi in self.locs:
            return self.locs.index(taxi), -1, False
        return passenger, -10, False

    def _slide(self, row: int, col: int, move: tuple[int, int]) -> tuple[int, int]:
        """Where a sideways slide ``move`` from ``(row, col)`` ends (walls block east/west)."""
        d_row, d_col = move
        new_row = max(0, min(row + d_row, self.max_row))
        new_col = max(0, min(col + d_col, self.max_col))
        if d_col == 1 and self.desc[1 + new_row, 2 * new_col] != b":":
            return row, col
        if d_col == -1 and self.desc[1 + new_row, 2 * new_col + 2] != b":":
            return row, col
        return new_row, new_col

    def _outcomes(
        self, row: int, col: int, passenger: int, destination: int, action: int, is_rainy: bool
    ) -> list[tuple[float, int, int, bool]]:
        taxi = (row, col)
        if action == 4:
            passenger, reward = self._pick_up(taxi, passenger)
            return [(1.0, self.encode(row, col, passenger, destination), reward, False)]
        if action == 5:
            passenger, reward, done = self._drop_off(taxi, passenger, destination)
            return [(1.0, self.encode(row, col, passenger, destination), reward, done)]
        if not is_rainy:
            new_row, new_col = row, col
            if action == 0:
                new_row = min(row + 1, self.max_row)
            elif action == 1:
                new_row = max(row - 1, 0)
            elif action == 2 and self._open_east(row, col):
                new_col = min(col + 1, self.max_col)
            elif action == 3 and self._open_west(row, col):
                new_col = max(col - 1, 0)
            return [(1.0, self.encode(new_row, new_col, passenger, destination), -1, False)]
        ahead = left = right = taxi
        can_move = (
            (action == 0 and row < self.max_row)
            or (action == 1 and row > 0)
            or (action == 2 and self._open_east(row, col))
            or (action == 3 and self._open_west(row, col))
        )
        if can_move:
            forward, to_left, to_right = _RAINY_MOVES[action]
            ahead = (
                max(0, min(row + forward[0], self.max_row)),
                max(0, min(col + forward[1], self.max_col)),
            )
            left = self._slide(row, col, to_left)
            right = self._slide(row, col, to_right)
        lateral = self._rainy_lateral_probability
        return [
            (self.rainy_probability, self.encode(*ahead, passenger, destination), -1, False),
            (lateral, self.encode(*left, passenger, destination), -1, False),
            (lateral, self.encode(*right, passenger, destination), -1, False),
        ]

    def encode(self, taxi_row: int, taxi_col: int, pass_loc: int, dest_idx: int) -> int:
        """Return the state number of a taxi position, passenger location and destination."""
        return ((taxi_row * 5 + taxi_col) * 5 + pass_loc) * 4 + dest_idx

    def decode(self, i: int) -> tuple[int, int, int, int]:
        """Return the ``(taxi_row, taxi_col, pass_loc, dest_idx)`` of state ``i``.

        Raises:
            AssertionError: if ``i`` is not a state (0 to 499).
        """
        destination, i = i % 4, i // 4
        passenger, i = i % 5, i // 5
        col, row = i % 5, i // 5
        assert 0 <= row < 5
        return row, col, passenger, destination

    def get_surf_loc(self, map_loc: tuple[int, int]) -> tuple[int, int]:
        """Return the top-left pixel of grid cell ``map_loc`` (row, col) in the frame.

        Example:
            >>> TaxiEnv().get_surf_loc((1, 2))
            (224, 184)
        """
        return GRID_ORIGIN[0] + map_loc[1] * CELL[0], GRID_ORIGIN[1] + map_loc[0] * CELL[1]

    def action_mask(self, state: int) -> np.ndarray:
        """Return the int8 mask of the actions that change ``state`` (1: has an effect)."""
        mask = np.zeros(6, dtype=np.int8)
        row, col, passenger, _ = self.decode(state)
        mask[0] = row < 4
        mask[1] = row > 0
        mask[2] = col < 4 and self._open_east(row, col)
        mask[3] = col > 0 and self._open_west(row, col)
        mask[4] = passenger < 4 and (row, col) == self.locs[passenger]
        mask[5] = passenger == 4 and (row, col) in self.locs
        return mask

    # The API --------------------------------------------------------------------------------

    def step(self, a: Any) -> tuple[int, Any, bool, bool, dict[str, Any]]:
        """Take action ``a``; a fickle passenger may change destination on the way.

        Raises:
            KeyError: for an action that is not in the table (or before ``reset``).
        """
        previous = self.s
        transitions = self.P[previous][a]
        p, s, r, t = transitions[first_exceeding(transitions, self.np_random.random())]
        self.lastaction = a
        if self.fickle_passenger and self.fickle_step and passenger_may_change(previous, s):
            self.fickle_step = False
            # np_random.choice of the three other destinations draws integers(3).
            s = with_new_destination(s, previous % 4, int(self.np_random.integers(3)))
        self.s = s
        if self.render_mode == "human":
            self.render()
        return int(s), r, t, False, {"prob": p, "action_mask": self.action_mask(s)}

    def _start_episode(self) -> None:
        self.fickle_step = bool(
            self.fickle_passenger and self.np_random.random() < self.fickle_probability
        )
        self.taxi_orientation = 0

    def _reset_info(self) -> dict[str, Any]:
        return {"prob": 1.0, "action_mask": self.action_mask(self.s)}

    def _render_text(self) -> str:
        out = [[c.decode("utf-8") for c in line] for line in self.desc.tolist()]
        row, col, passenger, destination = self.decode(self.s)
        taxi = (1 + row, 2 * col + 1)
        if passenger < 4:
            out[taxi[0]][taxi[1]] = colorize(out[taxi[0]][taxi[1]], "yellow", highlight=True)
            p_row, p_col = self.locs[passenger]
            out[1 + p_row][2 * p_col + 1] = colorize(
                out[1 + p_row][2 * p_col + 1], "blue", bold=True
            )
        else:
            cell = out[taxi[0]][taxi[1]]
            out[taxi[0]][taxi[1]] = colorize("_" if cell == " " else cell, "green", highlight=True)
        d_row, d_col = self.locs[destination]
        out[1 + d_row][2 * d_col + 1] = colorize(out[1 + d_row][2 * d_col + 1], "magenta")
        with closing(StringIO()) as text:
            text.write("\n".join("".join(line) for line in out) + "\n")
            if self.lastaction is not None:
                names = ["South", "North", "East", "West", "Pickup", "Dropoff"]
                text.write(f"  ({names[self.lastaction]})\n")
            else:
                text.write("\n")
            return text.getvalue()

    def draw(self, canvas: ToyCanvas) -> None:
        """Draw the streets, walls, stands, the passenger, the destination and the taxi."""
        if self.lastaction in (0, 1, 2, 3):
            self.taxi_orientation = self.lastaction
        draw_taxi(canvas, self, self.decode(self.s), self.taxi_orientation)


ROAD = (70, 74, 82)
CURB = (236, 236, 228)
WALL = (150, 90, 60)
GRID_ORIGIN = (48, 128)
CELL = (88, 56)


# The fickle passenger's rule, on states ((row * 5 + col) * 5 + passenger) * 4 + destination:
# Python ints for the single env, arrays (one element per sub-env) for the batch.


def passenger_may_change(previous: Any, following: Any) -> Any:
    """Whether a fickle passenger changes destination on this step: riding, and the taxi moved.

    Example:
        >>> env = TaxiEnv()
        >>> riding, moved = env.encode(2, 2, 4, 0), env.encode(3, 2, 4, 0)
        >>> passenger_may_change(riding, moved), passenger_may_change(riding, riding)
        (True, False)
    """
    return ((previous // 4) % 5 == 4) & (following // 20 != previous // 20)


def with_new_destination(following: Any, old_destination: Any, pick: Any) -> Any:
    """Return ``following`` with the ``pick``-th (of 0, 1, 2) destination other than the old one.

    Example:
        >>> env = TaxiEnv()
        >>> list(env.decode(with_new_destination(env.encode(3, 2, 4, 0), 0, 2)))
        [3, 2, 4, 3]
    """
    return following - following % 4 + pick + (pick >= old_destination)


def draw_taxi(
    canvas: ToyCanvas, env: TaxiEnv, state: tuple[int, int, int, int], heading: int
) -> None:
    """Draw the Taxi scene for a decoded ``state`` with the taxi facing ``heading``."""
    row, col, passenger, destination = state
    ox, oy = GRID_ORIGIN
    width, height = CELL
    canvas.clear(CURB)
    canvas.text("TAXI", (ox, 40), 6, (230, 170, 20))
    canvas.rect((ox - 8, oy - 8, 5 * width + 16, 5 * height + 16), (40, 40, 44))
    canvas.rect((ox, oy, 5 * width, 5 * height), ROAD)
    for r in range(5):
        for c in range(5):
            x, y = ox + c * width, oy + r * height
            canvas.line(
                (x + width / 2 - 8, y + height / 2),
                (x + width / 2 + 8, y + height / 2),
                (200, 200, 190),
                2,
            )
    for index, (r, c) in enumerate(env.locs):
        color = env.locs_colors[index]
        canvas.rect((ox + c * width + 4, oy + r * height + 4, width - 8, height - 8), color, 4)
        canvas.text("RGYB"[index], (ox + c * width + 8, oy + r * height + 8), 2, color)
    for r in range(5):
        for c in range(4):
            if env.desc[1 + r, 2 * c + 2] == b"|":
                x = ox + (c + 1) * width
                canvas.rect((x - 4, oy + r * height, 8, height), WALL)
    d_row, d_col = env.locs[destination]
    dx, dy = ox + d_col * width + width / 2, oy + d_row * height + height / 2
    canvas.polygon(
        [
            (dx - 10, dy - 10),
            (dx + 10, dy - 10),
            (dx + 10, dy + 4),
            (dx, dy + 14),
            (dx - 10, dy + 4),
        ],
        (200, 40, 160),
    )
    if passenger < 4:
        p_row, p_col = env.locs[passenger]
        canvas.walker(
            (ox + p_col * width + width * 0.72, oy + p_row * height + height / 2),
            34,
            (40, 120, 200),
        )
    _draw_car(
        canvas,
        (ox + col * width + width / 2, oy + row * height + height / 2),
        heading,
        passenger == 4,
    )


def _draw_car(canvas: ToyCanvas, center: tuple[float, float], heading: int, full: bool) -> None:
    cx, cy = center
    horizontal = heading in (2, 3)
    length, breadth = (60, 34) if horizontal else (30, 46)
    body = (cx - length / 2, cy - breadth / 2, length, breadth)
    tire = (20, 20, 20)
    if horizontal:
        for wx in (cx - length / 2 + 8, cx + length / 2 - 18):
            canvas.rect((wx, cy - breadth / 2 - 4, 10, 6), tire)
            canvas.rect((wx, cy + breadth / 2 - 2, 10, 6), tire)
    else:
        for wy in (cy - breadth / 2 + 6, cy + breadth / 2 - 16):
            canvas.rect((cx - length / 2 - 4, wy, 6, 10), tire)
            canvas.rect((cx + length / 2 - 2, wy, 6, 10), tire)
    canvas.rect(body, (245, 190, 30), radius=6)
    glass = (150, 200, 230)
    if heading == 2:
        canvas.rect((cx + length / 2 - 20, cy - breadth / 2 + 5, 12, breadth - 10), glass)
    elif heading == 3:
        canvas.rect((cx - length / 2 + 8, cy - breadth / 2 + 5, 12, breadth - 10), glass)
    elif heading == 0:
        canvas.rect((cx - length / 2 + 5, cy + breadth / 2 - 18, length - 10, 10), glass)
    else:
        canvas.rect((cx - length / 2 + 5, cy - breadth / 2 + 8, length - 10, 10), glass)
    canvas.rect((cx - 7, cy - 5, 14, 10), (40, 120, 200) if full else (30, 30, 30), radius=2)
