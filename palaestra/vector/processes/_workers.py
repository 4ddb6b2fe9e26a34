"""Worker processes, the pipes to them and their replies, as one parent-side object.

Every command sent to a worker gets exactly one reply. :class:`Workers` counts the replies
each worker still owes, so a reply to a call that timed out is recognised and dropped later
instead of being taken as the answer to the next call. Waiting watches each worker's pipe
*and* its process sentinel, so a worker that dies is noticed at once, whatever killed it.

One thread at a time may wait for replies. A thread that calls :meth:`Workers.shut_down`
while another is still waiting (a step given up on by a timer thread, say) does not wait
itself: it ends the processes, which wakes the waiting thread, and then drops the pipes.

One thread at a time reaps (joins) a worker, too. ``multiprocessing`` is not safe there: of
two threads joining one process at once, the one whose ``waitpid`` loses is told "no such
child", returns as if the process still ran, and its ``exitcode`` reads ``None`` until the
winner gets round to recording the code. So :meth:`Workers.join` and every stop go through
one lock, and :func:`stop_process` waits for an exit code that another thread (one calling
``is_alive()`` or ``multiprocessing.active_children()``) is about to record.

A forked worker never collects the garbage it inherits. The parent's heap is frozen
(:func:`gc.freeze`) across the fork, so a cycle the parent had not collected yet is not
finalized in the child, where the threads that some objects wait for when they are freed
do not exist (a ``mujoco.batch.Batch`` with its thread pool hangs a child that frees it).
"""

from __future__ import annotations

import contextlib
import gc
import math
import select
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from typing import Any

__all__ = ["Replies", "Workers", "stop_process", "TERMINATE_GRACE_SECONDS"]

# How long a terminated worker gets to exit before it is killed.
TERMINATE_GRACE_SECONDS = 1.0
# How long shut_down waits for another thread's wait to notice its workers ended.
_OTHER_WAITER_SECONDS = 5.0
# How long stop_process waits for another thread to record the exit code of a process that
# thread reaped (it does so as soon as it next holds the GIL).
_RECORDING_SECONDS = 2.0

_DEAD = "dead"
_SILENT = "silent"


@dataclass
class Replies:
    """What came back from one round of waiting.

    Attributes:
        answers: the reply of each worker that answered, by index.
        silent: indices that did not answer before the deadline.
        dead: indices whose worker is gone.
    """

    answers: dict[int, Any] = field(default_factory=dict)
    silent: list[int] = field(default_factory=list)
    dead: list[int] = field(default_factory=list)


