"""Worker-side liveness: notice that the parent process is gone."""

from __future__ import annotations

import os

__all__ = ["parent_alive"]


def parent_alive(parent_pid: int) -> bool:
    """Whether the process ``parent_pid`` that started this worker is still its parent.

    An orphaned worker is re-parented (to init or a subreaper), so its parent id changes.

    Example:
        >>> parent_alive(os.getppid())
        True
    """
    return os.getppid() == parent_pid
