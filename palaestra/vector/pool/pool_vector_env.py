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

Workers are started, watched, stopped and their errors transported by
:mod:`palaestra.vector.processes`, as for :class:`~palaestra.vector.AsyncVectorEnv`.
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import os
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from palaestra.core import Env
from palaestra.error import ClosedEnvironmentError, ResetNeeded
from palaestra.vector._arguments import (
    action_misfit,
    autoreset_mode_from,
    observation_misfit,
    seeds_per_env,
    split_reset_mask,
    values_per_env,
)
from palaestra.vector.episodes import SubEnvStepper, autoreset_mode, disabled_step_error
from palaestra.vector.pool._block import SharedBlock, pool_layout
from palaestra.vector.pool._layout import (
    assemble,
    copy_batch,
    fixed_leaves,
    join_batches,
    slice_batch,
    write_batch,
)
from palaestra.vector.pool._worker import (
    Command,
    PoliteWait,
    Status,
    _Group,
    _yield_core,
    pool_worker,
)
from palaestra.vector.processes import (
    ErrorReport,
    RestartBudget,
    Workers,
    answer,
    check_capacity,
    failure_report,
    group_failure_error,
    locate_sub_env,
    lost_workers_error,
)
from palaestra.vector.sync_vector_env import SyncVectorEnv
from palaestra.vector.utils import CloudpickleWrapper, batch_space, concatenate, iterate
from palaestra.vector.vector_env import AutoresetMode, VectorEnv, add_info

__all__ = ["PoolVectorEnv"]

# How long the parent waits on the "finished" semaphore before checking worker liveness.
_LIVENESS_POLL_S = 0.05
# The longest poll of a waiting side before it sleeps on its semaphore (see PoliteWait): a
# wake-up from sleep costs tens of microseconds, as much as a small environment's step.
_SPIN_US = 1000.0
# Seconds the workers get to close their sub-envs before they are terminated.
_CLOSE_GRACE_S = 5.0
_NO_REPLY = object()


def _given(env: Env) -> Env:
    return env


def _sync_group(
    env_fns: Sequence[Callable[[], Env]],
    autoreset_mode: AutoresetMode,
    start: int = 0,
    expected: tuple[Any, Any] | None = None,
) -> Any:
    """Build a group of single envs; check each one's spaces against ``expected``.

    An exception of a sub-env (in its constructor, ``reset`` or ``step``) carries its offset
    in the group (see :func:`~palaestra.vector.processes.locate_sub_env`).
    """
    envs = []
    for offset, env_fn in enumerate(env_fns):
        try:
            envs.append(env_fn())
        except BaseException as error:
            locate_sub_env(error, offset)
            for built in envs:
                built.close()
            raise
    if expected is not None:
        for offset, env in enumerate(envs):
            problem = _misfit(start + offset, env.observation_space, env.action_space, expected)
            if problem is not None:
                for built in envs:
                    built.close()
                raise RuntimeError(problem)
    return _GroupSyncVectorEnv(
        [functools.partial(_given, env) for env in envs], autoreset_mode=autoreset_mode
    )


# The info key under which a group of single envs hands over its sub-envs' own infos.
_ROW_INFOS = "palaestra.pool.row_infos"


class _GroupSyncVectorEnv(SyncVectorEnv):
    """A worker's group of single envs whose step and reset infos stay per sub-env.

    A sync vector env gives an info key the dtype of the first sub-env holding it (an ``int``
    1 makes an int batch that truncates a later row's 0.33). Merged group by group, that
    first row would be each group's; so the group hands over each sub-env's own info, under
    one key, and the parent merges them all in row order exactly as a sync vector env does.
    """

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._steppers = [_LocatingStepper(s.env, s.mode, s.index) for s in self._steppers]

    def _add_info(
        self, vector_infos: dict[str, Any], env_info: dict[str, Any], env_num: int
    ) -> dict[str, Any]:
        if env_info:
            vector_infos.setdefault(_ROW_INFOS, []).append((env_num, env_info))
        return vector_infos

    def step_into(
        self,
        actions: Any,
        observations: np.ndarray,
        rewards: np.ndarray,
        terminations: np.ndarray,
        truncations: np.ndarray,
    ) -> dict[str, Any]:
        """Step as :meth:`step` does, writing the batches straight into the given arrays.

        The worker's own rows of the shared block are the arrays: no batch is built and
        copied on the way. ``observations`` is the block's array for a space that batches
        into one array (``Box``, ``Discrete``, ``MultiDiscrete``, ``MultiBinary``).

        Returns:
            The step's info (the sub-envs' own infos, as :meth:`step` hands them over).

        Raises:
            RuntimeError: with ``autoreset_mode=DISABLED``, if a sub-env whose episode ended
                was not reset (no sub-env is stepped then).
            ClosedEnvironmentError: after :meth:`close`.
        """
        infos = self._step_rows(actions, rewards, terminations, truncations)
        # As step() batches them (np.stack, with its casting rules), but into the block.
        concatenate(self.single_observation_space, self._env_obs, observations)
        return infos


