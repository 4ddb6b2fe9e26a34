"""How a batched MuJoCo env advances its sub-environments' simulations.

Both backends hold ``num_envs`` simulations of one model and expose the data fields the
step hooks read as ``(num_envs, ...)`` arrays (:attr:`view`); both give, bit for bit, what a
loop of ``mj_step`` (then ``mj_rnePostConstraint``) over one ``MjData`` per sub-env gives:

* :class:`BatchSimulations` (``stepper="batch"``, the default) keeps them in one
  :class:`mujoco.batch.Batch`, which advances every simulation in a single C call on
  MuJoCo's own thread pool (the calling thread included): no Python runs per sub-env
  while the physics runs, and no Python thread is woken per step.
* :class:`ThreadSimulations` (``stepper="threads"``) keeps one ``MjData`` per sub-env and
  steps them on ``num_threads`` Python threads (the caller's included) that draw rows from
  one shared iterator; MuJoCo's bindings release the GIL inside ``mj_step`` and
  ``mj_rnePostConstraint``, so rows run in parallel, contact forces included. Calls too
  small to gain from threads (under :data:`PARALLEL_ABOVE_SECONDS` of work, as measured)
  run on the calling thread. Measured on 2 cores (``benchmarks/mujoco_speed.py``), it is
  the faster of the two for the tasks that read contact forces (the batch then copies
  each row's ``MjData`` out to compute them on one thread) and the slower for the others
  (its hand-over to a second thread costs tens of microseconds per step).

Example:
    >>> import numpy as np
    >>> from palaestra.envs.mujoco.models import build_model
    >>> model = build_model("inverted_pendulum.xml")
    >>> sims = ThreadSimulations(model, 3, 2, ("qpos", "qvel", "ctrl"), False)
    >>> sims.reset(np.arange(3), np.zeros((3, 2)), np.zeros((3, 2)))
    >>> sims.step(None, np.ones((3, 1), np.float32), 2)
    >>> bool(np.all(sims.view.qvel[:, 0] > 0))
    True
    >>> sims.close()
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from functools import partial
from types import SimpleNamespace
from typing import Any

import mujoco
import numpy as np

from palaestra.error import ClosedEnvironmentError

__all__ = ["STEPPERS", "BatchSimulations", "ThreadSimulations"]

# A step call whose rows take less than this on one thread runs on one thread: handing
# slices to the pool costs tens of microseconds.
PARALLEL_ABOVE_SECONDS = 200e-6
# How often a wait for a helper thread checks that the hand-over was not cut short.
_RECHECK_SECONDS = 0.05


class _Helper:
    """A thread that runs one task at a time, handed each one through two semaphores.

    Cheaper per task than a thread pool's queue and futures: :meth:`start` releases the
    semaphore the thread waits on, :meth:`wait` takes the one the thread releases when done.
    Whether the task is done is told by counters, not by the semaphores' parity, so the
    hand-over survives a ``KeyboardInterrupt`` anywhere in the caller (a wait cut short is
    finished by the next :meth:`start`; a hand-over cut short is made again by the wait)
    and a :meth:`stop` from another thread (a task already handed over is still run).
    """

    def __init__(self, name: str):
        self._go = threading.Semaphore(0)
        self._done = threading.Semaphore(0)
        self._task: Callable[[], None] | None = None
        self._error: BaseException | None = None
        self._started = 0  # tasks handed over (by the caller's thread)
        self._finished = 0  # tasks run (by the helper thread)
        self._stopping = False
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            self._go.acquire()
            # Taken, not kept: a finished task holds no simulations alive.
            task, self._task = self._task, None
            if task is not None:
                try:
                    task()
                except BaseException as exc:  # handed to the caller of wait()
                    self._error = exc
                task = None
                self._finished += 1
                self._done.release()
            if self._stopping:
                return

    def start(self, task: Callable[[], None]) -> None:
        """Run ``task`` on the thread (once the previous one, if still running, is done)."""
        self._settle()
        self._error = None
        self._task = task
        self._started += 1
        self._go.release()

    def wait(self) -> None:
        """Wait for the task to finish; raise what it raised."""
        self._settle()
        error, self._error = self._error, None
        if error is not None:
            raise error

    def _settle(self) -> None:
        while self._finished < self._started:
            if self._done.acquire(timeout=_RECHECK_SECONDS):
                continue
            if not self._thread.is_alive():
                return
            if self._task is not None:
                # Handed over but maybe not released (an interrupt in start); a release too
                # many only wakes the thread once without a task.
                self._go.release()

    def stop(self) -> None:
        """End the thread (after the task handed over, if any)."""
        self._stopping = True
        self._go.release()
        if threading.current_thread() is not self._thread:
            self._thread.join()


def _stop_all(helpers: list[_Helper]) -> None:
    for helper in helpers:
        helper.stop()


class ThreadSimulations:
    """One ``MjData`` per sub-env, stepped in slices on ``num_threads`` threads.

    Args:
        model: the compiled model.
        num_envs: the number of simulations.
        num_threads: the threads stepping them (the caller's thread runs one slice).
        fields: the ``MjData`` fields gathered into :attr:`view` after each call.
        contact_forces: whether ``cfrc_ext`` is computed after each step.
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        num_envs: int,
        num_threads: int,
        fields: tuple[str, ...],
        contact_forces: bool,
    ):
        self.model = model
        self.datas = [mujoco.MjData(model) for _ in range(num_envs)]
        self.fields = fields
        self.contact_forces = contact_forces
        self.view = SimpleNamespace(
            **{
                name: np.zeros((num_envs, *np.shape(getattr(self.datas[0], name))))
                for name in fields
            }
        )
        # Each row's (view row, MjData field) pairs, bound once: every attribute access of
        # an MjData field makes a new array. A step copies ctrl in, not out.
        self._pairs = [
            [(getattr(self.view, name)[row], getattr(data, name)) for name in fields]
            for row, data in enumerate(self.datas)
        ]
        self._step_pairs = [
            [pair for name, pair in zip(fields, pairs) if name != "ctrl"] for pairs in self._pairs
        ]
        self._states = [(data.qpos, data.qvel) for data in self.datas]
        self._controls = self.view.ctrl if "ctrl" in fields else np.zeros((num_envs, model.nu))
        self._ctrl_pairs = [(data.ctrl, self._controls[row]) for row, data in enumerate(self.datas)]
        self._num_threads = max(1, min(num_threads, num_envs))
        # Seconds one row's step takes on one thread (measured; 0 until the first step).
        self._row_seconds = 0.0
        # Each row's last step time, in seconds: the next step draws the dearest rows first
        # (longest first), so that the threads' last rows, the cheapest, end close together.
        self._row_costs = [0.0] * num_envs
        self._closed = False
        self._start_helpers()

    def _start_helpers(self) -> None:
        self._helpers = [_Helper(f"mujoco-step-{index}") for index in range(1, self._num_threads)]
        # An env dropped without close() still ends its threads (they hold nothing of it).
        self._stop_helpers = weakref.finalize(self, _stop_all, self._helpers)
        # A forked child has none of its parent's threads: it starts its own (see _run).
        self._pid = os.getpid()

    def _run(self, rows: list[int], work: Callable[[Iterator[int]], None]) -> None:
        """Run ``work`` over ``rows``: on this thread alone, or on every thread at once.

        In parallel, all threads draw rows from one iterator, so a thread that finishes
        its rows early takes the next instead of waiting for a slower one.
        """
        if self._helpers and self._pid != os.getpid():
            self._stop_helpers.detach()
            self._start_helpers()
        started = time.perf_counter()
        if not self._helpers or self._row_seconds * len(rows) < PARALLEL_ABOVE_SECONDS:
            work(iter(rows))
            self._row_seconds = (time.perf_counter() - started) / len(rows)
            return
        shared = iter(rows)
        task = partial(work, shared)
        helpers = self._helpers
        try:
            for helper in helpers:
                helper.start(task)
            work(shared)
        finally:
            # Every helper, started or not: one whose start was interrupted is waited for
            # all the same (a helper with nothing owed returns at once).
            for helper in helpers:
                helper.wait()
        # An upper bound (it includes the hand-over): a model whose rows cost less than
        # the threads' hand-over falls back to one thread and is measured there.
        elapsed = time.perf_counter() - started
        self._row_seconds = elapsed * self._num_threads / len(rows)

    def step(
        self,
        rows: np.ndarray | None,
        ctrl: np.ndarray,
        nstep: int,
        finish: Callable[[list[int]], None] | None = None,
    ) -> None:
        """Apply ``ctrl`` (one row per sub-env) and advance ``rows`` (all for ``None``).

        Raises ``ClosedEnvironmentError`` if another thread closed the simulations during
        the step. ``finish``, where given, is called by each thread with the rows it
        stepped (their :attr:`view` rows
        complete), once its share is done: work on them that releases the GIL then runs
        beside the other threads' physics.
        """
        costs = self._row_costs
        rows = range(len(self.datas)) if rows is None else rows.tolist()
        rows = sorted(rows, key=costs.__getitem__, reverse=True)
        self._controls[...] = ctrl
        model, datas, controls, pairs = self.model, self.datas, self._ctrl_pairs, self._step_pairs
        step, post = mujoco.mj_step, mujoco.mj_rnePostConstraint
        forces, clock = self.contact_forces, time.perf_counter

        def work(part: Iterator[int]) -> None:
            done: list[int] = []
            for row in part:
                done.append(row)
                started = clock()
                data = datas[row]
                target, source = controls[row]
                target[...] = source
                step(model, data, nstep)
                if forces:
                    post(model, data)
                for target, source in pairs[row]:
                    target[...] = source
                costs[row] = clock() - started
            if finish is not None and done:
                finish(done)

        self._run(rows, work)
        if self._closed:
            raise _closed_error()

    def _reset_row(self, row: int, qpos: np.ndarray, qvel: np.ndarray) -> None:
        data, model = self.datas[row], self.model
        mujoco.mj_resetData(model, data)
        position, velocity = self._states[row]
        position[:] = qpos
        velocity[:] = qvel
        mujoco.mj_forward(model, data)
        for target, source in self._pairs[row]:
            target[...] = source

    def reset(self, rows: np.ndarray, qpos: np.ndarray, qvel: np.ndarray) -> None:
        """Reset ``rows`` (``mj_resetData``), set their state and run ``mj_forward``."""
        for row, position, velocity in zip(rows.tolist(), qpos, qvel):
            self._reset_row(row, position, velocity)

    def copy_data(self, row: int, data: mujoco.MjData) -> None:
        """Copy sub-env ``row``'s whole ``MjData`` into ``data`` (to render it)."""
        mujoco.mj_copyData(data, self.model, self.datas[row])

    def close(self) -> None:
        """Stop the threads (a step running on another thread ends first, then raises)."""
        self._closed = True
        self._stop_helpers()
        self._helpers = []


