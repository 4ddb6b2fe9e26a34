"""Blackjack: beat the dealer by drawing cards closer to 21 without going over.

The rules are written once, on a hand's raw total (aces counted as 1) and whether it holds
an ace (:func:`hand_total`), so they apply to one hand of Python ints or to numpy arrays of
hands; the natively batched environment plays all its tables with the same functions.

Example:
    >>> import palaestra as gym
    >>> env = gym.make("Blackjack-v1")
    >>> env.reset(seed=3)
    ((7, 10, 0), {})
    >>> env.step(0)
    ((7, 10, 0), 1.0, True, False, {})
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra import spaces
from palaestra.core import Env
from palaestra.envs.toy_text._discrete import warn_no_render_mode
from palaestra.envs.toy_text._drawing import ToyCanvas, text_width

__all__ = [
    "BlackjackEnv",
    "cmp",
    "deck",
    "draw_card",
    "draw_hand",
    "usable_ace",
    "sum_hand",
    "is_bust",
    "score",
    "is_natural",
    "hand_total",
    "DEALER_STANDS_AT",
    "SCREEN_SIZE",
]

# Ace (1), two to ten, and the jack, queen and king, worth ten each.
deck = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
DEALER_STANDS_AT = 17
SCREEN_SIZE = (384, 376)


def cmp(a: Any, b: Any) -> Any:
    """``1.0`` if ``a > b``, ``-1.0`` if ``a < b``, else ``0.0`` (element-wise on arrays).

    Example:
        >>> cmp(20, 18), cmp(17, 19), cmp(np.array([3, 3]), np.array([2, 3])).tolist()
        (1.0, -1.0, [1.0, 0.0])
    """
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (a > b).astype(np.float64) - (a < b).astype(np.float64)
    return float(a > b) - float(a < b)


def hand_total(raw: Any, has_ace: Any) -> tuple[Any, Any]:
    """Return a hand's total and whether an ace counts as 11, from its raw total (aces as 1).

    Works on Python ints and bools or element-wise on numpy arrays.

    Example:
        >>> hand_total(7, True), hand_total(17, True)
        ((17, True), (17, False))
    """
    usable = has_ace & (raw <= 11)
    return raw + 10 * usable, usable


def draw_card(np_random: np.random.Generator) -> int:
    """Draw one card's value uniformly from :data:`deck` (an infinite deck)."""
    return int(np_random.choice(deck))


def draw_hand(np_random: np.random.Generator) -> list[int]:
    """Draw two cards."""
    return [draw_card(np_random), draw_card(np_random)]


def usable_ace(hand: list[int]) -> int:
    """1 if the hand holds an ace that can count as 11 without busting, else 0.

    Example:
        >>> usable_ace([1, 6]), usable_ace([1, 6, 9])
        (1, 0)
    """
    return int(hand_total(sum(hand), 1 in hand)[1])


def sum_hand(hand: list[int]) -> int:
    """Return the hand's total, an ace counted as 11 where that does not bust.

    Example:
        >>> sum_hand([1, 6]), sum_hand([1, 6, 9])
        (17, 16)
    """
    return int(hand_total(sum(hand), 1 in hand)[0])


def is_bust(hand: list[int]) -> bool:
    """Whether the hand's total exceeds 21."""
    return sum_hand(hand) > 21


def score(hand: list[int]) -> int:
    """Return the hand's total, or 0 if it is bust."""
    return 0 if is_bust(hand) else sum_hand(hand)


def is_natural(hand: list[int]) -> bool:
    """Whether the hand is an ace and a ten-valued card (a natural blackjack).

    Example:
        >>> is_natural([10, 1]), is_natural([5, 5, 1])
        (True, False)
    """
    return sorted(hand) == [1, 10]


def settle(
    player: Any, dealer: Any, player_natural: Any, dealer_natural: Any, natural: bool, sab: bool
) -> Any:
    """Return the reward of a stick: compare the scores, then apply the natural-blackjack rules.

    ``player`` and ``dealer`` are scores (0 when bust); works on scalars or arrays.

    Example:
        >>> settle(21, 21, True, False, natural=False, sab=True)
        1.0
        >>> settle(21, 18, True, False, natural=True, sab=False)
        1.5
    """
    reward = cmp(player, dealer)
    if not isinstance(reward, np.ndarray):
        # One hand: Python logic (a tenth of the cost of numpy's on scalars).
        if sab:
            return 1.0 if player_natural and not dealer_natural else reward
        return 1.5 if natural and player_natural and reward == 1.0 else reward
    if sab:
        bonus, value = np.logical_and(player_natural, np.logical_not(dealer_natural)), 1.0
    elif natural:
        bonus, value = np.logical_and(player_natural, reward == 1.0), 1.5
    else:
        return reward
    return np.where(bonus, value, reward)


