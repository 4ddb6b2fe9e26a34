"""Tiered acceleration: a batched env starts on numpy at once and moves to numba when it pays.

Loading the compiled path costs a process the import of numba (a few tenths of a second and
~50 MiB) plus loading each cached kernel (or, the first time on a machine, compiling it:
seconds). A short script never earns that back; a long run does within seconds. So under
``accelerator="auto"`` an env steps on numpy from its first step, and once it has taken
:data:`COMPILE_AFTER_STEPS` steps that lasted :data:`COMPILE_AFTER_SECONDS` in all (its own
steps, not the time between them) it moves to numba between two steps, each sub-environment's
state and random stream carried over as they are. Both paths give the same bits, so the
results never depend on when (or whether) the move happens.

The move loads numba in the stepping thread. Loading it in a background thread was measured
to gain nothing: the load is mostly Python (imports, numba's registries) and the two threads
share the GIL, so the load takes two to four times as long and the steps meanwhile run at a
third of their speed, as much time lost in all as the pause of a load in place.

Once one env of a process has moved, later envs move at their first step (numba is already
paid for; their kernels cost a load each, nothing when they share the first one's).

Example:
    >>> clock = PromotionClock(after_seconds=0.5, after_steps=0)
    >>> clock.sampling(), clock.sampled(0.1)  # a first step of 0.1 s stands for 16
    (True, True)
"""

from __future__ import annotations

__all__ = ["COMPILE_AFTER_SECONDS", "COMPILE_AFTER_STEPS", "PromotionClock", "mark_promoted"]

COMPILE_AFTER_SECONDS = 0.5
"""Seconds of stepping (the env's own) after which an ``"auto"`` env moves to numba.

About the pause the move costs with a warm cache (0.5-0.8 s of CPU: numba's import and
start-up): a run that has lasted this long is likely to last as long again (and then the move
has paid), while a short script (thousands of steps of a cheap env) never pays for numba."""

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

    The time counted is the env's own: every 16th step is timed and stands for the 16, so
    that a training loop, whose steps are a small part of its time, moves only once its env
    steps themselves have added up (and the timing costs next to nothing).

    Args:
        after_seconds: how long the env's steps must have lasted in all.
        after_steps: how many steps must have been taken first.

    Both are ignored once an env of the process has moved (see :func:`mark_promoted`).

    Example:
        >>> from palaestra.vector.native import tiers
        >>> moved_before, tiers._promoted[0] = tiers._promoted[0], False  # as in a new process
        >>> clock = PromotionClock(after_seconds=0.0, after_steps=32)
        >>> [clock.sampling() and clock.sampled(1e-5) for _ in range(40)].index(True)
        32
        >>> tiers._promoted[0] = moved_before
    """

    def __init__(
        self,
        after_seconds: float = COMPILE_AFTER_SECONDS,
        after_steps: int = COMPILE_AFTER_STEPS,
    ):
        self.after_seconds = after_seconds
        self.after_steps = after_steps
        self.steps = 0
        self.seconds = 0.0
        self._countdown = 1

    def sampling(self) -> bool:
        """Say whether to time this step (asked before each step; true every 16th)."""
        self._countdown -= 1
        if self._countdown:
            return False
        self._countdown = _CHECK_EVERY
        return True

    def sampled(self, seconds: float) -> bool:
        """Count a timed step that lasted ``seconds``; say whether to move now."""
        self.steps += 1 if not self.steps else _CHECK_EVERY
        self.seconds += seconds * _CHECK_EVERY
        if _promoted[0]:
            return True
        return self.steps >= self.after_steps and self.seconds >= self.after_seconds