class BatchSimulations:
    """The simulations of one persistent :class:`mujoco.batch.Batch`.

    ``cfrc_ext`` is not a batch output: after a step, each stepped row's ``MjData`` is
    copied into a scratch ``MjData`` whose ``mj_rnePostConstraint`` computes it. The copy
    (``get_data``, the whole ``MjData`` struct) is the dearer part, so it is made only for
    the rows that have an external force to sum: while no body force is applied and the
    model has no equality constraint or flex (which add their forces too), a row without
    contacts gets the zeros ``mj_rnePostConstraint`` would give it.

    Args:
        model: the compiled model.
        num_envs: the number of simulations.
        num_threads: the batch's threads (the caller's included).
        fields: the ``MjData`` fields bound into :attr:`view`.
        contact_forces: whether ``cfrc_ext`` is computed after each step.
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        num_envs: int,
        num_threads: int,
        fields: tuple[str, ...],
        contact_forces: bool,
    ):
        import mujoco.batch

        self.model = model
        self.batch = mujoco.batch.Batch(model, nsim=num_envs, nthread=num_threads, persistent=True)
        self.view = SimpleNamespace(
            **{name: self.batch.bind(name) for name in fields if name != "cfrc_ext"}
        )
        self.contact_forces = contact_forces
        if contact_forces:
            self.view.cfrc_ext = np.zeros((num_envs, model.nbody, 6))
            self._scratch = mujoco.MjData(model)
            # A view of the scratch's field, bound once (each attribute access makes one).
            self._scratch_cfrc_ext = self._scratch.cfrc_ext
            # Outputs of every call: the contacts of the last substep and the applied forces.
            self._ncon = self.batch.bind("ncon")
            self._xfrc_applied = self.batch.bind("xfrc_applied").reshape(num_envs, -1)
            # Equality constraints and flexes add forces whatever the contacts: every row.
            self._skips_free_rows = model.neq == 0 and model.nflex == 0
        self._all_rows = np.arange(num_envs)

    def step(
        self,
        rows: np.ndarray | None,
        ctrl: np.ndarray,
        nstep: int,
        finish: Callable[[list[int]], None] | None = None,
    ) -> None:
        """Apply ``ctrl`` (one row per sub-env) and advance ``rows`` (all for ``None``).

        ``finish``, where given, is then called with every row.

        Raises:
            palaestra.error.ClosedEnvironmentError: after :meth:`close`, or if another
                thread closed the simulations during the step (which ends on the batch it
                started on, kept alive until then).
        """
        batch, view = self.batch, self.view
        if batch is None:
            raise _closed_error()
        view.ctrl[:] = ctrl
        if rows is None or len(rows):
            batch.step(rows, nstep=nstep)
            if self.contact_forces:
                self._contact_forces(batch, view, self._all_rows if rows is None else rows)
        if self.batch is None:
            raise _closed_error()
        if finish is not None:
            finish(list(range(len(self._all_rows))))

    def _contact_forces(self, batch: Any, view: SimpleNamespace, rows: np.ndarray) -> None:
        """Compute ``cfrc_ext`` of the stepped ``rows``, as ``mj_rnePostConstraint`` does.

        MuJoCo computes it only on request, from the last substep's ``MjData``: the call a
        single env makes after its ``mj_step``, here on a copy of each row that has an
        external force; the others' are zeros, as that call would leave them.
        """
        cfrc = view.cfrc_ext
        if self._skips_free_rows and not self._xfrc_applied.any():
            if len(rows) == len(cfrc):
                free = self._ncon == 0
                cfrc[free] = 0.0
                rows = np.flatnonzero(~free)
            else:
                touched = self._ncon[rows] > 0
                cfrc[rows[~touched]] = 0.0
                rows = rows[touched]
        get_data, rne, model = batch.get_data, mujoco.mj_rnePostConstraint, self.model
        scratch, computed = self._scratch, self._scratch_cfrc_ext
        for row in rows.tolist():
            get_data(row, scratch)
            rne(model, scratch)
            cfrc[row] = computed

    def reset(self, rows: np.ndarray, qpos: np.ndarray, qvel: np.ndarray) -> None:
        """Reset ``rows`` (``mj_resetData``), set their state and run ``mj_forward``.

        Raises:
            palaestra.error.ClosedEnvironmentError: after :meth:`close`.
        """
        batch, view = self.batch, self.view
        if batch is None:
            raise _closed_error()
        self._reset(batch, view, rows, qpos, qvel)

    def _reset(
        self, batch: Any, view: SimpleNamespace, rows: np.ndarray, qpos: Any, qvel: Any
    ) -> None:
        batch.reset(rows, stage=mujoco.mjtStage.mjSTAGE_NONE)
        view.qpos[rows] = qpos
        view.qvel[rows] = qvel
        batch.forward(rows)
        if self.contact_forces:
            # mj_resetData clears them and mj_forward does not compute them.
            view.cfrc_ext[rows] = 0.0

    def copy_data(self, row: int, data: mujoco.MjData) -> None:
        """Copy sub-env ``row``'s whole ``MjData`` into ``data`` (to render it)."""
        batch = self.batch
        if batch is None:
            raise _closed_error()
        batch.get_data(row, data)

    def close(self) -> None:
        """Drop the batch and its bound arrays, so its threads end now, not at a later collection.

        A batch left for the garbage collector could be freed in a child forked meanwhile,
        where MuJoCo's thread-pool teardown waits for threads the fork did not copy.
        """
        self.view = SimpleNamespace()
        self.batch = None


def _closed_error() -> ClosedEnvironmentError:
    return ClosedEnvironmentError(
        "The MuJoCo simulations were closed (the vector env's close(), perhaps from another "
        "thread during this call); build a new vector env to go on."
    )


STEPPERS = {"threads": ThreadSimulations, "batch": BatchSimulations}