class Workers:
    """Start, talk to, watch and stop worker processes, one per sub-environment.

    Example:
        >>> import multiprocessing
        >>> def echo(pipe, parent_pipe):
        ...     parent_pipe.close()
        ...     while (message := pipe.recv())[0] != "close":
        ...         pipe.send(message[1])
        ...     pipe.send(None)
        >>> workers = Workers()
        >>> workers.start(multiprocessing.get_context("fork"), echo, "echo", True,
        ...               lambda child, parent: (child, parent))
        >>> workers.send(0, "echo", 42)
        >>> workers.collect([0], deadline=None).answers
        {0: 42}
        >>> workers.shut_down(grace=1.0)
        >>> workers.live()
        []

    Attributes:
        pipes: the parent's end of each worker's pipe; ``None`` once the worker is gone.
        processes: the worker processes.
        unresponsive: workers that missed a deadline and still owe a reply.
        failed: workers that reported an error (and stopped).
    """

    def __init__(self) -> None:
        self.pipes: list[Any] = []
        self.processes: list[Any] = []
        self.unresponsive: set[int] = set()
        self.failed: set[int] = set()
        self._owed: list[int] = []
        self._checks: list[Callable[[float | None], tuple[bool, bool]]] = []
        self._poller = select.poll() if hasattr(select, "poll") else None
        # fd -> (worker index, whether the fd is the pipe rather than the process sentinel)
        self._fd_owner: dict[int, tuple[int, bool]] = {}
        self._waiting = threading.Lock()
        # Held while a thread reaps a worker (see the module docstring).
        self._reaping = threading.Lock()

    # ------------------------------------------------------------------------ lifecycle

    def start(
        self,
        context: Any,
        target: Callable[..., None],
        name: str,
        daemon: bool,
        arguments: Callable[[Any, Any], tuple[Any, ...]],
    ) -> None:
        """Start a worker running ``target(*arguments(child_pipe, parent_pipe))``."""
        index = len(self.processes)
        self.pipes.append(None)
        self.processes.append(None)
        self._owed.append(0)
        self._checks.append(_no_readiness)
        self._launch(index, context, target, name, daemon, arguments)

    def replace(self, index: int, *launch: Any) -> None:
        """End worker ``index`` (if it still runs) and start a new one in its place.

        Args:
            index: the worker to replace.
            launch: ``context, target, name, daemon, arguments``, as for :meth:`start`.
        """
        self.forget(index)
        self._stop(index)
        self.failed.discard(index)
        self._launch(index, *launch)

    def _launch(
        self,
        index: int,
        context: Any,
        target: Callable[..., None],
        name: str,
        daemon: bool,
        arguments: Callable[[Any, Any], tuple[Any, ...]],
    ) -> None:
        parent_pipe, child_pipe = context.Pipe()
        process = context.Process(
            target=target, name=f"{name}-{index}", args=arguments(child_pipe, parent_pipe)
        )
        process.daemon = daemon
        self.pipes[index] = parent_pipe
        self.processes[index] = process
        self._owed[index] = 0
        try:
            with _inherited_garbage_frozen(context):
                process.start()
        finally:
            child_pipe.close()
        self._watch(index, parent_pipe, process.sentinel)

    def expect(self, index: int) -> None:
        """Note that worker ``index`` owes one more reply, to a command sent by other means."""
        self._owed[index] += 1

    def _watch(self, index: int, pipe: Any, sentinel: int) -> None:
        self._checks[index] = _readiness_check(pipe, sentinel)
        if self._poller is not None:
            for fd, is_pipe in ((pipe.fileno(), True), (sentinel, False)):
                self._poller.register(fd, select.POLLIN)
                self._fd_owner[fd] = (index, is_pipe)

    def forget(self, index: int) -> None:
        """Stop talking to worker ``index``: close and drop its pipe."""
        pipe = self.pipes[index]
        if pipe is None:
            return
        for fd in [fd for fd, (owner, _) in self._fd_owner.items() if owner == index]:
            del self._fd_owner[fd]
            if self._poller is not None:
                self._poller.unregister(fd)
        pipe.close()
        self.pipes[index] = None
        self._owed[index] = 0
        self.unresponsive.discard(index)

    def shut_down(self, grace: float, ask_to_close: Callable[[int], None] | None = None) -> None:
        """End every worker: ``close`` within ``grace`` seconds, then terminate, then kill.

        Workers that already missed a deadline are not waited for again. If another thread
        is waiting for replies, the workers are ended at once (no polite phase).

        Args:
            grace: seconds the workers get to end by themselves.
            ask_to_close: asks worker ``i`` to end, for workers told by other means than a
                ``("close", None)`` message (which is answered by one last reply).
        """
        deadline = time.monotonic() + grace
        if not self._waiting.acquire(blocking=False):
            for index in range(len(self.processes)):
                self._stop(index, grace=0.0)
            if self._waiting.acquire(timeout=_OTHER_WAITER_SECONDS):
                self._waiting.release()
            for index in range(len(self.pipes)):
                self.forget(index)
            return
        self._waiting.release()
        if grace > 0 and ask_to_close is not None:
            polite = [i for i in self.live() if i not in self.unresponsive]
            for index in polite:
                ask_to_close(index)
            for index in polite:
                self.join(index, max(0.0, deadline - time.monotonic()))
        elif grace > 0:
            busy = [i for i in self.live() if self._owed[i] > 0 and i not in self.unresponsive]
            self.collect(busy, deadline)
            polite = [i for i in self.live() if self._owed[i] == 0]
            for index in polite:
                self.send(index, "close", None)
            self.collect(polite, deadline)
            for index in polite:
                self.join(index, max(0.0, deadline - time.monotonic()))
        for index in range(len(self.processes)):
            self._stop(index)
        for index in range(len(self.pipes)):
            self.forget(index)

    def join(self, index: int, timeout: float | None) -> None:
        """Wait up to ``timeout`` seconds for worker ``index`` to end, and reap it if it has.

        Safe to call from several threads at once (they take turns), unlike
        ``Process.join``; a worker never started is left alone.
        """
        process = self.processes[index]
        if process is None or process.pid is None:
            return
        if not self._reaping.acquire(timeout=-1 if timeout is None else timeout):
            return
        try:
            process.join(timeout)
        finally:
            self._reaping.release()

    def _stop(self, index: int, grace: float = TERMINATE_GRACE_SECONDS) -> None:
        process = self.processes[index]
        if process is None:
            return
        with self._reaping:
            stop_process(process, grace)

    def waiting_elsewhere(self) -> bool:
        """Whether some thread is waiting for replies right now (see :meth:`collect`)."""
        return self._waiting.locked()

    # --------------------------------------------------------------------------- status

    def live(self) -> list[int]:
        """List the indices of the workers still talked to."""
        return [i for i, pipe in enumerate(self.pipes) if pipe is not None]

    def gone(self) -> list[int]:
        """List the indices of the workers known to be gone."""
        return [i for i, pipe in enumerate(self.pipes) if pipe is None]

    def describe_exit(self, index: int) -> str:
        """How worker ``index`` ended, in words (``killed by signal SIGKILL``, ...)."""
        if index in self.failed:
            return "stopped after an error"
        code = self.processes[index].exitcode
        if code is None:
            return "not answering"
        if code >= 0:
            return f"exited with code {code}"
        try:
            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"

    # -------------------------------------------------------------------- communication

    def send(self, index: int, command: str, data: Any) -> None:
        """Send ``(command, data)`` to worker ``index``; it now owes one more reply."""
        # A worker that is gone cannot take the command; waiting for its reply tells how it ended.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.pipes[index].send((command, data))
        self._owed[index] += 1

    def collect(self, indices: list[int], deadline: float | None) -> Replies:
        """Wait until ``deadline`` for the current reply of each of ``indices``.

        Replies owed for earlier, timed-out calls are read and dropped on the way.

        Raises:
            RuntimeError: if another thread is waiting already.
        """
        if not self._waiting.acquire(blocking=False):
            raise RuntimeError(
                "Another thread is already waiting for these workers' replies; wait for it "
                "to finish (or close the vector env) before making another call."
            )
        try:
            return self._collect(indices, deadline)
        finally:
            self._waiting.release()

    def _collect(self, indices: list[int], deadline: float | None) -> Replies:
        replies = Replies(dead=[i for i in indices if self.pipes[i] is None])
        waiting = [i for i in indices if self.pipes[i] is not None]
        if self._poller is not None:
            waiting = self._collect_together(waiting, deadline, replies)
        for index in waiting:
            self._record(replies, index, self._await_one(index, deadline))
        replies.dead.sort()
        return replies

    def _collect_together(self, waiting: list[int], deadline: float | None, replies: Replies):
        """Read the replies of ``waiting`` as they come, with one ``poll`` per round.

        Returns:
            The indices left to wait for one by one: none, unless the deadline passed or a
            round woke up only for workers outside ``waiting``.
        """
        waiting = list(waiting)
        while waiting:
            events = self._poller.poll(_milliseconds(_remaining(deadline)))
            ready: dict[int, bool] = {}
            for fd, _ in events:
                index, is_pipe = self._fd_owner.get(fd, (-1, False))
                if index in waiting:
                    ready[index] = ready.get(index, False) or is_pipe
            if not ready:
                return waiting
            for index, has_data in sorted(ready.items()):
                outcome = self._read(index) if has_data else _DEAD
                if outcome == _DEAD:
                    self.forget(index)
                if outcome is not None:
                    self._record(replies, index, outcome)
                    waiting.remove(index)
        return waiting

    def _await_one(self, index: int, deadline: float | None) -> Any:
        """Wait for worker ``index``'s current reply: ``(reply,)``, ``"silent"`` or ``"dead"``."""
        while self.pipes[index] is not None:
            has_data, has_ended = self._checks[index](_remaining(deadline))
            if not has_data and not has_ended:
                return _SILENT
            outcome = self._read(index) if has_data else _DEAD
            if outcome == _DEAD:
                break
            if outcome is not None:
                return outcome
        self.forget(index)
        return _DEAD

    def _read(self, index: int) -> Any:
        """Read one message: ``(reply,)`` if it is the awaited one, ``None`` if it was stale."""
        try:
            message = self.pipes[index].recv()
        except (EOFError, ConnectionResetError):
            return _DEAD
        self._owed[index] -= 1
        if self._owed[index] > 0:
            return None
        self.unresponsive.discard(index)
        return (message,)

    def _record(self, replies: Replies, index: int, outcome: Any) -> None:
        if outcome == _DEAD:
            replies.dead.append(index)
        elif outcome == _SILENT:
            replies.silent.append(index)
            self.unresponsive.add(index)
        else:
            replies.answers[index] = outcome[0]


