"""Blackjack: beat the dealer by drawing cards closer to 21 without going over.

The rules and the dealing are written once, as functions of :class:`Hand` summaries (a hand's
raw total with aces counted as 1, whether it holds an ace, its card count) and of a source of
random integers (:class:`Draws`): :func:`deal` deals a table and :func:`play` plays one step
(hit, or stick and let the dealer play out). Every value is either a Python scalar (one table)
or a numpy array (one element per table), so the single environment and the natively batched
one (row by row or on whole columns) run the same functions and draw the same numbers.

Example:
    >>> import palaestra as gym
    >>> env = gym.make("Blackjack-v1")
    >>> env.reset(seed=3)
    ((7, 10, 0), {})
    >>> env.step(0)
    ((7, 10, 0), 1.0, True, False, {})
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol

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
    "settle",
    "Hand",
    "Deal",
    "Draws",
    "GeneratorDraws",
    "deal",
    "play",
    "face_rank",
    "DEALER_STANDS_AT",
    "SCREEN_SIZE",
]

# Ace (1), two to ten, and the jack, queen and king, worth ten each.
deck = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
_DECK = np.array(deck, dtype=np.int64)
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


def face_rank(face: int, rank: int) -> str:
    """Return the face-up card's rank: ``"A"``, ``"2"``-``"9"``, or a ten's ``"JQK"[rank]``.

    Example:
        >>> face_rank(1, 0), face_rank(7, 0), face_rank(10, 2)
        ('A', '7', 'K')
    """
    if face == 1:
        return "A"
    return "JQK"[rank] if face == 10 else str(face)


# One table or many ----------------------------------------------------------------------------


def _select(condition: Any, if_true: Any, if_false: Any) -> Any:
    """``if_true`` where ``condition`` holds, else ``if_false`` (a scalar or element-wise)."""
    if isinstance(condition, np.ndarray):
        return np.where(condition, if_true, if_false)
    return if_true if condition else if_false


def _any(condition: Any) -> bool:
    """Whether ``condition`` holds for one table at least."""
    return bool(condition.any()) if isinstance(condition, np.ndarray) else bool(condition)


def _card_value(index: Any) -> Any:
    """Return the value of the card at ``index`` in :data:`deck` (an int for an int)."""
    return deck[index] if isinstance(index, int) else _DECK[index]


class Hand(NamedTuple):
    """What the rules read of a hand: raw total (aces as 1), whether it holds an ace, cards.

    Each field is a Python scalar (one hand) or an array (one element per hand).

    Example:
        >>> Hand.of([1, 6])
        Hand(raw=7, ace=True, cards=2)
        >>> Hand.of([1, 6]).total, Hand.of([1, 6, 9]).total
        (17, 16)
    """

    raw: Any
    ace: Any
    cards: Any

    @classmethod
    def of(cls, cards: list[int]) -> Hand:
        """Summarize a hand given as its list of card values."""
        return cls(sum(cards), 1 in cards, len(cards))

    @property
    def total(self) -> Any:
        """The hand's total, an ace counted as 11 where that does not bust."""
        return hand_total(self.raw, self.ace)[0]

    @property
    def score(self) -> Any:
        """The total, or 0 for a bust hand."""
        total = self.total
        return _select(total > 21, 0, total)

    @property
    def natural(self) -> Any:
        """Whether the hand is an ace and a ten-valued card."""
        return (self.cards == 2) & self.ace & (self.raw == 11)

    def with_card(self, card: Any, taking: Any) -> Hand:
        """Return the hand after taking ``card`` where ``taking`` holds (``card`` 0 elsewhere)."""
        return Hand(self.raw + card, self.ace | (card == 1), self.cards + taking)


class Draws(Protocol):
    """Where the rules get random integers: one stream per table, drawn as ``integers(0, n)``.

    :class:`GeneratorDraws` draws for one table from a ``Generator``; the batched environment
    draws for many tables at once from per-table streams.
    """

    def integers(self, spans: Sequence[int]) -> tuple[Any, ...]:
        """One integer in ``[0, span)`` per span, drawn in order, for every table."""
        ...

    def integer(self, span: int, where: Any) -> Any:
        """One integer in ``[0, span)`` for the tables where ``where`` holds (0 elsewhere)."""
        ...

    def at(self, rows: np.ndarray) -> Draws:
        """Return the draws of the tables at ``rows`` alone (asked of batches only)."""
        ...


class GeneratorDraws:
    """:class:`Draws` for one table from ``np_random``, as ``np_random.choice`` of a list draws.

    ``taken`` records the integers :meth:`integer` drew (the cards of a step).

    Example:
        >>> draws = GeneratorDraws(np.random.default_rng(0))
        >>> draws.integers((13, 4)), draws.integer(13, False), draws.taken
        ((11, 2), 0, [])
    """

    __slots__ = ("np_random", "taken")

    def __init__(self, np_random: np.random.Generator):
        self.np_random = np_random
        self.taken: list[int] = []

    def integers(self, spans: Sequence[int]) -> tuple[int, ...]:  # noqa: D102
        return tuple(int(self.np_random.integers(span)) for span in spans)

    def integer(self, span: int, where: Any) -> int:  # noqa: D102
        if not where:
            return 0
        value = int(self.np_random.integers(span))
        self.taken.append(value)
        return value


