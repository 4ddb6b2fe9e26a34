"""The per-group state machine shared by the pool and Ray vector envs.

:class:`GroupedVectorEnv` splits ``num_envs`` sub-environments into contiguous groups, one
worker each, and runs everything that does not depend on how commands reach a worker:

* the vector API: ``reset`` (seeds and ``reset_mask`` split per group), ``step``, the
  EnvPool-style ``async_reset``/``send``/``recv`` (whole idle groups, first finished first),
  ``call``/``get_attr``/``set_attr``/``render``;
* draining what ``send`` (or an interrupted call) left in flight, so that every command's
  results are its own;
* failures: argument errors are raised (the worker keeps running); any other failure
  restarts the group within a :class:`~palaestra.vector.processes.RestartBudget`
  (``restart_failed``) or loses it; a restarted group runs the user's reset again, or has
  its episodes truncated per autoreset mode (NEXT_STEP: its next step is the autoreset
  step; SAME_STEP: ``final_obs``; DISABLED: it must be reset before stepping);
* where results land: per-row ``rewards``, ``terminations`` and ``truncations`` arrays, and
  infos placed at each group's rows (:func:`~palaestra.vector.groups.place_info`).

A subclass is the transport: how a command reaches a group's worker and how its reply comes
back (:class:`~palaestra.vector.PoolVectorEnv`: shared memory and pipes;
:class:`~palaestra.vector.ray.RayVectorEnv`: Ray calls and direct channels). It implements
the methods of the "Transport" section below and keeps :attr:`_in_flight` (the groups sent a
command whose reply was not collected yet) up to date.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from palaestra.error import ClosedEnvironmentError, ResetNeeded
from palaestra.vector._arguments import seeds_per_env, split_reset_mask, values_per_env
from palaestra.vector.episodes import disabled_step_error
from palaestra.vector.groups._batches import row_of, take_rows
from palaestra.vector.processes import (
    ErrorReport,
    RestartBudget,
    group_failure_error,
    lost_workers_error,
)
from palaestra.vector.vector_env import AutoresetMode, VectorEnv

__all__ = ["Failure", "Group", "GroupedVectorEnv", "Round", "group_bounds"]


class Group:
    """A contiguous slice of the sub-environments, run by one worker.

    Args:
        index: the group's (and its worker's) index.
        start: its first sub-env's index.
        stop: one past its last sub-env's index.

    Example:
        >>> Group(1, 2, 4).env_indices
        [2, 3]
    """

    def __init__(self, index: int, start: int, stop: int):
        self.index = index
        self.start, self.stop = start, stop
        self.rows = slice(start, stop)

    @property
    def env_indices(self) -> list[int]:
        """The indices of the group's sub-environments."""
        return list(range(self.start, self.stop))

    @property
    def size(self) -> int:
        """How many sub-environments the group holds."""
        return self.stop - self.start


def group_bounds(num_envs: int, groups: int) -> list[tuple[int, int]]:
    """Split ``num_envs`` sub-envs into ``groups`` contiguous slices as even as they come.

    Example:
        >>> group_bounds(5, 2)
        [(0, 2), (2, 5)]
    """
    bounds = np.linspace(0, num_envs, groups + 1).round().astype(int)
    return [(int(bounds[i]), int(bounds[i + 1])) for i in range(groups)]


@dataclass
class Failure:
    """A group's worker that died, hung, or raised an exception that stopped it."""

    group: Any
    what: str
    report: ErrorReport | None = None
    # For a failed restart: the error it raised, raised as is once the budget is spent.
    error: BaseException | None = None


class Round:
    """What came back from one command sent to some groups.

    Attributes:
        done: the groups that finished it.
        infos: their infos, placed at their rows.
        results: ``call`` results by group index.
        failures: groups whose worker died, hung or raised (fatally).
        argument_errors: ``(group, report)`` of argument errors.
        restarted: groups restarted in this round.
        reasons: why each restarted group was restarted, by index.
        previous: each restarted group's observations before the failure, by index.
        reset_again: restarted groups that ran the user's reset again.
    """

    __slots__ = (
        "argument_errors",
        "done",
        "failures",
        "infos",
        "previous",
        "reasons",
        "reset_again",
        "restarted",
        "results",
    )

    def __init__(self) -> None:
        self.done: list[Any] = []
        self.infos: dict[str, Any] = {}
        self.results: dict[int, Any] = {}
        self.failures: list[Failure] = []
        self.argument_errors: list[tuple[Any, ErrorReport]] = []
        self.restarted: list[Any] = []
        self.reasons: dict[int, str] = {}
        self.previous: dict[int, Any] = {}
        self.reset_again: set[int] = set()


