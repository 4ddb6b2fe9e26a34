"""Refuse, before spawning anything, a number of worker processes the machine cannot serve."""

from __future__ import annotations

import os
from typing import Any

__all__ = ["ResourceLimitError", "check_capacity", "memory_per_worker"]

# File descriptors the parent keeps per worker: its end of the pipe and the process sentinel,
# plus the child's end while the worker starts.
FDS_PER_WORKER = 3
# Descriptors left for everything else the process does.
_FD_RESERVE = 64
# Estimates of one worker's own memory: a forked worker shares its parent's pages until it
# writes them (measured: about 4.7 MiB each for 3,700 forked CartPole workers); a spawned or
# forkserver worker starts a fresh interpreter and imports numpy and the env itself.
_FORKED_WORKER_BYTES = 5 * 2**20
_SPAWNED_WORKER_BYTES = 45 * 2**20


def memory_per_worker(start_method: str | None) -> int:
    """Estimate the memory one worker process adds, by ``multiprocessing`` start method.

    Example:
        >>> memory_per_worker("fork") < memory_per_worker("spawn")
        True
    """
    if start_method is None:
        import multiprocessing

        start_method = multiprocessing.get_start_method(allow_none=True) or "fork"
    return _FORKED_WORKER_BYTES if start_method == "fork" else _SPAWNED_WORKER_BYTES


class ResourceLimitError(OSError):
    """The requested worker processes exceed what this machine or process may hold.

    A subclass of :class:`OSError`, which is what running out of file descriptors or memory
    raises otherwise (``[Errno 24] Too many open files``), only raised before any process
    is started and with a message that says what to do instead.
    """


def _open_fds() -> int:
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return 0


def _fd_limit() -> int | None:
    try:
        import resource
    except ImportError:  # not on POSIX
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else int(soft)


def _available_memory() -> int | None:
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def check_capacity(
    num_workers: int,
    owner: str,
    advice: str,
    start_method: str | None = None,
    **limits: Any,
) -> None:
    """Raise :class:`ResourceLimitError` if ``num_workers`` worker processes cannot be served.

    Counts the file descriptors the workers need against the process's limit
    (``RLIMIT_NOFILE``) and their memory (:func:`memory_per_worker` each) against the memory
    available, as far as the platform tells.

    Args:
        num_workers: how many worker processes are about to be started.
        owner: names the caller in the message, e.g. ``"AsyncVectorEnv(num_envs=10000)"``.
        advice: what to do instead, appended to the message.
        start_method: the ``multiprocessing`` start method (``None``: the default one).
        limits: ``fd_limit``, ``open_fds``, ``available_memory`` override what is measured
            (for tests); ``None`` means unknown (not checked).

    Raises:
        ResourceLimitError: naming what is short, by how much, and the advice.

    Example:
        >>> check_capacity(4, "AsyncVectorEnv(num_envs=4)", "", fd_limit=1024, open_fds=10)
        >>> try:
        ...     check_capacity(1000, "X", "Use fewer.", fd_limit=1024, open_fds=10)
        ... except ResourceLimitError as e:
        ...     print(str(e)[:61])
        X needs 1000 worker processes and about 3000 file descriptors
    """
    fd_limit = limits.get("fd_limit", _fd_limit())
    open_fds = limits.get("open_fds", _open_fds())
    available = limits.get("available_memory", _available_memory())
    needed_fds = num_workers * FDS_PER_WORKER
    if fd_limit is not None and open_fds + needed_fds + _FD_RESERVE > fd_limit:
        raise ResourceLimitError(
            f"{owner} needs {num_workers} worker processes and about {needed_fds} file "
            f"descriptors, but this process may open {fd_limit} and has {open_fds} open "
            f"already (see `ulimit -n`). Nothing was started. {advice}"
        )
    each = memory_per_worker(start_method)
    needed_memory = num_workers * each
    if available is not None and needed_memory > available:
        raise ResourceLimitError(
            f"{owner} needs {num_workers} worker processes, about "
            f"{needed_memory / 2**30:.1f} GiB of memory at {each // 2**20} MiB each, but "
            f"only {available / 2**30:.1f} GiB are available. Nothing was started. {advice}"
        )