def _draw_cards(draws: Draws, where: Any) -> Any:
    """One card's value for the tables where ``where`` holds (0 elsewhere)."""
    return _select(where, _card_value(draws.integer(13, where)), 0)


class Deal(NamedTuple):
    """A dealt table: the dealer's two cards, the player's two, and the face-up card's looks.

    ``suit`` indexes ``"CDHS"``; ``rank`` indexes ``"JQK"`` for a ten-valued face-up card.
    """

    dealer: tuple[Any, Any]
    player: tuple[Any, Any]
    suit: Any
    rank: Any

    def hands(self) -> tuple[Hand, Hand]:
        """Return the dealer's and the player's :class:`Hand`."""
        return tuple(  # type: ignore[return-value]
            Hand(first + second, (first == 1) | (second == 1), 2)
            for first, second in (self.dealer, self.player)
        )


def deal(draws: Draws) -> Deal:
    """Deal two cards to the dealer, two to the player, then the face-up card's suit and rank.

    Example:
        >>> deal(GeneratorDraws(np.random.default_rng(3)))
        Deal(dealer=(10, 2), player=(3, 4), suit=0, rank=2)
    """
    dealer_first, dealer_second, player_first, player_second, suit = draws.integers(
        (13, 13, 13, 13, 4)
    )
    dealer_first = _card_value(dealer_first)
    return Deal(
        (dealer_first, _card_value(dealer_second)),
        (_card_value(player_first), _card_value(player_second)),
        suit,
        draws.integer(3, dealer_first == 10),
    )


def _on_tables(where: Any, step: Any, hand: Hand, draws: Draws) -> Hand:
    """Return the hands after ``step(hand, draws)`` at the tables where ``where`` holds.

    On a batch the step runs on those tables' hands alone (gathered, then put back), so a
    loop that ends table by table works on fewer tables each round.
    """
    if not isinstance(where, np.ndarray):
        return step(hand, draws) if where else hand
    rows = where.nonzero()[0]
    if not len(rows):
        return hand
    if len(rows) == len(where):
        return step(hand, draws)
    stepped = step(Hand(*(field[rows] for field in hand)), draws.at(rows))
    fields = [field.copy() for field in hand]
    for field, new in zip(fields, stepped, strict=True):
        field[rows] = new
    return Hand(*fields)


def _dealer_draws(dealer: Hand, draws: Draws) -> Hand:
    """Return the dealer's hand after drawing to :data:`DEALER_STANDS_AT`."""
    return _on_tables(dealer.total < DEALER_STANDS_AT, _dealer_draws_one, dealer, draws)


def _dealer_draws_one(dealer: Hand, draws: Draws) -> Hand:
    """Draw one card to every hand, then go on drawing to :data:`DEALER_STANDS_AT`."""
    return _dealer_draws(dealer.with_card(_draw_cards(draws, True), True), draws)


def play(
    player: Hand, dealer: Hand, action: Any, draws: Draws, natural: bool, sab: bool
) -> tuple[Hand, Hand, Any, Any]:
    """Play one step: hit (1) or stick (0); return ``(player, dealer, reward, terminated)``.

    Hitting past 21 loses (-1.0); sticking lets the dealer draw to 17, then :func:`settle`
    pays. ``natural`` and ``sab`` are the env's options.

    Example:
        >>> draws = GeneratorDraws(np.random.default_rng(0))
        >>> play(Hand.of([10, 9]), Hand.of([10, 7]), 0, draws, natural=False, sab=False)[2:]
        (1.0, True)
    """
    hitting, sticking = action == 1, action == 0
    if _any(hitting):
        player = player.with_card(_draw_cards(draws, hitting), hitting)
    bust = hitting & (player.total > 21)
    reward = _select(bust, -1.0, 0.0)
    if _any(sticking):
        dealer = _on_tables(sticking, _dealer_draws, dealer, draws)
        paid = settle(player.score, dealer.score, player.natural, dealer.natural, natural, sab)
        reward = _select(sticking, paid, reward)
    return player, dealer, reward, bust | sticking


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
        draws = GeneratorDraws(self.np_random)
        _, _, reward, terminated = play(
            Hand.of(self.player), Hand.of(self.dealer), action, draws, self.natural, self.sab
        )
        # A step draws the player's card or the dealer's: the cards drawn go to that hand.
        (self.player if action else self.dealer).extend(deck[index] for index in draws.taken)
        if self.render_mode == "human":
            self.render()
        return self._get_obs(), reward, bool(terminated), False, {}

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
        dealt = deal(GeneratorDraws(self.np_random))
        self.dealer, self.player = list(dealt.dealer), list(dealt.player)
        self.dealer_top_card_suit = "CDHS"[dealt.suit]
        self.dealer_top_card_value_str = face_rank(dealt.dealer[0], dealt.rank)
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