# Serializes freezing the heap around a fork (see _inherited_garbage_frozen).
_FORKING = threading.Lock()


@contextlib.contextmanager
def _inherited_garbage_frozen(context: Any):
    """Around a fork, move every object to the permanent generation, then back in the parent.

    The child keeps them frozen: its collections only ever look at objects it creates. The
    young generations are collected first, so that unfreezing (which returns every object to
    the oldest generation) promotes only objects that a young collection would have kept. If
    the caller froze objects itself, its permanent generation is left alone and all the
    garbage is collected here before the fork instead.
    """
    if context.get_start_method() != "fork":
        yield
        return
    with _FORKING:
        if gc.get_freeze_count():
            gc.collect()
            yield
            return
        gc.collect(1)
        gc.freeze()
        try:
            yield
        finally:
            gc.unfreeze()


def _remaining(deadline: float | None) -> float | None:
    return None if deadline is None else max(0.0, deadline - time.monotonic())


def _milliseconds(seconds: float | None) -> int:
    return -1 if seconds is None else math.ceil(seconds * 1000)


def _no_readiness(timeout: float | None) -> tuple[bool, bool]:
    return False, False


def _readiness_check(pipe: Any, sentinel: int) -> Callable[[float | None], tuple[bool, bool]]:
    """Build ``check(timeout) -> (pipe has data or EOF, process ended)`` for one worker.

    Uses one reusable ``select.poll`` object where the platform has it (a single system call
    per check), else :func:`multiprocessing.connection.wait`.
    """
    if not hasattr(select, "poll"):

        def check_with_wait(timeout: float | None) -> tuple[bool, bool]:
            ready = wait([pipe, sentinel], timeout)
            return pipe in ready, sentinel in ready

        return check_with_wait

    poller = select.poll()
    pipe_fd = pipe.fileno()
    poller.register(pipe_fd, select.POLLIN)
    poller.register(sentinel, select.POLLIN)

    def check_with_poll(timeout: float | None) -> tuple[bool, bool]:
        ready = {fd for fd, _ in poller.poll(_milliseconds(timeout))}
        return pipe_fd in ready, sentinel in ready

    return check_with_poll