class GroupedVectorEnv(VectorEnv[Any, Any, np.ndarray]):
    """A vector env whose sub-environments run in groups, one worker each (see the module).

    Not built directly: :class:`~palaestra.vector.PoolVectorEnv` and
    :class:`~palaestra.vector.ray.RayVectorEnv` are its transports. A subclass sets the
    spaces, :attr:`autoreset_mode` and :attr:`_groups`, calls :meth:`_init_groups`, starts
    its workers and implements the "Transport" methods.

    Example:
        >>> import palaestra as gym
        >>> envs = gym.make_vec("CartPole-v1", 4, vectorization_mode="pool",
        ...                     vector_kwargs={"num_workers": 2})
        >>> isinstance(envs, GroupedVectorEnv), [g.env_indices for g in envs._groups]
        (True, [[0, 1], [2, 3]])
        >>> envs.close()
    """

    # What a worker is called in messages, with its kind ("pool worker", "Ray actor").
    _unit = "worker"

    @property
    def _owner(self) -> str:
        """The vector env's class name, for messages."""
        return type(self).__name__

    @property
    def _short_unit(self) -> str:
        """What a worker is called in messages, without its kind."""
        return self._unit.split()[-1]

    def _count_envs(self, env_fns: Any, vector_env_fn: Any, num_envs: int | None) -> int:
        """Return the number of sub-envs: ``len(env_fns)``, or ``num_envs`` with a builder.

        Raises:
            ValueError: unless exactly one source is given, or for fewer than one sub-env.
        """
        if (env_fns is None) == (vector_env_fn is None):
            raise ValueError(
                f"{self._owner} needs exactly one of `env_fns` (one builder per sub-env) or "
                "`vector_env_fn` (a builder of n batched sub-envs, with `num_envs`)."
            )
        count = len(env_fns) if env_fns is not None else num_envs
        if count is None or int(count) < 1:
            raise ValueError(
                f"{self._owner} needs at least one sub-environment, got num_envs={count}."
            )
        return int(count)

    def _init_groups(
        self,
        groups: list[Any],
        batch_size: int | None,
        restart_failed: bool,
        max_restarts: int,
    ) -> None:
        """Set up the state machine over ``groups`` (after the spaces and autoreset mode).

        Raises:
            ValueError: for a bad ``batch_size`` or ``max_restarts``.
        """
        self._groups = groups
        self.batch_size = self._check_batch_size(batch_size)
        self.restart_failed = restart_failed
        self._budget = RestartBudget(max_restarts, self._owner)
        self.max_restarts = max_restarts
        # Groups sent a command whose reply was not collected yet (kept by the transport).
        self._in_flight: set[int] = set()
        # Indices of groups seen finished, in the order recv should return them.
        self._ready: list[int] = []
        self._last_ids: np.ndarray | None = None
        # Whether reset() or async_reset() was called: send() steps, which needs episodes.
        self._reset_once = False
        # Groups busy with a reset the user asked for: its payload, to run it again after a
        # restart (see _restart), so that their rows are their real reset.
        self._user_resets: dict[int, Callable[[Any], Any]] = {}
        # NEXT_STEP: restarted groups whose next step is the autoreset step.
        self._autoreset_next: set[int] = set()
        # Groups sent a reset by send() or async_reset(), whose step results recv clears.
        self._recv_resetting: set[int] = set()
        # Groups lost to a failure without restart: why.
        self._lost: dict[int, str] = {}
        self._track_ended()

    def _track_ended(self) -> None:
        """Follow episode ends under DISABLED (call once :attr:`autoreset_mode` is known)."""
        # DISABLED: the sub-envs whose episode ended and that were not reset since; stepping
        # them raises here, as in the sync and async vector envs, before any worker sees it.
        self._ended = (
            np.zeros(self.num_envs, dtype=np.bool_)
            if getattr(self, "autoreset_mode", None) is AutoresetMode.DISABLED
            else None
        )

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

    # Transport (implemented by the subclass) -----------------------------------------------

    # Where the groups' step results land, one row per sub-env.
    _rewards: np.ndarray
    _terminations: np.ndarray
    _truncations: np.ndarray

    def _send_step(self, groups: Sequence[Any], actions: Any, ids: np.ndarray | None) -> None:
        """Send ``groups`` their step.

        ``actions`` holds one row per id of ``ids`` (``None``: one per sub-env, in order),
        which may name more sub-envs than ``groups`` hold.

        Raises:
            ValueError: for actions of the wrong shape (nothing is sent then).
        """
        raise NotImplementedError

    def _send_command(
        self, groups: Sequence[Any], command: str, payload: Callable[[Any], Any]
    ) -> None:
        """Send ``groups`` a ``"reset"`` (payload ``(seeds, options)``) or ``"call"``.

        ``payload(group)`` is the group's data (a call's is ``(name, args, kwargs)``).
        """
        raise NotImplementedError

    def _wait(self, groups: Sequence[Any], round_: Round, enough: int | None) -> None:
        """Wait until every group (or ``enough`` sub-envs' worth) is done.

        Finished groups go to ``round_.done``; dead or hung ones to ``round_.failures``.
        """
        raise NotImplementedError

    def _collect(self, round_: Round) -> None:
        """Take the replies of ``round_.done`` (which then leave :attr:`_in_flight`).

        Step results go to the row arrays and observations, infos into ``round_.infos``
        (in row order), call results into ``round_.results``; a worker that raised goes to
        ``round_.failures`` (and leaves ``round_.done``) or ``round_.argument_errors``.
        """
        raise NotImplementedError

    def _replace(self, group: Any) -> None:
        """Replace a failed group's worker by a fresh one with freshly built sub-envs.

        Raises:
            Exception: if the new worker fails to start or build them.
        """
        raise NotImplementedError

    def _give_up(self, group: Any) -> None:
        """Stop talking to a failed group's worker for good."""
        raise NotImplementedError

    def _observation_batch(self, ids: np.ndarray | None = None, groups: Any = None) -> Any:
        """Return the observations of rows ``ids`` (of ``groups``), or of every row."""
        raise NotImplementedError

    def _previous_observations(self, group: Any) -> Any:
        """Return a copy of a group's latest observations (``None``: it has none)."""
        raise NotImplementedError

    def _restore_observations(self, group: Any, observations: Any) -> None:
        """Make ``observations`` the group's latest observations again."""
        raise NotImplementedError

    # Running commands ----------------------------------------------------------------------

    def _send(
        self,
        groups: Sequence[Any],
        command: str,
        payload: Callable[[Any], Any],
        user_reset: bool = False,
    ) -> None:
        """Send a command; ``user_reset`` marks a reset a restarted group runs again."""
        self._forget_user_resets(groups)
        if user_reset:
            for group in groups:
                self._user_resets[group.index] = payload
        self._send_command(groups, command, payload)

    def _forget_user_resets(self, groups: Sequence[Any]) -> None:
        resets = self._user_resets
        if resets:
            for group in groups:
                resets.pop(group.index, None)

    def _run(
        self,
        groups: Sequence[Any],
        command: str,
        payload: Callable[[Any], Any],
        user_reset: bool = False,
    ) -> Round:
        """Send a command to ``groups``, wait for them, restart or raise failures."""
        self._send(groups, command, payload, user_reset)
        return self._finish(groups)

    def _finish(self, groups: Sequence[Any]) -> Round:
        """Wait for ``groups``' replies and resolve them."""
        round_ = Round()
        self._wait(groups, round_, None)
        self._collect(round_)
        self._resolve(round_)
        return round_

    def _resolve(self, round_: Round) -> None:
        """Restart failed groups (or raise their failure); raise argument errors."""
        if not round_.failures and not round_.argument_errors:
            return
        if round_.failures and not self.restart_failed:
            for failure in round_.failures:
                self._lose(failure)
            # As a sync vector env would, the first sub-env's failure is raised.
            raise self._exception(min(round_.failures, key=lambda f: f.group.index))
        for failure in round_.failures:
            self._restart(failure, round_)
            round_.restarted.append(failure.group)
            round_.reasons[failure.group.index] = self._reason(failure, short=True)
        if round_.restarted:
            self._mark_restarted(round_)
        if round_.argument_errors:
            group, report = min(round_.argument_errors, key=lambda item: item[0].index)
            raise self._exception(Failure(group, "raised an exception", report))

    def _exception(self, failure: Failure, exhausted: bool = False) -> BaseException:
        """Build the exception that reports ``failure`` to the user."""
        if failure.error is not None:
            return failure.error
        group = failure.group
        return group_failure_error(
            self._owner,
            self._unit,
            group.index,
            group.env_indices,
            failure.what,
            failure.report,
            f" after {self.max_restarts} restart(s)" if exhausted else "",
        )

    def _reason(self, failure: Failure, short: bool = False) -> str:
        """Say why a worker failed: its exception with the traceback, or how it ended."""
        unit = self._short_unit
        if failure.report is None:
            return f"the {unit} {failure.what}" + ("" if short else ".")
        report = failure.report
        if short:
            return f"{report.error_type.__name__}: {report.message}"
        return (
            f"{report.error_type.__name__}: {report.message}\nThe {unit}'s traceback:\n"
            f"{report.traceback}"
        )

    def _lose(self, failure: Failure) -> None:
        self._give_up(failure.group)
        self._in_flight.discard(failure.group.index)
        self._lost[failure.group.index] = failure.what

    # Restarts ------------------------------------------------------------------------------

    def _restart(self, failure: Failure, round_: Round) -> None:
        """Replace a failed group's worker, within the restart budget; raise once it is spent.

        A replacement that fails to start, or whose reset fails, counts as one more restart.
        """
        group = failure.group
        previous = self._previous_observations(group)
        while True:
            if not self._budget.allow(group.index, group.env_indices, self._reason(failure)):
                self._lose(failure)
                raise self._exception(failure, exhausted=True)
            redo = self._user_resets.get(group.index)
            self._in_flight.discard(group.index)
            try:
                self._replace(group)
                if redo is not None:
                    # The user's reset, again: the group's rows are its real reset.
                    self._reset_restarted(group, round_, redo)
                    round_.reset_again.add(group.index)
                elif self.autoreset_mode is AutoresetMode.NEXT_STEP and previous is not None:
                    self._autoreset_next.add(group.index)
                else:
                    self._reset_restarted(group, round_)
            except Exception as error:
                what = f"failed to restart ({type(error).__name__}: {error})"
                failure = Failure(group, what, error=error)
                continue
            break
        round_.previous[group.index] = previous

    def _reset_restarted(
        self, group: Any, round_: Round, user_reset: Callable[[Any], Any] | None = None
    ) -> None:
        """Reset a restarted group: the user's reset it failed, or a fresh episode.

        Args:
            group: the restarted group.
            round_: the round it failed in, which takes the reset's infos.
            user_reset: the payload of the user's reset to run again (``None``: a reset
                without seeds, after a step's restart).

        Raises:
            Exception: the failure of the reset, for :meth:`_restart` to count.
        """
        inner = Round()
        inner.infos = round_.infos  # the reset's infos land in the round's, at the group's rows
        if user_reset is None:
            self._send([group], "reset", _fresh_reset)
        else:
            self._send([group], "reset", user_reset, user_reset=True)
        self._wait([group], inner, None)
        self._collect(inner)
        if inner.failures:
            raise self._exception(inner.failures[0])
        if inner.argument_errors:
            failed, report = inner.argument_errors[0]
            raise self._exception(Failure(failed, "raised an exception", report))

    def _mark_restarted(self, round_: Round) -> None:
        """Truncate the restarted groups' episodes; say so in the infos."""
        mask = np.zeros(self.num_envs, dtype=np.bool_)
        reasons = np.full(self.num_envs, None, dtype=object)
        for group in round_.restarted:
            mask[group.rows] = True
            reasons[group.rows] = round_.reasons.get(group.index)
        infos = round_.infos
        infos["worker_restarted"], infos["_worker_restarted"] = mask.copy(), mask.copy()
        infos["restart_reason"], infos["_restart_reason"] = reasons, mask.copy()
        self._rewards[mask] = 0.0
        self._terminations[mask] = False
        # A group that ran its reset again starts its episodes there: nothing is cut.
        for index in round_.reset_again:
            mask[self._groups[index].rows] = False
        cut = [g for g in round_.restarted if g.index not in round_.reset_again]
        self._truncations[mask] = True
        if not cut:
            return
        if self.autoreset_mode is AutoresetMode.SAME_STEP:
            final = np.full(self.num_envs, None, dtype=object)
            for group in cut:
                batch = round_.previous.get(group.index)
                if batch is None:
                    continue
                for offset in range(group.size):
                    final[group.start + offset] = row_of(
                        self.single_observation_space, batch, offset, group.size
                    )
            infos["final_obs"], infos["_final_obs"] = final, mask.copy()
            infos.setdefault("final_info", {})
            infos["_final_info"] = mask.copy()
        else:
            # The cut episode ends on its last observation, as every truncation does.
            for group in cut:
                batch = round_.previous.get(group.index)
                if batch is not None:
                    self._restore_observations(group, batch)

    # The vector API ------------------------------------------------------------------------

    def _assert_usable(self) -> None:
        """Raise if closed or a worker is lost.

        Raises:
            ClosedEnvironmentError: after ``close()``.
            palaestra.error.WorkerError: if a worker is lost.
        """
        if self.closed:
            raise ClosedEnvironmentError(
                f"Trying to operate on `{type(self).__name__}`, after a call to `close()`."
            )
        if self._lost:
            raise lost_workers_error(
                self._owner,
                self._short_unit,
                self._lost,
                [group.env_indices for group in self._groups],
            )

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
        groups = [g for g in self._groups if mask is None or mask[g.rows].any()]

        def arguments(group: Any) -> tuple:
            group_options = options
            if mask is not None and not mask[group.rows].all():
                group_options = {**(options or {}), "reset_mask": mask[group.rows]}
            return seeds[group.start : group.stop], group_options

        round_ = self._run(groups, "reset", arguments, user_reset=True)
        self._reset_once = True
        for group in groups:
            self._autoreset_next.discard(group.index)
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
        groups = self._groups
        if self._autoreset_next:
            resetting = self._dispatch_step(groups, actions, None)
            round_ = self._finish(groups)
            self._clear_autoreset_rows(resetting, round_)
        else:
            self._forget_user_resets(groups)
            self._send_step(groups, actions, None)
            round_ = self._finish(groups)
        terminations, truncations = self._terminations.copy(), self._truncations.copy()
        if self._ended is not None:
            np.logical_or(terminations, truncations, out=self._ended)
        return (
            self._observation_batch(),
            self._rewards.copy(),
            terminations,
            truncations,
            round_.infos,
        )

    def _dispatch_step(
        self, groups: Sequence[Any], actions: Any, ids: np.ndarray | None
    ) -> list[Any]:
        """Send ``groups`` their step, or their autoreset step after a restart (NEXT_STEP).

        Returns:
            The groups sent the autoreset step (a reset) instead.
        """
        resetting = [g for g in groups if g.index in self._autoreset_next]
        stepping = [g for g in groups if g.index not in self._autoreset_next]
        self._forget_user_resets(groups)
        if stepping:
            self._send_step(stepping, actions, ids)
        if resetting:
            self._send(resetting, "reset", _fresh_reset)
        return resetting

    def _clear_autoreset_rows(self, resetting: Sequence[Any], round_: Round) -> None:
        """Give the autoreset step's rows reward 0 and flags False (unless restarted again)."""
        for group in resetting:
            if group in round_.restarted:
                continue
            self._autoreset_next.discard(group.index)
            self._clear_rows(group)

    def _clear_rows(self, group: Any) -> None:
        self._rewards[group.rows] = 0.0
        self._terminations[group.rows] = False
        self._truncations[group.rows] = False

    # EnvPool-style asynchronous stepping -----------------------------------------------------

    def async_reset(self, seed: int | Sequence[int | None] | None = None) -> None:
        """Start resetting every sub-environment; collect the first batch with :meth:`recv`.

        Raises:
            ClosedEnvironmentError: after :meth:`close`.
        """
        self._assert_usable()
        self._drain()
        seeds = seeds_per_env(seed, self.num_envs)
        self._send(self._groups, "reset", lambda g: (seeds[g.start : g.stop], None), True)
        self._reset_once = True
        self._autoreset_next.clear()
        self._recv_resetting = {g.index for g in self._groups}
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
        if not self._reset_once:
            # send steps its sub-environments, which have no episode yet: a sub-env would
            # raise (or step garbage) only after the command left.
            raise ResetNeeded(
                f"{self._owner}.send() before any reset: call reset() or async_reset() "
                "first. Nothing was sent; the vector env is unchanged."
            )
        ids = self._checked_ids(self._last_ids if env_ids is None else env_ids)
        if self._ended is not None and self._ended[ids].any():
            raise disabled_step_error(ids[self._ended[ids]])
        resetting = self._dispatch_step(self._groups_of(ids), actions, ids)
        self._recv_resetting |= {g.index for g in resetting}

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

    def _groups_of(self, ids: np.ndarray) -> list[Any]:
        groups = [g for g in self._groups if np.isin(g.env_indices, ids).any()]
        for group in groups:
            if not np.isin(group.env_indices, ids).all() or group.index in self._in_flight:
                raise ValueError(
                    f"send() must address whole idle worker groups; sub-environments "
                    f"{group.env_indices} form one group and are "
                    f"{'busy' if group.index in self._in_flight else 'only partly addressed'}."
                )
        return groups

    def recv(self) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Return the first ``batch_size`` sub-environments to finish their command.

        Returns:
            ``(observations, rewards, terminations, truncations, infos)`` for those
            sub-environments, ordered by index, with ``info["env_id"]`` naming them.

        Raises:
            ClosedEnvironmentError: after :meth:`close`.
            RuntimeError: if nothing is in flight.
            palaestra.error.WorkerError: if a worker dies or hangs (without
                ``restart_failed``).
        """
        self._assert_usable()
        if not self._in_flight:
            raise RuntimeError("recv() needs sub-environments in flight: call send() first.")
        # Groups found done by an earlier recv but left out of its batch go first.
        waiting = [i for i in self._ready if i in self._in_flight]
        waiting += [i for i in sorted(self._in_flight) if i not in waiting]
        flying = [self._groups[i] for i in waiting]
        enough = min(self.batch_size, sum(g.size for g in flying))
        round_ = Round()
        self._wait(flying, round_, enough)
        finished = list(round_.done)
        round_.done = _first_batch(finished, enough - sum(f.group.size for f in round_.failures))
        self._ready = [g.index for g in finished if g not in round_.done]
        self._collect(round_)
        self._resolve(round_)
        done = sorted(round_.done + round_.restarted, key=lambda g: g.index)
        resetting = self._recv_resetting
        for group in done:
            if group.index in resetting:
                resetting.discard(group.index)
                if group not in round_.restarted:
                    self._autoreset_next.discard(group.index)
                    self._clear_rows(group)
        ids = np.concatenate([np.arange(g.start, g.stop) for g in done])
        self._last_ids = ids
        if self._ended is not None:
            self._ended[ids] = self._terminations[ids] | self._truncations[ids]
        infos = {key: take_rows(value, ids) for key, value in round_.infos.items()}
        infos["env_id"] = ids
        return (
            self._observation_batch(ids, done),
            self._rewards[ids],
            self._terminations[ids],
            self._truncations[ids],
            infos,
        )

    def _drain(self) -> None:
        """Finish the commands still in flight (from ``send`` or an interrupted call).

        Their results are dropped, so that the next command's results are its own.
        """
        if not self._in_flight:
            return
        flying = [self._groups[i] for i in sorted(self._in_flight)]
        round_ = Round()
        self._wait(flying, round_, None)
        self._collect(round_)
        round_.argument_errors = []
        self._resolve(round_)
        self._in_flight.clear()
        for group in flying:
            if group.index in self._recv_resetting:
                self._recv_resetting.discard(group.index)
                self._autoreset_next.discard(group.index)

    # Attributes ------------------------------------------------------------------------------

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

        def arguments(_: Any) -> tuple:
            return name, args, kwargs

        round_ = self._run(self._groups, "call", arguments)
        if round_.restarted:
            # A restarted worker lost the call with its process: ask its replacement.
            retry = self._run(round_.restarted, "call", arguments)
            round_.results.update(retry.results)
        return tuple(result for g in self._groups for result in round_.results[g.index])

    def set_attr(self, name: str, values: Any) -> None:
        """Set attribute ``name`` of the sub-environments (one value each, or one for all).

        Raises:
            ClosedEnvironmentError: after :meth:`close`.
            ValueError: if a list/tuple's length is not :attr:`num_envs`, or differing values
                are given to one natively batched group that cannot hold them.
        """
        self._assert_usable()
        values = values_per_env(values, self.num_envs)
        self._drain()

        def arguments(group: Any) -> tuple:
            return "_setattr", (name, list(values[group.start : group.stop])), {}

        round_ = self._run(self._groups, "call", arguments)
        if round_.restarted:
            self._run(round_.restarted, "call", arguments)

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """Return attribute ``name`` of every sub-environment."""
        return self.call(name)

    def render(self) -> tuple[Any, ...] | None:
        """Return the frame of every sub-environment."""
        frames = self.call("render")
        return None if all(frame is None for frame in frames) else frames


def _fresh_reset(group: Any) -> tuple:
    """Return the reset payload of a fresh episode for every sub-env of ``group`` (no seeds)."""
    return [None] * group.size, None


def _first_batch(done: list[Any], enough: int) -> list[Any]:
    batch, count = [], 0
    for group in done:
        if count >= enough:
            break
        batch.append(group)
        count += group.size
    return batch
