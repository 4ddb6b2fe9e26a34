"""The loop each worker process of a :class:`~palaestra.vector.PoolVectorEnv` runs.

A worker owns a contiguous group of sub-environments, held as one vector env (natively
batched where the environment has one). After building it, the worker sends ``("ready",
None)`` (or ``("failed", ErrorReport)``) through its pipe. Then the parent writes a command
word into the shared block and releases the worker's wake semaphore; the worker runs the
command on its slice of the block, stores its status, copies the command's sequence number
into ``done`` and releases the shared ``finished`` semaphore. Only what cannot live in the
block crosses the pipe, pickled: reset and call arguments, actions or observations of spaces
without a fixed shape, non-empty infos, ``call`` results and error reports.

A command that raises is answered with an :class:`~palaestra.vector.processes.ErrorReport`
(status ``ERROR``); the worker keeps serving after an argument error (a bad action, seed or
call name) and exits after any other. Workers ignore ``SIGINT``: a Ctrl-C interrupts the
parent, which finishes or drops the interrupted command on its next call.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from palaestra.vector.groups import assemble, copy_batch, group_call, slice_batch, write_batch
from palaestra.vector.pool._block import BlockLayout, SharedBlock
from palaestra.vector.processes import answer, failure_report, parent_alive

__all__ = ["Command", "PoliteWait", "PoolGroup", "Status", "pool_worker", "yield_core"]


class Command:
    """Command words the parent writes for a worker."""

    STEP = 1
    RESET = 2
    CALL = 3
    CLOSE = 4
    # A step whose actions come through the pipe (spaces without a fixed shape, or actions
    # that the block's dtype could not hold exactly).
    STEP_PIPED = 5


class Status:
    """Status words a worker writes back."""

    OK = 0
    HAS_REPLY = 1
    ERROR = 2


# How often a waiting worker checks that its parent is still alive (seconds).
_PARENT_CHECK_INTERVAL = 1.0
# Gives the core to another runnable process, if any (a zero sleep where there is no call).
yield_core: Callable[[], Any] = getattr(os, "sched_yield", lambda: time.sleep(0))


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
    spaces: tuple[Any, Any, bool, bool] | None = None,
    spin_s: float = 0.0,
    cpu: int | None = None,
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
        spaces: ``(single observation space, single action space, observations in the
            block, actions in the block)``; ``None`` for a block of Box/Discrete arrays.
        spin_s: how long to poll for the next command before sleeping (see
            :class:`PoliteWait`).
        cpu: the CPU to bind this worker's thread to once its sub-envs are built (threads
            they started keep theirs); ``None`` leaves it free.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    block = SharedBlock(layout, name=block_name)
    start, stop = env_slice
    envs = None
    try:
        try:
            envs = make_envs()
        except BaseException as error:  # reported to the parent, which raises it
            pipe.send(("failed", failure_report(start, error)))
            return
        if cpu is not None:
            # A CPU that went away (hotplug, a narrowed cpuset) leaves the worker unbound.
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, {cpu})
        pipe.send(("ready", None))
        group = PoolGroup(envs, block, start, stop, pipe.recv, spaces)
        waiter = PoliteWait(spin_s)
        while True:
            if not waiter.acquire(wake, _PARENT_CHECK_INTERVAL):
                if not parent_alive(parent_pid):
                    return
                continue
            command = int(block["command"][worker_index])
            if command == Command.CLOSE:
                return
            name, data = group.arguments(command)
            reply, success = answer(start, group.run, name, data, envs.action_space)
            if not success:
                _finish(block, worker_index, Status.ERROR, finished)
                pipe.send(reply)
                if reply.fatal:
                    return
                continue
            status, message = reply
            # The parent reads a reply only after seeing the command done, so a reply larger
            # than the pipe's buffer must be sent after finishing, or both sides would wait.
            _finish(block, worker_index, status, finished)
            if message is not None:
                pipe.send(message)
    finally:
        if envs is not None:
            envs.close()
        block.close()
        pipe.close()


def _finish(block: SharedBlock, worker_index: int, status: int, finished: Any) -> None:
    block["status"][worker_index] = status
    block["done"][worker_index] = block["sequence"][worker_index]
    finished.release()


class PoliteWait:
    """Wait on a semaphore, first polling it for a while when releases come quickly.

    Waking a process that sleeps on a semaphore takes tens of microseconds, as long as a
    small environment's step; polling avoids it. The poll yields the core at every check
    (``sched_yield``), so a process that needs the core gets it at once, and it stops at
    ``spin_s``. It is skipped altogether while the recent waits (an exponential average)
    were longer than ``spin_s``: polling would only burn the core then.

    Args:
        spin_s: the longest poll, in seconds; ``0`` never polls.

    Example:
        >>> import threading
        >>> semaphore = threading.Semaphore(1)
        >>> wait = PoliteWait(spin_s=1e-3)
        >>> wait.acquire(semaphore, timeout=1.0), wait.acquire(semaphore, timeout=0.01)
        (True, False)
    """

    # Weight of the latest wait in the running average.
    _WEIGHT = 0.25

    def __init__(self, spin_s: float):
        self.spin_s = spin_s
        self.typical_s = 0.0

    def polls(self) -> bool:
        """Whether the next wait starts by polling."""
        return self.spin_s > 0.0 and self.typical_s < self.spin_s

    def record(self, waited_s: float) -> None:
        """Add one wait's length to the running average.

        A wait counts as at most twice ``spin_s``: long enough to stop polling, short enough
        that a few quick waits after a long pause bring polling back.
        """
        waited_s = min(waited_s, 2.0 * self.spin_s)
        self.typical_s += self._WEIGHT * (waited_s - self.typical_s)

    def acquire(self, semaphore: Any, timeout: float) -> bool:
        """Acquire ``semaphore``: poll it (see above), then block up to ``timeout`` seconds.

        Returns:
            Whether it was acquired.
        """
        started = time.perf_counter()
        acquired = False
        if self.polls():
            until = started + self.spin_s
            while not (acquired := semaphore.acquire(False)) and time.perf_counter() < until:
                yield_core()
        if not acquired and not semaphore.acquire(timeout=timeout):
            return False
        self.record(time.perf_counter() - started)
        return True


class PoolGroup:
    """A group of sub-environments (in a worker, or the parent's) and its view of the block.

    ``receive`` returns the data of a command that does not live in the block (the worker's
    pipe's ``recv``, or what the parent hands its own group).
    """

    def __init__(
        self,
        envs: Any,
        block: SharedBlock,
        start: int,
        stop: int,
        receive: Callable[[], Any],
        spaces: Any,
    ):
        self.envs, self.block, self.receive = envs, block, receive
        self.start, self.stop = start, stop
        self.rows = slice(start, stop)
        if spaces is None:
            spaces = (None, None, True, True)
        observation_space, action_space, self.block_obs, _ = spaces
        self.arrays = block.arrays
        # A single array ("observations"/"actions") is addressed directly, as the hot path.
        self.observation_space = None if "observations" in self.arrays else observation_space
        self.action_space = None if "actions" in self.arrays else action_space
        # A group of single envs that can write its step straight into the block's rows
        # (see GroupSyncVectorEnv.step_into), with the rows' views made once.
        self.step_into = getattr(envs, "step_into", None)
        if not self.block_obs or self.observation_space is not None:
            self.step_into = None
        if self.step_into is not None:
            self.row_views = tuple(
                self.arrays[key][self.rows]
                for key in ("observations", "rewards", "terminations", "truncations")
            )

    def arguments(self, command: int) -> tuple[str, Any]:
        """Read the command's data (from the block or the pipe) and name it for the protocol."""
        if command == Command.STEP:
            if self.action_space is None:
                return "step", self.block["actions"][self.rows].copy()
            actions = assemble(self.action_space, self.arrays, "actions")
            return "step", copy_batch(slice_batch(self.action_space, actions, self.rows))
        if command == Command.STEP_PIPED:
            return "step", self.receive()
        if command == Command.RESET:
            seeds, options = self.receive()
            return "reset", {"seed": seeds, "options": options}
        if command == Command.CALL:
            return "_call", self.receive()
        raise ValueError(f"Unknown pool command {command}.")

    def run(self, name: str, data: Any) -> tuple[int, Any]:
        """Run one command; return its status and what to send back (``None``: nothing)."""
        if name == "_call":
            call_name, args, kwargs = data
            # Wrapped, so that a None result is still sent.
            return Status.HAS_REPLY, (group_call(self.envs, call_name, args, kwargs),)
        if name == "step":
            if self.step_into is not None:
                info = self.step_into(data, *self.row_views)
                return (Status.HAS_REPLY, (None, info)) if info else (Status.OK, None)
            observations, rewards, terminations, truncations, info = self.envs.step(data)
            self.block["rewards"][self.rows] = rewards
            self.block["terminations"][self.rows] = terminations
            self.block["truncations"][self.rows] = truncations
        else:
            observations, info = self.envs.reset(**data)
        piped = None
        if not self.block_obs:
            piped = observations
        elif self.observation_space is None:
            self.block["observations"][self.rows] = observations
        else:
            write_batch(
                self.observation_space, observations, self.arrays, "observations", self.rows
            )
        if info or piped is not None:
            return Status.HAS_REPLY, (piped, info)
        return Status.OK, None
