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

This module is the Ray transport under the group layer
(:class:`~palaestra.vector.groups.GroupedVectorEnv`, which runs the vector API, ``send``/
``recv``, draining and restarts for the pool and Ray alike). Commands reach an actor on the
parent's own Ray node over a direct channel (:mod:`palaestra.vector.ray._channel`) and an
actor elsewhere as Ray actor calls; the parent waits on both kinds in
:meth:`RayVectorEnv._gather`.
"""

from __future__ import annotations

import contextlib
import functools
import secrets
import select
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from palaestra.error import DependencyNotInstalled
from palaestra.vector._arguments import autoreset_mode_from
from palaestra.vector.episodes import autoreset_mode as declared_autoreset_mode
from palaestra.vector.groups import (
    Failure,
    Group,
    GroupedVectorEnv,
    Round,
    group_bounds,
    join_batches,
    native_group,
    place_info,
    slice_batch,
    sync_group,
)
from palaestra.vector.ray._actor import GroupHost
from palaestra.vector.ray._channel import ChannelClosed, Pending, connect, send
from palaestra.vector.ray._session import RaySession
from palaestra.vector.utils import batch_space
from palaestra.vector.vector_env import AutoresetMode

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


class _ActorGroup(Group):
    """The parent's handle on one actor: its rows, its actor and its latest observations."""

    def __init__(self, index: int, start: int, stop: int):
        super().__init__(index, start, stop)
        self.actor: Any = None
        self.where: tuple[Any, int] | None = None
        self.channel: Any = None  # the direct channel's socket, for an actor on our node
        self.observations: Any = None


