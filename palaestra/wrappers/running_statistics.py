"""The freeze switch and save/restore of a normalizing wrapper's running statistics.

The observation and reward normalizers, single-env and vector alike, keep a
:class:`~palaestra.wrappers.utils.RunningMeanStd` and expose the same three controls over it;
:class:`RunningStatisticsControls` writes them once.

Example:
    >>> from palaestra.wrappers.utils import RunningMeanStd
    >>> class Normalizer(RunningStatisticsControls):
    ...     statistics_attribute = "rms"
    ...     def __init__(self):
    ...         self.rms = RunningMeanStd()
    >>> normalizer = Normalizer()
    >>> normalizer.set_state({"mean": 1.0, "var": 4.0, "count": 3.0})
    >>> normalizer.get_state()["var"], normalizer.update_running_mean
    (array(4.), True)
"""

from __future__ import annotations

from typing import Any, ClassVar

from palaestra.error import InvalidBound
from palaestra.wrappers.utils import RunningMeanStd

__all__ = ["RunningStatisticsControls", "check_epsilon"]


def check_epsilon(epsilon: float) -> None:
    """Check a normalizer's variance floor.

    Args:
        epsilon: added to the variance under the square root.

    Raises:
        InvalidBound: if ``epsilon`` is not positive (the division could be by zero).

    Example:
        >>> check_epsilon(1e-8)
    """
    if epsilon <= 0:
        raise InvalidBound(f"`epsilon` should be strictly positive. Received {epsilon}")


class RunningStatisticsControls:
    """Mixin for a normalizer: freeze, save and restore its running statistics.

    The class names the attribute holding its :class:`RunningMeanStd` in
    ``statistics_attribute`` (``"obs_rms"`` or ``"return_rms"``). Freezing only stops the
    updates; the statistics still normalize. Save and restore with :meth:`get_state` /
    :meth:`set_state` (or pickle the wrapper) to evaluate a policy with the normalization it
    was trained with.

    Example:
        >>> import palaestra as gym
        >>> env = gym.wrappers.NormalizeReward(gym.make("CartPole-v1"))
        >>> env.update_running_mean = False
        >>> env.get_state()["count"]
        0.0001
    """

    statistics_attribute: ClassVar[str]
    _update_running_mean: bool = True

    @property
    def _statistics(self) -> RunningMeanStd:
        return getattr(self, self.statistics_attribute)

    @property
    def update_running_mean(self) -> bool:
        """Whether new data still update the running statistics (False freezes them)."""
        return self._update_running_mean

    @update_running_mean.setter
    def update_running_mean(self, setting: bool) -> None:
        self._update_running_mean = setting

    def get_state(self) -> dict[str, Any]:
        """Return a copy of the running statistics, ``{"mean", "var", "count"}``."""
        return self._statistics.get_state()

    def set_state(self, state: dict[str, Any]) -> None:
        """Restore running statistics saved by :meth:`get_state` (of any normalizer alike).

        Args:
            state: ``{"mean", "var", "count"}``.

        Raises:
            KeyError: if a key is missing.
            ValueError: if ``mean`` or ``var`` does not have the statistics' shape (the
                observation shape for observations, a scalar for rewards).
        """
        self._statistics.set_state(state)
