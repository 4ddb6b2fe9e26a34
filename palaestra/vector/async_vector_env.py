"""A vector env that runs each sub-environment in its own worker process.

Observations come back through shared memory (or the pipes), everything else through one
pipe per worker. Waiting watches the pipes *and* the processes, so a worker that dies (even
by ``SIGKILL``) is reported with its sub-env index instead of hanging the parent, and
``close()`` always ends every worker: politely first, then ``terminate``, then ``kill``.
"""

from __future__ import annotations

import contextlib
import inspect
import multiprocessing
import time
from collections.abc import Callable, Sequence
from copy import deepcopy
from enum import Enum
from typing import Any, Generic

import numpy as np

from palaestra import logger
from palaestra.core import ActType, Env, ObsType, RenderFrame
from palaestra.error import (
    AlreadyPendingCallError,
    ClosedEnvironmentError,
    CustomSpaceError,
    NoAsyncCallError,
    WorkerError,
)
from palaestra.vector._arguments import (
    ObservationMode,
    action_misfit,
    actions_per_env,
    autoreset_mode_from,
    observation_misfit,
    observation_spaces_for,
    seeds_per_env,
    split_reset_mask,
    values_per_env,
)
from palaestra.vector.async_worker import async_worker
from palaestra.vector.processes import (
    TERMINATE_GRACE_SECONDS,
    ErrorReport,
    Workers,
    check_capacity,
    rebuild_exception,
)
from palaestra.vector.utils import (
    CloudpickleWrapper,
    batch_space,
    clear_mpi_env_vars,
    concatenate,
    create_empty_array,
    create_shared_memory,
    read_from_shared_memory,
)
from palaestra.vector.vector_env import AutoresetMode, SubEnvAttributes, VectorEnv

__all__ = ["AsyncVectorEnv", "AsyncState"]

# Gymnasium's name for the default worker, for code that builds custom workers on it.
_async_worker = async_worker

# How long close() waits for workers when no timeout is given, before terminating them.
CLOSE_GRACE_SECONDS = 10.0


class AsyncState(Enum):
    """Which asynchronous call, if any, an :class:`AsyncVectorEnv` is waiting on."""

    DEFAULT = "default"
    WAITING_RESET = "reset"
    WAITING_STEP = "step"
    WAITING_CALL = "call"


