"""A process pool vector env: several sub-environments per worker, one shared-memory block.

:class:`PoolVectorEnv` splits ``num_envs`` sub-environments into ``num_workers`` contiguous
groups, one worker process each (natively batched when built from a vector entry point).
Actions, observations, rewards and flags of all sub-environments live in one shared-memory
block; workers are woken by semaphores and nothing is pickled on a step unless a worker
returns a non-empty info. Spaces without a fixed shape (``Text``, ``Graph``, ``Sequence``,
``OneOf``, or composites holding one) travel through the workers' pipes instead.

Two ways to step:

* lockstep, the :class:`~palaestra.vector.VectorEnv` API: ``step`` sends every sub-env its
  action and returns once all are done, with the results of a sync vector env for the same
  seeds;
* EnvPool-style: ``async_reset()``, then ``recv()`` returns the first ``batch_size``
  sub-environments to finish (``info["env_id"]`` names them) and ``send(actions, env_ids)``
  sends those sub-environments their next actions.

This module is the pool's transport under the group layer
(:class:`~palaestra.vector.groups.GroupedVectorEnv`, which runs the vector API, ``send``/
``recv``, draining and restarts for the pool and Ray alike). Workers are started, watched,
stopped and their errors transported by :mod:`palaestra.vector.processes`, as for
:class:`~palaestra.vector.AsyncVectorEnv`.
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import os
import time
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from palaestra.core import Env
from palaestra.vector._arguments import autoreset_mode_from
from palaestra.vector.episodes import autoreset_mode
from palaestra.vector.groups import (
    Failure,
    Group,
    GroupedVectorEnv,
    Round,
    assemble,
    copy_batch,
    fixed_leaves,
    group_bounds,
    join_batches,
    native_group,
    place_info,
    slice_batch,
    sync_group,
    take_rows,
    write_batch,
)
from palaestra.vector.pool._block import SharedBlock, pool_layout
from palaestra.vector.pool._worker import (
    Command,
    PoliteWait,
    PoolGroup,
    Status,
    pool_worker,
    yield_core,
)
from palaestra.vector.processes import Workers, answer, check_capacity, failure_report
from palaestra.vector.utils import CloudpickleWrapper, batch_space
from palaestra.vector.vector_env import AutoresetMode, VectorEnv

__all__ = ["PoolVectorEnv"]


# How long the parent waits on the "finished" semaphore before checking worker liveness.
_LIVENESS_POLL_S = 0.05
# The longest poll of a waiting side before it sleeps on its semaphore (see PoliteWait): a
# wake-up from sleep costs tens of microseconds, as much as a small environment's step.
_SPIN_US = 1000.0
# Seconds the workers get to close their sub-envs before they are terminated.
_CLOSE_GRACE_S = 5.0
_NO_REPLY = object()


class _Worker(Group):
    """The parent's handle on one group: its index, sub-envs and the worker's wake semaphore.

    A ``local`` group is the parent's own (``parent_group=True``): no process, no semaphore.
    """

    def __init__(self, index: int, start: int, stop: int, local: bool = False):
        super().__init__(index, start, stop)
        self.local = local
        self.wake: Any = None


class _LocalGroup:
    """The parent's own group of sub-envs (``parent_group=True``) and its last reply."""

    def __init__(self) -> None:
        self.group: PoolGroup | None = None
        self.reply: Any = None
        self.inbox: Any = None

    def close(self) -> None:
        """Close the group's sub-envs (once)."""
        group, self.group = self.group, None
        if group is not None:
            group.envs.close()


def _close_pool(
    workers: Workers, handles: list[_Worker], block: SharedBlock | None, local: _LocalGroup
) -> None:
    """Close every worker (politely, then by force), the parent's group and the block."""

    def ask_to_close(index: int) -> None:
        if block is not None and block.arrays:
            block["command"][index] = Command.CLOSE
        handles[index].wake.release()

    try:
        workers.shut_down(_CLOSE_GRACE_S, ask_to_close=ask_to_close)
        local.close()
    finally:
        if block is not None and block.arrays:
            block.close()


