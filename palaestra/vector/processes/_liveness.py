"""Liveness: notice that the parent process is gone, or that some process still runs."""

from __future__ import annotations

import os

__all__ = ["parent_alive", "process_alive"]


def parent_alive(parent_pid: int) -> bool:
    """Whether the process ``parent_pid`` that started this worker is still its parent.

    An orphaned worker is re-parented (to init or a subreaper), so its parent id changes.

    Example:
        >>> parent_alive(os.getppid())
        True
    """
    return os.getppid() == parent_pid


def process_alive(pid: int) -> bool:
    """Whether a process with id ``pid`` exists (one of another user's counts).

    It sends the null signal, which checks the process without touching it. A ``pid`` of
    0 or less names a process group, not a process, and reads as not alive. A process that
    ended but was not reaped yet (a zombie) still reads as alive.

    Args:
        pid: the process id.

    Example:
        >>> process_alive(os.getpid()), process_alive(0)
        (True, False)
    """
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, owned by another user
        return True
    return True
