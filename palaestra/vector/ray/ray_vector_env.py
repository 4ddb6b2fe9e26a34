"""A vector env whose sub-environments live in Ray actors, possibly on other machines.

:class:`RayVectorEnv` splits ``num_envs`` sub-environments into ``num_workers`` contiguous
groups, one Ray actor each (natively batched inside the actor when built from a vector
entry point). It steps in lockstep (the :class:`~palaestra.vector.VectorEnv` API, with the
batches, infos and autoreset behaviour of a sync vector env for the same seeds) or
EnvPool-style (``async_reset``/``recv``/``send`` with a ``batch_size``), like
:class:`~palaestra.vector.PoolVectorEnv`, whose fault handling it shares: exceptions come back
with their own type through the process layer's error transport, a dead or hung actor is a
:class:`~palaestra.error.WorkerError`, and with ``restart_failed`` it is replaced (within a
:class:`~palaestra.vector.processes.RestartBudget`) and its episodes come back truncated with
``info["worker_restarted"]`` and ``info["restart_reason"]``.

Commands reach an actor on the parent's own Ray node over a direct channel
(:mod:`palaestra.vector.ray._channel`) and an actor elsewhere as Ray actor calls; the parent
waits on both kinds in :meth:`RayVectorEnv._gather`.
"""

from __future__ import annotations

import contextlib
import functools
import secrets
import select
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from palaestra.error import DependencyNotInstalled
from palaestra.vector._arguments import autoreset_mode_from, seeds_per_env, split_reset_mask
from palaestra.vector.episodes import autoreset_mode as declared_autoreset_mode
from palaestra.vector.episodes import disabled_step_error
from palaestra.vector.pool._layout import join_batches, slice_batch
from palaestra.vector.pool.pool_vector_env import (
    _assert_usable,
    _place_info,
    _refuse_send_before_reset,
    _sync_group,
)
from palaestra.vector.processes import (
    ErrorReport,
    RestartBudget,
    group_failure_error,
)
from palaestra.vector.ray._actor import GroupHost
from palaestra.vector.ray._channel import ChannelClosed, Pending, connect, send
from palaestra.vector.ray._session import RaySession
from palaestra.vector.utils import batch_space, iterate
from palaestra.vector.vector_env import AutoresetMode, VectorEnv

__all__ = ["RayVectorEnv", "require_ray"]

RAY_HINT = (
    'Ray is not installed; the "ray" vectorization mode needs it: run '
    '`pip install "palaestra[ray]"`'
)


def require_ray() -> Any:
    """Import and return :mod:`ray`.

    Raises:
        palaestra.error.DependencyNotInstalled: Ray is not installed (naming the ``ray`` extra).
    """
    try:
        import ray
    except ImportError as e:
        raise DependencyNotInstalled(RAY_HINT) from e
    return ray


def _native_group(vector_env_fn: Callable[[int], Any], size: int) -> Any:
    return vector_env_fn(size)


class _Group:
    """The parent's handle on one actor: its rows, its actor and its latest observations."""

    def __init__(self, index: int, start: int, stop: int):
        self.index = index
        self.start, self.stop = start, stop
        self.actor: Any = None
        self.where: tuple[Any, int] | None = None
        self.channel: Any = None  # the direct channel's socket, for an actor on our node
        self.observations: Any = None

    @property
    def size(self) -> int:
        return self.stop - self.start

    @property
    def env_indices(self) -> list[int]:
        return list(range(self.start, self.stop))


@dataclass
class _Failure:
    """An actor that died, hung or raised an exception that stopped it."""

    group: _Group
    what: str
    report: ErrorReport | None = None
    # For a failed restart: the error it raised, raised as is once the budget is spent.
    error: BaseException | None = None


@dataclass
class _Round:
    """Results of one command, per group index; failures already restarted or raised."""

    results: dict[int, Any] = field(default_factory=dict)
    restarted: dict[int, str] = field(default_factory=dict)


