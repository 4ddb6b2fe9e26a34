"""Tiered acceleration: a batched env starts on numpy at once and moves to numba when it pays.

Loading the compiled path costs a process the import of numba (a few tenths of a second and
~50 MiB) plus loading each cached kernel (or, the first time on a machine, compiling it:
seconds). A short script never earns that back; a long run does within seconds. So under
``accelerator="auto"`` an env steps on numpy from its first step, and once it has been stepping
for :data:`COMPILE_AFTER_SECONDS` it moves to numba between two steps, each sub-environment's
state and random stream carried over as they are. Both paths give the same bits, so the
results never depend on when (or whether) the move happens.

The move loads the kernels in the stepping thread. Loading them in a background thread was
measured to cost more: the two threads share the GIL, so the load takes two to four times as
long and the steps meanwhile run at a third of their speed, more time lost in all than the
pause of a load in place.

Once one env of a process has moved, later envs move at their first step (numba is already
paid for; their kernels cost a load each, nothing when they share the first one's).

Example:
    >>> clock = PromotionClock(after_seconds=0.0)
    >>> clock.due()  # every step asks; the first look at the clock starts it
    True
"""

from __future__ import annotations

import time

__all__ = ["COMPILE_AFTER_SECONDS", "PromotionClock", "mark_promoted"]

COMPILE_AFTER_SECONDS = 1.0
"""Seconds of stepping after which an ``"auto"`` env moves to its compiled path.

About the pause the move costs with a warm cache: a run that has lasted this long is likely
to last as long again (and then the move has paid), while a short script (thousands of steps
of a cheap env) never pays for numba."""

# Steps between two looks at the clock (a look costs a noticeable part of a small step).
_CHECK_EVERY = 16

_promoted = [False]


def mark_promoted() -> None:
    """Record that an env of this process moved to numba: later ones move at once."""
    _promoted[0] = True


class PromotionClock:
    """Says when an ``"auto"`` env has stepped long enough to move to its compiled path.

    Args:
        after_seconds: how long stepping must have lasted, from the first :meth:`due`;
            ignored once an env of the process has moved (see :func:`mark_promoted`).
    """

    def __init__(self, after_seconds: float = COMPILE_AFTER_SECONDS):
        self.after_seconds = after_seconds
        self._first_look: float | None = None
        self._countdown = 1

    def due(self) -> bool:
        """Say whether to move now (asked before each step; it looks at the clock now and then)."""
        self._countdown -= 1
        if self._countdown:
            return False
        self._countdown = _CHECK_EVERY
        if _promoted[0]:
            return True
        now = time.perf_counter()
        if self._first_look is None:
            self._first_look = now
        return now - self._first_look >= self.after_seconds