class AsyncVectorEnv(
    SubEnvAttributes, VectorEnv[ObsType, ActType, np.ndarray], Generic[ObsType, ActType]
):
    """Run each sub-environment in a worker process and step them in parallel.

    Args:
        env_fns: functions that each build one sub-environment (pickled with cloudpickle).
        shared_memory: pass observations through shared memory (fast for large
            observations) rather than the pipes.
        copy: return a copy of the observation batch; with ``False`` the internal buffer is
            returned and overwritten by the next call.
        context: the ``multiprocessing`` start method, ``"fork"``, ``"spawn"`` or
            ``"forkserver"``; ``None`` for the platform default.
        daemon: start the workers as daemons (they die with the parent, but cannot start
            processes of their own).
        worker: a replacement for the worker loop, with the signature of
            :func:`~palaestra.vector.async_worker.async_worker` (8 arguments).
        observation_mode: ``"same"``, ``"different"`` or a pair
            ``(observation_space, single_observation_space)``.
        autoreset_mode: an :class:`~palaestra.vector.AutoresetMode` or its value string.
        max_concurrency: at most this many workers run ``reset``/``step`` at once
            (``None``: no limit).

    Argument errors raised in a sub-env (an action outside its action space, a bad seed, a
    misspelt ``call`` name) are re-raised with their own type and leave the worker running;
    any other exception stops that worker (later calls raise
    :class:`~palaestra.error.WorkerError`).

    Raises:
        RuntimeError: if a sub-env's spaces do not fit the first's (the message names it).
        ValueError: for a bad ``observation_mode``, ``autoreset_mode``, ``max_concurrency``
            or ``worker``, or a custom space that cannot live in shared memory.
        TypeError: with ``shared_memory=True``, for a space of dynamic shape (``Graph``,
            ``Sequence``), as Gymnasium does.
        palaestra.vector.processes.ResourceLimitError: (an ``OSError``) before any process
            is started, if ``num_envs`` worker processes exceed the file-descriptor limit or
            the available memory; the message suggests the pool.

    Example:
        >>> import palaestra as gym
        >>> envs = gym.vector.AsyncVectorEnv(
        ...     [lambda: gym.make("CartPole-v1")] * 2, context="fork"
        ... )
        >>> envs
        AsyncVectorEnv(num_envs=2)
        >>> observations, infos = envs.reset(seed=42)
        >>> observations.shape
        (2, 4)
        >>> envs.close()
    """

    def __init__(
        self,
        env_fns: Sequence[Callable[[], Env]],
        shared_memory: bool = True,
        copy: bool = True,
        context: str | None = None,
        daemon: bool = True,
        worker: Callable[..., None] | None = None,
        observation_mode: ObservationMode = "same",
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        max_concurrency: int | None = None,
    ) -> None:
        self.env_fns = env_fns
        self.shared_memory = shared_memory
        self.copy = copy
        self.context = context
        self.daemon = daemon
        self.worker = worker
        self.observation_mode = observation_mode
        self.autoreset_mode = autoreset_mode_from(autoreset_mode)
        self.max_concurrency = _checked_max_concurrency(max_concurrency)
        _check_worker_signature(worker)
        if len(env_fns) == 0:
            raise ValueError("AsyncVectorEnv needs at least one env function, got none.")
        self.num_envs = len(env_fns)
        check_capacity(
            self.num_envs,
            f"AsyncVectorEnv(num_envs={self.num_envs})",
            "AsyncVectorEnv runs one process per sub-environment; for many sub-environments "
            "use `make_vec(..., vectorization_mode='pool')` (a PoolVectorEnv runs many "
            "sub-environments per worker process) or fewer sub-environments.",
            start_method=context,
        )
        self._describe_sub_envs()

        self._workers = Workers()
        self._state = AsyncState.DEFAULT
        self._reset_mask: np.ndarray | None = None
        self._ended = np.zeros(self.num_envs, dtype=np.bool_)
        context_module = multiprocessing.get_context(context)
        self._obs_buffer = self._allocate_observations(context_module)
        self.error_queue = context_module.Queue()
        try:
            self._start_workers(context_module)
            self._check_spaces()
        except BaseException:
            self._release(grace=0.0)
            self.closed = True
            raise

    def _describe_sub_envs(self) -> None:
        """Read metadata and spaces from a throwaway copy of the first sub-env."""
        first = self.env_fns[0]()
        try:
            self.metadata = {**first.metadata, "autoreset_mode": self.autoreset_mode}
            self.render_mode = first.render_mode
            self.single_action_space = first.action_space
            self.action_space = batch_space(self.single_action_space, self.num_envs)
            self.single_observation_space, self.observation_space = observation_spaces_for(
                self.observation_mode,
                first.observation_space,
                self._all_observation_spaces,
                self.num_envs,
            )
        finally:
            first.close()

    def _all_observation_spaces(self) -> list[Any]:
        spaces = []
        for env_fn in self.env_fns:
            env = env_fn()
            spaces.append(env.observation_space)
            env.close()
        return spaces

    def _allocate_observations(self, context_module: Any) -> Any:
        if not self.shared_memory:
            self.observations = create_empty_array(
                self.single_observation_space, n=self.num_envs, fn=np.zeros
            )
            return None
        try:
            buffer = create_shared_memory(
                self.single_observation_space, n=self.num_envs, ctx=context_module
            )
        except CustomSpaceError as e:
            raise ValueError(
                "Using `AsyncVector(..., shared_memory=True)` caused an error, you can disable "
                "this feature with `shared_memory=False` however this is slower. "
                f"(AsyncVectorEnv: {e})"
            ) from e
        self.observations = read_from_shared_memory(
            self.single_observation_space, buffer, n=self.num_envs
        )
        return buffer

    def _start_workers(self, context_module: Any) -> None:
        target = self.worker or async_worker
        semaphore = (
            None
            if self.max_concurrency is None
            else context_module.BoundedSemaphore(self.max_concurrency)
        )
        with clear_mpi_env_vars():
            for index, env_fn in enumerate(self.env_fns):
                self._workers.start(
                    context_module,
                    target,
                    name=f"Worker<{type(self).__name__}>",
                    daemon=self.daemon,
                    arguments=lambda child_pipe, parent_pipe, index=index, env_fn=env_fn: (
                        index,
                        CloudpickleWrapper(env_fn),
                        child_pipe,
                        parent_pipe,
                        self._obs_buffer,
                        self.error_queue,
                        self.autoreset_mode,
                        semaphore,
                    ),
                )

    @property
    def parent_pipes(self) -> list[Any]:
        """The parent's end of each worker's pipe (``None`` once the worker is gone)."""
        return self._workers.pipes

    @property
    def processes(self) -> list[Any]:
        """The worker processes, one per sub-environment."""
        return self._workers.processes

    # ----------------------------------------------------------------------------- reset

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[ObsType, dict[str, Any]]:
        """Reset the sub-environments in parallel (see :meth:`reset_async`)."""
        self.reset_async(seed=seed, options=options)
        return self.reset_wait()

    def reset_async(
        self,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> None:
        """Send ``reset`` to the sub-envs (all, or those in ``options["reset_mask"]``).

        Args:
            seed: ``None``, an int ``s`` (sub-env ``i`` gets ``s + i``) or one seed per sub-env.
            options: passed to every sub-env's ``reset``; a ``"reset_mask"`` boolean array
                selects the sub-envs to reset and is not passed on.

        Raises:
            ClosedEnvironmentError: after :meth:`close`.
            AlreadyPendingCallError: while another call is pending.
            WorkerError: if a worker is no longer running.
            ValueError: for a seed list of the wrong length or a bad ``reset_mask``.
            TypeError: for a ``reset_mask`` that is not a boolean numpy array.
        """
        self._assert_is_running()
        seeds = seeds_per_env(seed, self.num_envs)
        self._assert_no_pending_call("reset_async")
        mask, options = split_reset_mask(options, self.num_envs)
        self._assert_workers_alive()
        self._reset_mask = mask
        for index in range(self.num_envs):
            if mask is None or mask[index]:
                self._send(index, "reset", {"seed": seeds[index], "options": options})
            else:
                self._send(index, "reset-noop", None)
        self._state = AsyncState.WAITING_RESET

    def reset_wait(self, timeout: float | None = None) -> tuple[ObsType, dict[str, Any]]:
        """Wait for the resets sent by :meth:`reset_async` and return their batched results.

        Args:
            timeout: seconds to wait; ``None`` waits as long as the workers live.

        Raises:
            NoAsyncCallError: without a prior :meth:`reset_async`.
            multiprocessing.TimeoutError: if a sub-env did not answer in time.
            WorkerError: if a worker died.
            Exception: the sub-env's own exception type, with its index and traceback.
        """
        results = self._wait_for(AsyncState.WAITING_RESET, timeout)
        observations, env_infos = zip(*results)
        infos = self._merged_infos(env_infos)
        reset = np.ones(self.num_envs, bool) if self._reset_mask is None else self._reset_mask
        self._ended[reset] = False
        return self._observation_batch(observations), infos

    # ------------------------------------------------------------------------------ step

    def step(
        self, actions: ActType
    ) -> tuple[ObsType, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every sub-env in parallel (see :meth:`step_async`)."""
        self.step_async(actions)
        return self.step_wait()

    def step_async(self, actions: ActType) -> None:
        """Send each sub-env its action from the batch ``actions``.

        Raises:
            ClosedEnvironmentError: after :meth:`close`.
            AlreadyPendingCallError: while another call is pending.
            WorkerError: if a worker is no longer running.
            RuntimeError: with ``autoreset_mode=DISABLED``, if a sub-env whose episode
                ended was not reset.
        """
        self._assert_is_running()
        self._assert_no_pending_call("step_async")
        self._assert_workers_alive()
        if self.autoreset_mode is AutoresetMode.DISABLED and self._ended.any():
            raise RuntimeError(
                f"Sub-environment(s) {np.flatnonzero(self._ended).tolist()} were stepped after "
                "their episode ended with autoreset_mode=DISABLED; reset them first with "
                "`reset(options={'reset_mask': mask})`."
            )
        for index, action in enumerate(actions_per_env(self.action_space, actions, self.num_envs)):
            self._send(index, "step", action)
        self._state = AsyncState.WAITING_STEP

    def step_wait(
        self, timeout: float | None = None
    ) -> tuple[ObsType, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Wait for the steps sent by :meth:`step_async` and return the batched results.

        Args:
            timeout: seconds to wait; ``None`` waits as long as the workers live.

        Raises:
            NoAsyncCallError: without a prior :meth:`step_async`.
            multiprocessing.TimeoutError: if a sub-env did not answer in time.
            WorkerError: if a worker died.
            Exception: the sub-env's own exception type, with its index and traceback.
        """
        results = self._wait_for(AsyncState.WAITING_STEP, timeout)
        observations, rewards, terminations, truncations, env_infos = zip(*results)
        infos = self._merged_infos(env_infos)
        terminations = np.array(terminations, dtype=np.bool_)
        truncations = np.array(truncations, dtype=np.bool_)
        self._ended = terminations | truncations
        return (
            self._observation_batch(observations),
            np.array(rewards, dtype=np.float64),
            terminations,
            truncations,
            infos,
        )

    def _merged_infos(self, env_infos: Sequence[dict[str, Any]]) -> dict[str, Any]:
        infos: dict[str, Any] = {}
        for index, env_info in enumerate(env_infos):
            infos = self._add_info(infos, env_info, index)
        return infos

    def _observation_batch(self, observations: Sequence[Any]) -> ObsType:
        if not self.shared_memory:
            self.observations = concatenate(
                self.single_observation_space, observations, self.observations
            )
        return deepcopy(self.observations) if self.copy else self.observations

    # --------------------------------------------------------------- call, get/set attr

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Call method ``name`` of every sub-env (or read attribute ``name``); one result each."""
        self.call_async(name, *args, **kwargs)
        return self.call_wait()

    def render(self) -> tuple[RenderFrame, ...] | None:
        """Return the frame of every sub-environment."""
        return self.call("render")

    def call_async(self, name: str, /, *args: Any, **kwargs: Any) -> None:
        """Send a call of method ``name`` (or a read of attribute ``name``) to every sub-env.

        Raises:
            ClosedEnvironmentError: after :meth:`close`.
            AlreadyPendingCallError: while another call is pending.
            WorkerError: if a worker is no longer running.
        """
        self._assert_is_running()
        self._assert_no_pending_call("call_async")
        self._assert_workers_alive()
        for index in range(self.num_envs):
            self._send(index, "_call", (name, args, kwargs))
        self._state = AsyncState.WAITING_CALL

    def call_wait(self, timeout: float | None = None) -> tuple[Any, ...]:
        """Wait for the calls sent by :meth:`call_async` and return their results.

        Raises:
            NoAsyncCallError: without a prior :meth:`call_async`.
            multiprocessing.TimeoutError: if a sub-env did not answer in time.
            WorkerError: if a worker died.
            Exception: the sub-env's own exception type, with its index and traceback.
        """
        return tuple(self._wait_for(AsyncState.WAITING_CALL, timeout))

    def set_attr(self, name: str, values: list[Any] | tuple[Any, ...] | Any) -> None:
        """Set attribute ``name`` of the sub-envs.

        Args:
            name: the attribute name.
            values: a list/tuple with one value per sub-env, or any other value for all.

        Raises:
            ValueError: if a list/tuple's length is not :attr:`num_envs`.
            AlreadyPendingCallError: while another call is pending.
        """
        self._assert_is_running()
        values = values_per_env(values, self.num_envs)
        self._assert_no_pending_call("set_attr")
        self._assert_workers_alive()
        for index, value in enumerate(values):
            self._send(index, "_setattr", (name, value))
        self._receive_all("set_attr", None)

    # ---------------------------------------------------------------------------- close

    def close_extras(self, timeout: float | None = None, terminate: bool = False) -> None:
        """End every worker and release the pipes and shared memory.

        A pending call is finished first (within ``timeout``); workers then get ``close``
        and ``timeout`` seconds (:data:`CLOSE_GRACE_SECONDS` when ``None``) to close their
        sub-env; any still running are terminated, then killed.

        Args:
            timeout: seconds to wait for the workers before terminating them.
            terminate: terminate the workers at once instead.
        """
        grace = 0.0 if terminate else (CLOSE_GRACE_SECONDS if timeout is None else timeout)
        if self._workers.waiting_elsewhere():
            # Another thread is still inside a wait (a step abandoned by a timer): end the
            # workers at once, which also wakes that thread.
            self._state = AsyncState.DEFAULT
            self._release(0.0)
            return
        if self._state is not AsyncState.DEFAULT:
            # Warned even when terminating, as Gymnasium does; only a graceful close waits.
            logger.warn(
                f"Calling `close` while waiting for a pending call to `{self._state.value}` "
                "to complete."
            )
            if grace > 0:
                self._finish_pending_call(grace)
        self._state = AsyncState.DEFAULT
        self._release(grace)

    def _finish_pending_call(self, timeout: float) -> None:
        try:
            self._receive_all(f"{self._state.value}_wait", timeout)
        except (Exception, KeyboardInterrupt) as e:
            logger.warn(f"Ignoring an error of the pending call while closing: {type(e).__name__}")

    def _release(self, grace: float) -> None:
        """End the workers (see :meth:`Workers.shut_down`) and free the queue and memory."""
        self._workers.shut_down(grace)
        _close_queue(self.error_queue)
        if self._obs_buffer is not None:
            # Detach from the shared block so it is freed once no caller holds a view of it.
            self.observations = deepcopy(self.observations)
            self._obs_buffer = None

    # ---------------------------------------------------------------------- state checks

    def _assert_is_running(self) -> None:
        if self.closed:
            raise ClosedEnvironmentError(
                f"Trying to operate on `{type(self).__name__}`, after a call to `close()`."
            )

    def _assert_no_pending_call(self, method: str) -> None:
        if self._state is not AsyncState.DEFAULT:
            raise AlreadyPendingCallError(
                f"Calling `{method}` while waiting for a pending call to "
                f"`{self._state.value}` to complete. Call `{self._state.value}_wait` first.",
                str(self._state.value),
            )

    def _wait_for(self, state: AsyncState, timeout: float | None) -> list[Any]:
        """Collect the replies to the pending ``state`` call (``reset``, ``step`` or ``call``)."""
        self._assert_is_running()
        method = f"{state.value}_wait"
        if self._state is not state:
            raise NoAsyncCallError(
                f"Calling `{method}` without any prior call to `{state.value}_async`.", state.value
            )
        return self._receive_all(method, timeout)

    def _assert_workers_alive(self) -> None:
        # Only workers already known to be gone: one that died since is found when its
        # reply is awaited, which keeps system calls off the hot path.
        gone = self._workers.gone()
        if gone:
            details = ", ".join(f"{i} ({self._workers.describe_exit(i)})" for i in gone)
            raise WorkerError(
                f"The worker process of sub-environment(s) {details} is no longer running, "
                f"so {self!r} cannot continue; call `close()` and create a new vector env.",
                env_indices=tuple(gone),
            )

    # ------------------------------------------------------------------ pipes and replies

    def _send(self, index: int, command: str, data: Any) -> None:
        self._workers.send(index, command, data)

    def _receive_all(self, waiting_for: str, timeout: float | None) -> list[Any]:
        """Collect one reply per sub-env, then raise the first problem or return the results.

        The state returns to ``DEFAULT`` whatever happens, as in Gymnasium.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            replies = self._workers.collect(list(range(self.num_envs)), deadline)
        finally:
            self._state = AsyncState.DEFAULT
        if replies.dead:
            self._raise_dead_workers(replies.dead, waiting_for)
        if replies.silent:
            raise multiprocessing.TimeoutError(
                f"The call to `{waiting_for}` has timed out after {timeout} second(s). "
                f"Sub-environment(s) {replies.silent} did not answer. Their late answers are "
                "discarded; `close()` terminates workers that stay busy."
            )
        answers = replies.answers
        failures = [i for i in range(self.num_envs) if not answers[i][1]]
        if failures:
            self._raise_worker_errors(failures, answers)
        return [answers[i][0] for i in range(self.num_envs)]

    def _raise_dead_workers(self, dead: list[int], waiting_for: str) -> None:
        for index in dead:
            self._workers.join(index, TERMINATE_GRACE_SECONDS)
        details = "; ".join(
            f"sub-environment {i} (pid {self.processes[i].pid}, {self._workers.describe_exit(i)})"
            for i in dead
        )
        raise WorkerError(
            f"The worker process of {details} died unexpectedly while `{waiting_for}` was "
            "waiting for it. Its sub-environment is lost: call `close()` and create a new "
            "vector env.",
            env_indices=tuple(dead),
        )

    def _raise_worker_errors(self, failures: list[int], replies: dict[int, Any]) -> None:
        reports = [self._failure_report(i, replies[i][0]) for i in failures]
        for pipe_index, report in zip(failures, reports):
            if not report.fatal:
                continue
            logger.error(
                f"Received the following error from Worker-{report.index} - Shutting it down"
            )
            logger.error("%s", report.traceback)
            self._workers.forget(pipe_index)
            self._workers.failed.add(pipe_index)
        # Gymnasium raises the last failure it reads; the others are named in the message.
        # It warns so when it shut workers down; an argument error (a bad action) stops none.
        if any(report.fatal for report in reports):
            logger.error("Raising the last exception back to the main process.")
        error = rebuild_exception(reports[-1], repr(self))
        if len(reports) > 1:
            others = [report.index for report in reports[:-1]]
            error.args = (f"{error.args[0]}\n(Sub-environment(s) {others} failed too.)",)
        raise error

    def _failure_report(self, index: int, payload: Any) -> ErrorReport:
        if isinstance(payload, ErrorReport):
            return payload
        if payload is not None:
            return ErrorReport(*payload)
        # A Gymnasium-style custom worker puts the error on the queue and sends ``None``.
        try:
            reported, error_type, value, trace = self.error_queue.get(timeout=5.0)
        except Exception:
            return ErrorReport(index, RuntimeError, "the worker reported no details", "")
        return ErrorReport(reported, error_type, str(value), trace)

    def _check_spaces(self) -> None:
        """Ask every worker whether its sub-env's spaces fit; raise naming the first misfit."""
        for index in range(self.num_envs):
            self._send(
                index,
                "_check_spaces",
                (self.observation_mode, self.single_observation_space, self.single_action_space),
            )
        results = self._receive_all("_check_spaces", None)
        for index, (observation_fits, action_fits) in enumerate(result[:2] for result in results):
            if not observation_fits:
                space = self.call("observation_space")[index]
                raise RuntimeError(
                    observation_misfit(
                        type(self).__name__,
                        self.observation_mode,
                        index,
                        space,
                        self.single_observation_space,
                    )
                )
            if not action_fits:
                space = self.call("action_space")[index]
                raise RuntimeError(
                    action_misfit(index, space, self.single_action_space, "AsyncVectorEnv")
                )

    def __del__(self) -> None:
        if not getattr(self, "closed", True) and hasattr(self, "_state"):
            with contextlib.suppress(Exception):
                self.close(terminate=True)


def _checked_max_concurrency(value: int | None) -> int | None:
    if value is None:
        return None
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise ValueError(f"`max_concurrency` must be an integer or None, got {type(value)}.")
    if value < 1:
        raise ValueError(f"`max_concurrency` must be a positive or None, got {value}.")
    return int(value)


def _check_worker_signature(worker: Callable[..., None] | None) -> None:
    if worker is None:
        return
    try:
        inspect.signature(worker).bind(*(None,) * 8)
    except TypeError as e:
        raise ValueError(
            "A custom `worker` must accept 8 arguments. Got the signature "
            f"{inspect.signature(worker)} which should match "
            f"{inspect.signature(async_worker)}."
        ) from e


def _close_queue(queue: Any) -> None:
    """Close a ``multiprocessing`` queue and both ends of its pipe.

    ``Queue.close()`` only closes the end its feeder thread writes to, and only once that
    thread ran: a queue this process never put into would keep two descriptors open for
    as long as the closed vector env is referenced.
    """
    queue.close()
    queue.join_thread()
    for end in (queue._reader, queue._writer):
        end.close()