class RayVectorEnv(VectorEnv[Any, Any, np.ndarray]):
    """Run groups of sub-environments in Ray actors, locally or across a Ray cluster.

    Args:
        env_fns: functions that each build one sub-environment (an actor runs its group
            as a sync vector env); or leave ``None`` and give ``vector_env_fn``.
        vector_env_fn: builds a natively batched vector env of ``n`` sub-environments when
            called with ``n``; each actor runs one. Needs ``num_envs``.
        num_envs: the number of sub-environments with ``vector_env_fn``.
        num_workers: Ray actors (default: 2, at most ``num_envs``).
        batch_size: how many sub-environments ``recv`` returns (default ``num_envs``); a
            multiple of the group size.
        autoreset_mode: the autoreset mode of ``env_fns`` groups (a ``vector_env_fn`` sets
            its own).
        timeout: seconds an actor may take for one command before it counts as hung.
        start_timeout: seconds the actors may take to start and build their sub-envs (at
            construction and for a restart): Ray may have to start worker processes first,
            which takes seconds (10-14 s measured on 2 cores).
        restart_failed: replace an actor that dies, hangs or raises (other than for an
            argument error): its sub-environments' episodes come back truncated, with
            ``info["worker_restarted"]``/``info["restart_reason"]``, as in the pool.
        max_restarts: restarts allowed per actor; then the failure is raised.
        address: the Ray cluster to join (``ray.init(address=...)``) when Ray is not
            initialised yet; ``None`` starts a local Ray (or joins ``RAY_ADDRESS``).
        num_cpus: CPUs each actor reserves.
        actor_options: further options for every actor (``resources``,
            ``scheduling_strategy`` such as ``"SPREAD"`` or a placement group strategy,
            ``runtime_env``...), passed to ``ray.remote(...).options``.
        ray_init_kwargs: further arguments of ``ray.init`` when this env starts Ray.
        transport: how commands reach the actors. ``"auto"`` (default): over a direct
            Unix-socket channel to each actor on this process's Ray node (tens of
            microseconds a round trip instead of Ray's task path; see
            :mod:`palaestra.vector.ray._channel`), as Ray actor calls to actors on other
            nodes. ``"ray"``: Ray actor calls to every actor.

    Raises:
        ValueError: for a missing or contradictory env source, a bad ``num_workers``,
            ``batch_size``, ``max_restarts`` or ``transport``.
        RuntimeError: if a group's spaces differ from the first group's.
        Exception: whatever a sub-environment's constructor raised, with its type.
        palaestra.error.DependencyNotInstalled: Ray is not installed.

    Example:
        >>> import numpy as np
        >>> import palaestra as gym
        >>> envs = gym.make_vec("CartPole-v1", 4, vectorization_mode="ray",
        ...                     vector_kwargs={"num_workers": 2})  # doctest: +SKIP
        >>> envs.reset(seed=0)[0].shape  # doctest: +SKIP
        (4, 4)
        >>> envs.close()  # doctest: +SKIP
    """

    def __init__(
        self,
        env_fns: Sequence[Callable[[], Any]] | None = None,
        *,
        vector_env_fn: Callable[[int], Any] | None = None,
        num_envs: int | None = None,
        num_workers: int | None = None,
        batch_size: int | None = None,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        timeout: float = 60.0,
        start_timeout: float = 300.0,
        restart_failed: bool = False,
        max_restarts: int = 3,
        address: str | None = None,
        num_cpus: float = 1,
        actor_options: dict[str, Any] | None = None,
        ray_init_kwargs: dict[str, Any] | None = None,
        transport: str = "auto",
    ):
        if transport not in ("auto", "ray"):
            raise ValueError(
                f'transport must be "auto" (direct channels to actors on this node) or "ray" '
                f"(Ray actor calls only), got {transport!r}."
            )
        self.transport = transport
        self._ray = require_ray()
        if (env_fns is None) == (vector_env_fn is None):
            raise ValueError(
                "RayVectorEnv needs exactly one of `env_fns` (one builder per sub-env) or "
                "`vector_env_fn` (a builder of n batched sub-envs, with `num_envs`)."
            )
        count = len(env_fns) if env_fns is not None else num_envs
        if count is None or int(count) < 1:
            raise ValueError(f"RayVectorEnv needs at least one sub-environment, got {count}.")
        self.num_envs = int(count)
        workers = min(2, self.num_envs) if num_workers is None else num_workers
        if not 1 <= int(workers) <= self.num_envs:
            raise ValueError(
                f"num_workers must be between 1 and num_envs={self.num_envs}, got {num_workers}."
            )
        self.num_workers = int(workers)
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.restart_failed = restart_failed
        self.max_restarts = max_restarts
        self._budget = RestartBudget(max_restarts, "RayVectorEnv")
        self._env_fns, self._vector_env_fn = env_fns, vector_env_fn
        self._requested_mode = autoreset_mode_from(autoreset_mode)
        bounds = np.linspace(0, self.num_envs, self.num_workers + 1).round().astype(int)
        self._groups = [
            _Group(i, int(bounds[i]), int(bounds[i + 1])) for i in range(self.num_workers)
        ]
        self.batch_size = self._check_batch_size(batch_size)
        self._session = RaySession(self._ray, address, dict(ray_init_kwargs or {}))
        options = {"num_cpus": num_cpus, "max_restarts": 0, **(actor_options or {})}
        self._node_id: str | None = None  # this process's Ray node: its actors get channels
        with contextlib.suppress(Exception):  # e.g. a Ray Client driver is on no node
            self._node_id = self._ray.get_runtime_context().get_node_id()
        self._actor_class = self._ray.remote(GroupHost).options(**options)
        self._lost: dict[int, str] = {}
        self._in_flight: dict[int, Any] = {}
        self._in_flight_command: dict[int, str] = {}
        self._autoreset_next: set[int] = set()
        self._sent_data: dict[int, Any] = {}
        # DISABLED: sub-envs truncated by a restart, which must be reset before stepping.
        self._must_reset: set[int] = set()
        self._last_ids: np.ndarray | None = None
        # Whether reset() or async_reset() was called: send() steps, which needs episodes.
        self._reset_once = False
        try:
            descriptions = self._start_all()
            self._adopt(descriptions)
        except BaseException:
            self._kill_all()
            self._session.release()
            self.closed = True
            raise

    # Construction ----------------------------------------------------------------------------

    def _check_batch_size(self, batch_size: int | None) -> int:
        if batch_size is None:
            return self.num_envs
        sizes = {group.size for group in self._groups}
        if not 1 <= batch_size <= self.num_envs or len(sizes) != 1 or batch_size % sizes.pop():
            raise ValueError(
                f"batch_size={batch_size} must be a multiple of the group size in "
                f"[1, {self.num_envs}]; the groups hold {[g.size for g in self._groups]} "
                "sub-envs. Pick num_workers dividing num_envs and a batch_size that is a "
                "multiple of num_envs/num_workers."
            )
        return batch_size

    def _spawn(self, group: _Group) -> Any:
        if self._env_fns is not None:
            fns = list(self._env_fns[group.start : group.stop])
            make = functools.partial(_sync_group, fns, self._requested_mode)
        else:
            make = functools.partial(_native_group, self._vector_env_fn, group.size)
        self._session.api()
        group.actor = self._actor_class.remote(make, group.start)
        return group.actor.build.remote()

    def _start_all(self) -> list[Any]:
        refs = {group.index: self._spawn(group) for group in self._groups}
        replies = self._gather(refs, timeout=self.start_timeout)
        descriptions = []
        for group in self._groups:
            reply = replies[group.index]
            if isinstance(reply, _Failure):
                raise self._exception(reply)
            result, success = reply
            if not success:
                raise self._exception(_Failure(group, "failed to build", result))
            descriptions.append(result)
            group.where = result[3]
        self._connect(self._groups)
        return descriptions

    def _connect(self, groups: Sequence[_Group]) -> None:
        """Open a direct channel to each actor of ``groups`` on this node (``"auto"``).

        An actor whose channel cannot be opened keeps being called through Ray.
        """
        if self.transport != "auto":
            return
        local = [g for g in groups if g.where is not None and g.where[0] == self._node_id]
        tokens = {g.index: secrets.token_bytes(16) for g in local}
        ray = self._session.api()
        refs = {g.index: g.actor.open_channel.remote(tokens[g.index]) for g in local}
        for group in local:
            with contextlib.suppress(Exception):
                path = ray.get(refs[group.index], timeout=self.start_timeout)
                group.channel = connect(path, tokens[group.index], self.timeout)

    def _submit(self, group: _Group, command: str, data: Any) -> Any:
        """Send one command to a group's actor; return what :meth:`_gather` waits on."""
        if group.channel is None:
            self._session.api()
            return group.actor.run.remote(command, data)
        pending = Pending(group.channel)
        try:
            send(group.channel, (command, data))
        except OSError as error:  # the actor is gone: the reply is this error
            pending.reply, pending.received = error, True
        return pending

    def _adopt(self, descriptions: list[Any]) -> None:
        (observation_space, action_space), metadata, render_mode, _ = descriptions[0]
        for group, ((obs_space, act_space), _, _, _) in zip(self._groups, descriptions):
            if obs_space != observation_space or act_space != action_space:
                raise RuntimeError(
                    f"RayVectorEnv: the sub-environments {group.env_indices} have spaces "
                    f"({obs_space}, {act_space}) but the first group has ({observation_space}, "
                    f"{action_space}); every sub-environment must have the same spaces."
                )
        self.single_observation_space = observation_space
        self.single_action_space = action_space
        self.observation_space = batch_space(observation_space, self.num_envs)
        self.action_space = batch_space(action_space, self.num_envs)
        self.metadata = metadata
        self.autoreset_mode = declared_autoreset_mode(self, default=self._requested_mode)
        self.render_mode = render_mode

    @property
    def placements(self) -> list[tuple[Any, int]]:
        """``(Ray node id, process id)`` of each actor, in group order."""
        return [group.where for group in self._groups]

    # Sending and gathering -------------------------------------------------------------------

    def _gather(
        self, refs: dict[int, Any], enough: int | None = None, timeout: float | None = None
    ) -> dict[int, Any]:
        """Wait for the replies of ``refs`` (all, or ``enough`` sub-envs' worth).

        ``refs`` maps group indices to Ray object refs or direct-channel :class:`Pending`
        replies (what :meth:`_submit` returned).

        Args:
            refs: what to wait for.
            enough: how many sub-envs' replies are enough (``None``: all).
            timeout: seconds to wait (default ``timeout``; ``start_timeout`` for actors
                starting).

        Returns:
            Group index to the reply ``(result, success)``, or a :class:`_Failure` for an
            actor that died or did not answer in time.

        Raises:
            palaestra.error.WorkerError: if Ray was shut down.
        """
        timeout = self.timeout if timeout is None else timeout
        ray = self._session.api()
        deadline = time.monotonic() + timeout
        if enough is None and not any(isinstance(r, Pending) for r in refs.values()):
            # Lockstep over Ray calls: one ray.get for all; failures take the careful path.
            try:
                values = ray.get(list(refs.values()), timeout=timeout)
                return dict(zip(refs, values))
            except (ray.exceptions.RayActorError, ray.exceptions.GetTimeoutError):
                pass
        pending = dict(refs)
        replies: dict[int, Any] = {}
        needed = sum(self._groups[i].size for i in refs) if enough is None else enough
        counted = 0
        while pending and counted < needed:
            ready = self._ready(pending, deadline)
            if not ready:
                for index in pending:
                    group = self._groups[index]
                    replies[index] = _Failure(group, f"did not answer within {timeout} s (hung)")
                    self._kill(group)
                return replies
            for index in ready:
                replies[index] = self._reply(index, pending.pop(index))
                counted += self._groups[index].size
        return replies

    def _ready(self, pending: dict[int, Any], deadline: float) -> list[int]:
        """Wait until some of ``pending`` can be read; return their indices (none: timed out)."""
        channels = {i: p for i, p in pending.items() if isinstance(p, Pending)}
        refs = {i: r for i, r in pending.items() if not isinstance(r, Pending)}
        poller = select.poll()  # not select.select: fds past 1024 are fine
        for pending_reply in channels.values():
            poller.register(pending_reply.fileno(), select.POLLIN)
        while True:
            left = max(0.0, deadline - time.monotonic())
            done = [i for i, p in channels.items() if p.received]
            if done:
                return done
            if channels:
                # Beside Ray refs, poll the channels briefly and the refs in turn.
                wait = min(left, 0.002) if refs else left
                events = poller.poll(int(wait * 1000) + (wait > 0))
                if events:
                    ready_fds = {fd for fd, _ in events}
                    return [i for i, p in channels.items() if p.fileno() in ready_fds]
            if refs:
                wait = 0 if channels else left
                ready, _ = self._session.api().wait(
                    list(refs.values()), num_returns=1, timeout=wait
                )
                if ready:
                    return [i for i, r in refs.items() if r in ready]
            if left <= 0:
                return []

    def _reply(self, index: int, item: Any) -> Any:
        """Read one ready reply; a dead or silent actor becomes a :class:`_Failure`."""
        group = self._groups[index]
        if isinstance(item, Pending):
            try:
                reply = item.take()
            except TimeoutError:
                self._kill(group)
                return _Failure(group, f"did not answer within {self.timeout} s (hung)")
            except (ChannelClosed, OSError) as error:
                return _Failure(group, f"died ({_first_line(error)})")
            if isinstance(reply, OSError):  # the command could not be sent
                return _Failure(group, f"died ({_first_line(reply)})")
            return reply
        ray = self._session.api()
        try:
            return ray.get(item)
        except ray.exceptions.RayActorError as error:
            return _Failure(group, f"died ({_first_line(error)})")

    def _run(
        self, command: str, data: dict[int, Any], refs: dict[int, Any] | None = None
    ) -> _Round:
        """Send ``command`` to the groups in ``data`` (or collect ``refs``); resolve failures."""
        if refs is None:
            refs = {i: self._submit(self._groups[i], command, d) for i, d in data.items()}
        replies = self._gather_owed(refs)
        return self._resolve(command, data, replies)

    def _gather_owed(self, refs: dict[int, Any]) -> dict[int, Any]:
        """Gather the replies of a lockstep call; until then they count as in flight.

        A Ctrl-C during the wait leaves them there, and the next call's :meth:`_drain`
        reads them first: a direct channel would otherwise hand the interrupted call's
        reply to the next call as its own.
        """
        for index, ref in refs.items():
            self._in_flight[index] = ref
            self._in_flight_command[index] = "interrupted"
        replies = self._gather(refs)
        for index in refs:
            self._in_flight.pop(index, None)
            self._in_flight_command.pop(index, None)
        return replies

    def _resolve(
        self, command: str | dict[int, str], data: dict[int, Any], replies: dict[int, Any]
    ) -> _Round:
        """Sort replies into results; restart failed actors (or raise); raise argument errors.

        ``command`` is what every group was sent, or each group's, by index: a restarted
        group's result is what its replacement gives for that command.
        """
        round_ = _Round()
        failures: list[_Failure] = []
        argument_errors: list[tuple[_Group, ErrorReport]] = []
        for index, reply in sorted(replies.items()):
            group = self._groups[index]
            if isinstance(reply, _Failure):
                failures.append(reply)
                continue
            result, success = reply
            if success:
                round_.results[index] = result
            elif result.fatal:
                self._kill(group)
                failures.append(_Failure(group, "raised an exception", result))
            else:
                argument_errors.append((group, result))
        if failures and not self.restart_failed:
            for failure in failures:
                self._lost[failure.group.index] = failure.what
                self._kill(failure.group)
            raise self._exception(min(failures, key=lambda f: f.group.index))
        for failure in failures:
            group = failure.group
            round_.results[group.index] = self._restart(
                failure,
                functools.partial(
                    self._after_restart,
                    command if isinstance(command, str) else command[group.index],
                    group,
                    data.get(group.index),
                    round_,
                ),
            )
            round_.restarted[group.index] = _reason(failure, short=True)
        if argument_errors:
            group, report = min(argument_errors, key=lambda item: item[0].index)
            raise self._exception(_Failure(group, "raised an exception", report))
        return round_

    def _exception(self, failure: _Failure, exhausted: bool = False) -> BaseException:
        group = failure.group
        if failure.error is not None:
            return failure.error
        return group_failure_error(
            "RayVectorEnv",
            "Ray actor",
            group.index,
            group.env_indices,
            failure.what,
            failure.report,
            f" after {self.max_restarts} restart(s)" if exhausted else "",
        )

    # Restarts ------------------------------------------------------------------------------

    def _restart(self, failure: _Failure, then: Callable[[], Any]) -> Any:
        """Replace a failed actor and run ``then`` on it, within the restart budget.

        A replacement that fails to start, or whose ``then`` (the reset or call its
        predecessor failed) fails, counts as one more restart, as in the pool.

        Returns:
            What ``then`` returned.

        Raises:
            Exception: once the budget is spent, the last failure (a failed reset's own
                exception, with the sub-env's type and index).
        """
        group = failure.group
        while True:
            if not self._budget.allow(group.index, group.env_indices, _reason(failure)):
                self._lost[group.index] = failure.what
                self._kill(group)
                raise self._exception(failure, exhausted=True)
            self._kill(group)
            replies = self._gather({group.index: self._spawn(group)}, timeout=self.start_timeout)
            reply = replies[group.index]
            if isinstance(reply, _Failure):
                failure = reply
                continue
            result, success = reply
            if not success:
                failure = _Failure(group, "failed to restart", result)
                continue
            group.where = result[3]
            self._connect([group])
            try:
                return then()
            except Exception as error:
                what = f"failed to restart ({type(error).__name__}: {error})"
                failure = _Failure(group, what, error=error)

    def _call_one(self, group: _Group, command: str, data: Any) -> Any:
        """Run one command on a freshly restarted actor; a failure is raised (and counted).

        Raises:
            Exception: the sub-env's own exception, or a WorkerError for a dead or hung actor.
        """
        replies = self._gather({group.index: self._submit(group, command, data)})
        reply = replies[group.index]
        if isinstance(reply, _Failure):
            raise self._exception(reply)
        result, success = reply
        if not success:
            raise self._exception(_Failure(group, "raised an exception", result))
        return result

    def _after_restart(self, command: str, group: _Group, data: Any, round_: _Round) -> Any:
        """Return the result a restarted group gives for the command its predecessor failed."""
        if command == "reset":
            return self._call_one(group, "reset", data)
        if command == "_call":
            return self._call_one(group, "_call", data)
        previous = group.observations
        size = group.size
        info: dict[str, Any] = {}
        if self.autoreset_mode is AutoresetMode.NEXT_STEP and previous is not None:
            self._autoreset_next.add(group.index)
            observations = previous
        else:
            observations, info = self._call_one(
                group, "reset", {"seed": [None] * size, "options": None}
            )
            info = dict(info)
            if self.autoreset_mode is AutoresetMode.SAME_STEP and previous is not None:
                final = np.full(size, None, dtype=object)
                if previous is not None:
                    rows = list(iterate(batch_space(self.single_observation_space, size), previous))
                    for offset in range(size):
                        final[offset] = rows[offset]
                info["final_obs"], info["_final_obs"] = final, np.ones(size, dtype=np.bool_)
                info.setdefault("final_info", {})
                info["_final_info"] = np.ones(size, dtype=np.bool_)
            elif previous is not None:
                observations = previous
            if self.autoreset_mode is AutoresetMode.DISABLED:
                self._must_reset.update(group.env_indices)
        return (
            observations,
            np.zeros(size, dtype=np.float64),
            np.zeros(size, dtype=np.bool_),
            np.ones(size, dtype=np.bool_),
            info,
        )

    def _kill(self, group: _Group) -> None:
        if group.channel is not None:
            with contextlib.suppress(OSError):
                group.channel.close()
            group.channel = None
        if group.actor is not None and self._session.running():
            with contextlib.suppress(Exception):
                self._ray.kill(group.actor, no_restart=True)
        group.actor = None
        self._in_flight.pop(group.index, None)
        self._in_flight_command.pop(group.index, None)

    def _kill_all(self) -> None:
        for group in self._groups:
            self._kill(group)

    # Assembling batches ------------------------------------------------------------------------

    def _step_batch(self, groups: list[_Group], round_: _Round) -> tuple:
        """Join the groups' step results (in ``groups`` order) into one batch."""
        results = [round_.results[g.index] for g in groups]
        for group, result in zip(groups, results):
            if result[0] is not None:
                group.observations = result[0]
        total = sum(g.size for g in groups)
        info: dict[str, Any] = {}
        offset = 0
        for group, result in zip(groups, results):
            _place_info(info, result[4], offset, total)
            offset += group.size
        _mark_restarts(info, groups, round_.restarted)
        return (
            join_batches(self.single_observation_space, [g.observations for g in groups]),
            np.concatenate([np.asarray(r[1], dtype=np.float64) for r in results]),
            np.concatenate([np.asarray(r[2], dtype=np.bool_) for r in results]),
            np.concatenate([np.asarray(r[3], dtype=np.bool_) for r in results]),
            info,
        )

    def _step_data(self, groups: list[_Group], actions: Any, ids: np.ndarray | None) -> tuple:
        """Per group: the command (``step``, or the autoreset ``reset``) and its data."""
        commands: dict[int, str] = {}
        data: dict[int, Any] = {}
        space = self.single_action_space
        positions = None if ids is None else {int(e): p for p, e in enumerate(ids)}
        for group in groups:
            if group.index in self._autoreset_next:
                commands[group.index] = "reset"
                data[group.index] = {"seed": [None] * group.size, "options": None}
                continue
            if positions is None:
                rows: Any = slice(group.start, group.stop)
            else:
                rows = np.array([positions[e] for e in group.env_indices])
            commands[group.index] = "step"
            data[group.index] = slice_batch(space, actions, rows)
        return commands, data

    def _send(self, commands: dict[int, str], data: dict[int, Any]) -> dict[int, Any]:
        return {
            index: self._submit(self._groups[index], commands[index], data[index])
            for index in commands
        }

    def _finish_step(self, commands: dict[int, str], round_: _Round) -> None:
        """Turn the autoreset resets of restarted NEXT_STEP groups into step results."""
        for index, command in commands.items():
            if command != "reset" or index in round_.restarted:
                continue
            self._autoreset_next.discard(index)
            observations, info = round_.results[index]
            round_.results[index] = _reset_as_step(observations, info, self._groups[index].size)

    def _check_actions(self, actions: Any, count: int) -> None:
        values = actions if isinstance(actions, (dict, tuple)) else np.asarray(actions)
        if isinstance(values, np.ndarray) and (values.ndim == 0 or len(values) != count):
            raise ValueError(
                f"RayVectorEnv expects one action per sub-environment addressed ({count}), "
                f"an element of {self.action_space}; got shape {values.shape}."
            )

    # The vector API ----------------------------------------------------------------------------

    def _assert_usable(self) -> None:
        _assert_usable(self, "RayVectorEnv", "actor", self._lost, self._groups)

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[Any, dict[str, Any]]:
        """Reset every sub-environment (or those in ``options["reset_mask"]``).

        Args:
            seed: ``None``, an int ``s`` (sub-env ``i`` gets ``s + i``) or one seed per sub-env.
            options: reset options for every sub-env, plus ``"reset_mask"``.

        Raises:
            ClosedEnvironmentError: after :meth:`close`.
            ValueError, TypeError: for bad seeds or a bad ``reset_mask``.
            palaestra.error.WorkerError: if an actor dies or hangs (without
                ``restart_failed``).
        """
        self._assert_usable()
        self._drain()
        seeds = seeds_per_env(seed, self.num_envs)
        mask, options = split_reset_mask(options, self.num_envs)
        data: dict[int, Any] = {}
        for group in self._groups:
            if mask is not None and not mask[group.start : group.stop].any():
                continue
            group_options = options
            if mask is not None and not mask[group.start : group.stop].all():
                group_options = {**(options or {}), "reset_mask": mask[group.start : group.stop]}
            data[group.index] = {"seed": seeds[group.start : group.stop], "options": group_options}
        round_ = self._run("reset", data)
        self._reset_once = True
        self._must_reset -= set(range(self.num_envs) if mask is None else np.flatnonzero(mask))
        info: dict[str, Any] = {}
        for index, (observations, group_info) in round_.results.items():
            group = self._groups[index]
            group.observations = observations
            self._autoreset_next.discard(index)
            _place_info(info, group_info, group.start, self.num_envs)
        _mark_restarts(info, self._groups, round_.restarted)
        observations = join_batches(
            self.single_observation_space, [g.observations for g in self._groups]
        )
        return observations, info

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every sub-environment with its action and wait for all of them.

        Raises:
            ClosedEnvironmentError: after :meth:`close`.
            ValueError: for a batch of the wrong length.
            Exception: a sub-env's own error for a bad action (its actor keeps running).
            palaestra.error.WorkerError: if an actor dies or hangs (without
                ``restart_failed``).
        """
        self._assert_usable()
        self._drain()
        self._check_actions(actions, self.num_envs)
        if self._must_reset:
            raise disabled_step_error(sorted(self._must_reset))
        commands, data = self._step_data(self._groups, actions, None)
        round_ = self._resolve_step(commands, data, self._gather_owed(self._send(commands, data)))
        return self._step_batch(self._groups, round_)

    def _resolve_step(self, commands: dict[int, str], data: dict[int, Any], replies: Any) -> _Round:
        # Restarts during a step follow the step's rules, whatever each group was sent.
        round_ = self._resolve("step", data, replies)
        self._finish_step(commands, round_)
        return round_

    # EnvPool-style asynchronous stepping ---------------------------------------------------------

    def async_reset(self, seed: int | Sequence[int | None] | None = None) -> None:
        """Start resetting every sub-environment; collect the first batch with :meth:`recv`."""
        self._assert_usable()
        self._drain()
        seeds = seeds_per_env(seed, self.num_envs)
        for group in self._groups:
            data = {"seed": seeds[group.start : group.stop], "options": None}
            self._in_flight[group.index] = self._submit(group, "reset", data)
            self._in_flight_command[group.index] = "reset_batch"
            # A restarted group runs this reset again: its rows are its real reset.
            self._sent_data[group.index] = data
        self._autoreset_next.clear()
        self._reset_once = True

    def send(self, actions: Any, env_ids: Any = None) -> None:
        """Send ``actions`` to sub-environments ``env_ids`` (default: the last ``recv``'s).

        Raises:
            ValueError: for ids that are not distinct integers in ``[0, num_envs)``, split a
                group, address a busy group or mismatch the actions, and for no ids before
                any ``recv``.
            palaestra.error.ResetNeeded: before any ``reset`` or ``async_reset`` (nothing
                is sent).
        """
        self._assert_usable()
        if env_ids is None and self._last_ids is None:
            raise ValueError("send() without env_ids needs a recv() first to name them.")
        _refuse_send_before_reset("RayVectorEnv", self._reset_once)
        ids = np.asarray(self._last_ids if env_ids is None else env_ids)
        if ids.ndim != 1 or (ids.size and ids.dtype.kind not in "iu"):
            raise ValueError(f"env_ids must be a 1-D sequence of integer indices, got {env_ids!r}.")
        if ids.size and (
            ids.min() < 0 or ids.max() >= self.num_envs or len(set(ids.tolist())) != len(ids)
        ):
            raise ValueError(
                f"env_ids must be distinct indices in [0, {self.num_envs}), got {ids.tolist()}."
            )
        self._check_actions(actions, len(ids))
        groups = [g for g in self._groups if np.isin(g.env_indices, ids).any()]
        for group in groups:
            if not np.isin(group.env_indices, ids).all() or group.index in self._in_flight:
                raise ValueError(
                    f"send() must address whole idle groups; sub-environments "
                    f"{group.env_indices} form one group and are "
                    f"{'busy' if group.index in self._in_flight else 'only partly addressed'}."
                )
        commands, data = self._step_data(groups, actions, ids)
        for index, ref in self._send(commands, data).items():
            self._in_flight[index] = ref
            self._in_flight_command[index] = commands[index]
            self._sent_data[index] = data[index]

    def recv(self) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Return the first ``batch_size`` sub-environments to finish their command.

        Returns:
            ``(observations, rewards, terminations, truncations, infos)`` for those
            sub-environments, ordered by index, with ``info["env_id"]`` naming them.

        Raises:
            RuntimeError: if nothing is in flight.
            palaestra.error.WorkerError: if an actor dies or hangs (without
                ``restart_failed``).
        """
        self._assert_usable()
        if not self._in_flight:
            raise RuntimeError("recv() needs sub-environments in flight: call send() first.")
        flying = dict(self._in_flight)
        enough = min(self.batch_size, sum(self._groups[i].size for i in flying))
        replies = self._gather(flying, enough)
        commands = {i: self._in_flight_command.pop(i) for i in replies}
        for index in replies:
            self._in_flight.pop(index, None)
        # A batch of whole groups, as many as asked for (the first to finish).
        chosen, count = [], 0
        for index in replies:
            if count >= enough:
                break
            chosen.append(index)
            count += self._groups[index].size
        for index in set(replies) - set(chosen):  # finished early: hand them out next time
            self._in_flight[index] = flying[index]
            self._in_flight_command[index] = commands.pop(index)
        replies = {i: replies[i] for i in chosen}
        data = {i: self._sent_data.pop(i, None) for i in chosen}
        # The user's resets restart as resets (run again); the rest follow the step's rules.
        round_ = self._resolve(
            {i: "reset" if commands[i] == "reset_batch" else "step" for i in chosen},
            data,
            replies,
        )
        self._finish_step(commands, round_)
        for index, command in commands.items():
            if command == "reset_batch":
                observations, info = round_.results[index]
                round_.results[index] = _reset_as_step(observations, info, self._groups[index].size)
        groups = sorted((self._groups[i] for i in chosen), key=lambda g: g.index)
        observations, rewards, terminations, truncations, info = self._step_batch(groups, round_)
        ids = np.concatenate([np.arange(g.start, g.stop) for g in groups])
        self._last_ids = ids
        info["env_id"] = ids
        return observations, rewards, terminations, truncations, info

    def _drain(self) -> None:
        """Finish what ``send`` left in flight; its results are dropped."""
        if not self._in_flight:
            return
        flying = dict(self._in_flight)
        self._in_flight.clear()
        self._in_flight_command.clear()
        replies = self._gather(flying)
        self._resolve("_drain", {}, {i: r for i, r in replies.items()})

    # Attributes and closing --------------------------------------------------------------------

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Call method ``name`` (or read attribute ``name``) of every sub-environment."""
        self._assert_usable()
        self._drain()
        data = {g.index: (name, args, kwargs) for g in self._groups}
        round_ = self._run("_call", data)
        return tuple(result for g in self._groups for result in round_.results[g.index])

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """Return attribute ``name`` of every sub-environment."""
        return self.call(name)

    def set_attr(self, name: str, values: Any) -> None:
        """Set attribute ``name`` of the sub-environments (one value each, or one for all).

        Raises:
            ValueError: if a list/tuple's length is not :attr:`num_envs`.
        """
        from palaestra.vector._arguments import values_per_env

        self._assert_usable()
        values = values_per_env(values, self.num_envs)
        self._drain()
        data = {
            g.index: ("_setattr", (name, list(values[g.start : g.stop])), {}) for g in self._groups
        }
        self._run("_call", data)

    def render(self) -> tuple[Any, ...] | None:
        """Return the frame of every sub-environment."""
        frames = self.call("render")
        return None if all(frame is None for frame in frames) else frames

    def close_extras(self, **kwargs: Any) -> None:
        """Close every actor's sub-environments, end the actors, and let Ray go.

        Ray itself is shut down when this env started it and is the last open one using
        it. After the user's ``ray.shutdown()`` (which ended the actors) nothing is left
        to do, and nothing is raised.
        """
        try:
            if self._session.running():
                ray = self._ray
                refs = []
                for group in self._groups:
                    if group.actor is not None:
                        with contextlib.suppress(Exception):
                            refs.append(group.actor.close.remote())
                with contextlib.suppress(Exception):
                    ray.wait(refs, num_returns=len(refs), timeout=min(self.timeout, 10.0))
            self._kill_all()
        finally:
            self._session.release()


def _reset_as_step(observations: Any, info: dict[str, Any], size: int) -> tuple:
    """Return a group's reset as a step result: its observations, no reward, no episode end."""
    return (
        observations,
        np.zeros(size, dtype=np.float64),
        np.zeros(size, dtype=np.bool_),
        np.zeros(size, dtype=np.bool_),
        info,
    )


def _mark_restarts(
    info: dict[str, Any], groups: Sequence[_Group], restarted: dict[int, str]
) -> None:
    """Set ``worker_restarted``/``restart_reason`` for the rows of the restarted ``groups``.

    The rows are those of ``groups`` in order; nothing is set when none was restarted.
    """
    if not restarted:
        return
    total = sum(group.size for group in groups)
    mask = np.zeros(total, dtype=np.bool_)
    reasons = np.full(total, None, dtype=object)
    offset = 0
    for group in groups:
        if group.index in restarted:
            mask[offset : offset + group.size] = True
            reasons[offset : offset + group.size] = restarted[group.index]
        offset += group.size
    info["worker_restarted"], info["_worker_restarted"] = mask, mask.copy()
    info["restart_reason"], info["_restart_reason"] = reasons, mask.copy()


def _reason(failure: _Failure, short: bool = False) -> str:
    if failure.report is None:
        return f"the actor {failure.what}" + ("" if short else ".")
    report = failure.report
    if short:
        return f"{report.error_type.__name__}: {report.message}"
    return (
        f"{report.error_type.__name__}: {report.message}\nThe actor's traceback:\n"
        f"{report.traceback}"
    )


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