def stop_process(process: Any, grace: float = TERMINATE_GRACE_SECONDS) -> None:
    """Make sure ``process`` has ended: terminate it, give it ``grace`` s, kill it, reap it.

    A process that was never started, or has already ended, is only reaped. If another
    thread reaps it meanwhile, this waits (up to 2 s) until that thread has recorded the exit
    code, so ``process.exitcode`` is set when this returns. Two threads stopping or joining
    one process should still take turns (:class:`Workers` does).

    Example:
        >>> import multiprocessing, time
        >>> process = multiprocessing.get_context("fork").Process(target=time.sleep, args=(30,))
        >>> process.start()
        >>> stop_process(process)
        >>> process.exitcode
        -15
    """
    if process.pid is None:
        return
    if process.exitcode is None:
        process.terminate()
        process.join(grace)
    if process.exitcode is None:
        process.kill()
    process.join()
    # After a blocking join, no exit code means another thread's waitpid reaped the process
    # first; that thread records the code as soon as it runs again.
    recorded_by = time.monotonic() + _RECORDING_SECONDS
    while process.exitcode is None and time.monotonic() < recorded_by:
        time.sleep(0.001)
    if process.exitcode is not None:
        _release_sentinel(process)


def _release_sentinel(process: Any) -> None:
    """Close the pipe ends ``multiprocessing`` keeps for an ended process (its sentinel).

    They stay open until the ``Process`` object is garbage-collected or closed, so a
    closed vector env would hold two descriptors per worker for as long as the user keeps it,
    and every restart would add two. ``close()`` would also make ``exitcode`` and
    ``is_alive()`` raise, which callers still read; the finalizer that ``close()`` runs only
    closes those descriptors (once), leaving the recorded exit code readable.
    """
    finalizer = getattr(getattr(process, "_popen", None), "finalizer", None)
    if finalizer is not None:
        finalizer()