class _LocatingStepper(SubEnvStepper):
    """A sub-env stepper whose exceptions carry the sub-env's offset in its group."""

    __slots__ = ()

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        """Reset as :class:`SubEnvStepper` does; an exception names this sub-env."""
        try:
            return super().reset(**kwargs)
        except BaseException as error:
            locate_sub_env(error, self.index)
            raise

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step as :class:`SubEnvStepper` does; an exception names this sub-env."""
        try:
            return super().step(action)
        except BaseException as error:
            locate_sub_env(error, self.index)
            raise


def _native_group(
    vector_env_fn: Callable[[int], VectorEnv],
    num_envs: int,
    start: int = 0,
    expected: tuple[Any, Any] | None = None,
) -> Any:
    """Build a natively batched group; check its single spaces against ``expected``."""
    envs = vector_env_fn(num_envs)
    if expected is not None:
        problem = _misfit(start, envs.single_observation_space, envs.single_action_space, expected)
        if problem is not None:
            envs.close()
            raise RuntimeError(problem)
    return envs


def _misfit(index: int, observation_space: Any, action_space: Any, expected: Any) -> str | None:
    if observation_space != expected[0]:
        return observation_misfit("PoolVectorEnv", "same", index, observation_space, expected[0])
    if action_space != expected[1]:
        return action_misfit(index, action_space, expected[1])
    return None


class _Worker:
    """The parent's handle on one group: its index, sub-envs and the worker's wake semaphore.

    A ``local`` group is the parent's own (``parent_group=True``): no process, no semaphore.
    """

    def __init__(self, index: int, start: int, stop: int, local: bool = False):
        self.index = index
        self.start, self.stop = start, stop
        self.local = local
        self.wake: Any = None

    @property
    def env_indices(self) -> list[int]:
        return list(range(self.start, self.stop))

    @property
    def size(self) -> int:
        return self.stop - self.start


@dataclass
class _Failure:
    """A worker that died, hung, or raised an exception that stopped it."""

    worker: _Worker
    what: str
    report: ErrorReport | None = None
    # For a failed restart: the error it raised, raised as is once the budget is spent.
    error: BaseException | None = None


class _Round:
    """What came back from one command sent to some workers.

    Attributes:
        done: the workers that finished it.
        infos: their merged infos.
        results: ``call`` results by worker index (and restart bookkeeping).
        failures: workers that died, hung or raised (fatally).
        argument_errors: ``(worker, report)`` of argument errors.
        restarted: workers restarted in this round.
    """

    __slots__ = ("argument_errors", "done", "failures", "infos", "restarted", "results")

    def __init__(self) -> None:
        self.done: list[_Worker] = []
        self.infos: dict[str, Any] = {}
        self.results: dict[Any, Any] = {}
        self.failures: list[_Failure] = []
        self.argument_errors: list[tuple[_Worker, ErrorReport]] = []
        self.restarted: list[_Worker] = []


class _LocalGroup:
    """The parent's own group of sub-envs (``parent_group=True``) and its last reply."""

    def __init__(self) -> None:
        self.group: _Group | None = None
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