class BlackjackEnv(Env):
    """One hand of Blackjack against a dealer who draws to 17, from an infinite deck.

    Observation: ``(player's total, dealer's face-up card, usable ace)``. Actions: 0 stick,
    1 hit. Hitting past 21 loses (-1); sticking lets the dealer play, then the higher score
    wins (+1), the lower loses (-1), a tie draws (0).

    Args:
        render_mode: ``None``, ``"human"`` or ``"rgb_array"``.
        natural: a winning natural blackjack pays 1.5.
        sab: Sutton and Barto's rules: a natural wins unless the dealer has one too
            (overrides ``natural``).

    Example:
        >>> env = BlackjackEnv(sab=True)
        >>> observation, info = env.reset(seed=0)
        >>> env.player, env.dealer
        ([7, 4], [10, 9])
    """

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 4}

    def __init__(self, render_mode: str | None = None, natural: bool = False, sab: bool = False):
        self.action_space = spaces.Discrete(2)
        self.observation_space = spaces.Tuple(
            (spaces.Discrete(32), spaces.Discrete(11), spaces.Discrete(2))
        )
        self.natural = natural
        self.sab = sab
        self.render_mode = render_mode
        self._canvas: ToyCanvas | None = None

    def step(self, action: Any) -> tuple[tuple[int, int, int], float, bool, bool, dict[str, Any]]:
        """Hit (1) or stick (0).

        Raises:
            AssertionError: for an action outside ``Discrete(2)``.
        """
        assert self.action_space.contains(action), (
            f"{action!r} ({type(action)}) invalid: expected 0 (stick) or 1 (hit)"
        )
        if action:
            self.player.append(draw_card(self.np_random))
            terminated = is_bust(self.player)
            reward = -1.0 if terminated else 0.0
        else:
            terminated = True
            while sum_hand(self.dealer) < DEALER_STANDS_AT:
                self.dealer.append(draw_card(self.np_random))
            reward = settle(
                score(self.player),
                score(self.dealer),
                is_natural(self.player),
                is_natural(self.dealer),
                self.natural,
                self.sab,
            )
        if self.render_mode == "human":
            self.render()
        return self._get_obs(), reward, terminated, False, {}

    def _get_obs(self) -> tuple[int, int, int]:
        total, usable = hand_total(sum(self.player), 1 in self.player)
        return int(total), self.dealer[0], int(usable)

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[tuple[int, int, int], dict[str, Any]]:
        """Deal two cards to the dealer and two to the player.

        Args:
            seed: seeds ``np_random``.
            options: unused.
        """
        super().reset(seed=seed)
        self.dealer = draw_hand(self.np_random)
        self.player = draw_hand(self.np_random)
        self.dealer_top_card_suit = self.np_random.choice(["C", "D", "H", "S"])
        face = self.dealer[0]
        if face == 1:
            self.dealer_top_card_value_str = "A"
        elif face == 10:
            self.dealer_top_card_value_str = self.np_random.choice(["J", "Q", "K"])
        else:
            self.dealer_top_card_value_str = str(face)
        if self.render_mode == "human":
            self.render()
        return self._get_obs(), {}

    def render(self) -> np.ndarray | None:
        """Draw the table: an RGB frame for ``"rgb_array"``; ``"human"`` shows it in a window.

        Raises:
            palaestra.error.DependencyNotInstalled: if pygame is not installed.
        """
        if self.render_mode is None:
            warn_no_render_mode(self)
            return None
        if self._canvas is None:
            self._canvas = ToyCanvas(
                *SCREEN_SIZE, self.render_mode, self.metadata["render_fps"], "Blackjack"
            )
        total, face, usable = self._get_obs()
        draw_table(
            self._canvas,
            total,
            face,
            usable,
            f"{self.dealer_top_card_value_str}{self.dealer_top_card_suit}",
        )
        return self._canvas.finish()

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_canvas"] = None
        return state

    def close(self) -> None:
        """Close the render window, if one is open."""
        if self._canvas is not None:
            self._canvas.close()
            self._canvas = None


