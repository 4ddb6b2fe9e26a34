"""A process pool vector env: several sub-environments per worker, one shared-memory block.

:class:`PoolVectorEnv` splits ``num_envs`` sub-environments into ``num_workers`` contiguous
groups, one worker process each (natively batched when built from a vector entry point).
Actions, observations, rewards and flags of all sub-environments live in one shared-memory
block; workers are woken by semaphores and nothing is pickled on a step unless a worker
returns a non-empty info.

Two ways to step:

* lockstep, the :class:`~palaestra.vector.VectorEnv` API: ``step`` sends every sub-env its
  action and returns once all are done, with the results of a sync vector env for the same
  seeds;
* EnvPool-style: ``async_reset()``, then ``recv()`` returns the first ``batch_size``
  sub-environments to finish (``info["env_id"]`` names them) and ``send(actions, env_ids)``
  sends those sub-environments their next actions.

A worker that dies, hangs past ``timeout`` or raises is reported as a
:class:`~palaestra.error.WorkerError` naming its sub-environments; with ``restart_failed`` it
is replaced and its sub-environments' episodes come back truncated, with
``info["worker_restarted"]`` set for them.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import time
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from palaestra import spaces
from palaestra.core import Env
from palaestra.error import WorkerError
from palaestra.vector._arguments import (
    autoreset_mode_from,
    seeds_per_env,
    split_reset_mask,
    values_per_env,
)
from palaestra.vector.pool._block import SharedBlock, pool_layout
from palaestra.vector.pool._worker import Command, Status, pool_worker
from palaestra.vector.sync_vector_env import SyncVectorEnv
from palaestra.vector.utils import CloudpickleWrapper, batch_space
from palaestra.vector.vector_env import AutoresetMode, VectorEnv

__all__ = ["PoolVectorEnv"]

# How long the parent waits on the "finished" semaphore before checking worker liveness.
_LIVENESS_POLL_S = 0.05
# Polling beats a semaphore wake-up (tens of microseconds) when a core is free for it:
# measured 58 vs 116 us per lockstep step for one worker running two CartPoles.
_SPIN_US = 100.0
_JOIN_TIMEOUT_S = 1.0


def _sync_group(env_fns: Sequence[Callable[[], Env]], autoreset_mode: AutoresetMode) -> Any:
    return SyncVectorEnv(list(env_fns), autoreset_mode=autoreset_mode)


def _native_group(vector_env_fn: Callable[[int], VectorEnv], num_envs: int) -> Any:
    return vector_env_fn(num_envs)


class _Worker:
    """The parent's handle on one worker: its process, pipe, wake semaphore and group."""

    def __init__(self, index: int, start: int, stop: int):
        self.index = index
        self.start, self.stop = start, stop
        self.process: Any = None
        self.pipe: Any = None
        self.wake: Any = None

    @property
    def env_indices(self) -> list[int]:
        return list(range(self.start, self.stop))


def _stop_processes(workers: list[_Worker], block: SharedBlock | None) -> None:
    """Close every worker (politely, then by force) and release the shared block."""
    for worker in workers:
        if worker.process is not None and worker.process.is_alive() and block is not None:
            block["command"][worker.index] = Command.CLOSE
            worker.wake.release()
    for worker in workers:
        if worker.process is None:
            continue
        worker.process.join(_JOIN_TIMEOUT_S)
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join(_JOIN_TIMEOUT_S)
        worker.pipe.close()
        worker.process = None
    if block is not None and block.arrays:
        block.close()