class PoolVectorEnv(VectorEnv[Any, Any, np.ndarray]):
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
        self.restart_failed = restart_failed
        self._budget = RestartBudget(max_restarts, "PoolVectorEnv")
        self.max_restarts = max_restarts
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
        bounds = np.linspace(0, self.num_envs, groups + 1).round().astype(int)
        self._workers = [
            _Worker(i, int(bounds[i]), int(bounds[i + 1]), local=i >= self.num_workers)
            for i in range(groups)
        ]
        self._remote = [w for w in self._workers if not w.local]
        self._local = _LocalGroup()
        self.batch_size = self._check_batch_size(batch_size)
        self._allocate_block()
        self._context = multiprocessing.get_context(context)
        self._finished = self._context.Semaphore(0)
        self._processes = Workers()
        # Workers sent a command whose completion has not been collected yet.
        self._in_flight: set[int] = set()
        # Indices of workers seen finished, in the order recv should return them.
        self._ready: list[int] = []
        self._last_ids: np.ndarray | None = None
        # Whether reset() or async_reset() was called: send() steps, which needs episodes.
        self._reset_once = False
        # Workers busy with a reset the user asked for: its payload, to run it again after
        # a restart (see _dispatch).
        self._user_resets: dict[int, Any] = {}
        # NEXT_STEP: restarted workers whose next step is the autoreset step.
        self._autoreset_next: set[int] = set()
        # Of those, the ones sent their autoreset step by send(), for recv to report.
        self._recv_resetting: set[int] = set()
        # Workers lost to a failure without restart.
        self._lost: dict[int, str] = {}
        # DISABLED: the sub-envs whose episode ended and that were not reset since; stepping
        # them raises here, as in the sync and async vector envs, before any worker sees it.
        self._ended = (
            np.zeros(self.num_envs, dtype=np.bool_)
            if self.autoreset_mode is AutoresetMode.DISABLED
            else None
        )
        self._finalizer = weakref.finalize(
            self, _close_pool, self._processes, self._workers, self._block, self._local
        )
        try:
            for worker in self._workers:
                self._start(worker)
            self._await_ready(self._remote)
        except BaseException:
            self._finalizer()
            self.closed = True
            raise

    # Construction ----------------------------------------------------------------------------

    @staticmethod
    def _count_envs(env_fns: Any, vector_env_fn: Any, num_envs: int | None) -> int:
        if (env_fns is None) == (vector_env_fn is None):
            raise ValueError(
                "PoolVectorEnv needs exactly one of `env_fns` (one builder per sub-env) or "
                "`vector_env_fn` (a builder of n batched sub-envs, with `num_envs`)."
            )
        count = len(env_fns) if env_fns is not None else num_envs
        if count is None or int(count) < 1:
            raise ValueError(
                f"PoolVectorEnv needs at least one sub-environment, got num_envs={count}."
            )
        return int(count)

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

    def _check_batch_size(self, batch_size: int | None) -> int:
        if batch_size is None:
            return self.num_envs
        sizes = {worker.size for worker in self._workers}
        if not 1 <= batch_size <= self.num_envs or len(sizes) != 1 or batch_size % sizes.pop():
            raise ValueError(
                f"batch_size={batch_size} must be a multiple of the group size in "
                f"[1, {self.num_envs}]; the groups hold "
                f"{[w.size for w in self._workers]} sub-envs. Pick num_workers "
                "dividing num_envs and a batch_size that is a multiple of num_envs/num_workers."
            )
        return batch_size

    def _probe_spaces(self, env_fns: Any, vector_env_fn: Any, mode: AutoresetMode) -> None:
        probe = vector_env_fn(1) if vector_env_fn is not None else _sync_group(env_fns[:1], mode)
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
            pool_layout(self.num_envs, len(self._workers), action_leaves, observation_leaves)
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

    def _group_builder(self, worker: _Worker) -> CloudpickleWrapper:
        expected = (self.single_observation_space, self.single_action_space)
        if self.vector_env_fn is not None:
            build = functools.partial(
                _native_group, self.vector_env_fn, worker.size, worker.start, expected
            )
        else:
            build = functools.partial(
                _sync_group,
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
                _Failure(worker, "", failure_report(worker.start, error))
            ) from error
        spaces = (
            self.single_observation_space,
            self.single_action_space,
            self._observations_in_block,
            self._actions_in_block,
        )
        local = self._local
        local.group = _Group(
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
            raise self._exception(_Failure(self._workers[index], what))
        for index in replies.silent:
            what = f"did not build its sub-environments within timeout={self.timeout} s"
            raise self._exception(_Failure(self._workers[index], what))
        for index, (kind, report) in sorted(replies.answers.items()):
            if kind == "failed":
                raise self._exception(_Failure(self._workers[index], "", report))

    # Commands ------------------------------------------------------------------------------

    def _pipe(self, worker: _Worker) -> Any:
        return self._processes.pipes[worker.index]

    def _process(self, worker: _Worker) -> Any:
        return self._processes.processes[worker.index]

    def _dispatch(
        self,
        workers: Sequence[_Worker],
        command: int,
        payload: Any = None,
        user_reset: bool = False,
    ) -> None:
        """Hand ``workers`` a command (``payload(worker)`` is its data through the pipe).

        ``user_reset`` marks a reset the user asked for: a worker that fails it and is
        restarted runs it again (see :meth:`_restart`), so its rows are its real reset.
        """
        block = self._block
        in_flight = self._in_flight
        local = None
        resets = self._user_resets
        if resets or user_reset:
            for worker in workers:
                resets.pop(worker.index, None)
                if user_reset:
                    resets[worker.index] = payload
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

    def _wait(self, workers: Sequence[_Worker], round_: _Round, enough: int | None) -> None:
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
            _yield_core()
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
                _yield_core()
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
                            _Failure(worker, f"died with exit code {process.exitcode}")
                        )
                        counted += worker.size
                if round_.failures and enough is not None and counted >= needed:
                    return
                if time.monotonic() > deadline:
                    for worker in pending:
                        round_.failures.append(
                            _Failure(worker, f"did not answer within {self.timeout} s (hung)")
                        )
                    return

    def _collect(self, round_: _Round, command: int) -> None:
        """Read the replies of the finished workers of ``round_`` (to ``command``)."""
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
                round_.failures.append(_Failure(worker, "died before sending its reply"))
            elif word == Status.ERROR:
                if reply.fatal:
                    round_.failures.append(_Failure(worker, "raised an exception", reply))
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
            _place_info(round_.infos, info, start, self.num_envs)
        if round_.failures:
            failed = {failure.worker for failure in round_.failures}
            round_.done = [w for w in round_.done if w not in failed]
            for failure in round_.failures:
                in_flight.discard(failure.worker.index)

    def _run(
        self,
        workers: Sequence[_Worker],
        command: int,
        payload: Any = None,
        enough: int | None = None,
        user_reset: bool = False,
    ) -> _Round:
        """Send a command to ``workers``, wait for them, restart or raise failures."""
        if payload is not False:
            self._dispatch(workers, command, payload, user_reset)
        round_ = _Round()
        self._wait(workers, round_, enough)
        self._collect(round_, command)
        self._resolve(round_)
        return round_

    def _resolve(self, round_: _Round) -> None:
        """Restart failed workers (or raise their failure); raise argument errors."""
        if not round_.failures and not round_.argument_errors:
            return
        if round_.failures and not self.restart_failed:
            for failure in round_.failures:
                self._lose(failure)
            # As a sync vector env would, the first sub-env's failure is raised.
            raise self._exception(min(round_.failures, key=lambda f: f.worker.index))
        for failure in round_.failures:
            self._restart(failure, round_)
            round_.restarted.append(failure.worker)
            round_.results.setdefault("reasons", {})[failure.worker.index] = _reason(
                failure, short=True
            )
        if round_.restarted:
            self._mark_restarted(round_)
        if round_.argument_errors:
            worker, report = min(round_.argument_errors, key=lambda item: item[0].index)
            raise self._exception(_Failure(worker, "raised an exception", report))

    def _exception(self, failure: _Failure, exhausted: bool = False) -> BaseException:
        """Build the exception that reports ``failure`` to the user."""
        worker = failure.worker
        if failure.error is not None:
            return failure.error
        return group_failure_error(
            "PoolVectorEnv",
            "pool worker",
            worker.index,
            worker.env_indices,
            failure.what,
            failure.report,
            f" after {self.max_restarts} restart(s)" if exhausted else "",
        )

    # Restarts --------------------------------------------------------------------------------

    def _restart(self, failure: _Failure, round_: _Round) -> None:
        """Replace a failed worker, within the restart budget; raise once it is spent."""
        worker = failure.worker
        previous = self._previous_observations(worker)
        while True:
            if not self._budget.allow(worker.index, worker.env_indices, _reason(failure)):
                self._lose(failure)
                raise self._exception(failure, exhausted=True)
            redo = self._user_resets.get(worker.index)
            try:
                self._replace(worker)
                if redo is not None:
                    # The user's reset, again: the group's rows are its real reset.
                    self._reset_restarted(worker, round_, redo)
                    round_.results.setdefault("reset again", set()).add(worker.index)
                elif self.autoreset_mode is AutoresetMode.NEXT_STEP:
                    self._autoreset_next.add(worker.index)
                else:
                    self._reset_restarted(worker, round_)
            except Exception as error:
                what = f"failed to restart ({type(error).__name__}: {error})"
                failure = _Failure(worker, what, error=error)
                continue
            break
        round_.results.setdefault("previous", {})[worker.index] = previous

    def _lose(self, failure: _Failure) -> None:
        """Give up a failed group: stop talking to its worker (or close the parent's group)."""
        worker = failure.worker
        if worker.local:
            with contextlib.suppress(Exception):
                self._local.close()
        else:
            self._processes.forget(worker.index)
        self._lost[worker.index] = failure.what

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

    def _reset_restarted(self, worker: _Worker, round_: _Round, user_reset: Any = None) -> None:
        """Reset a restarted worker's group: the user's reset it failed, or a fresh episode.

        Args:
            worker: the restarted worker.
            round_: the round it failed in, which takes the reset's infos.
            user_reset: the payload of the user's reset to run again (``None``: a reset
                without seeds, after a SAME_STEP or DISABLED step's restart).

        Raises:
            Exception: the failure of the reset, for :meth:`_restart` to count.
        """
        inner = _Round()
        inner.infos = round_.infos  # the reset's infos land in the round's, at the group's rows
        if user_reset is None:
            self._dispatch([worker], Command.RESET, lambda _: ([None] * worker.size, None))
        else:
            self._dispatch([worker], Command.RESET, user_reset, user_reset=True)
        self._wait([worker], inner, None)
        self._collect(inner, Command.RESET)
        if inner.failures:
            raise self._exception(inner.failures[0])
        if inner.argument_errors:
            worker, report = inner.argument_errors[0]
            raise self._exception(_Failure(worker, "raised an exception", report))

    def _previous_observations(self, worker: _Worker) -> Any:
        rows = slice(worker.start, worker.stop)
        if self._observations_in_block:
            return copy_batch(
                slice_batch(self.single_observation_space, self._observation_view, rows)
            )
        return self._group_observations.get(worker.index)

    def _mark_restarted(self, round_: _Round) -> None:
        mask = np.zeros(self.num_envs, dtype=np.bool_)
        reasons = np.full(self.num_envs, None, dtype=object)
        previous = round_.results.pop("previous", {})
        why = round_.results.pop("reasons", {})
        reset_again = round_.results.pop("reset again", set())
        for worker in round_.restarted:
            mask[worker.start : worker.stop] = True
            for row in range(worker.start, worker.stop):
                reasons[row] = why.get(worker.index)
        infos = round_.infos
        infos["worker_restarted"], infos["_worker_restarted"] = mask.copy(), mask.copy()
        infos["restart_reason"], infos["_restart_reason"] = reasons, mask.copy()
        block = self._block
        block["rewards"][mask] = 0.0
        block["terminations"][mask] = False
        # A group that ran its reset again starts its episodes there: nothing is cut.
        for index in reset_again:
            worker = self._workers[index]
            mask[worker.start : worker.stop] = False
        cut = [w for w in round_.restarted if w.index not in reset_again]
        block["truncations"][mask] = True
        if not cut:
            return
        if self.autoreset_mode is AutoresetMode.SAME_STEP:
            final = np.full(self.num_envs, None, dtype=object)
            for worker in cut:
                group = previous.get(worker.index)
                for offset in range(worker.size):
                    final[worker.start + offset] = (
                        None
                        if group is None
                        else _row(self.single_observation_space, group, offset, worker.size)
                    )
            infos["final_obs"], infos["_final_obs"] = final, mask.copy()
            infos.setdefault("final_info", {})
            infos["_final_info"] = mask.copy()
        else:
            # The cut episode ends on its last observation, as every truncation does.
            for worker in cut:
                group = previous.get(worker.index)
                if group is None:
                    continue
                if self._observations_in_block:
                    write_batch(
                        self.single_observation_space,
                        group,
                        self._block.arrays,
                        "observations",
                        slice(worker.start, worker.stop),
                    )
                else:
                    self._group_observations[worker.index] = group

    # The vector API ------------------------------------------------------------------------

    def _assert_usable(self) -> None:
        _assert_usable(self, "PoolVectorEnv", "worker", self._lost, self._workers)

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[Any, dict[str, Any]]:
        """Reset every sub-environment (or those in ``options["reset_mask"]``) and wait.

        Args:
            seed: ``None``, an int ``s`` (sub-env ``i`` gets ``s + i``) or one seed per sub-env.
            options: reset options for every sub-env, plus ``"reset_mask"``.

        Returns:
            The batched observations and info.

        Raises:
            ClosedEnvironmentError: after :meth:`close`.
            ValueError, TypeError: for bad seeds or a bad ``reset_mask``.
            palaestra.error.WorkerError: if a worker dies or hangs (without
                ``restart_failed``).
        """
        self._assert_usable()
        self._drain()
        seeds = seeds_per_env(seed, self.num_envs)
        mask, options = split_reset_mask(options, self.num_envs)
        workers = [w for w in self._workers if mask is None or mask[w.start : w.stop].any()]

        def arguments(worker: _Worker) -> tuple:
            group_options = options
            if mask is not None:
                group_options = {**(options or {}), "reset_mask": mask[worker.start : worker.stop]}
                if group_options["reset_mask"].all():
                    del group_options["reset_mask"]
            return seeds[worker.start : worker.stop], group_options

        round_ = self._run(workers, Command.RESET, arguments, user_reset=True)
        self._reset_once = True
        for worker in workers:
            self._autoreset_next.discard(worker.index)
        if self._ended is not None:
            self._ended[slice(None) if mask is None else mask] = False
        return self._observation_batch(), round_.infos

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every sub-environment with its action and wait for all of them.

        Raises:
            ClosedEnvironmentError: after :meth:`close`.
            ValueError: for a batch of the wrong shape.
            Exception: a sub-env's own error for a bad action (its worker keeps running).
            palaestra.error.WorkerError: if a worker dies or hangs (without
                ``restart_failed``).
        """
        if self.closed or self._lost:
            self._assert_usable()
        if self._in_flight:
            self._drain()
        if self._ended is not None and self._ended.any():
            raise disabled_step_error(np.flatnonzero(self._ended))
        if self._autoreset_next:
            round_ = self._step_with_autoresets(self._workers, actions, np.arange(self.num_envs))
        elif self._write_actions(actions, slice(None)):
            round_ = self._run(self._workers, Command.STEP)
        else:
            round_ = self._run(
                self._workers, Command.STEP_PIPED, self._piped_actions(actions, None)
            )
        block = self._block
        terminations, truncations = block["terminations"].copy(), block["truncations"].copy()
        if self._ended is not None:
            np.logical_or(terminations, truncations, out=self._ended)
        return (
            self._observation_batch(),
            block["rewards"].copy(),
            terminations,
            truncations,
            round_.infos,
        )

    def _step_with_autoresets(
        self, workers: Sequence[_Worker], actions: Any, ids: np.ndarray
    ) -> _Round:
        """Step, with the restarted workers taking their autoreset step (NEXT_STEP)."""
        resetting = self._dispatch_step(workers, actions, ids)
        round_ = self._run(list(workers), Command.STEP, payload=False)
        for worker in resetting:
            if worker in round_.restarted:
                continue
            self._autoreset_next.discard(worker.index)
            rows = slice(worker.start, worker.stop)
            self._block["rewards"][rows] = 0.0
            self._block["terminations"][rows] = False
            self._block["truncations"][rows] = False
        return round_

    def _dispatch_step(
        self, workers: Sequence[_Worker], actions: Any, ids: np.ndarray
    ) -> list[_Worker]:
        """Send ``workers`` their step, or their autoreset step after a restart (NEXT_STEP).

        Returns:
            The workers sent the autoreset step (a reset) instead.
        """
        resetting = [w for w in workers if w.index in self._autoreset_next]
        stepping = [w for w in workers if w.index not in self._autoreset_next]
        if self._write_actions(actions, ids):
            self._dispatch(stepping, Command.STEP)
        else:
            self._dispatch(stepping, Command.STEP_PIPED, self._piped_actions(actions, ids))
        self._dispatch(resetting, Command.RESET, lambda w: ([None] * w.size, None))
        return resetting

    def _observation_batch(self, ids: np.ndarray | None = None, workers: Any = None) -> Any:
        if self._observations_in_block:
            view = self._observation_view
            if ids is None:
                return view.copy() if isinstance(view, np.ndarray) else copy_batch(view)
            return _take(view, ids)
        chosen = self._workers if workers is None else workers
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

    # EnvPool-style asynchronous stepping -------------------------------------------------------

    def async_reset(self, seed: int | Sequence[int | None] | None = None) -> None:
        """Start resetting every sub-environment; collect the first batch with :meth:`recv`.

        Raises:
            ClosedEnvironmentError: after :meth:`close`.
        """
        self._assert_usable()
        self._drain()
        seeds = seeds_per_env(seed, self.num_envs)
        self._dispatch(
            self._workers, Command.RESET, lambda w: (seeds[w.start : w.stop], None), True
        )
        self._reset_once = True
        self._autoreset_next.clear()
        if self._ended is not None:
            self._ended[:] = False

    def send(self, actions: Any, env_ids: Any = None) -> None:
        """Send ``actions`` to sub-environments ``env_ids`` (default: the last ``recv``'s).

        Args:
            actions: one action per id, stacked.
            env_ids: distinct sub-environment indices covering whole worker groups.

        Raises:
            ClosedEnvironmentError: after :meth:`close`.
            ValueError: for ids that are not distinct integers in ``[0, num_envs)``, split a
                worker's group, are busy, or mismatch actions, and for no ids before any
                ``recv``.
            palaestra.error.ResetNeeded: before any ``reset`` or ``async_reset`` (nothing
                is sent).
        """
        self._assert_usable()
        if env_ids is None and self._last_ids is None:
            raise ValueError("send() without env_ids needs a recv() first to name them.")
        _refuse_send_before_reset("PoolVectorEnv", self._reset_once)
        ids = self._checked_ids(self._last_ids if env_ids is None else env_ids)
        if self._ended is not None and self._ended[ids].any():
            raise disabled_step_error(ids[self._ended[ids]])
        resetting = self._dispatch_step(self._workers_of(ids), actions, ids)
        self._recv_resetting |= {w.index for w in resetting}

    def _checked_ids(self, env_ids: Any) -> np.ndarray:
        ids = np.asarray(env_ids)
        if ids.ndim != 1 or (ids.size and ids.dtype.kind not in "iu"):
            raise ValueError(
                "env_ids must be a 1-D sequence of integer sub-environment indices, got "
                f"{env_ids!r}."
            )
        ids = ids.astype(np.int64)
        bad = ids[(ids < 0) | (ids >= self.num_envs)]
        if bad.size:
            raise ValueError(
                f"env_ids {bad.tolist()} are outside [0, {self.num_envs}): each id names a "
                "sub-environment by its index (negative indices are not accepted)."
            )
        if len(np.unique(ids)) != len(ids):
            raise ValueError(f"env_ids must be distinct, got {ids.tolist()}.")
        return ids

    def recv(self) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Return the first ``batch_size`` sub-environments to finish their command.

        Returns:
            ``(observations, rewards, terminations, truncations, infos)`` for those
            sub-environments, in ``info["env_id"]`` order.

        Raises:
            ClosedEnvironmentError: after :meth:`close`.
            RuntimeError: if nothing is in flight.
            palaestra.error.WorkerError: if a worker dies or hangs (without
                ``restart_failed``).
        """
        self._assert_usable()
        if not self._in_flight:
            raise RuntimeError("recv() needs sub-environments in flight: call send() first.")
        # Workers found done by an earlier recv but left out of its batch go first.
        waiting = [i for i in self._ready if i in self._in_flight]
        waiting += [i for i in sorted(self._in_flight) if i not in waiting]
        flying = [self._workers[i] for i in waiting]
        enough = min(self.batch_size, sum(w.size for w in flying))
        round_ = _Round()
        self._wait(flying, round_, enough)
        finished = list(round_.done)
        round_.done = _first_batch(finished, enough - sum(f.worker.size for f in round_.failures))
        self._ready = [w.index for w in finished if w not in round_.done]
        self._collect(round_, Command.STEP)
        self._resolve(round_)
        done = round_.done + round_.restarted
        resetting = self._recv_resetting
        for worker in done:
            if worker.index in resetting and worker not in round_.restarted:
                resetting.discard(worker.index)
                self._autoreset_next.discard(worker.index)
                rows = slice(worker.start, worker.stop)
                self._block["rewards"][rows] = 0.0
                self._block["terminations"][rows] = False
                self._block["truncations"][rows] = False
        ids = np.concatenate([np.arange(w.start, w.stop) for w in done])
        self._last_ids = ids
        block = self._block
        if self._ended is not None:
            self._ended[ids] = block["terminations"][ids] | block["truncations"][ids]
        infos = {key: _take(value, ids) for key, value in round_.infos.items()}
        infos["env_id"] = ids
        return (
            self._observation_batch(ids, done),
            block["rewards"][ids],
            block["terminations"][ids],
            block["truncations"][ids],
            infos,
        )

    def _workers_of(self, ids: np.ndarray) -> list[_Worker]:
        workers = [w for w in self._workers if np.isin(w.env_indices, ids).any()]
        for worker in workers:
            if not np.isin(worker.env_indices, ids).all() or worker.index in self._in_flight:
                raise ValueError(
                    f"send() must address whole idle worker groups; sub-environments "
                    f"{worker.env_indices} form one group and are "
                    f"{'busy' if worker.index in self._in_flight else 'only partly addressed'}."
                )
        return workers

    def _drain(self) -> None:
        """Finish the commands still in flight (from ``send`` or an interrupted call).

        Their results are dropped, so that the next command's results are its own.
        """
        if not self._in_flight:
            return
        flying = [self._workers[i] for i in sorted(self._in_flight)]
        round_ = _Round()
        self._wait(flying, round_, None)
        self._collect(round_, Command.CALL)
        round_.argument_errors = []
        self._resolve(round_)
        self._in_flight.clear()
        resetting = self._recv_resetting
        for worker in flying:
            if worker.index in resetting:
                resetting.discard(worker.index)
                self._autoreset_next.discard(worker.index)

    # Attributes and closing ------------------------------------------------------------------

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Call method ``name`` (or read attribute ``name``) of every sub-environment.

        Works whatever the workers run: for a natively batched group, an attribute or
        result with one item per sub-env is split, any other value is every sub-env's.

        Raises:
            ClosedEnvironmentError: after :meth:`close`.
            Exception: whatever a sub-environment raised (its worker keeps running).
        """
        self._assert_usable()
        self._drain()
        round_ = self._run(self._workers, Command.CALL, lambda _: (name, args, kwargs))
        if round_.restarted:
            # A restarted worker lost the call with its process: ask its replacement.
            retry = self._run(round_.restarted, Command.CALL, lambda _: (name, args, kwargs))
            round_.results.update(retry.results)
        return tuple(result for w in self._workers for result in round_.results[w.index])

    def set_attr(self, name: str, values: Any) -> None:
        """Set attribute ``name`` of the sub-environments (one value each, or one for all).

        Raises:
            ClosedEnvironmentError: after :meth:`close`.
            ValueError: if a list/tuple's length is not :attr:`num_envs`, or differing values
                are given to one natively batched group.
        """
        self._assert_usable()
        values = values_per_env(values, self.num_envs)
        self._drain()

        def arguments(worker: _Worker) -> tuple:
            return "_setattr", (name, list(values[worker.start : worker.stop])), {}

        round_ = self._run(self._workers, Command.CALL, arguments)
        if round_.restarted:
            self._run(round_.restarted, Command.CALL, arguments)

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """Return attribute ``name`` of every sub-environment."""
        return self.call(name)

    def render(self) -> tuple[Any, ...] | None:
        """Return the frame of every sub-environment."""
        frames = self.call("render")
        return None if all(frame is None for frame in frames) else frames

    def close_extras(self, **kwargs: Any) -> None:
        """Stop every worker and free the shared block.

        Workers get a few seconds to close their sub-envs, then are terminated, then killed;
        a worker still busy with a command that did not finish is not waited for.
        """
        if not self.closed and self._block.arrays:
            for index in self._in_flight:
                if not self._is_done(self._workers[index]):
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


def _reason(failure: _Failure, short: bool = False) -> str:
    """Say why a worker failed: its exception with the traceback, or how it died."""
    if failure.report is None:
        return f"the worker {failure.what}." if not short else f"the worker {failure.what}"
    report = failure.report
    if short:
        return f"{report.error_type.__name__}: {report.message}"
    return (
        f"{report.error_type.__name__}: {report.message}\nThe worker's traceback:\n"
        f"{report.traceback}"
    )


def _first_batch(done: list[_Worker], enough: int) -> list[_Worker]:
    batch, count = [], 0
    for worker in done:
        if count >= enough:
            break
        batch.append(worker)
        count += worker.size
    return batch


def _assert_usable(
    envs: VectorEnv, where: str, unit: str, lost: dict[int, str], hosts: Sequence[Any]
) -> None:
    """Raise if ``envs`` (a pool or Ray vector env) is closed or has lost workers.

    Args:
        envs: the vector env.
        where: its class name, for the lost-workers message.
        unit: what a worker is called there (``"worker"``, ``"actor"``).
        lost: why each lost worker stopped, by worker index.
        hosts: the workers, each with its ``env_indices``, by worker index.

    Raises:
        ClosedEnvironmentError: after ``close()``.
        palaestra.error.WorkerError: if a worker is lost (see ``lost_workers_error``).
    """
    if envs.closed:
        raise ClosedEnvironmentError(
            f"Trying to operate on `{type(envs).__name__}`, after a call to `close()`."
        )
    if lost:
        raise lost_workers_error(where, unit, lost, [host.env_indices for host in hosts])


def _refuse_send_before_reset(where: str, reset_once: bool) -> None:
    """Raise if ``send`` comes before any reset of a pool or Ray vector env.

    ``send`` steps its sub-environments, which have no episode yet; a sub-env would raise
    (or, without an order check, step garbage) only after the command left.

    Raises:
        palaestra.error.ResetNeeded: if ``reset_once`` is false.

    Example:
        >>> _refuse_send_before_reset("PoolVectorEnv", True)
    """
    if not reset_once:
        raise ResetNeeded(
            f"{where}.send() before any reset: call reset() or async_reset() first. "
            "Nothing was sent; the vector env is unchanged."
        )


def _place_info(total: dict[str, Any], group: dict[str, Any], start: int, n: int) -> None:
    """Copy a worker group's info into the pool-wide info at rows ``start...``.

    A group of single envs hands over each sub-env's own info (see ``_GroupSyncVectorEnv``),
    merged as a sync vector env merges them; a natively batched group hands over batches.
    """
    for row, info in group.get(_ROW_INFOS, ()):
        add_info(total, info, start + row, n)
    for key, value in group.items():
        if key == _ROW_INFOS:
            continue
        if isinstance(value, dict):
            _place_info(total.setdefault(key, {}), value, start, n)
            continue
        value = np.asarray(value)
        if key not in total:
            fill = None if value.dtype == object else 0
            total[key] = np.full((n, *value.shape[1:]), fill, dtype=value.dtype)
        total[key][start : start + len(value)] = value


def _take(batch: Any, ids: np.ndarray) -> Any:
    if isinstance(batch, dict):
        return {key: _take(value, ids) for key, value in batch.items()}
    if isinstance(batch, tuple):
        return tuple(_take(value, ids) for value in batch)
    return batch[ids]


def _row(space: Any, group: Any, offset: int, size: int) -> Any:
    """Sub-env ``offset``'s observation out of a group's batch of ``size``."""
    return list(iterate(batch_space(space, size), group))[offset]
