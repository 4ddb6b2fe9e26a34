"""Bounded, visible restarts of failed workers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable

from palaestra import logger

__all__ = ["RestartBudget"]


class RestartBudget:
    """Count restarts per worker and allow at most ``max_restarts`` of each.

    Every allowed restart is announced with a warning that names the sub-envs, the reason
    (the exception with its traceback, a death or a hang) and how many restarts are left.

    Args:
        max_restarts: restarts allowed per worker over the vector env's lifetime.
        owner: names the vector env in the warnings.

    Raises:
        ValueError: for a negative ``max_restarts``.

    Example:
        >>> import warnings
        >>> budget = RestartBudget(1, "PoolVectorEnv")
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     budget.allow(0, [0, 1], "died with exit code -9"), budget.allow(0, [0, 1], "")
        (True, False)
        >>> "restarting the worker of sub-environment(s) [0, 1] (restart 1 of at most 1)" in str(
        ...     caught[0].message
        ... )
        True
        >>> budget.left(0)
        0
    """

    def __init__(self, max_restarts: int, owner: str):
        if not isinstance(max_restarts, int) or isinstance(max_restarts, bool) or max_restarts < 0:
            raise ValueError(f"max_restarts must be a non-negative integer, got {max_restarts!r}.")
        self.max_restarts = max_restarts
        self.owner = owner
        self.used: Counter[Hashable] = Counter()

    def left(self, worker: Hashable) -> int:
        """How many more restarts ``worker`` may have."""
        return self.max_restarts - self.used[worker]

    def allow(self, worker: Hashable, env_indices: list[int], reason: str) -> bool:
        """Spend one restart of ``worker`` if any is left, with a warning; else return False.

        Args:
            worker: the worker's key (its index).
            env_indices: the sub-envs it runs, for the warning.
            reason: why it is restarted (exception text and traceback, death, hang).
        """
        if self.left(worker) <= 0:
            return False
        self.used[worker] += 1
        logger.warn(
            f"{self.owner}: restarting the worker of sub-environment(s) {env_indices} "
            f"(restart {self.used[worker]} of at most {self.max_restarts}); their episodes are "
            f"truncated. Reason: {reason}"
        )
        return True