FELT = (34, 110, 62)
FELT_LINE = (60, 140, 86)
CARD = (250, 248, 240)
INK = (245, 240, 220)
RED_SUIT = (200, 30, 40)
BLACK_SUIT = (20, 20, 20)


def draw_suit(canvas: ToyCanvas, suit: str, center: tuple[float, float], size: float) -> None:
    """Draw a suit symbol (``"C"``, ``"D"``, ``"H"`` or ``"S"``) of height ``size``."""
    x, y = center
    r = size / 4
    color = RED_SUIT if suit in ("D", "H") else BLACK_SUIT
    if suit == "D":
        canvas.polygon([(x, y - 2 * r), (x + 1.4 * r, y), (x, y + 2 * r), (x - 1.4 * r, y)], color)
    elif suit == "H":
        canvas.circle((x - r, y - 0.6 * r), r, color)
        canvas.circle((x + r, y - 0.6 * r), r, color)
        canvas.polygon([(x - 2 * r, y - 0.4 * r), (x + 2 * r, y - 0.4 * r), (x, y + 2 * r)], color)
    elif suit == "S":
        canvas.circle((x - r, y + 0.3 * r), r, color)
        canvas.circle((x + r, y + 0.3 * r), r, color)
        canvas.polygon([(x - 2 * r, y + 0.1 * r), (x + 2 * r, y + 0.1 * r), (x, y - 2 * r)], color)
        canvas.polygon(
            [(x, y + 0.5 * r), (x + 0.8 * r, y + 2 * r), (x - 0.8 * r, y + 2 * r)], color
        )
    else:
        canvas.circle((x, y - r), r, color)
        canvas.circle((x - r, y + 0.4 * r), r, color)
        canvas.circle((x + r, y + 0.4 * r), r, color)
        canvas.polygon([(x, y), (x + 0.8 * r, y + 2 * r), (x - 0.8 * r, y + 2 * r)], color)


def draw_table(
    surface: ToyCanvas,
    player_sum: int,
    dealer_card_value: int,
    usable_ace: int,
    dealer_card: str,
) -> None:
    """Draw the Blackjack table on ``surface``: the dealer's cards and the player's total.

    Args:
        surface: the canvas to draw on.
        player_sum: the player's total.
        dealer_card_value: the value of the dealer's face-up card.
        usable_ace: whether the player holds a usable ace.
        dealer_card: the face-up card as rank and suit, e.g. ``"KS"`` or ``"10H"``.
    """
    canvas, dealer_value, usable = surface, dealer_card_value, usable_ace
    rank, suit = dealer_card[:-1], dealer_card[-1]
    canvas.clear(FELT)
    canvas.rect((12, 12, SCREEN_SIZE[0] - 24, SCREEN_SIZE[1] - 24), FELT_LINE, 3, radius=16)
    canvas.text("DEALER", (40, 32), 3, INK)
    canvas.text(str(dealer_value), (40 + text_width("DEALER", 3) + 12, 32), 3, INK)
    card = (96, 72, 80, 112)
    canvas.rect(card, CARD, radius=8)
    canvas.rect(card, (120, 120, 120), 2, radius=8)
    ink = RED_SUIT if suit in ("D", "H") else BLACK_SUIT
    canvas.text(rank, (card[0] + 8, card[1] + 8), 2, ink)
    draw_suit(canvas, suit, (card[0] + card[2] / 2, card[1] + card[3] / 2 + 10), 36)
    back = (208, 72, 80, 112)
    canvas.rect(back, (150, 30, 40), radius=8)
    canvas.rect(
        (back[0] + 8, back[1] + 8, back[2] - 16, back[3] - 16), (240, 200, 200), 2, radius=4
    )
    for row in range(4):
        for col in range(3):
            x, y = back[0] + 20 + col * 20, back[1] + 20 + row * 24
            canvas.polygon([(x, y - 8), (x + 6, y), (x, y + 8), (x - 6, y)], (200, 90, 100))
    canvas.text("PLAYER", (40, 208), 3, INK)
    digits = str(int(player_sum))
    canvas.text(digits, ((SCREEN_SIZE[0] - text_width(digits, 8)) // 2, 248), 8, INK)
    if usable:
        label = "USABLE ACE"
        canvas.text(label, ((SCREEN_SIZE[0] - text_width(label, 3)) // 2, 328), 3, INK)