class RayVectorEnv(GroupedVectorEnv):
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

    _unit = "Ray actor"

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
        self.num_envs = self._count_envs(env_fns, vector_env_fn, num_envs)
        workers = min(2, self.num_envs) if num_workers is None else num_workers
        if not 1 <= int(workers) <= self.num_envs:
            raise ValueError(
                f"num_workers must be between 1 and num_envs={self.num_envs}, got {num_workers}."
            )
        self.num_workers = int(workers)
        self.timeout = timeout
        self.start_timeout = start_timeout
        self._env_fns, self._vector_env_fn = env_fns, vector_env_fn
        self._requested_mode = autoreset_mode_from(autoreset_mode)
        groups = [
            _ActorGroup(i, start, stop)
            for i, (start, stop) in enumerate(group_bounds(self.num_envs, self.num_workers))
        ]
        self._init_groups(groups, batch_size, restart_failed, max_restarts)
        # Per group: the command in flight and what its reply comes through; the replies
        # gathered but not collected yet.
        self._pending: dict[int, tuple[str, Any]] = {}
        self._replies: dict[int, Any] = {}
        # Where the groups' step results land (see GroupedVectorEnv).
        self._rewards = np.zeros(self.num_envs, dtype=np.float64)
        self._terminations = np.zeros(self.num_envs, dtype=np.bool_)
        self._truncations = np.zeros(self.num_envs, dtype=np.bool_)
        self._session = RaySession(self._ray, address, dict(ray_init_kwargs or {}))
        options = {"num_cpus": num_cpus, "max_restarts": 0, **(actor_options or {})}
        self._node_id: str | None = None  # this process's Ray node: its actors get channels
        with contextlib.suppress(Exception):  # e.g. a Ray Client driver is on no node
            self._node_id = self._ray.get_runtime_context().get_node_id()
        self._actor_class = self._ray.remote(GroupHost).options(**options)
        try:
            descriptions = self._start_all()
            self._adopt(descriptions)
        except BaseException:
            self._kill_all()
            self._session.release()
            self.closed = True
            raise

    # Construction ----------------------------------------------------------------------------

    def _spawn(self, group: _ActorGroup) -> Any:
        if self._env_fns is not None:
            fns = list(self._env_fns[group.start : group.stop])
            make = functools.partial(sync_group, fns, self._requested_mode)
        else:
            make = functools.partial(native_group, self._vector_env_fn, group.size)
        self._session.api()
        group.actor = self._actor_class.remote(make, group.start)
        return group.actor.build.remote()

    def _start_all(self) -> list[Any]:
        refs = {group.index: self._spawn(group) for group in self._groups}
        replies = self._gather(refs, timeout=self.start_timeout)
        descriptions = []
        for group in self._groups:
            reply = replies[group.index]
            if isinstance(reply, Failure):
                raise self._exception(reply)
            result, success = reply
            if not success:
                raise self._exception(Failure(group, "failed to build", result))
            descriptions.append(result)
            group.where = result[3]
        self._connect(self._groups)
        return descriptions

    def _connect(self, groups: Sequence[_ActorGroup]) -> None:
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

    def _submit(self, group: _ActorGroup, command: str, data: Any) -> None:
        """Send one command to a group's actor; :meth:`_wait` waits for its reply."""
        if group.channel is None:
            self._session.api()
            handle: Any = group.actor.run.remote(command, data)
        else:
            handle = Pending(group.channel)
            try:
                send(group.channel, (command, data))
            except OSError as error:  # the actor is gone: the reply is this error
                handle.reply, handle.received = error, True
        self._pending[group.index] = (command, handle)
        self._in_flight.add(group.index)

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
        self._track_ended()
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
            Group index to the reply ``(result, success)``, or a :class:`Failure` for an
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
        if enough is None and all(isinstance(r, Pending) for r in refs.values()):
            # Lockstep over channels: all replies are needed, so read them in turn, each
            # socket bounded by what is left of the deadline (no poll set to build).
            return {index: self._reply(index, reply, deadline) for index, reply in refs.items()}
        pending = dict(refs)
        replies: dict[int, Any] = {}
        needed = sum(self._groups[i].size for i in refs) if enough is None else enough
        counted = 0
        while pending and counted < needed:
            ready = self._readable(pending, deadline)
            if not ready:
                for index in pending:
                    group = self._groups[index]
                    replies[index] = Failure(group, f"did not answer within {timeout} s (hung)")
                    self._kill(group)
                return replies
            for index in ready:
                replies[index] = self._reply(index, pending.pop(index))
                counted += self._groups[index].size
        return replies

    def _readable(self, pending: dict[int, Any], deadline: float) -> list[int]:
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

    def _reply(self, index: int, item: Any, deadline: float | None = None) -> Any:
        """Read one reply (by ``deadline``, else ready); a dead or silent actor is a Failure."""
        group = self._groups[index]
        if isinstance(item, Pending):
            try:
                if deadline is not None and not item.received:
                    item.connection.settimeout(max(1e-6, deadline - time.monotonic()))
                    try:
                        reply = item.take()
                    finally:
                        item.connection.settimeout(self.timeout)
                else:
                    reply = item.take()
            except TimeoutError:
                self._kill(group)
                return Failure(group, f"did not answer within {self.timeout} s (hung)")
            except (ChannelClosed, OSError) as error:
                return Failure(group, f"died ({_first_line(error)})")
            if isinstance(reply, OSError):  # the command could not be sent
                return Failure(group, f"died ({_first_line(reply)})")
            return reply
        ray = self._session.api()
        try:
            return ray.get(item)
        except ray.exceptions.RayActorError as error:
            return Failure(group, f"died ({_first_line(error)})")

    # Transport ---------------------------------------------------------------------------

    def _send_step(self, groups: Sequence[Any], actions: Any, ids: np.ndarray | None) -> None:
        self._check_actions(actions, self.num_envs if ids is None else len(ids))
        space = self.single_action_space
        positions = None if ids is None else {int(e): p for p, e in enumerate(ids)}
        data = []
        for group in groups:
            rows: Any = group.rows
            if positions is not None:
                rows = np.array([positions[e] for e in group.env_indices])
            data.append(slice_batch(space, actions, rows))
        for group, group_actions in zip(groups, data):
            self._submit(group, "step", group_actions)

    def _send_command(
        self, groups: Sequence[Any], command: str, payload: Callable[[Any], Any]
    ) -> None:
        for group in groups:
            if command == "reset":
                seeds, options = payload(group)
                self._submit(group, "reset", {"seed": seeds, "options": options})
            else:
                self._submit(group, "_call", payload(group))

    def _wait(self, groups: Sequence[Any], round_: Round, enough: int | None) -> None:
        needed = sum(g.size for g in groups) if enough is None else enough
        counted = 0
        waiting = {}
        for group in groups:
            if group.index in self._replies:  # gathered by an earlier recv
                round_.done.append(group)
                counted += group.size
            elif group.index in self._pending:
                waiting[group.index] = self._pending[group.index][1]
        if not waiting or counted >= needed:
            return
        for index, reply in self._gather(waiting, needed - counted).items():
            if isinstance(reply, Failure):
                round_.failures.append(reply)
            else:
                self._replies[index] = reply
                round_.done.append(self._groups[index])

    def _collect(self, round_: Round) -> None:
        group_infos = []
        failed = []
        for group in round_.done:
            index = group.index
            result, success = self._replies.pop(index)
            command, _ = self._pending.pop(index)
            self._in_flight.discard(index)
            if not success:
                if result.fatal:
                    self._kill(group)
                    round_.failures.append(Failure(group, "raised an exception", result))
                    failed.append(group)
                else:
                    round_.argument_errors.append((group, result))
                continue
            if command == "_call":
                round_.results[index] = result
                continue
            if command == "step":
                observations, rewards, terminations, truncations, info = result
                self._rewards[group.rows] = rewards
                self._terminations[group.rows] = terminations
                self._truncations[group.rows] = truncations
            else:
                observations, info = result
            group.observations = observations
            if info:
                group_infos.append((group.start, info))
        # In row order whatever order the groups finished in (a sync vector env's dtypes).
        for start, info in sorted(group_infos, key=lambda item: item[0]):
            place_info(round_.infos, info, start, self.num_envs)
        if failed:
            round_.done = [g for g in round_.done if g not in failed]
        for failure in round_.failures:
            self._in_flight.discard(failure.group.index)
            self._pending.pop(failure.group.index, None)

    def _replace(self, group: Any) -> None:
        self._kill(group)
        reply = self._gather({group.index: self._spawn(group)}, timeout=self.start_timeout)[
            group.index
        ]
        if isinstance(reply, Failure):
            raise self._exception(reply)
        result, success = reply
        if not success:
            raise self._exception(Failure(group, "failed to restart", result))
        group.where = result[3]
        self._connect([group])

    def _give_up(self, group: Any) -> None:
        self._kill(group)

    def _observation_batch(self, ids: np.ndarray | None = None, groups: Any = None) -> Any:
        chosen = self._groups if groups is None else groups
        return join_batches(self.single_observation_space, [g.observations for g in chosen])

    def _previous_observations(self, group: Any) -> Any:
        # A reply's batch is the group's own: nothing else writes to it.
        return group.observations

    def _restore_observations(self, group: Any, observations: Any) -> None:
        group.observations = observations

    def _kill(self, group: _ActorGroup) -> None:
        if group.channel is not None:
            with contextlib.suppress(OSError):
                group.channel.close()
            group.channel = None
        if group.actor is not None and self._session.running():
            with contextlib.suppress(Exception):
                self._ray.kill(group.actor, no_restart=True)
        group.actor = None
        self._in_flight.discard(group.index)
        self._pending.pop(group.index, None)
        self._replies.pop(group.index, None)

    def _kill_all(self) -> None:
        for group in self._groups:
            self._kill(group)

    def _check_actions(self, actions: Any, count: int) -> None:
        values = actions if isinstance(actions, (dict, tuple)) else np.asarray(actions)
        if isinstance(values, np.ndarray) and (values.ndim == 0 or len(values) != count):
            raise ValueError(
                f"RayVectorEnv expects one action per sub-environment addressed ({count}), "
                f"an element of {self.action_space}; got shape {values.shape}."
            )

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


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
