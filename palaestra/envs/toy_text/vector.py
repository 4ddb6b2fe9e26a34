"""Natively batched toy-text environments, registered as their ids' vector entry points.

Each holds all sub-environments' states in one integer array and steps them with one lookup
in the single environment's own transition table (:class:`~palaestra.envs.toy_text.utils.
TransitionArrays`, built from ``P``) or, for Blackjack, with the single environment's rule
functions on arrays. Each sub-environment draws from its own PCG64 stream exactly as the
single environment draws from ``np_random``, so the observations, rewards, flags and infos
equal ``make_vec(id, n, vectorization_mode="sync")``'s for the same seeds and actions, in all
three autoreset modes.

Example:
    >>> import palaestra as gym
    >>> envs = gym.make_vec("FrozenLake-v1", num_envs=3)
    >>> type(envs).__name__
    'FrozenLakeVectorEnv'
    >>> envs.reset(seed=0)
    (array([0, 0, 0]), {'prob': array([1, 1, 1]), '_prob': array([ True,  True,  True])})
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

import numpy as np

from palaestra.envs.toy_text._discrete import DiscreteToyTextEnv
from palaestra.envs.toy_text._streams import BufferedIntegerStreams, TableRows, TableStreams
from palaestra.envs.toy_text.blackjack import DEALER_STANDS_AT, BlackjackEnv, hand_total, settle
from palaestra.envs.toy_text.cliffwalking import CliffWalkingEnv
from palaestra.envs.toy_text.frozen_lake import FrozenLakeEnv
from palaestra.envs.toy_text.taxi import TaxiEnv
from palaestra.vector._arguments import split_reset_mask
from palaestra.vector.native.base import NativeVectorEnv, Transition
from palaestra.vector.vector_env import AutoresetMode

__all__ = [
    "FrozenLakeVectorEnv",
    "CliffWalkingVectorEnv",
    "TaxiVectorEnv",
    "BlackjackVectorEnv",
    "ToyTextVectorEnv",
]

_DECK_LIST = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
_DECK = np.array(_DECK_LIST, dtype=np.int64)


class ToyTextVectorEnv(NativeVectorEnv):
    """What the batched toy-text environments share: integer states, toy-text streams, infos.

    Args:
        num_envs: the number of sub-environments.
        max_episode_steps: truncate episodes after this many steps (``make_vec`` passes the
            spec's).
        render_mode: ``None`` or ``"rgb_array"`` (one frame per sub-env).
        autoreset_mode: an :class:`~palaestra.vector.AutoresetMode` or its value string.
        accelerator: accepted for the native base; the toy-text envs run on numpy.
        env_kwargs: keyword arguments of the single environment (e.g. ``is_slippery``).
    """

    state_dtype = np.int64
    # A step draws only for the rows it really steps (see live_rows), so the base may step
    # every row and reset the ended ones afterwards.
    steps_draw_randomness = False

    def __init__(
        self,
        num_envs: int = 1,
        max_episode_steps: int | None = None,
        render_mode: str | None = None,
        *,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        accelerator: str | None = None,
        **env_kwargs: Any,
    ):
        super().__init__(
            num_envs, max_episode_steps, render_mode, autoreset_mode, "numpy", **env_kwargs
        )
        self.metadata["render_fps"] = self.single_env.metadata["render_fps"]
        self.env_kwargs = env_kwargs
        self.generators = TableStreams(self.num_envs)  # type: ignore[assignment]
        self._every_row = self.generators.rows()  # type: ignore[assignment]
        self._painter: Any = None

    def live_rows(self) -> np.ndarray | None:
        """Return the rows a step really steps: all (``None``) but those autoreset instead.

        Under NEXT_STEP autoreset, rows that ended on the previous step are reset by this
        step instead; their results are discarded, so they must draw nothing.
        """
        if len(self._ended_rows):
            return np.flatnonzero(~self._ended)
        return None

    # Infos ---------------------------------------------------------------------------------

    def step_infos(self, rows: np.ndarray, observations: np.ndarray) -> dict[str, Any]:
        """Return the single env's ``step`` infos for ``rows``, batched over them."""
        return {}

    def reset_infos(self, rows: np.ndarray, observations: np.ndarray) -> dict[str, Any]:
        """Return the single env's ``reset`` infos for ``rows``, batched over them."""
        return {}

    def _merge_infos(self, parts: list[tuple[np.ndarray, dict[str, Any]]]) -> dict[str, Any]:
        """Batch per-row infos as a sync vector env does: each key's array typed as sub-env 0's.

        ``parts`` pairs row indices with the infos of those rows (values batched over them).
        """
        if len(parts) == 1 and len(parts[0][0]) == self.num_envs:
            # Every row in one part (most steps): the batches are the part's own arrays.
            batched: dict[str, Any] = {}
            for key, values in parts[0][1].items():
                batched[key], batched[f"_{key}"] = values, np.ones(self.num_envs, dtype=np.bool_)
            return batched
        merged: dict[str, Any] = {}
        first = {
            key: value
            for rows, infos in parts
            if len(rows) and rows[0] == 0
            for key, value in infos.items()
        }
        for rows, infos in parts:
            for key, values in infos.items():
                if key not in merged:
                    sample = first.get(key, values)
                    dtype = sample.dtype if isinstance(sample, np.ndarray) else type(sample)
                    shape = np.shape(values)[1:] if np.ndim(values) > 1 else ()
                    merged[key] = np.zeros((self.num_envs, *shape), dtype=dtype)
                    merged[f"_{key}"] = np.zeros(self.num_envs, dtype=np.bool_)
                merged[key][rows] = values
                merged[f"_{key}"][rows] = True
        return merged

    def _overlay_infos(
        self, stepped: dict[str, Any], reset: dict[str, Any], rows: np.ndarray, first_reset: bool
    ) -> dict[str, Any]:
        """Batch every row's step infos, with ``rows`` (being reset) holding reset infos.

        As a sync vector env, each key's array has the type of sub-env 0's value: its reset
        info's if ``first_reset``.
        """
        merged: dict[str, Any] = {}
        for key, values in stepped.items():
            replacement = reset[key]
            batch = values.astype(replacement.dtype if first_reset else values.dtype)
            batch[rows] = replacement
            merged[key], merged[f"_{key}"] = batch, np.ones(self.num_envs, dtype=np.bool_)
        return merged

    # The vector API ------------------------------------------------------------------------

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[Any, dict[str, Any]]:
        """Reset every sub-environment, or those in ``options["reset_mask"]``.

        Returns:
            The batched observations and the batched reset infos of the reset sub-envs.

        Raises:
            ValueError: for a seed list of the wrong length or a bad ``reset_mask``.
            TypeError: for a ``reset_mask`` that is not a boolean numpy array.
        """
        mask, _ = split_reset_mask(options, self.num_envs)
        observations, _ = super().reset(seed=seed, options=options)
        rows = np.arange(self.num_envs) if mask is None else np.flatnonzero(mask)
        return self._public(observations), self._merge_infos(
            [(rows, self.reset_infos(rows, observations[rows]))]
        )

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every sub-environment, autoresetting as :attr:`autoreset_mode` says.

        Returns:
            Batched ``(observations, rewards, terminations, truncations, infos)`` with the
            single env's infos batched as a sync vector env batches them.

        Raises:
            palaestra.error.ResetNeeded: before the first ``reset``.
            palaestra.error.ClosedEnvironmentError: after :meth:`close`.
            ValueError: for actions of the wrong shape or outside the action space.
            RuntimeError: with ``autoreset_mode=DISABLED``, stepping an ended sub-env.
        """
        stepping_ended = len(self._ended_rows) and self.autoreset_mode is AutoresetMode.DISABLED
        if self.one_by_one and self.state is not None and not stepping_ended and not self.closed:
            return self._step_one_by_one(self._checked_actions(actions))
        restarting = self._ended_rows.copy()
        restarting_mask = self._ended.copy() if len(restarting) else None
        observations, rewards, terminations, truncations, infos = super().step(actions)
        stepped = self._every_row.indices
        if self.autoreset_mode is AutoresetMode.SAME_STEP and "final_obs" in infos:
            ended = np.flatnonzero(infos["_final_obs"])
            finals = np.stack([infos["final_obs"][row] for row in ended])
            for row, final in zip(ended, finals, strict=True):
                infos["final_obs"][row] = self._public_row(final)
            kept = np.setdiff1d(stepped, ended)
            infos["final_info"] = self._merge_infos([(ended, self.step_infos(ended, finals))])
            parts = [
                (kept, self.step_infos(kept, observations[kept])),
                (ended, self.reset_infos(ended, observations[ended])),
            ]
            parts.sort(key=lambda part: 0 if len(part[0]) and part[0][0] == 0 else 1)
            infos.update(self._merge_infos(parts))
        elif restarting_mask is not None and self.autoreset_mode is AutoresetMode.NEXT_STEP:
            infos = self._overlay_infos(
                self.step_infos(stepped, observations),
                self.reset_infos(restarting, observations[restarting]),
                restarting,
                bool(restarting_mask[0]),
            )
        else:
            infos = self._merge_infos([(stepped, self.step_infos(stepped, observations[stepped]))])
        return self._public(observations), rewards, terminations, truncations, infos

    def _public(self, observations: np.ndarray) -> Any:
        """Return the observations as the batched observation space holds them."""
        return observations

    # Small batches: one sub-env at a time -------------------------------------------------

    @property
    def one_by_one(self) -> bool:
        """Whether steps go sub-env by sub-env on Python values (small batches)."""
        return not self.generators.use_arrays  # type: ignore[attr-defined]

    def row_reset(self, row: int) -> tuple[Any, dict[str, Any]]:
        """Draw sub-env ``row``'s initial state: ``(state, reset info)`` (one by one)."""
        raise NotImplementedError

    def row_step(self, row: int, state: Any, action: int) -> tuple[Any, float, bool, dict]:
        """Step sub-env ``row``: ``(next state, reward, terminated, info)`` (one by one)."""
        raise NotImplementedError

    def row_observation(self, state: Any) -> Any:
        """Return the single env's observation of one state (one by one): a Python int."""
        return int(state)

    def _batch_infos(self, infos: list[dict[str, Any] | None]) -> dict[str, Any]:
        """Batch per-row infos (``None``: the row supplied none) as a sync vector env does."""
        batched: dict[str, Any] = {}
        present = [index for index, info in enumerate(infos) if info]
        if not present:
            return batched
        if len(present) == self.num_envs:
            # Every row supplied the same keys (a step's usual case): one array per key.
            for key, first in infos[0].items():  # type: ignore[union-attr]
                dtype = first.dtype if isinstance(first, np.ndarray) else type(first)
                batched[key] = np.array([info[key] for info in infos], dtype=dtype)  # type: ignore[index]
                batched[f"_{key}"] = np.ones(self.num_envs, dtype=np.bool_)
            return batched
        for key, first in infos[present[0]].items():  # type: ignore[union-attr]
            if isinstance(first, np.ndarray):
                values = np.zeros((self.num_envs, *first.shape), dtype=first.dtype)
            else:
                values = np.zeros(self.num_envs, dtype=type(first))
            mask = np.zeros(self.num_envs, dtype=np.bool_)
            for index in present:
                values[index] = infos[index][key]  # type: ignore[index]
                mask[index] = True
            batched[key], batched[f"_{key}"] = values, mask
        return batched

    def _step_one_by_one(self, actions: np.ndarray) -> Any:
        """Step sub-env by sub-env, with the base's time-limit and autoreset rules."""
        mode = self.autoreset_mode
        limit = self.max_episode_steps
        states = self._row_states
        elapsed = self.elapsed_steps.tolist()
        ended_before = self._ended.tolist()
        row_step, row_reset = self.row_step, self.row_reset
        same_step = mode is AutoresetMode.SAME_STEP
        rewards = [0.0] * self.num_envs
        terminations = [False] * self.num_envs
        truncations = [False] * self.num_envs
        infos: list[dict[str, Any] | None] = [None] * self.num_envs
        finals: dict[int, tuple[Any, dict[str, Any]]] = {}
        for row, action in enumerate(actions.tolist()):
            if ended_before[row]:  # NEXT_STEP: reset instead of stepping
                states[row], infos[row] = row_reset(row)
                elapsed[row] = 0
                continue
            states[row], rewards[row], terminations[row], infos[row] = row_step(
                row, states[row], action
            )
            elapsed[row] += 1
            truncations[row] = limit is not None and elapsed[row] >= limit
            if same_step and (terminations[row] or truncations[row]):
                finals[row] = (self.row_observation(states[row]), infos[row])  # type: ignore[assignment]
                states[row], infos[row] = row_reset(row)
                elapsed[row] = 0
        self.elapsed_steps = np.array(elapsed, dtype=np.int64)
        terminated = np.array(terminations, dtype=np.bool_)
        truncated = np.array(truncations, dtype=np.bool_)
        ended = np.zeros(self.num_envs, dtype=np.bool_) if finals else terminated | truncated
        self._ended, self._ended_rows = ended, ended.nonzero()[0]
        self.state = self._pack_states(states)
        observations = self._observations_of(states)
        self._observations = observations
        batched = self._batch_infos(infos)
        if finals:
            final_obs = np.full(self.num_envs, None, dtype=object)
            final_mask = np.zeros(self.num_envs, dtype=np.bool_)
            for row, (observation, _) in finals.items():
                final_obs[row], final_mask[row] = observation, True
            final_infos = [
                finals[row][1] if row in finals else None for row in range(self.num_envs)
            ]
            batched.update(
                {
                    "final_obs": final_obs,
                    "_final_obs": final_mask,
                    "final_info": self._batch_infos(final_infos),
                    "_final_info": final_mask.copy(),
                }
            )
        rewards_array = np.array(rewards, dtype=np.float64)
        return self._public(observations), rewards_array, terminated, truncated, batched

    @property
    def _row_states(self) -> list[Any]:
        return self.state.tolist()  # type: ignore[union-attr]

    def _pack_states(self, states: list[Any]) -> np.ndarray:
        return np.array(states, dtype=np.int64)

    def _observations_of(self, states: list[Any]) -> np.ndarray:
        """Return the batched observations of the row states (finite MDPs: the states)."""
        return self.state.copy()  # type: ignore[union-attr]

    def _pack_observations(self, observations: list[Any]) -> np.ndarray:
        return np.array(observations, dtype=np.int64)

    def _public_row(self, observation: np.ndarray) -> Any:
        """One sub-env's observation as the single env returns it."""
        return int(observation)

    def render_sub_env(self, index: int) -> np.ndarray:
        """Draw sub-environment ``index`` as the single environment draws it.

        Raises:
            palaestra.error.DependencyNotInstalled: if pygame is not installed.
        """
        if self._painter is None:
            self._painter = self.single_env_class(render_mode="rgb_array", **self.env_kwargs)
        self.show_state(self._painter, index)
        return self._painter.render()

    def show_state(self, env: Any, index: int) -> None:
        """Put sub-environment ``index``'s state into the single env ``env``."""
        env.s = int(self.state[index])  # type: ignore[index]

    def close_extras(self, **kwargs: Any) -> None:
        """Close the drawing env, if one was made."""
        if self._painter is not None:
            self._painter.close()
            self._painter = None


class _TableVectorEnv(ToyTextVectorEnv):
    """A batched finite MDP whose single env is a :class:`DiscreteToyTextEnv`."""

    single_env: DiscreteToyTextEnv

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.arrays = a = self.single_env.transition_arrays
        self.initial_cumulative = self.single_env.initial_cumulative
        num_states, self._num_actions, self._width = a.cumulative.shape
        # Flat views: one ``take`` per lookup is cheaper than indexing with index tuples.
        self._flat_cumulative = a.cumulative.reshape(num_states * self._num_actions, self._width)
        self._flat = tuple(
            table.ravel() for table in (a.probability, a.next_state, a.reward, a.terminated)
        )
        self._probabilities = np.zeros(self.num_envs)
        self._initial_list = self.initial_cumulative.tolist()
        self._table = self.single_env.P
        # Per state and action, the cumulative probabilities of its real outcomes.
        self._cumulative_lists = [
            [[bound for bound in outcomes if bound != -np.inf] for outcomes in actions]
            for actions in a.cumulative.tolist()
        ]

    def invalid_actions(self, actions: np.ndarray) -> KeyError:  # type: ignore[override]
        """Return the error for actions outside the space: ``KeyError``.

        The single env's transition-table lookup (and so a sync vector env) raises it.

        Example:
            >>> from palaestra.envs.toy_text.vector import FrozenLakeVectorEnv
            >>> type(FrozenLakeVectorEnv(2).invalid_actions(np.array([0, 9]))).__name__
            'KeyError'
        """
        return KeyError(str(super().invalid_actions(actions)))

    def draw_initial_states(self, rows: TableRows, count: int, options: dict | None) -> np.ndarray:  # type: ignore[override]
        """Draw each row's initial state from the initial distribution (one double each)."""
        cumulative = self.initial_cumulative
        if not self.generators.use_arrays:  # type: ignore[attr-defined]
            # One by one from each Generator (small batches), bisecting the same cumulative.
            randoms, bounds = self.generators.randoms, self._initial_list  # type: ignore[attr-defined]
            last = len(cumulative)
            picks = [bisect_right(bounds, randoms[row]()) for row in rows.indices.tolist()]
            return np.array([0 if pick == last else pick for pick in picks], dtype=np.int64)
        states = np.searchsorted(cumulative, rows.random(), side="right")
        # categorical_sample picks index 0 when no cumulative probability exceeds the draw.
        states[states == len(cumulative)] = 0
        return states

    def observe(self, states: np.ndarray) -> np.ndarray:
        """Return the states (the observations of a finite MDP)."""
        return states.copy()

    def advance(
        self, states: np.ndarray, actions: np.ndarray, rows: TableRows, fresh: np.ndarray
    ) -> Transition:  # type: ignore[override]
        """Sample every row's outcome from the table with one double per live row."""
        live = self.live_rows()
        if not self.generators.use_arrays:  # type: ignore[attr-defined]
            return self._advance_one_by_one(states, actions, rows, live)
        streams = self.generators
        if live is None:
            draws = streams.doubles(rows.indices)  # type: ignore[attr-defined]
        else:
            draws = np.zeros(len(states))
            draws[live] = streams.doubles(rows.indices[live])  # type: ignore[attr-defined]
        chosen = states * self._num_actions + actions
        if self._width > 1:
            cumulative = self._flat_cumulative.take(chosen, axis=0)
            chosen = chosen * self._width + np.argmax(cumulative > draws[:, None], axis=1)
        else:
            chosen = chosen * self._width
        probability, next_state, reward, terminated = self._flat
        self._probabilities = probability.take(chosen)
        return next_state.take(chosen), reward.take(chosen), terminated.take(chosen)

    def _advance_one_by_one(
        self, states: np.ndarray, actions: np.ndarray, rows: TableRows, live: np.ndarray | None
    ) -> Transition:
        """Step row by row through the single env's own table ``P`` (small batches).

        The outcome is the first whose cumulative probability exceeds the draw (bisected in
        the cumulative sums :class:`TransitionArrays` holds), as ``categorical_sample`` picks.
        """
        table, bounds = self.single_env.P, self._cumulative_lists
        randoms = self.generators.randoms  # type: ignore[attr-defined]
        skipped = () if live is None else set(range(len(states))) - set(live.tolist())
        picked = []
        for index, (state, action, row) in enumerate(
            zip(states.tolist(), actions.tolist(), rows.indices.tolist(), strict=True)
        ):
            if index in skipped:
                picked.append((0.0, state, 0.0, False))
                continue
            cumulative = bounds[state][action]
            choice = bisect_right(cumulative, randoms[row]())
            picked.append(table[state][action][0 if choice == len(cumulative) else choice])
        probabilities, following, rewards, terminations = zip(*picked, strict=True)
        self._probabilities = np.array(probabilities, dtype=np.float64)
        return (
            np.array(following, dtype=np.int64),
            np.array(rewards, dtype=np.float64),
            np.array(terminations, dtype=np.bool_),
        )

    def row_reset(self, row: int) -> tuple[Any, dict[str, Any]]:
        """Draw one initial state by bisecting the initial distribution's cumulative sums."""
        pick = bisect_right(self._initial_list, self.generators.randoms[row]())  # type: ignore[attr-defined]
        state = 0 if pick == len(self._initial_list) else pick
        return state, {"prob": self.single_env.reset_probability}

    def row_step(self, row: int, state: Any, action: int) -> tuple[Any, float, bool, dict]:
        """Pick the outcome of ``action`` in ``state`` from the single env's ``P``."""
        cumulative = self._cumulative_lists[state][action]
        choice = bisect_right(cumulative, self.generators.randoms[row]())  # type: ignore[attr-defined]
        p, following, reward, terminated = self._table[state][action][
            0 if choice == len(cumulative) else choice
        ]
        return following, reward, terminated, {"prob": p}

    def step_infos(self, rows: np.ndarray, observations: np.ndarray) -> dict[str, Any]:
        """``{"prob": the probability of each row's outcome}``."""
        if len(rows) == self.num_envs:
            return {"prob": self._probabilities}
        return {"prob": self._probabilities[rows]}

    def reset_infos(self, rows: np.ndarray, observations: np.ndarray) -> dict[str, Any]:
        """``{"prob": 1}`` per row, typed as the single env's."""
        probability = self.single_env.reset_probability
        return {"prob": np.full(len(rows), probability, dtype=type(probability))}


class FrozenLakeVectorEnv(_TableVectorEnv):
    """``num_envs`` frozen lakes stepped as one batch; see :class:`FrozenLakeEnv`.

    Takes :class:`NativeVectorEnv`'s arguments and :class:`FrozenLakeEnv`'s (``desc``,
    ``map_name``, ``is_slippery``, ``success_rate``, ``reward_schedule``).

    Example:
        >>> envs = FrozenLakeVectorEnv(num_envs=2, is_slippery=False, max_episode_steps=100)
        >>> _ = envs.reset(seed=0)
        >>> envs.step(np.array([2, 1]))[:3]
        (array([1, 4]), array([0., 0.]), array([False, False]))
    """

    single_env_class = FrozenLakeEnv

    def show_state(self, env: Any, index: int) -> None:
        """Put sub-environment ``index``'s state into the single env ``env``."""
        env.s = int(self.state[index])  # type: ignore[index]


class CliffWalkingVectorEnv(_TableVectorEnv):
    """``num_envs`` cliff walks stepped as one batch; see :class:`CliffWalkingEnv`.

    Example:
        >>> envs = CliffWalkingVectorEnv(num_envs=2)
        >>> _ = envs.reset(seed=0)
        >>> envs.step(np.array([0, 1]))[:2]
        (array([24, 36]), array([  -1., -100.]))
    """

    single_env_class = CliffWalkingEnv


class TaxiVectorEnv(_TableVectorEnv):
    """``num_envs`` taxis stepped as one batch; see :class:`TaxiEnv` (rainy and fickle too).

    Infos carry ``prob`` and ``action_mask`` (looked up in a table of every state's mask).

    Example:
        >>> envs = TaxiVectorEnv(num_envs=2, max_episode_steps=200)
        >>> observations, infos = envs.reset(seed=0)
        >>> observations, infos["action_mask"].shape
        (array([314, 252]), (2, 6))
    """

    single_env_class = TaxiEnv

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        env = self.single_env
        self.masks = np.stack([env.action_mask(state) for state in range(500)])
        self.fickle_passenger = env.fickle_passenger
        self.fickle_probability = env.fickle_probability
        self.fickle = np.zeros(self.num_envs, dtype=np.bool_)

    def draw_initial_states(self, rows: TableRows, count: int, options: dict | None) -> np.ndarray:  # type: ignore[override]
        """Draw initial states, then (fickle passenger) whether each episode is fickle."""
        states = super().draw_initial_states(rows, count, options)
        if self.fickle_passenger:
            self.fickle[rows.indices] = rows.random() < self.fickle_probability
        return states

    def advance(
        self, states: np.ndarray, actions: np.ndarray, rows: TableRows, fresh: np.ndarray
    ) -> Transition:  # type: ignore[override]
        """Step as the table says; a fickle passenger may then pick a new destination."""
        following, rewards, terminations = super().advance(states, actions, rows, fresh)
        if self.fickle_passenger:
            indices = rows.indices
            # states: ((row * 5 + col) * 5 + passenger) * 4 + destination
            riding = (states // 4) % 5 == 4
            moved = following // 20 != states // 20
            fickle = self.fickle[indices] & riding & moved
            live = self.live_rows()
            if live is not None:
                alive = np.zeros(len(states), dtype=np.bool_)
                alive[live] = True
                fickle &= alive
            changing = np.flatnonzero(fickle)
            if len(changing):
                self.fickle[indices[changing]] = False
                old = states[changing] % 4
                pick = rows.streams.bounded(indices[changing], 3)
                destination = pick + (pick >= old)
                following = following.copy()
                following[changing] = following[changing] - following[changing] % 4 + destination
        return following, rewards, terminations

    def row_reset(self, row: int) -> tuple[Any, dict[str, Any]]:
        """Draw one initial state, then whether its passenger is fickle."""
        state, _ = super().row_reset(row)
        if self.fickle_passenger:
            self.fickle[row] = self.generators.randoms[row]() < self.fickle_probability  # type: ignore[attr-defined]
        return state, {"prob": 1.0, "action_mask": self.masks[state]}

    def row_step(self, row: int, state: Any, action: int) -> tuple[Any, float, bool, dict]:
        """Step through ``P``; a fickle passenger may then pick a new destination."""
        following, reward, terminated, info = super().row_step(row, state, action)
        if self.fickle[row] and (state // 4) % 5 == 4 and following // 20 != state // 20:
            self.fickle[row] = False
            old = state % 4
            pick = self.generators.bounded_one(row, 3)  # type: ignore[attr-defined]
            following = following - following % 4 + pick + (pick >= old)
        info["action_mask"] = self.masks[following]
        return following, reward, terminated, info

    def step_infos(self, rows: np.ndarray, observations: np.ndarray) -> dict[str, Any]:
        """``{"prob": ..., "action_mask": ...}`` of each row's outcome."""
        return {**super().step_infos(rows, observations), "action_mask": self.masks[observations]}

    def reset_infos(self, rows: np.ndarray, observations: np.ndarray) -> dict[str, Any]:
        """``{"prob": 1.0, "action_mask": ...}`` per row."""
        return {"prob": np.ones(len(rows)), "action_mask": self.masks[observations]}

    def show_state(self, env: Any, index: int) -> None:
        """Put sub-environment ``index``'s state into the single env ``env``."""
        env.s = int(self.state[index])  # type: ignore[index]


# Blackjack state columns.
_P_RAW, _P_ACE, _P_CARDS, _D_RAW, _D_ACE, _D_CARDS, _D_FACE, _SUIT, _RANK = range(9)


class BlackjackVectorEnv(ToyTextVectorEnv):
    """``num_envs`` Blackjack tables played as one batch; see :class:`BlackjackEnv`.

    A hand is kept as its raw total (aces as 1), whether it holds an ace and its card count,
    which is all :func:`~palaestra.envs.toy_text.blackjack.hand_total` and the natural rule
    need. Observations are a tuple of three int64 arrays, as the batched ``Tuple`` space is.

    Example:
        >>> envs = BlackjackVectorEnv(num_envs=2, sab=True)
        >>> envs.reset(seed=3)[0]
        (array([ 7, 17]), array([10, 10]), array([0, 0]))
    """

    single_env_class = BlackjackEnv

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.natural = self.single_env.natural
        self.sab = self.single_env.sab
        if self.generators.use_arrays:  # type: ignore[attr-defined]
            # Only cards are drawn: 32-bit values made ahead in bulk, one gather per draw.
            self.generators = BufferedIntegerStreams(self.num_envs)  # type: ignore[assignment]
            self._every_row = self.generators.rows()  # type: ignore[assignment]

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:  # noqa: D102
        if self.state is None:
            self.state = np.zeros((self.num_envs, 9), dtype=np.int64, order="F")
            self._observations = np.zeros((self.num_envs, 3), dtype=np.int64)
        return super().reset(seed=seed, options=options)

    def _cards(self, rows: np.ndarray) -> np.ndarray:
        return _DECK[self.generators.bounded(rows, 13)]  # type: ignore[attr-defined]

    def draw_initial_states(self, rows: TableRows, count: int, options: dict | None) -> np.ndarray:  # type: ignore[override]
        """Deal the dealer's two cards, the player's two, and the face-up card's suit and rank."""
        indices = rows.indices
        if not self.generators.use_arrays:  # type: ignore[attr-defined]
            return self._deal_one_by_one(indices)
        streams = self.generators
        if isinstance(streams, BufferedIntegerStreams):
            # Four cards and the suit in one gather.
            draws = streams.bounded_sequence(indices, (13, 13, 13, 13, 4))
            dealt, suits = list(_DECK[draws[:, :4]].T), draws[:, 4]
        else:
            dealt = [self._cards(indices) for _ in range(4)]
            suits = rows.bounded(4)
        states = np.zeros((count, 9), dtype=np.int64)
        states[:, _D_RAW] = dealt[0] + dealt[1]
        states[:, _D_ACE] = (dealt[0] == 1) | (dealt[1] == 1)
        states[:, _D_CARDS] = 2
        states[:, _D_FACE] = dealt[0]
        states[:, _P_RAW] = dealt[2] + dealt[3]
        states[:, _P_ACE] = (dealt[2] == 1) | (dealt[3] == 1)
        states[:, _P_CARDS] = 2
        states[:, _SUIT] = suits
        tens = np.flatnonzero(dealt[0] == 10)
        if len(tens):
            states[tens, _RANK] = self.generators.bounded(indices[tens], 3)  # type: ignore[attr-defined]
        return states

    def row_reset(self, row: int) -> tuple[Any, dict[str, Any]]:
        """Deal one table from its Generator."""
        return self._deal_hand(row), {}

    def row_step(self, row: int, state: Any, action: int) -> tuple[Any, float, bool, dict]:
        """Hit or stick at one table."""
        reward, terminated = self._play_hand(state, action, row)
        return state, reward, terminated, {}

    def row_observation(self, state: Any) -> Any:
        """``(player total, dealer face, usable ace)`` of one table."""
        total, usable = hand_total(state[_P_RAW], bool(state[_P_ACE]))
        return int(total), state[_D_FACE], int(usable)

    def _pack_states(self, states: list[Any]) -> np.ndarray:
        return np.array(states, dtype=np.int64, order="F").reshape(self.num_envs, 9)

    def _pack_observations(self, observations: list[Any]) -> np.ndarray:
        return np.array(observations, dtype=np.int64).reshape(self.num_envs, 3)

    def _observations_of(self, states: list[Any]) -> np.ndarray:
        return self._pack_observations([self.row_observation(state) for state in states])

    def _deal_hand(self, row: int) -> list[int]:
        """Deal one table from stream ``row``: the state row as Python ints."""
        bounded = self.generators.bounded_one  # type: ignore[attr-defined]
        d1, d2, p1, p2 = (_DECK_LIST[bounded(row, 13)] for _ in range(4))
        suit = bounded(row, 4)
        rank = bounded(row, 3) if d1 == 10 else 0
        return [
            p1 + p2,
            int(p1 == 1 or p2 == 1),
            2,
            d1 + d2,
            int(d1 == 1 or d2 == 1),
            2,
            d1,
            suit,
            rank,
        ]

    def _deal_one_by_one(self, indices: np.ndarray) -> np.ndarray:
        """Deal from each sub-env's Generator in turn (small batches: cheaper than arrays)."""
        bounded = self.generators.bounded_one  # type: ignore[attr-defined]
        hands = []
        for row in indices.tolist():
            d1, d2, p1, p2 = (_DECK_LIST[bounded(row, 13)] for _ in range(4))
            suit = bounded(row, 4)
            rank = bounded(row, 3) if d1 == 10 else 0
            hands.append(
                (p1 + p2, p1 == 1 or p2 == 1, 2, d1 + d2, d1 == 1 or d2 == 1, 2, d1, suit, rank)
            )
        return np.array(hands, dtype=np.int64).reshape(len(hands), 9)

    def _play_one_by_one(
        self, states: np.ndarray, actions: np.ndarray, rows: TableRows, live: np.ndarray | None
    ) -> Transition:
        """Hit or stick table by table on Python ints, with the scalar rules."""
        hands = states.tolist()
        rewards, terminations = [], []
        actions_list = actions.tolist()
        if live is not None:
            # Tables about to be dealt again neither hit nor stick.
            actions_list = [None] * len(hands)
            for index in live.tolist():
                actions_list[index] = int(actions[index])
        for hand, action, row in zip(hands, actions_list, rows.indices.tolist(), strict=True):
            if action is None:
                rewards.append(0.0)
                terminations.append(False)
                continue
            reward, terminated = self._play_hand(hand, action, row)
            rewards.append(reward)
            terminations.append(terminated)
        return (
            np.array(hands, dtype=np.int64).reshape(len(hands), 9),
            np.array(rewards),
            np.array(terminations, dtype=np.bool_),
        )

    def _play_hand(self, hand: list[int], action: int, row: int) -> tuple[float, bool]:
        """Hit or stick at one table (``hand`` is updated): ``(reward, terminated)``."""
        bounded = self.generators.bounded_one  # type: ignore[attr-defined]
        if action:
            card = _DECK_LIST[bounded(row, 13)]
            hand[_P_RAW] += card
            hand[_P_ACE] |= card == 1
            hand[_P_CARDS] += 1
            bust = hand_total(hand[_P_RAW], bool(hand[_P_ACE]))[0] > 21
            return (-1.0 if bust else 0.0), bust
        while hand_total(hand[_D_RAW], bool(hand[_D_ACE]))[0] < DEALER_STANDS_AT:
            card = _DECK_LIST[bounded(row, 13)]
            hand[_D_RAW] += card
            hand[_D_ACE] |= card == 1
            hand[_D_CARDS] += 1
        player = hand_total(hand[_P_RAW], bool(hand[_P_ACE]))[0]
        dealer = hand_total(hand[_D_RAW], bool(hand[_D_ACE]))[0]
        reward = settle(
            0 if player > 21 else player,
            0 if dealer > 21 else dealer,
            hand[_P_CARDS] == 2 and hand[_P_ACE] == 1 and hand[_P_RAW] == 11,
            hand[_D_CARDS] == 2 and hand[_D_ACE] == 1 and hand[_D_RAW] == 11,
            self.natural,
            self.sab,
        )
        return reward, True

    def observe(self, states: np.ndarray) -> np.ndarray:
        """Return ``(player total, dealer face, usable ace)`` rows."""
        total, usable = hand_total(states[:, _P_RAW], states[:, _P_ACE].astype(np.bool_))
        return np.stack([total, states[:, _D_FACE], usable.astype(np.int64)], axis=1)

    def advance(
        self, states: np.ndarray, actions: np.ndarray, rows: TableRows, fresh: np.ndarray
    ) -> Transition:  # type: ignore[override]
        """Hit or stick at every live table; sticking tables play out the dealer's hand."""
        live = self.live_rows()
        if not self.generators.use_arrays:  # type: ignore[attr-defined]
            return self._play_one_by_one(states, actions, rows, live)
        # Column-major: each hand component is a contiguous column, indexed by 1-D rows.
        states = np.asfortranarray(states.copy())
        p_raw, p_ace, p_cards, d_raw, d_ace, d_cards = (states[:, column] for column in range(6))
        streams = rows.indices
        rewards = np.zeros(len(states))
        terminations = np.ones(len(states), dtype=np.bool_)
        if live is not None:
            # Tables about to be dealt again neither hit nor stick.
            masked = np.full(len(states), -1, dtype=np.int64)
            masked[live] = actions[live]
            actions = masked
        hitting = np.flatnonzero(actions == 1)
        if len(hitting):
            card = self._cards(streams[hitting])
            p_raw[hitting] += card
            p_ace[hitting] |= card == 1
            p_cards[hitting] += 1
            bust = hand_total(p_raw[hitting], p_ace[hitting] == 1)[0] > 21
            terminations[hitting] = bust
            rewards[hitting] = -1.0 * bust
        sticking = np.flatnonzero(actions == 0)
        if len(sticking):
            drawing = sticking
            while len(drawing):
                total = hand_total(d_raw[drawing], d_ace[drawing] == 1)[0]
                drawing = drawing[total < DEALER_STANDS_AT]
                if not len(drawing):
                    break
                card = self._cards(streams[drawing])
                d_raw[drawing] += card
                d_ace[drawing] |= card == 1
                d_cards[drawing] += 1
            player = hand_total(p_raw[sticking], p_ace[sticking] == 1)[0]
            dealer = hand_total(d_raw[sticking], d_ace[sticking] == 1)[0]
            naturals = [
                (cards[sticking] == 2) & (ace[sticking] == 1) & (raw[sticking] == 11)
                for raw, ace, cards in ((p_raw, p_ace, p_cards), (d_raw, d_ace, d_cards))
            ]
            rewards[sticking] = settle(
                np.where(player > 21, 0, player),
                np.where(dealer > 21, 0, dealer),
                *naturals,
                self.natural,
                self.sab,
            )
        return states, rewards, terminations

    def _public(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return tuple(observations[:, column].copy() for column in range(3))  # type: ignore[return-value]

    def _public_row(self, observation: np.ndarray) -> tuple[int, int, int]:
        return tuple(int(value) for value in observation)  # type: ignore[return-value]

    def show_state(self, env: Any, index: int) -> None:
        """Put table ``index`` into the single env ``env`` (a hand with the same totals)."""
        row = self.state[index]  # type: ignore[index]
        raw, ace = int(row[_P_RAW]), bool(row[_P_ACE])
        env.player = [1, raw - 1] if ace else [raw]
        env.dealer = [int(row[_D_FACE])]
        env.dealer_top_card_suit = "CDHS"[int(row[_SUIT])]
        face = int(row[_D_FACE])
        env.dealer_top_card_value_str = (
            "A" if face == 1 else "JQK"[int(row[_RANK])] if face == 10 else str(face)
        )
