"""Blackjack as a functional environment, from the toy-text rules, and its jax env.

The state is one int array ``[player raw total, player has an ace, player cards, dealer raw
total, dealer has an ace, dealer cards, dealer face-up card, player stood]`` (raw totals
count aces as 1);
the rules are :mod:`palaestra.envs.toy_text.blackjack`'s, the functions the single and
batched environments play by: the numpy backend deals with :func:`deal` and plays with
:func:`play`; the jax backend draws with jax keys (the dealer's draws a ``while_loop``) and
totals and settles with :func:`hand_total` and :func:`settle`. With
``options={"backend": "numpy"}`` and the env's generator, the functional env draws the same
cards as :class:`~palaestra.envs.toy_text.BlackjackEnv` and reproduces its trajectories.

Example:
    >>> import numpy as np
    >>> env = BlackjackFunctional({"backend": "numpy"})
    >>> rng = np.random.default_rng(3)
    >>> state = env.initial(rng)
    >>> env.observation(state, rng)
    (7, 10, 0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra import spaces
from palaestra.envs.phys2d._common import Backend, JittedEnv
from palaestra.envs.toy_text import blackjack as rules
from palaestra.experimental.functional import FuncEnv

__all__ = ["BlackjackFunctional", "BlackJackJaxEnv"]

_P_RAW, _P_ACE, _P_CARDS, _D_RAW, _D_ACE, _D_CARDS, _D_FACE, _STOOD = range(8)


def _with_card(state: Any, card: Any, raw: int) -> Any:
    """Return the jax ``state`` with ``card`` added to the hand whose fields start at ``raw``.

    A hand is three fields: the raw total, whether it holds an ace, and its card count.
    """
    ace, cards = raw + 1, raw + 2
    return state.at[raw].add(card).at[ace].set(state[ace] | (card == 1)).at[cards].add(1)


class BlackjackFunctional(Backend, FuncEnv[Any, Any, int, float, bool, Any, None]):
    """Blackjack (``natural`` and ``sab`` options as the env's; ``sab`` on) as pure functions.

    Args:
        options: attributes to set: ``backend``, ``natural``, ``sab``.

    Example:
        >>> import jax
        >>> env = BlackjackFunctional({"sab": True})
        >>> state = env.initial(jax.random.PRNGKey(0))
        >>> bool(env.terminal(env.transition(state, 0, jax.random.PRNGKey(1)), None))
        True
    """

    observation_space = spaces.Tuple((spaces.Discrete(32), spaces.Discrete(11), spaces.Discrete(2)))
    action_space = spaces.Discrete(2)
    natural = False
    # Sutton and Barto's rules by default, as Gymnasium's tabular Blackjack and Blackjack-v1.
    sab = True

    # Cards ---------------------------------------------------------------------------------

    def _deck(self) -> Any:
        return self.xp().asarray(rules.deck)

    def _jax_card(self, key: Any) -> Any:
        return self._deck()[self.jax().random.randint(key, (), 0, 13)]

    def initial(self, rng: Any, params: Any = None) -> Any:
        """Deal two cards to the dealer and two to the player."""
        if self.backend == "numpy":
            # The env's own deal: the cards, then the face-up card's looks (drawn, unused).
            dealt = rules.deal(rules.GeneratorDraws(rng))
            cards = [*dealt.dealer, *dealt.player]
        else:
            keys = self.jax().random.split(rng, 4)
            cards = [self._jax_card(key) for key in keys]
        xp = self.xp()
        d1, d2, p1, p2 = cards
        hand = [p1 + p2, (p1 == 1) | (p2 == 1), 2, d1 + d2, (d1 == 1) | (d2 == 1), 2, d1, 0]
        return xp.asarray(hand, dtype=np.int32)

    def _total(self, raw: Any, ace: Any) -> Any:
        return self.fn(rules.hand_total)(raw, ace != 0)[0]

    def transition(self, state: Any, action: Any, rng: Any, params: Any = None) -> Any:
        """Hit (1): the player draws a card. Stick (0): the dealer draws to 17."""
        if self.backend == "numpy":
            # The env's own rules (rules.play): the hit, or the dealer's draws to 17.
            fields = state.tolist()
            player, dealer, _, _ = rules.play(
                rules.Hand(fields[_P_RAW], bool(fields[_P_ACE]), fields[_P_CARDS]),
                rules.Hand(fields[_D_RAW], bool(fields[_D_ACE]), fields[_D_CARDS]),
                int(action),
                rules.GeneratorDraws(rng),
                self.natural,
                self.sab,
            )
            stood = int(action == 0) | fields[_STOOD]
            return np.asarray([*player, *dealer, fields[_D_FACE], stood], dtype=state.dtype)
        jax, xp = self.jax(), self.xp()
        hit_key, stick_key = jax.random.split(rng)
        card = self._jax_card(hit_key)
        hit = _with_card(state, card, _P_RAW)

        def drawing(carry: Any) -> Any:
            hand, _ = carry
            return self._total(hand[_D_RAW], hand[_D_ACE]) < rules.DEALER_STANDS_AT

        def draw(carry: Any) -> Any:
            hand, key = carry
            key, sub = jax.random.split(key)
            card = self._jax_card(sub)
            return _with_card(hand, card, _D_RAW), key

        stick, _ = jax.lax.while_loop(drawing, draw, (state.at[_STOOD].set(1), stick_key))
        return xp.where(action == 1, hit, stick)

    def observation(self, state: Any, rng: Any, params: Any = None) -> Any:
        """``(player total, dealer face-up card, usable ace)``."""
        total, usable = self.fn(rules.hand_total)(state[_P_RAW], state[_P_ACE] != 0)
        if self.backend == "numpy":
            return int(total), int(state[_D_FACE]), int(usable)
        return total, state[_D_FACE], usable.astype(np.int32)

    def terminal(self, state: Any, rng: Any, params: Any = None) -> Any:
        """Over when the player is bust or stood (the dealer has then played)."""
        return (self._total(state[_P_RAW], state[_P_ACE]) > 21) | (state[_STOOD] == 1)

    def reward(self, state: Any, action: Any, next_state: Any, rng: Any, params: Any = None) -> Any:
        """-1 for a bust; after a stick, the settled comparison with the dealer."""
        xp = self.xp()
        player = self._total(next_state[_P_RAW], next_state[_P_ACE])
        dealer = self._total(next_state[_D_RAW], next_state[_D_ACE])
        player_natural = (
            (next_state[_P_CARDS] == 2) & (next_state[_P_ACE] == 1) & (next_state[_P_RAW] == 11)
        )
        dealer_natural = (
            (next_state[_D_CARDS] == 2) & (next_state[_D_ACE] == 1) & (next_state[_D_RAW] == 11)
        )
        settled = self.fn(rules.settle)(
            xp.where(player > 21, 0, player),
            xp.where(dealer > 21, 0, dealer),
            player_natural,
            dealer_natural,
            self.natural,
            self.sab,
        )
        hit = xp.where(player > 21, -1.0, 0.0)
        reward = xp.where(action == 1, hit, settled)
        return float(reward) if self.backend == "numpy" else reward


class BlackJackJaxEnv(JittedEnv):
    """Blackjack on jax, jitted (registered as ``tabular/Blackjack-v0``).

    Args:
        render_mode: ``None`` only (the functional Blackjack does not draw).
        kwargs: passed to :class:`BlackjackFunctional` (e.g. ``options={"sab": True}``).

    Example:
        >>> env = BlackJackJaxEnv()
        >>> [int(value) for value in env.reset(seed=0)[0]]
        [13, 5, 0]
    """

    metadata = {"render_modes": [], "render_fps": 4, "jax": True}

    functional = BlackjackFunctional
