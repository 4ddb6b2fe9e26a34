"""Tiered acceleration: a batched env starts on numpy at once and moves to numba when it pays.

Loading the compiled path costs a process the import of numba (a few tenths of a second and
~50 MiB) plus loading each cached kernel (or, the first time on a machine, compiling it:
seconds). A short script never earns that back; a long run does within seconds. So under
``accelerator="auto"`` an env steps on numpy from its first step, and once it has taken
:data:`COMPILE_AFTER_STEPS` steps over at least :data:`COMPILE_AFTER_SECONDS` it moves to numba
between two steps, each sub-environment's state and random stream carried over as they are.
Both paths give the same bits, so the results never depend on when (or whether) the move
happens.

The move loads the kernels in the stepping thread. Loading them in a background thread was
measured to cost more: the two threads share the GIL, so the load takes two to four times as
long and the steps meanwhile run at a third of their speed, more time lost in all than the
pause of a load in place.

Once one env of a process has moved, later envs move at their first step (numba is already
paid for; their kernels cost a load each, nothing when they share the first one's).

Example:
    >>> clock = PromotionClock(after_seconds=0.0, after_steps=32)
    >>> [clock.due() for _ in range(33)].index(True)  # asked before each step
    32
"""

from __future__ import annotations

import time

__all__ = ["COMPILE_AFTER_SECONDS", "COMPILE_AFTER_STEPS", "PromotionClock", "mark_promoted"]

COMPILE_AFTER_SECONDS = 1.0
"""Seconds of stepping after which an ``"auto"`` env moves to its compiled path.

About the pause the move costs with a warm cache: a run that has lasted this long is likely
to last as long again (and then the move has paid), while a short script (thousands of steps
of a cheap env) never pays for numba."""

COMPILE_AFTER_STEPS = 4096
"""Steps an ``"auto"`` env takes on numpy before it may move (whatever the time they took).

A floor that does not depend on machine load: on a busy machine a short script's steps can
last longer than :data:`COMPILE_AFTER_SECONDS`, and a script of a couple of thousand steps
does not earn back numba's load (nor its ~50 MiB) even on the slowest classic env."""

# Steps between two looks at the clock (a look costs a noticeable part of a small step).
_CHECK_EVERY = 16

_promoted = [False]


def mark_promoted() -> None:
    """Record that an env of this process moved to numba: later ones move at once."""
    _promoted[0] = True


class PromotionClock:
    """Says when an ``"auto"`` env has stepped long enough to move to its compiled path.

    Args:
        after_seconds: how long stepping must have lasted, from the first :meth:`due`.
        after_steps: how many steps must have been taken first.

    Both are ignored once an env of the process has moved (see :func:`mark_promoted`).
    """

    def __init__(
        self,
        after_seconds: float = COMPILE_AFTER_SECONDS,
        after_steps: int = COMPILE_AFTER_STEPS,
    ):
        self.after_seconds = after_seconds
        self.after_steps = after_steps
        self._first_look: float | None = None
        self._countdown = 1
        self._steps = -1

    def due(self) -> bool:
        """Say whether to move now (asked before each step; it looks at the clock now and then)."""
        self._countdown -= 1
        if self._countdown:
            return False
        # Steps taken before this one: the countdown runs from the first step, every
        # _CHECK_EVERY steps after it.
        self._steps += 1 if self._first_look is None else _CHECK_EVERY
        self._countdown = _CHECK_EVERY
        if _promoted[0]:
            return True
        now = time.perf_counter()
        if self._first_look is None:
            self._first_look = now
        return self._steps >= self.after_steps and now - self._first_look >= self.after_seconds
