"""The loop each worker process of a :class:`~palaestra.vector.PoolVectorEnv` runs.

A worker owns a contiguous group of sub-environments, held as one vector env (natively
batched where the environment has one). The parent writes a command word into the shared
block and releases the worker's wake semaphore; the worker runs the command on its slice of
the block, stores its status, copies the command's sequence number into ``done`` and releases
the shared ``finished`` semaphore. Only what cannot live in the block crosses the pipe, pickled:
reset arguments, non-empty infos, ``call`` results and error reports.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from palaestra.vector.pool._block import BlockLayout, SharedBlock

__all__ = ["Command", "Status", "pool_worker"]


class Command:
    """Command words the parent writes for a worker."""

    STEP = 1
    RESET = 2
    CALL = 3
    CLOSE = 4


class Status:
    """Status words a worker writes back."""

    OK = 0
    HAS_INFO = 1
    ERROR = 2


# How often a waiting worker checks that its parent is still alive (seconds).
_PARENT_CHECK_INTERVAL = 1.0


def pool_worker(
    make_envs: Callable[[], Any],
    worker_index: int,
    env_slice: tuple[int, int],
    layout: BlockLayout,
    block_name: str,
    wake: Any,
    finished: Any,
    pipe: Connection,
    parent_pid: int,
) -> None:
    """Serve commands for one group of sub-environments until told to close.

    Args:
        make_envs: builds the group's vector env.
        worker_index: this worker's index (its control words in the block).
        env_slice: ``(start, stop)`` indices of the group's sub-environments.
        layout: the shared block's layout.
        block_name: the shared block's name.
        wake: the semaphore the parent releases to hand this worker a command.
        finished: the semaphore this worker releases after every command.
        pipe: this worker's end of its pipe to the parent.
        parent_pid: the parent's process id; the worker exits when the parent is gone.
    """
    block = SharedBlock(layout, name=block_name)
    start, stop = env_slice
    envs = None
    try:
        envs = make_envs()
        while True:
            if not wake.acquire(timeout=_PARENT_CHECK_INTERVAL):
                if os.getppid() != parent_pid:
                    return
                continue
            command = int(block["command"][worker_index])
            if command == Command.CLOSE:
                return
            try:
                status, reply = _run(command, envs, block, start, stop, pipe)
            except Exception as exc:
                _finish(block, worker_index, Status.ERROR, finished)
                pipe.send((type(exc).__name__, str(exc), traceback.format_exc()))
                return
            # The parent reads a reply only after seeing the command done, so a reply larger
            # than the pipe's buffer must be sent after finishing, or both sides would wait.
            _finish(block, worker_index, status, finished)
            if reply is not None:
                pipe.send(reply)
    finally:
        if envs is not None:
            envs.close()
        block.close()
        pipe.close()


def _finish(block: SharedBlock, worker_index: int, status: int, finished: Any) -> None:
    block["status"][worker_index] = status
    block["done"][worker_index] = block["sequence"][worker_index]
    finished.release()


def _run(
    command: int, envs: Any, block: SharedBlock, start: int, stop: int, pipe: Connection
) -> tuple[int, Any]:
    """Run one command; return its status and what to send back (``None``: nothing)."""
    if command == Command.STEP:
        observations, rewards, terminations, truncations, info = envs.step(
            block["actions"][start:stop].copy()
        )
        block["rewards"][start:stop] = rewards
        block["terminations"][start:stop] = terminations
        block["truncations"][start:stop] = truncations
    elif command == Command.RESET:
        seeds, options = pipe.recv()
        observations, info = envs.reset(seed=seeds, options=options)
    elif command == Command.CALL:
        name, args, kwargs = pipe.recv()
        try:
            result = _call(envs, name, args, kwargs)
        except Exception as exc:
            result = exc
        # Wrapped, so that a None result is still sent.
        return Status.HAS_INFO, (result,)
    else:
        raise ValueError(f"Unknown pool command {command}.")
    block["observations"][start:stop] = observations
    if info:
        return Status.HAS_INFO, info
    return Status.OK, None


def _call(envs: Any, name: str, args: tuple, kwargs: dict) -> Any:
    """Run a ``call`` command; ``render`` works on vector envs without ``call`` too."""
    if name == "render":
        return envs.render()
    if name == "_setattr":
        attribute, values = args
        return envs.set_attr(attribute, values)
    return envs.call(name, *args, **kwargs)