class PoolVectorEnv(VectorEnv[np.ndarray, np.ndarray, np.ndarray]):
    """Run sub-environments in a pool of worker processes, several per worker.

    Args:
        env_fns: functions that each build one sub-environment; workers run their group as
            a :class:`~palaestra.vector.SyncVectorEnv`. Leave ``None`` to use
            ``vector_env_fn``.
        vector_env_fn: builds a (natively batched) vector env of ``n`` sub-environments
            when called with ``n``; each worker runs one. Needs ``num_envs``.
        num_envs: the number of sub-environments with ``vector_env_fn``.
        num_workers: worker processes (default: the number of CPU cores, at most
            ``num_envs``).
        batch_size: how many sub-environments ``recv`` returns (default ``num_envs``); a
            multiple of the group size.
        autoreset_mode: the autoreset mode of ``env_fns`` groups (a ``vector_env_fn`` sets
            its own).
        context: the :mod:`multiprocessing` start method (default: the platform's).
        timeout: seconds a worker may take for one command before it counts as hung.
        restart_failed: replace failed workers instead of raising.
        spin_us: microseconds the parent polls the shared block before sleeping on a
            semaphore. Default: 100 when a core is left over for the parent (fewer workers
            than cores), else 0, since spinning then takes a core from the workers.

    Raises:
        ValueError: for a missing or contradictory env source, a bad ``num_workers`` or
            ``batch_size``, or spaces the shared block cannot hold (use AsyncVectorEnv).

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
        spin_us: float | None = None,
    ):
        self.num_envs = self._count_envs(env_fns, vector_env_fn, num_envs)
        self.env_fns = env_fns
        self.vector_env_fn = vector_env_fn
        self.num_workers = self._count_workers(num_workers)
        self.timeout = timeout
        self.restart_failed = restart_failed
        if spin_us is None:
            spin_us = _SPIN_US if self.num_workers < (os.cpu_count() or 1) else 0.0
        self.spin_s = spin_us * 1e-6
        self._probe_spaces(env_fns, vector_env_fn, autoreset_mode_from(autoreset_mode))
        bounds = np.linspace(0, self.num_envs, self.num_workers + 1).round().astype(int)
        self._workers = [
            _Worker(i, int(bounds[i]), int(bounds[i + 1])) for i in range(self.num_workers)
        ]
        self.batch_size = self._check_batch_size(batch_size)
        self._block = SharedBlock(
            pool_layout(
                self.num_envs,
                self.num_workers,
                self.action_space.shape,
                self.action_space.dtype,
                self.observation_space.shape,
                self.observation_space.dtype,
            )
        )
        self._context = multiprocessing.get_context(context)
        self._finished = self._context.Semaphore(0)
        self._in_flight: set[int] = set()
        # Indices of workers seen finished, in the order recv should return them.
        self._ready: list[int] = []
        self._last_ids: np.ndarray | None = None
        self._finalizer = weakref.finalize(self, _stop_processes, self._workers, self._block)
        for worker in self._workers:
            self._start(worker)

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
        if num_workers is None:
            return min(os.cpu_count() or 1, self.num_envs)
        if not 1 <= int(num_workers) <= self.num_envs:
            raise ValueError(
                f"num_workers must be between 1 and num_envs={self.num_envs}, got {num_workers}."
            )
        return int(num_workers)

    def _check_batch_size(self, batch_size: int | None) -> int:
        if batch_size is None:
            return self.num_envs
        sizes = {worker.stop - worker.start for worker in self._workers}
        if not 1 <= batch_size <= self.num_envs or len(sizes) != 1 or batch_size % sizes.pop():
            raise ValueError(
                f"batch_size={batch_size} must be a multiple of the group size in "
                f"[1, {self.num_envs}]; the groups hold "
                f"{[w.stop - w.start for w in self._workers]} sub-envs. Pick num_workers "
                "dividing num_envs and a batch_size that is a multiple of num_envs/num_workers."
            )
        return batch_size

    def _probe_spaces(
        self, env_fns: Any, vector_env_fn: Any, autoreset_mode: AutoresetMode
    ) -> None:
        probe = (
            vector_env_fn(1)
            if vector_env_fn is not None
            else _sync_group(env_fns[:1], autoreset_mode)
        )
        try:
            self.single_observation_space = probe.single_observation_space
            self.single_action_space = probe.single_action_space
            self.metadata = dict(probe.metadata)
            self.render_mode = probe.render_mode
        finally:
            probe.close()
        self.autoreset_mode = self.metadata["autoreset_mode"]
        for role, space in (
            ("observation", self.single_observation_space),
            ("action", self.single_action_space),
        ):
            if not isinstance(space, (spaces.Box, spaces.Discrete)):
                raise ValueError(
                    f"PoolVectorEnv keeps {role}s in a shared block and supports Box and "
                    f"Discrete spaces, got {space}; use AsyncVectorEnv for this environment."
                )
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    def _group_builder(self, worker: _Worker) -> CloudpickleWrapper:
        if self.vector_env_fn is not None:
            build = functools.partial(_native_group, self.vector_env_fn, worker.stop - worker.start)
        else:
            build = functools.partial(
                _sync_group,
                self.env_fns[worker.start : worker.stop],  # type: ignore[index]
                self.autoreset_mode,
            )
        return CloudpickleWrapper(build)

    def _start(self, worker: _Worker) -> None:
        parent_end, child_end = self._context.Pipe()
        worker.pipe, worker.wake = parent_end, self._context.Semaphore(0)
        worker.process = self._context.Process(
            target=pool_worker,
            name=f"PoolVectorEnv-worker-{worker.index}",
            args=(
                self._group_builder(worker),
                worker.index,
                (worker.start, worker.stop),
                self._block.layout,
                self._block.name,
                worker.wake,
                self._finished,
                child_end,
                os.getpid(),
            ),
            daemon=True,
        )
        worker.process.start()
        child_end.close()

    # Commands ------------------------------------------------------------------------------

    def _dispatch(self, workers: Sequence[_Worker], command: int, payload: Any = None) -> None:
        block = self._block
        for worker in workers:
            block["command"][worker.index] = command
            block["sequence"][worker.index] += 1
            if payload is not None:
                worker.pipe.send(payload(worker))
            worker.wake.release()

    def _receive(self, worker: _Worker) -> Any:
        """Read a worker's reply, which it sends right after finishing a command."""
        if not worker.pipe.poll(self.timeout):
            self._fail(worker, f"sent no reply within {self.timeout} s", may_restart=False)
        try:
            return worker.pipe.recv()
        except EOFError:
            self._fail(worker, "died before sending its reply", may_restart=False)

    def _is_done(self, worker: _Worker) -> bool:
        return bool(self._block["done"][worker.index] == self._block["sequence"][worker.index])

    def _wait(self, workers: Sequence[_Worker], enough: int | None = None) -> list[_Worker]:
        """Wait until every worker in ``workers`` (or ``enough`` sub-envs' worth) is done."""
        pending = list(workers)
        done: list[_Worker] = []
        needed = sum(w.stop - w.start for w in workers) if enough is None else enough
        deadline = time.monotonic() + self.timeout
        spin_until = time.perf_counter() + self.spin_s
        while time.perf_counter() < spin_until and self._finished_envs(pending) < needed:
            pass
        while True:
            for worker in [w for w in pending if self._is_done(w)]:
                pending.remove(worker)
                done.append(worker)
            if sum(w.stop - w.start for w in done) >= needed:
                return done
            if not self._finished.acquire(timeout=_LIVENESS_POLL_S):
                self._check_alive(pending, deadline)

    def _finished_envs(self, workers: Sequence[_Worker]) -> int:
        return sum(w.stop - w.start for w in workers if self._is_done(w))

    def _check_alive(self, pending: Sequence[_Worker], deadline: float) -> None:
        for worker in pending:
            if not worker.process.is_alive() and not self._is_done(worker):
                self._fail(worker, f"died with exit code {worker.process.exitcode}")
        if time.monotonic() > deadline:
            self._fail(pending[0], f"did not answer within {self.timeout} s (hung)")

    def _fail(self, worker: _Worker, what: str, may_restart: bool = True) -> None:
        if may_restart and self.restart_failed:
            raise _Restart(worker, what)
        self._stop_worker(worker)
        raise WorkerError(
            f"PoolVectorEnv worker {worker.index} (sub-environments {worker.env_indices}) {what}.",
            env_indices=tuple(worker.env_indices),
        )

    def _stop_worker(self, worker: _Worker) -> None:
        if worker.process is not None and worker.process.is_alive():
            worker.process.kill()
            worker.process.join(_JOIN_TIMEOUT_S)

    def _collect(self, workers: Sequence[_Worker], infos: dict[str, Any]) -> list[tuple]:
        """Merge the infos of finished workers into ``infos``; return ``(worker, error)``s."""
        failures = []
        for worker in workers:
            status = self._block["status"][worker.index]
            if status == Status.HAS_INFO:
                _place_info(infos, self._receive(worker), worker.start, self.num_envs)
            elif status == Status.ERROR:
                name, message, trace = self._receive(worker)
                worker.process.join(_JOIN_TIMEOUT_S)
                failures.append((worker, f"raised {name}: {message}\n{trace}"))
        return failures

    def _run(self, workers: Sequence[_Worker], command: int, payload: Any = None) -> dict:
        """Run a command on ``workers`` and wait for all; restart failures if asked."""
        self._dispatch(workers, command, payload)
        infos: dict[str, Any] = {}
        restarted = self._settle(list(workers), infos)
        if restarted:
            self._mark_restarted(infos, restarted)
        return infos

    def _settle(self, pending: list[_Worker], infos: dict[str, Any]) -> list[_Worker]:
        """Wait for ``pending`` to finish, restarting (or reporting) failed workers."""
        restarted: list[_Worker] = []
        while pending:
            try:
                done = self._wait(pending)
            except _Restart as restart:
                self._restart(restart.worker)
                restarted.append(restart.worker)
                pending.remove(restart.worker)
                continue
            pending = []
            for worker, what in self._collect(done, infos):
                try:
                    self._fail(worker, what)
                except _Restart:
                    self._restart(worker)
                    restarted.append(worker)
        return restarted

    def _restart(self, worker: _Worker) -> None:
        self._stop_worker(worker)
        worker.pipe.close()
        self._start(worker)
        self._dispatch([worker], Command.RESET, lambda _: (None, None))
        self._collect(self._wait([worker]), {})

    def _mark_restarted(self, infos: dict[str, Any], workers: Sequence[_Worker]) -> None:
        mask = np.zeros(self.num_envs, dtype=np.bool_)
        for worker in workers:
            mask[worker.start : worker.stop] = True
        self._block["rewards"][mask] = 0.0
        self._block["terminations"][mask] = False
        self._block["truncations"][mask] = True
        infos["worker_restarted"], infos["_worker_restarted"] = mask.copy(), mask

    # The vector API ------------------------------------------------------------------------

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset every sub-environment (or those in ``options["reset_mask"]``) and wait.

        Args:
            seed: ``None``, an int ``s`` (sub-env ``i`` gets ``s + i``) or one seed per sub-env.
            options: reset options for every sub-env, plus ``"reset_mask"``.

        Returns:
            The batched observations and info.

        Raises:
            palaestra.error.WorkerError: if a worker fails (without ``restart_failed``).
        """
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

        infos = self._run(workers, Command.RESET, arguments)
        return self._block["observations"].copy(), infos

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every sub-environment with its action and wait for all of them.

        Raises:
            ValueError: for actions of the wrong shape.
            palaestra.error.WorkerError: if a worker fails (without ``restart_failed``).
        """
        self._drain()
        self._write_actions(actions, slice(None))
        infos = self._run(self._workers, Command.STEP)
        block = self._block
        return (
            block["observations"].copy(),
            block["rewards"].copy(),
            block["terminations"].copy(),
            block["truncations"].copy(),
            infos,
        )

    def _write_actions(self, actions: Any, rows: Any) -> None:
        target = self._block["actions"][rows]
        actions = np.asarray(actions)
        if actions.shape != target.shape:
            raise ValueError(
                f"PoolVectorEnv expects actions of shape {target.shape} for the sub-envs "
                f"addressed (an element of {self.action_space} for all), got {actions.shape}."
            )
        self._block["actions"][rows] = actions

    # EnvPool-style asynchronous stepping -------------------------------------------------------

    def async_reset(self, seed: int | Sequence[int | None] | None = None) -> None:
        """Start resetting every sub-environment; collect the first batch with :meth:`recv`."""
        self._drain()
        seeds = seeds_per_env(seed, self.num_envs)
        self._dispatch(self._workers, Command.RESET, lambda w: (seeds[w.start : w.stop], None))
        self._in_flight = {w.index for w in self._workers}

    def send(self, actions: Any, env_ids: Any = None) -> None:
        """Send ``actions`` to sub-environments ``env_ids`` (default: the last ``recv``'s).

        Args:
            actions: one action per id, stacked.
            env_ids: sub-environment indices covering whole worker groups.

        Raises:
            ValueError: for ids that split a worker's group, are busy, or mismatch actions,
                and for no ids before any ``recv``.
        """
        if env_ids is None and self._last_ids is None:
            raise ValueError("send() without env_ids needs a recv() first to name them.")
        ids = np.asarray(self._last_ids if env_ids is None else env_ids, dtype=np.int64)
        workers = self._workers_of(ids)
        self._write_actions(actions, ids)
        self._dispatch(workers, Command.STEP)
        self._in_flight |= {w.index for w in workers}

    def recv(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Return the first ``batch_size`` sub-environments to finish their command.

        Returns:
            ``(observations, rewards, terminations, truncations, infos)`` for those
            sub-environments, in ``info["env_id"]`` order.

        Raises:
            RuntimeError: if nothing is in flight.
            palaestra.error.WorkerError: if a worker fails (without ``restart_failed``).
        """
        if not self._in_flight:
            raise RuntimeError("recv() needs sub-environments in flight: call send() first.")
        # Workers found done by an earlier recv but left out of its batch go first.
        waiting = [i for i in self._ready if i in self._in_flight]
        waiting += [i for i in sorted(self._in_flight) if i not in waiting]
        flying = [self._workers[i] for i in waiting]
        enough = min(self.batch_size, sum(w.stop - w.start for w in flying))
        infos: dict[str, Any] = {}
        try:
            finished = self._wait(flying, enough)
            done = _first_batch(finished, enough)
            self._ready = [w.index for w in finished if w not in done]
        except _Restart as restart:
            done = [restart.worker]
        restarted = [w for w in done if w in self._settle_failed(done, infos)]
        if restarted:
            self._mark_restarted(infos, restarted)
        self._in_flight -= {w.index for w in done}
        ids = np.concatenate([np.arange(w.start, w.stop) for w in done])
        self._last_ids = ids
        block = self._block
        infos = {key: _select_rows(value, ids) for key, value in infos.items()}
        infos["env_id"] = ids
        return (
            block["observations"][ids],
            block["rewards"][ids],
            block["terminations"][ids],
            block["truncations"][ids],
            infos,
        )

    def _settle_failed(self, done: list[_Worker], infos: dict[str, Any]) -> list[_Worker]:
        """Collect finished workers' infos; restart (or report) dead or failed ones."""
        failed = [w for w in done if not self._is_done(w)]
        failed += [
            worker
            for worker, what in self._collect([w for w in done if self._is_done(w)], infos)
            if self._restart_wanted(worker, what)
        ]
        for worker in failed:
            self._restart(worker)
        return failed

    def _restart_wanted(self, worker: _Worker, what: str) -> bool:
        """Return True for a failed worker to restart; raise WorkerError if not restarting."""
        try:
            self._fail(worker, what)
        except _Restart:
            return True
        raise AssertionError("_fail always raises")

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
        """Wait for commands still in flight from asynchronous use, dropping their results."""
        if self._in_flight:
            flying = [self._workers[i] for i in self._in_flight]
            self._settle(flying, {})
            self._in_flight = set()

    # Attributes and closing ------------------------------------------------------------------

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Call method ``name`` (or read attribute ``name``) of every sub-environment.

        Raises:
            Exception: whatever a sub-environment raised.
        """
        results: list[Any] = []
        for worker in self._workers:
            results.extend(self._call_group(worker, name, args, kwargs))
        return tuple(results)

    def set_attr(self, name: str, values: Any) -> None:
        """Set attribute ``name`` of the sub-environments (one value each, or one for all).

        Raises:
            ValueError: if a list/tuple's length is not :attr:`num_envs`.
        """
        values = values_per_env(values, self.num_envs)
        for worker in self._workers:
            group_values = list(values[worker.start : worker.stop])
            self._call_group(worker, "_setattr", (name, group_values), {})

    def _call_group(self, worker: _Worker, name: str, args: tuple, kwargs: dict) -> Any:
        self._drain()
        self._dispatch([worker], Command.CALL, lambda _: (name, args, kwargs))
        self._wait([worker])
        if self._block["status"][worker.index] == Status.ERROR:
            for failed, what in self._collect([worker], {}):
                self._fail(failed, what, may_restart=False)
        (result,) = self._receive(worker)
        if isinstance(result, Exception):
            raise result
        return result

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """Return attribute ``name`` of every sub-environment."""
        return self.call(name)

    def render(self) -> tuple[Any, ...] | None:
        """Return the frame of every sub-environment."""
        frames = self.call("render")
        return None if all(frame is None for frame in frames) else frames

    def close_extras(self, **kwargs: Any) -> None:
        """Stop every worker (killing those that do not stop) and free the shared block."""
        self._finalizer()


class _Restart(Exception):
    """Internal signal: ``worker`` failed and is to be restarted."""

    def __init__(self, worker: _Worker, what: str):
        super().__init__(what)
        self.worker = worker


def _first_batch(done: list[_Worker], enough: int) -> list[_Worker]:
    batch, count = [], 0
    for worker in done:
        if count >= enough:
            break
        batch.append(worker)
        count += worker.stop - worker.start
    return batch


def _place_info(total: dict[str, Any], group: dict[str, Any], start: int, n: int) -> None:
    """Copy a worker group's batched info into the pool-wide info at rows ``start...``."""
    for key, value in group.items():
        if isinstance(value, dict):
            _place_info(total.setdefault(key, {}), value, start, n)
            continue
        value = np.asarray(value)
        if key not in total:
            fill = None if value.dtype == object else 0
            total[key] = np.full((n, *value.shape[1:]), fill, dtype=value.dtype)
        total[key][start : start + len(value)] = value


def _select_rows(value: Any, ids: np.ndarray) -> Any:
    if isinstance(value, dict):
        return {key: _select_rows(item, ids) for key, item in value.items()}
    return value[ids]