class PoolVectorEnv(GroupedVectorEnv):
    """Run sub-environments in a pool of worker processes, several per worker.

    Args:
        env_fns: functions that each build one sub-environment; workers run their group as
            a :class:`~palaestra.vector.SyncVectorEnv`. Leave ``None`` to use
            ``vector_env_fn``.
        vector_env_fn: builds a (natively batched) vector env of ``n`` sub-environments
            when called with ``n``; each worker runs one. Needs ``num_envs``.
        num_envs: the number of sub-environments with ``vector_env_fn``.
        num_workers: worker processes (default: the number of CPU cores, at most
            ``num_envs``; with ``parent_group``, one fewer).
        batch_size: how many sub-environments ``recv`` returns (default ``num_envs``); a
            multiple of the group size.
        autoreset_mode: the autoreset mode of ``env_fns`` groups (a ``vector_env_fn`` sets
            its own).
        context: the :mod:`multiprocessing` start method (default: the platform's).
        timeout: seconds a worker may take for one command before it counts as hung.
        restart_failed: replace a worker that dies, hangs or raises (other than for an
            argument error) instead of raising. Its sub-environments' episodes come back
            truncated, with ``info["worker_restarted"]`` and ``info["restart_reason"]`` set
            for them, and then follow the autoreset mode as after any truncation; each
            restart is announced by a warning naming the sub-envs and the reason.
        max_restarts: restarts allowed per worker (a failed restart counts as one); then
            the failure is raised.
        spin_us: the longest a waiting side polls for its wake-up before sleeping on a
            semaphore, in microseconds (default 1000): workers between commands and the
            parent for the workers' results, when there are no more workers than cores.
            Polling yields the core to any other runnable process at every check and is
            skipped while recent waits were longer than ``spin_us``.
        parent_group: the parent process steps the last group of sub-environments itself,
            while the workers step theirs: one process fewer to wake and to share the
            cores with (``num_workers`` workers then hold all groups but the last).
            Exceptions are reported as from a worker and ``restart_failed`` rebuilds the
            group in the parent, but it has no process isolation: a crash in one of its
            sub-envs ends the parent, a hang blocks it (``timeout`` does not apply), and
            Ctrl-C interrupts its step, leaving its sub-envs part-way.
        pin_workers: bind each worker to one CPU (worker ``i`` to the ``i``-th CPU this
            process may run on, :attr:`worker_cpus` says which), once its sub-envs are
            built. ``None`` (the default) pins when there are exactly as many workers as
            such CPUs: the scheduler then cannot stack two lockstep workers on one core
            while another idles (on 2 cores, LunarLander-v3 N=8, unpinned workers shared
            one core in ~18% of the steps, each such step ~1.7x as long). ``False`` never
            pins. No effect where the platform has no CPU affinity (macOS, Windows).

    Exceptions raised by a sub-environment come back with their own type, naming the
    sub-environments of its worker and carrying the worker's traceback. Argument errors (an
    action outside the action space, a bad seed, a misspelt ``call`` name) leave the worker
    running; a worker that dies or hangs raises :class:`~palaestra.error.WorkerError`.

    Raises:
        ValueError: for a missing or contradictory env source, a bad ``num_workers``,
            ``batch_size`` or ``max_restarts``.
        RuntimeError: if a sub-env's spaces differ from the first sub-env's.
        Exception: whatever a sub-environment's constructor raised, with its type.

    Example:
        >>> import numpy as np
        >>> import palaestra as gym
        >>> envs = gym.make_vec("CartPole-v1", 4, vectorization_mode="pool",
        ...                     vector_kwargs={"num_workers": 2})
        >>> observations, infos = envs.reset(seed=0)
        >>> envs.step(np.array([0, 1, 0, 1]))[1]
        array([1., 1., 1., 1.])
        >>> envs.close()
    """

    _unit = "pool worker"

    def __init__(
        self,
        env_fns: Sequence[Callable[[], Env]] | None = None,
        *,
        vector_env_fn: Callable[[int], VectorEnv] | None = None,
        num_envs: int | None = None,
        num_workers: int | None = None,
        batch_size: int | None = None,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        context: str | None = None,
        timeout: float = 60.0,
        restart_failed: bool = False,
        max_restarts: int = 3,
        spin_us: float | None = None,
        parent_group: bool = False,
        pin_workers: bool | None = None,
    ):
        self.num_envs = self._count_envs(env_fns, vector_env_fn, num_envs)
        self.env_fns = env_fns
        self.vector_env_fn = vector_env_fn
        self.parent_group = bool(parent_group)
        self.num_workers = self._count_workers(num_workers)
        self.timeout = timeout
        if spin_us is None:
            spin_us = _SPIN_US
        if not spin_us >= 0:
            raise ValueError(f"spin_us must be a number of microseconds >= 0, got {spin_us!r}.")
        # Both sides poll while each worker can have a core: with the parent that is one
        # process more than cores, which the polls' yields leave to whoever needs them
        # (measured on 2 cores, LunarLander-v3 N=8 with two workers: 170 us per step with
        # the parent polling, 228 without).
        polls = self.num_workers <= (os.cpu_count() or 1)
        # Workers and the parent wait alike: both poll for up to spin_s.
        self.spin_s = spin_us * 1e-6 if polls else 0.0
        self._parent_wait = PoliteWait(self.spin_s)
        check_capacity(
            self.num_workers,
            f"PoolVectorEnv(num_workers={self.num_workers})",
            "Use fewer workers (`vector_kwargs={'num_workers': ...}`).",
            start_method=context,
        )
        self.worker_cpus = _worker_cpus(self.num_workers, pin_workers)
        self._probe_spaces(env_fns, vector_env_fn, autoreset_mode_from(autoreset_mode))
        groups = self.num_workers + self.parent_group
        workers = [
            _Worker(i, start, stop, local=i >= self.num_workers)
            for i, (start, stop) in enumerate(group_bounds(self.num_envs, groups))
        ]
        self._init_groups(workers, batch_size, restart_failed, max_restarts)
        self._remote = [w for w in workers if not w.local]
        self._local = _LocalGroup()
        self._allocate_block()
        self._context = multiprocessing.get_context(context)
        self._finished = self._context.Semaphore(0)
        self._processes = Workers()
        self._finalizer = weakref.finalize(
            self, _close_pool, self._processes, self._groups, self._block, self._local
        )
        try:
            for worker in self._groups:
                self._start(worker)
            self._await_ready(self._remote)
        except BaseException:
            self._finalizer()
            self.closed = True
            raise

    # Construction ----------------------------------------------------------------------------

    def _count_workers(self, num_workers: int | None) -> int:
        # The parent's group takes one core and one group of sub-envs.
        most = self.num_envs - self.parent_group
        if num_workers is None:
            return min((os.cpu_count() or 1) - self.parent_group, most)
        if not 1 - self.parent_group <= int(num_workers) <= most:
            raise ValueError(
                f"num_workers must be between {1 - self.parent_group} and {most} "
                f"(num_envs={self.num_envs}"
                f"{', one group in the parent' if self.parent_group else ''}), got {num_workers}."
            )
        return int(num_workers)

    def _probe_spaces(self, env_fns: Any, vector_env_fn: Any, mode: AutoresetMode) -> None:
        probe = vector_env_fn(1) if vector_env_fn is not None else sync_group(env_fns[:1], mode)
        try:
            self.single_observation_space = probe.single_observation_space
            self.single_action_space = probe.single_action_space
            self.metadata = dict(probe.metadata)
            self.render_mode = probe.render_mode
        finally:
            probe.close()
        self.autoreset_mode = autoreset_mode(self)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    def _allocate_block(self) -> None:
        observation_leaves = fixed_leaves(self.single_observation_space, "observations")
        action_leaves = fixed_leaves(self.single_action_space, "actions")
        self._block = SharedBlock(
            pool_layout(self.num_envs, len(self._groups), action_leaves, observation_leaves)
        )
        self._observations_in_block = observation_leaves is not None
        self._actions_in_block = action_leaves is not None
        arrays = self._block.arrays
        self._observation_view = (
            assemble(self.single_observation_space, arrays, "observations")
            if self._observations_in_block
            else None
        )
        self._action_leaves = action_leaves or []
        self._single_action_array = "actions" in arrays
        # The dtype of the last actions found to fit the block exactly.
        self._fitting_dtype: Any = None
        # The latest observation batch of each worker whose observations use the pipes.
        self._group_observations: dict[int, Any] = {}
        self._dtype_fits: dict[tuple[Any, Any], bool] = {}
        # Where the workers write their step results: the group layer reads them here.
        self._rewards = arrays["rewards"]
        self._terminations = arrays["terminations"]
        self._truncations = arrays["truncations"]

    def _group_builder(self, worker: _Worker) -> CloudpickleWrapper:
        expected = (self.single_observation_space, self.single_action_space)
        if self.vector_env_fn is not None:
            build = functools.partial(
                native_group, self.vector_env_fn, worker.size, worker.start, expected
            )
        else:
            build = functools.partial(
                sync_group,
                self.env_fns[worker.start : worker.stop],  # type: ignore[index]
                self.autoreset_mode,
                worker.start,
                expected,
            )
        return CloudpickleWrapper(build)

    def _worker_arguments(self, worker: _Worker) -> Callable[[Any, Any], tuple[Any, ...]]:
        worker.wake = self._context.Semaphore(0)
        spaces = (
            self.single_observation_space,
            self.single_action_space,
            self._observations_in_block,
            self._actions_in_block,
        )

        def arguments(child_pipe: Any, parent_pipe: Any) -> tuple[Any, ...]:
            return (
                self._group_builder(worker),
                worker.index,
                (worker.start, worker.stop),
                self._block.layout,
                self._block.name,
                worker.wake,
                self._finished,
                child_pipe,
                os.getpid(),
                spaces,
                self.spin_s,
                self.worker_cpus[worker.index],
            )

        return arguments

    def _start(self, worker: _Worker) -> None:
        self._block["done"][worker.index] = self._block["sequence"][worker.index]
        if worker.local:
            self._build_local(worker)
            return
        self._processes.start(
            self._context,
            pool_worker,
            "PoolVectorEnv-worker",
            True,
            self._worker_arguments(worker),
        )

    def _build_local(self, worker: _Worker) -> None:
        """Build the parent's own group; a failure is raised as a worker's would be."""
        try:
            envs = self._group_builder(worker)()
        except Exception as error:
            raise self._exception(
                Failure(worker, "", failure_report(worker.start, error))
            ) from error
        spaces = (
            self.single_observation_space,
            self.single_action_space,
            self._observations_in_block,
            self._actions_in_block,
        )
        local = self._local
        local.group = PoolGroup(
            envs, self._block, worker.start, worker.stop, lambda: local.inbox, spaces
        )

    def _await_ready(self, workers: Sequence[_Worker]) -> None:
        """Wait for each worker's report that its group is built; raise its failure if not."""
        for worker in workers:
            self._processes.expect(worker.index)
        replies = self._processes.collect(
            [w.index for w in workers], time.monotonic() + self.timeout
        )
        for index in replies.dead:
            what = (
                f"died while building its sub-environments ({self._processes.describe_exit(index)})"
            )
            raise self._exception(Failure(self._groups[index], what))
        for index in replies.silent:
            what = f"did not build its sub-environments within timeout={self.timeout} s"
            raise self._exception(Failure(self._groups[index], what))
        for index, (kind, report) in sorted(replies.answers.items()):
            if kind == "failed":
                raise self._exception(Failure(self._groups[index], "", report))

    # Commands ------------------------------------------------------------------------------

    def _pipe(self, worker: _Worker) -> Any:
        return self._processes.pipes[worker.index]

    def _process(self, worker: _Worker) -> Any:
        return self._processes.processes[worker.index]

    @property
    def _workers(self) -> list[_Worker]:
        """The groups, as the pool's workers (``local``: the parent's own)."""
        return self._groups

    # Transport -------------------------------------------------------------------------------

    def _send_step(self, groups: Sequence[Any], actions: Any, ids: np.ndarray | None) -> None:
        if self._write_actions(actions, slice(None) if ids is None else ids):
            self._dispatch(groups, Command.STEP)
        else:
            self._dispatch(groups, Command.STEP_PIPED, self._piped_actions(actions, ids))

    def _send_command(
        self, groups: Sequence[Any], command: str, payload: Callable[[Any], Any]
    ) -> None:
        self._dispatch(groups, Command.RESET if command == "reset" else Command.CALL, payload)

    def _dispatch(self, workers: Sequence[_Worker], command: int, payload: Any = None) -> None:
        """Hand ``workers`` a command (``payload(worker)`` is its data through the pipe)."""
        block = self._block
        in_flight = self._in_flight
        local = None
        for worker in workers:
            if worker.local:
                local = worker
                continue
            index = worker.index
            block["command"][index] = command
            block["sequence"][index] += 1
            in_flight.add(index)
            if payload is not None:
                # A dead worker cannot take it; waiting for it reports how it ended.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self._pipe(worker).send(payload(worker))
            worker.wake.release()
        if local is not None:
            # After the workers are woken: the parent's group runs while they run theirs.
            self._run_local(local, command, payload)

    def _run_local(self, worker: _Worker, command: int, payload: Any) -> None:
        """Run a command on the parent's own group, as its worker would, and finish it."""
        block, index, local = self._block, worker.index, self._local
        block["command"][index] = command
        block["sequence"][index] += 1
        self._in_flight.add(index)
        local.reply = None
        group = local.group
        try:
            local.inbox = None if payload is None else payload(worker)
            name, data = group.arguments(command)
            reply, success = answer(worker.start, group.run, name, data, group.envs.action_space)
        finally:
            local.inbox = None
            # An interrupted command counts as done, without a reply (nothing is owed).
            block["status"][index] = Status.OK
            block["done"][index] = block["sequence"][index]
        if not success and reply.error_type is KeyboardInterrupt:
            raise KeyboardInterrupt
        status, local.reply = reply if success else (Status.ERROR, reply)
        block["status"][index] = status

    def _receive(self, worker: _Worker) -> Any:
        """Read a worker's reply, which it sends right after finishing a command."""
        if worker.local:
            reply, self._local.reply = self._local.reply, None
            return _NO_REPLY if reply is None else reply
        pipe = self._pipe(worker)
        try:
            if not pipe.poll(self.timeout):
                return _NO_REPLY
            return pipe.recv()
        except (EOFError, OSError):
            return _NO_REPLY

    def _is_done(self, worker: _Worker) -> bool:
        return bool(self._block["done"][worker.index] == self._block["sequence"][worker.index])

    def _wait(self, workers: Sequence[_Worker], round_: Round, enough: int | None) -> None:
        """Wait until every worker in ``workers`` (or ``enough`` sub-envs' worth) is done.

        Finished workers go to ``round_.done``; dead or hung ones to ``round_.failures``.
        """
        pending = list(workers)
        done = round_.done
        needed = sum(w.size for w in workers) if enough is None else enough
        counted = 0
        deadline = time.monotonic() + self.timeout
        finished = self._finished
        polling = self._parent_wait.polls()
        started = time.perf_counter()
        poll_until = started + self.spin_s
        if polling:
            # No worker is done this soon; a worker sharing the parent's core gets it now.
            yield_core()
        while True:
            # The semaphore only wakes the parent; the done words say who finished. Taking
            # every release first keeps its count from growing when polling finds them.
            while finished.acquire(False):
                pass
            for worker in [w for w in pending if self._is_done(w)]:
                pending.remove(worker)
                done.append(worker)
                counted += worker.size
            if counted >= needed or not pending:
                # The running average of the waits decides whether the next one polls.
                self._parent_wait.record(time.perf_counter() - started)
                return
            if polling and time.perf_counter() < poll_until:
                yield_core()
                continue
            polling = False
            if not self._finished.acquire(timeout=_LIVENESS_POLL_S):
                for worker in list(pending):
                    if enough is not None and counted >= needed:
                        break
                    process = self._process(worker)
                    if not process.is_alive() and not self._is_done(worker):
                        pending.remove(worker)
                        round_.failures.append(
                            Failure(worker, f"died with exit code {process.exitcode}")
                        )
                        counted += worker.size
                if round_.failures and enough is not None and counted >= needed:
                    return
                if time.monotonic() > deadline:
                    for worker in pending:
                        round_.failures.append(
                            Failure(worker, f"did not answer within {self.timeout} s (hung)")
                        )
                    return

    def _collect(self, round_: Round) -> None:
        status = self._block["status"].tolist()
        in_flight = self._in_flight
        group_infos = []
        for worker in round_.done:
            in_flight.discard(worker.index)
            word = status[worker.index]
            if word == Status.OK:
                continue
            reply = self._receive(worker)
            if reply is _NO_REPLY:
                round_.failures.append(Failure(worker, "died before sending its reply"))
            elif word == Status.ERROR:
                if reply.fatal:
                    round_.failures.append(Failure(worker, "raised an exception", reply))
                else:
                    round_.argument_errors.append((worker, reply))
            elif len(reply) == 1:  # a call's result (the command may be one being drained)
                round_.results[worker.index] = reply[0]
            else:
                observations, info = reply
                if observations is not None:
                    self._group_observations[worker.index] = observations
                if info:
                    group_infos.append((worker.start, info))
        # In row order whatever order the workers finished in: as in a sync vector env, the
        # first row holding a key decides its batch's dtype.
        for start, info in sorted(group_infos, key=lambda item: item[0]):
            place_info(round_.infos, info, start, self.num_envs)
        if round_.failures:
            failed = {failure.group for failure in round_.failures}
            round_.done = [w for w in round_.done if w not in failed]
            for failure in round_.failures:
                in_flight.discard(failure.group.index)

    def _give_up(self, group: Any) -> None:
        if group.local:
            with contextlib.suppress(Exception):
                self._local.close()
        else:
            self._processes.forget(group.index)

    def _replace(self, worker: _Worker) -> None:
        self._in_flight.discard(worker.index)
        self._group_observations.pop(worker.index, None)
        self._block["sequence"][worker.index] = self._block["done"][worker.index] = 0
        if worker.local:
            # What the failure left of the old sub-envs is closed as far as it can be.
            with contextlib.suppress(Exception):
                self._local.close()
            self._build_local(worker)
            return
        self._processes.replace(
            worker.index,
            self._context,
            pool_worker,
            "PoolVectorEnv-worker",
            True,
            self._worker_arguments(worker),
        )
        self._await_ready([worker])

    def _previous_observations(self, worker: _Worker) -> Any:
        rows = slice(worker.start, worker.stop)
        if self._observations_in_block:
            return copy_batch(
                slice_batch(self.single_observation_space, self._observation_view, rows)
            )
        return self._group_observations.get(worker.index)

    def _restore_observations(self, group: Any, observations: Any) -> None:
        if self._observations_in_block:
            write_batch(
                self.single_observation_space,
                observations,
                self._block.arrays,
                "observations",
                group.rows,
            )
        else:
            self._group_observations[group.index] = observations

    def _observation_batch(self, ids: np.ndarray | None = None, groups: Any = None) -> Any:
        if self._observations_in_block:
            view = self._observation_view
            if ids is None:
                return view.copy() if isinstance(view, np.ndarray) else copy_batch(view)
            return take_rows(view, ids)
        chosen = self._groups if groups is None else groups
        return join_batches(
            self.single_observation_space, [self._group_observations[w.index] for w in chosen]
        )

    def _write_actions(self, actions: Any, rows: Any) -> bool:
        """Write actions into the block; ``False`` if they must travel by pipe instead.

        Actions go by pipe when their space has no fixed shape or the block's dtype could
        not hold them exactly (fractions or NaN for integer actions, say): the sub-envs then
        receive them as given and raise their own error for bad ones.

        Raises:
            ValueError: for a batch of the wrong shape.
        """
        if not self._actions_in_block:
            return False
        arrays = self._block.arrays
        if self._single_action_array:
            target = arrays["actions"]
            values = np.asarray(actions)
            if rows.__class__ is slice:
                if values.shape != target.shape:
                    self._check_shape(values, target)
            else:
                self._check_shape(values, target[rows])
            if values.dtype is not self._fitting_dtype:
                if not self._fits(values.dtype, target.dtype):
                    return False
                self._fitting_dtype = values.dtype
            target[rows] = values
            return True
        leaves = []
        for key, _, _ in self._action_leaves:
            value = actions
            try:
                for part in key.split("/")[1:]:
                    value = value[int(part) if isinstance(value, (tuple, list)) else part]
            except (KeyError, IndexError, TypeError, ValueError):
                return False
            value = np.asarray(value)
            self._check_shape(value, arrays[key][rows])
            if not self._fits(value.dtype, arrays[key].dtype):
                return False
            leaves.append((key, value))
        for key, value in leaves:
            arrays[key][rows] = value
        return True

    def _check_shape(self, values: np.ndarray, target: np.ndarray) -> None:
        if values.shape != target.shape:
            raise ValueError(
                f"PoolVectorEnv expects actions of shape {target.shape} for the sub-envs "
                f"addressed (an element of {self.action_space} for all), got {values.shape}."
            )

    def _fits(self, source: np.dtype, target: np.dtype) -> bool:
        key = (source, target)
        fits = self._dtype_fits.get(key)
        if fits is None:
            if target.kind == "f":
                fits = source.kind == "f"
            else:
                fits = source == target or np.can_cast(source, target, casting="safe")
            self._dtype_fits[key] = fits
        return fits

    def _piped_actions(self, actions: Any, ids: np.ndarray | None) -> Callable[[_Worker], Any]:
        space = self.single_action_space
        if ids is None:
            return lambda worker: slice_batch(space, actions, slice(worker.start, worker.stop))
        order = np.argsort(ids, kind="stable")
        sorted_ids = ids[order]

        def group_actions(worker: _Worker) -> Any:
            inside = (sorted_ids >= worker.start) & (sorted_ids < worker.stop)
            return slice_batch(space, actions, order[inside])

        return group_actions

    def close_extras(self, **kwargs: Any) -> None:
        """Stop every worker and free the shared block.

        Workers get a few seconds to close their sub-envs, then are terminated, then killed;
        a worker still busy with a command that did not finish is not waited for.
        """
        if not self.closed and self._block.arrays:
            for index in self._in_flight:
                if not self._is_done(self._groups[index]):
                    self._processes.unresponsive.add(index)
        self._finalizer()


def _worker_cpus(num_workers: int, pin: bool | None) -> tuple[int | None, ...]:
    """Return the CPU each worker is bound to (``None``: not bound); see ``pin_workers``.

    Example:
        >>> _worker_cpus(2, False)
        (None, None)
    """
    if pin is False or not hasattr(os, "sched_setaffinity"):
        return (None,) * num_workers
    cpus = sorted(os.sched_getaffinity(0))
    if pin is None and num_workers != len(cpus):
        return (None,) * num_workers
    return tuple(cpus[i % len(cpus)] for i in range(num_workers))
