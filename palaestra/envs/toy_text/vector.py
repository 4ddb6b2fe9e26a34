"""Natively batched toy-text environments, registered as their ids' vector entry points.

Each holds all sub-environments' states in one integer array and steps them through
:class:`~palaestra.vector.native.NativeVectorEnv`'s hooks: one lookup in the single
environment's own transition table (:class:`~palaestra.envs.toy_text.utils.TransitionArrays`,
built from ``P``) or, for Blackjack, the single environment's rule functions
(:func:`~palaestra.envs.toy_text.blackjack.deal`, :func:`~palaestra.envs.toy_text.blackjack
.play`) on arrays. Each sub-environment draws from its own PCG64 stream exactly as the single
environment draws from ``np_random``, so the observations, rewards, flags and infos equal
``make_vec(id, n, vectorization_mode="sync")``'s for the same seeds and actions, in all three
autoreset modes. Time limits, autoreset, ``reset_mask`` and SAME_STEP's final observations
are the base's; this module fills in its hooks alone, the optional ones too: the toy-text
streams (``make_generators``), the single env's infos batched from what the other hooks
recorded (``finish_infos``), and Blackjack's ``Tuple`` observations (``publish``).

The single envs' scalar constructor arguments (FrozenLake's ``is_slippery`` and
``success_rate``, CliffWalking's ``is_slippery``, Taxi's rain and fickle passenger,
Blackjack's ``natural`` and ``sab``) may differ per sub-env: ``make_vec(id, n,
is_slippery=[...])`` or ``set_attr`` with one value each, and sub-env ``i`` steps as the
single env built with value ``i`` (rows sharing a parameter set share its table).

Small batches run the same hooks row by row, on Python values with one ``Generator`` per
sub-env (``row_by_row_max_envs``): below that size a loop of scalar steps is cheaper than
numpy's cost per array operation.

Example:
    >>> import palaestra as gym
    >>> envs = gym.make_vec("FrozenLake-v1", num_envs=3)
    >>> type(envs).__name__
    'FrozenLakeVectorEnv'
    >>> envs.reset(seed=0)
    (array([0, 0, 0]), {'prob': array([1, 1, 1]), '_prob': array([ True,  True,  True])})
"""

from __future__ import annotations

import inspect
import numbers
from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

import numpy as np

from palaestra.envs.toy_text._discrete import DiscreteToyTextEnv
from palaestra.envs.toy_text._streams import BufferedIntegerStreams, TableRows, TableStreams
from palaestra.envs.toy_text.blackjack import (
    BlackjackEnv,
    Deal,
    Hand,
    deal,
    face_rank,
    hand_total,
    play,
)
from palaestra.envs.toy_text.cliffwalking import CliffWalkingEnv
from palaestra.envs.toy_text.frozen_lake import FrozenLakeEnv
from palaestra.envs.toy_text.taxi import TaxiEnv, passenger_may_change, with_new_destination
from palaestra.vector.native.base import NativeVectorEnv, Transition
from palaestra.vector.vector_env import AutoresetMode

__all__ = [
    "FrozenLakeVectorEnv",
    "CliffWalkingVectorEnv",
    "TaxiVectorEnv",
    "BlackjackVectorEnv",
    "ToyTextVectorEnv",
]

Infos = dict[str, Any]


class ToyTextVectorEnv(NativeVectorEnv):
    """What the batched toy-text environments share: integer states, toy-text streams, infos.

    A subclass fills in :meth:`draw_states` and :meth:`step_states` (each on whole columns,
    or row by row when :attr:`row_by_row` is set), :meth:`observe`, and the infos hooks
    :meth:`step_infos` and :meth:`reset_infos`.

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
    # A step draws random numbers: the base then steps only the rows it does not autoreset.
    steps_draw_randomness = True
    # Up to this many sub-envs the hooks run row by row on Generators (measured with
    # benchmarks/toy_text_speed.py: where the row loop stops being the cheaper path).
    row_by_row_max_envs = 16
    # Whether the single env's infos hold anything (Blackjack's are empty).
    has_infos = True
    # The single env's constructor arguments that may differ per sub-env (see
    # :meth:`parameter_names`): flags and probabilities that change neither the spaces nor
    # the initial-state distribution.
    row_parameters: frozenset[str] = frozenset()

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
        # The single env's arguments; per-sub-env values (sequences) went to the parameters.
        self.env_kwargs = {
            name: value
            for name, value in env_kwargs.items()
            if name not in self.row_parameters or not isinstance(value, (list, tuple, np.ndarray))
        }
        defaults = inspect.signature(self.single_env_class).parameters
        # The values the single env was built with (its table follows them).
        self.built_with = {
            name: self.env_kwargs.get(name, defaults[name].default) for name in self.row_parameters
        }
        self._painter: Any = None
        # What the hooks did during one reset or step, for its infos: the rows dealt
        # initial states, and the rows stepped (the subclass keeps their outcomes).
        self._dealt: list[np.ndarray] = []
        self._stepped: np.ndarray | None = None
        self.use_streams(self.generators)  # type: ignore[arg-type]

    def make_generators(self) -> TableStreams:
        """Return the random streams of the path: Generators row by row, else arrays."""
        return TableStreams(self.num_envs, use_arrays=not self.row_by_row)

    def use_streams(self, streams: TableStreams) -> None:
        """Draw from ``streams`` (before the first reset); their kind chooses the path.

        Generator streams run the hooks row by row, array streams on whole columns; the
        results are the same (the tests run both at every size).
        """
        self.generators = streams  # type: ignore[assignment]
        self._every_row = streams.rows()  # type: ignore[assignment]
        self.row_by_row = not streams.use_arrays

    # Per-sub-env parameters --------------------------------------------------------------

    @classmethod
    def parameter_names(cls) -> frozenset[str]:
        """Return the constructor arguments that ``make_vec`` and ``set_attr`` take per sub-env.

        Each takes one value per sub-env (a list, tuple or 1-D array) as ``make_vec``'s
        keyword argument or through :meth:`set_attr`; sub-env ``i`` then steps as the single
        env built with value ``i`` does (``set_attr`` rebuilds its table in place, where a
        sync vector env's ``set_attr`` sets an attribute the single env reads only when built).

        Example:
            >>> sorted(TaxiVectorEnv.parameter_names())
            ['fickle_passenger', 'fickle_probability', 'is_rainy', 'rainy_probability']
        """
        return cls.row_parameters

    def check_parameter(self, name: str, values: Sequence[Any]) -> None:
        """Check one value per sub-env of constructor argument ``name``.

        Raises:
            ValueError: for a flag that is not a bool, or a probability that is not a real
                number in [0, 1], naming the sub-env.
        """
        flag = isinstance(inspect.signature(self.single_env_class).parameters[name].default, bool)
        for index, value in enumerate(values):
            if flag:
                fits, expected = isinstance(value, bool), "a bool"
            else:
                fits = isinstance(value, numbers.Real) and not isinstance(value, bool)
                fits = fits and 0.0 <= value <= 1.0
                expected = "a probability (a real number in [0, 1])"
            if not fits:
                raise ValueError(
                    f"{type(self).__name__}.set_attr({name!r}) got {value!r} "
                    f"({type(value).__name__}) for sub-env {index}; expected {expected}, or a "
                    "list or tuple of one per sub-env."
                )

    def row_parameter_sets(self) -> list[dict[str, Any]]:
        """Return every sub-env's values of the :attr:`row_parameters`, in row order.

        Example:
            >>> envs = FrozenLakeVectorEnv(2, is_slippery=[True, False])
            >>> [values["is_slippery"] for values in envs.row_parameter_sets()]
            [True, False]
        """
        shared = {
            name: getattr(self.single_env, name, self.built_with[name])
            for name in self.row_parameters
        }
        return [
            {**shared, **{name: values[row] for name, values in self.row_values.items()}}
            for row in range(self.num_envs)
        ]

    # Hooks of the native base ------------------------------------------------------------

    def draw_initial_states(self, rows: TableRows, count: int, options: dict | None) -> Any:  # type: ignore[override]
        """Draw the initial states of ``rows`` (see :meth:`draw_states`), noting the rows."""
        self._dealt.append(rows.indices)
        return self.draw_states(rows)

    def advance(
        self, states: np.ndarray, actions: np.ndarray, rows: TableRows, fresh: np.ndarray
    ) -> Transition:  # type: ignore[override]
        """Step ``states`` (see :meth:`step_states`), noting the rows stepped."""
        self._stepped = rows.indices
        return self.step_states(states, actions, rows)

    # Hooks of the toy-text envs ----------------------------------------------------------

    def draw_states(self, rows: TableRows) -> np.ndarray:
        """Draw one initial state per row of ``rows`` from its stream."""
        raise NotImplementedError

    def step_states(self, states: np.ndarray, actions: np.ndarray, rows: TableRows) -> Transition:
        """Step one state per row of ``rows``: next states, rewards, terminations.

        The outcomes the step infos need are kept for :meth:`step_infos`.
        """
        raise NotImplementedError

    def step_infos(self, positions: np.ndarray) -> Infos:
        """Return the single env's step infos of the last step's rows at ``positions``."""
        return {}

    def reset_infos(self, rows: np.ndarray) -> Infos:
        """Return the single env's reset infos of ``rows`` (in their initial states)."""
        return {}

    def publish_row(self, observation: np.ndarray) -> Any:
        """One sub-env's observation as the single env returns it (a Python int)."""
        return int(observation)

    def finish_infos(self, base_infos: Infos) -> Infos:
        """Batch the infos of what the hooks did during the reset or step just taken.

        A row dealt an initial state supplies its reset info; a row stepped and not dealt
        again supplies its step info; a row whose episode ended inside the step (SAME_STEP
        autoreset) supplies its step info as ``final_info``.
        """
        stepped, dealt_parts = self._stepped, self._dealt
        self._dealt, self._stepped = [], None
        if not dealt_parts and stepped is not None and len(stepped) == self.num_envs:
            # Every row stepped, none dealt (most steps): each info is one part's array.
            return self._every_row_infos(self.step_infos(stepped))
        dealt = dealt_parts[0] if len(dealt_parts) == 1 else np.concatenate([[], *dealt_parts])
        dealt = dealt.astype(np.int64, copy=False)
        if not self.has_infos:
            infos: Infos = {}
        else:
            parts = [(dealt, self.reset_infos(dealt))] if len(dealt) else []
            if stepped is not None:
                positions = np.arange(len(stepped))
                if len(dealt):
                    redealt = np.zeros(self.num_envs, dtype=np.bool_)
                    redealt[dealt] = True
                    positions = positions[~redealt[stepped]]
                parts.append((stepped[positions], self.step_infos(positions)))
            infos = self._merge_infos(parts)
        if "final_obs" in base_infos:
            final_info = base_infos["final_info"]
            if self.has_infos:
                ended = np.flatnonzero(base_infos["_final_obs"])
                positions = np.searchsorted(stepped, ended)  # type: ignore[arg-type]
                final_info = self._merge_infos([(ended, self.step_infos(positions))])
            infos.update({**base_infos, "final_info": final_info})
        return infos

    def _merge_infos(self, parts: list[tuple[np.ndarray, Infos]]) -> Infos:
        """Batch per-row infos as a sync vector env does: each key typed as its first row's.

        ``parts`` pairs (ascending) row indices with the infos of those rows, each value
        batched over them.
        """
        parts = sorted((part for part in parts if len(part[0])), key=lambda part: part[0][0])
        if len(parts) == 1 and len(parts[0][0]) == self.num_envs:
            return self._every_row_infos(parts[0][1])
        merged: Infos = {}
        for rows, infos in parts:
            for key, values in infos.items():
                if key not in merged:
                    merged[key] = np.zeros((self.num_envs, *values.shape[1:]), dtype=values.dtype)
                    merged[f"_{key}"] = np.zeros(self.num_envs, dtype=np.bool_)
                merged[key][rows] = values
                merged[f"_{key}"][rows] = True
        return merged

    def _every_row_infos(self, infos: Infos) -> Infos:
        """Batch infos every row supplied, in row order: each value with an all-True mask."""
        batched: Infos = {}
        for key, values in infos.items():
            batched[key], batched[f"_{key}"] = values, np.ones(self.num_envs, dtype=np.bool_)
        return batched

    # Rendering ---------------------------------------------------------------------------

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


def _stacked(arrays: list[Any], field: str, shape: tuple[int, ...], fill: Any) -> np.ndarray:
    """Stack one field of several tables' arrays, padding the outcome axis with ``fill``."""
    first = getattr(arrays[0], field)
    if len(arrays) == 1:
        return first
    stacked = np.full(shape, fill, dtype=first.dtype)
    for index, table in enumerate(arrays):
        values = getattr(table, field)
        stacked[index, :, :, : values.shape[2]] = values
    return stacked


class _TableVectorEnv(ToyTextVectorEnv):
    """A batched finite MDP whose single env is a :class:`DiscreteToyTextEnv`."""

    single_env: DiscreteToyTextEnv

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        # The parameters change neither the initial distribution nor the reset info.
        self.initial_cumulative = self.single_env.initial_cumulative
        self._initial_list = self.initial_cumulative.tolist()
        # The last step's outcomes, per stepped row: their probabilities and states.
        self._probabilities = np.zeros(0)
        self._following = np.zeros(0, dtype=np.int64)
        self._variants: dict[tuple[Any, ...], DiscreteToyTextEnv] = {
            tuple(sorted(self.built_with.items())): self.single_env
        }
        self.parameters_changed()

    def parameters_changed(self) -> None:
        """Rebuild the tables from the rows' parameter sets (a hook of the native base).

        Rows that share a parameter set share one single env's table ``P``, built by that env
        (kept while some row uses it); with several sets their arrays are stacked, and a row's
        lookups are offset into its set's block.
        """
        keys = [tuple(sorted(values.items())) for values in self.row_parameter_sets()]
        blocks: dict[tuple[Any, ...], int] = {}
        block = np.array([blocks.setdefault(key, len(blocks)) for key in keys])
        built = tuple(sorted(self.built_with.items()))
        # The sets in use (and the single env's own) only: randomised values do not pile up.
        self._variants = {
            key: self._variants.get(key)
            or self.single_env_class(**{**self.env_kwargs, **dict(key)})
            for key in {built, *blocks}
        }
        envs = [self._variants[key] for key in blocks]
        arrays = [env.transition_arrays for env in envs]
        num_states, self._num_actions = arrays[0].cumulative.shape[:2]
        self._width = max(a.cumulative.shape[2] for a in arrays)
        shape = (len(arrays), num_states, self._num_actions, self._width)
        # Flat views: one ``take`` per lookup is cheaper than indexing with index tuples.
        self._flat_cumulative = _stacked(arrays, "cumulative", shape, -np.inf).reshape(
            -1, self._width
        )
        self._flat = tuple(
            _stacked(arrays, field, shape, 0).ravel()
            for field in ("probability", "next_state", "reward", "terminated")
        )
        # Each row's offset into the stacked (state, action) rows; None with one set.
        self._row_base = None if len(arrays) == 1 else block * (num_states * self._num_actions)
        # The row-by-row path: each row's table P and the cumulative probabilities of each
        # state and action's real outcomes.
        bounds = [
            [[[b for b in outcomes if b != -np.inf] for outcomes in row] for row in table]
            for table in (a.cumulative.tolist() for a in arrays)
        ]
        self._row_tables = [envs[index].P for index in block.tolist()]
        self._row_bounds = [bounds[index] for index in block.tolist()]

    def invalid_actions(self, actions: np.ndarray) -> KeyError:  # type: ignore[override]
        """Return the error for actions outside the space: ``KeyError``.

        The single env's transition-table lookup (and so a sync vector env) raises it.

        Example:
            >>> from palaestra.envs.toy_text.vector import FrozenLakeVectorEnv
            >>> type(FrozenLakeVectorEnv(2).invalid_actions(np.array([0, 9]))).__name__
            'KeyError'
        """
        return KeyError(str(super().invalid_actions(actions)))

    def draw_states(self, rows: TableRows) -> np.ndarray:
        """Draw each row's initial state from the initial distribution (one double each).

        ``categorical_sample`` picks index 0 when no cumulative probability exceeds the draw.
        """
        if self.row_by_row:
            randoms, bounds = self.generators.randoms, self._initial_list  # type: ignore[attr-defined]
            last = len(bounds)
            picks = [bisect_right(bounds, randoms[row]()) for row in rows.indices.tolist()]
            return np.array([0 if pick == last else pick for pick in picks], dtype=np.int64)
        states = np.searchsorted(self.initial_cumulative, rows.random(), side="right")
        states[states == len(self.initial_cumulative)] = 0
        return states

    def observe(self, states: np.ndarray) -> np.ndarray:
        """Return the states (the observations of a finite MDP)."""
        return states.copy()

    def step_states(self, states: np.ndarray, actions: np.ndarray, rows: TableRows) -> Transition:
        """Sample every row's outcome from the table with one double per row."""
        if self.row_by_row:
            return self._step_row_by_row(states, actions, rows)
        chosen = states * self._num_actions + actions
        if self._row_base is not None:
            chosen += self._row_base.take(rows.indices)
        if self._width > 1:
            draws = self.generators.doubles(rows.indices)  # type: ignore[attr-defined]
            cumulative = self._flat_cumulative.take(chosen, axis=0)
            chosen = chosen * self._width + np.argmax(cumulative > draws[:, None], axis=1)
        else:
            # One outcome per action: the draw is made (the single env makes it) and unused.
            self.generators.doubles(rows.indices)  # type: ignore[attr-defined]
        probability, next_state, reward, terminated = self._flat
        self._probabilities = probability.take(chosen)
        self._following = next_state.take(chosen)
        return self._following, reward.take(chosen), terminated.take(chosen)

    def _step_row_by_row(
        self, states: np.ndarray, actions: np.ndarray, rows: TableRows
    ) -> Transition:
        """Step row by row through the single env's own table ``P``.

        The outcome is the first whose cumulative probability exceeds the draw (bisected in
        the cumulative sums :class:`TransitionArrays` holds), as ``categorical_sample`` picks.
        """
        tables, bounds = self._row_tables, self._row_bounds
        randoms = self.generators.randoms  # type: ignore[attr-defined]
        picked = []
        for state, action, row in zip(
            states.tolist(), actions.tolist(), rows.indices.tolist(), strict=True
        ):
            cumulative = bounds[row][state][action]
            choice = bisect_right(cumulative, randoms[row]())
            picked.append(tables[row][state][action][0 if choice == len(cumulative) else choice])
        # Four columns, also when every row is being autoreset instead (none is stepped).
        probabilities, following, rewards, terminations = (
            zip(*picked, strict=True) if picked else ((),) * 4
        )
        self._probabilities = np.array(probabilities, dtype=np.float64)
        self._following = np.array(following, dtype=np.int64)
        return (
            self._following,
            np.array(rewards, dtype=np.float64),
            np.array(terminations, dtype=np.bool_),
        )

    def step_infos(self, positions: np.ndarray) -> Infos:
        """``{"prob": the probability of each row's outcome}``."""
        if len(positions) == len(self._probabilities):
            return {"prob": self._probabilities}
        return {"prob": self._probabilities[positions]}

    def reset_infos(self, rows: np.ndarray) -> Infos:
        """``{"prob": the single env's reset probability}`` per row, typed as its."""
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
    row_parameters = frozenset({"is_slippery", "success_rate"})


class CliffWalkingVectorEnv(_TableVectorEnv):
    """``num_envs`` cliff walks stepped as one batch; see :class:`CliffWalkingEnv`.

    Example:
        >>> envs = CliffWalkingVectorEnv(num_envs=2)
        >>> _ = envs.reset(seed=0)
        >>> envs.step(np.array([0, 1]))[:2]
        (array([24, 36]), array([  -1., -100.]))
    """

    single_env_class = CliffWalkingEnv
    row_parameters = frozenset({"is_slippery"})


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
    # Taxi's array step is cheaper from 16 sub-envs on (benchmarks/toy_text_speed.py).
    row_by_row_max_envs = 8
    row_parameters = frozenset(
        {"is_rainy", "rainy_probability", "fickle_passenger", "fickle_probability"}
    )

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        env = self.single_env
        self.masks = np.stack([env.action_mask(state) for state in range(500)])
        # Whether each sub-env's episode has a fickle passenger still to change their mind.
        self.fickle = np.zeros(self.num_envs, dtype=np.bool_)

    def parameters_changed(self) -> None:
        """Rebuild the tables, and each row's fickle-passenger flag and probability."""
        super().parameters_changed()
        sets = self.row_parameter_sets()
        self.fickle_passenger = np.array([values["fickle_passenger"] for values in sets])
        self.fickle_probability = np.array([values["fickle_probability"] for values in sets])
        self._any_fickle = bool(self.fickle_passenger.any())

    def draw_states(self, rows: TableRows) -> np.ndarray:
        """Draw initial states, then (fickle passenger) whether each episode is fickle.

        Only the rows with a fickle passenger draw, as the single env draws only then.
        """
        states = super().draw_states(rows)
        if self._any_fickle:
            indices = rows.indices
            self.fickle[indices] = False
            drawing = indices[self.fickle_passenger[indices]]
            if len(drawing):
                draws = self.generators.doubles(drawing)  # type: ignore[attr-defined]
                self.fickle[drawing] = draws < self.fickle_probability[drawing]
        return states

    def step_states(self, states: np.ndarray, actions: np.ndarray, rows: TableRows) -> Transition:
        """Step as the table says; a fickle passenger may then pick a new destination.

        Each stream draws the table's double first, then the new destination, as the
        single env does (the streams are per sub-env, so rows may draw in any order).
        """
        following, rewards, terminations = super().step_states(states, actions, rows)
        if self._any_fickle:
            indices = rows.indices
            # A sub-env whose fickle_passenger was turned off since its reset stays put.
            fickle = self.fickle[indices] & self.fickle_passenger[indices]
            changing = np.flatnonzero(fickle & passenger_may_change(states, following))
            if len(changing):
                self.fickle[indices[changing]] = False
                pick = rows.streams.bounded(indices[changing], 3)
                following = following.copy()
                following[changing] = with_new_destination(
                    following[changing], states[changing] % 4, pick
                )
                self._following = following
        if self.autoreset_mode is AutoresetMode.SAME_STEP:
            # The base resets the ended rows in the returned array, in place; the final
            # infos read the stepped states.
            self._following = following.copy()
        return following, rewards, terminations

    def step_infos(self, positions: np.ndarray) -> Infos:
        """``{"prob": ..., "action_mask": ...}`` of each row's outcome."""
        infos = super().step_infos(positions)
        following = self._following
        if len(positions) != len(following):
            following = following[positions]
        return {**infos, "action_mask": self.masks[following]}

    def reset_infos(self, rows: np.ndarray) -> Infos:
        """``{"prob": 1.0, "action_mask": ...}`` per row."""
        return {**super().reset_infos(rows), "action_mask": self.masks[self.state[rows]]}  # type: ignore[index]


# Blackjack state columns: the player's hand, the dealer's, the face-up card's looks.
_PLAYER, _DEALER, _LOOKS = slice(0, 3), slice(3, 6), slice(6, 9)
_P_RAW, _P_ACE, _P_CARDS, _D_RAW, _D_ACE, _D_CARDS, _D_FACE, _SUIT, _RANK = range(9)


class _ArrayDraws:
    """:class:`~palaestra.envs.toy_text.blackjack.Draws` for many tables from array streams."""

    __slots__ = ("indices", "streams")

    def __init__(self, streams: TableStreams, indices: np.ndarray):
        self.streams, self.indices = streams, indices

    def integers(self, spans: Sequence[int]) -> tuple[np.ndarray, ...]:
        if isinstance(self.streams, BufferedIntegerStreams):
            # Every span of every table in one gather.
            return tuple(self.streams.bounded_sequence(self.indices, spans).T)
        return tuple(self.streams.bounded(self.indices, span) for span in spans)

    def integer(self, span: int, where: np.ndarray | bool) -> np.ndarray:
        if where is True:
            return self.streams.bounded(self.indices, span)
        values = np.zeros(len(self.indices), dtype=np.int64)
        chosen = where.nonzero()[0]
        if len(chosen):
            values[chosen] = self.streams.bounded(self.indices[chosen], span)
        return values

    def at(self, rows: np.ndarray) -> _ArrayDraws:
        return _ArrayDraws(self.streams, self.indices[rows])


class _RowDraws:
    """:class:`~palaestra.envs.toy_text.blackjack.Draws` for one table, from its Generator."""

    __slots__ = ("bounded_one", "row")

    def __init__(self, streams: TableStreams):
        self.bounded_one, self.row = streams.bounded_one, 0

    def integers(self, spans: Sequence[int]) -> tuple[int, ...]:
        return tuple(self.bounded_one(self.row, span) for span in spans)

    def integer(self, span: int, where: Any) -> int:
        return self.bounded_one(self.row, span) if where else 0


def _state_columns(dealt: Deal) -> tuple[Any, ...]:
    """Return a dealt table as the nine state columns."""
    dealer, player = dealt.hands()
    return (*player, *dealer, dealt.dealer[0], dealt.suit, dealt.rank)


class BlackjackVectorEnv(ToyTextVectorEnv):
    """``num_envs`` Blackjack tables played as one batch; see :class:`BlackjackEnv`.

    A table's state is both hands' :class:`~palaestra.envs.toy_text.blackjack.Hand` (raw
    total, ace, card count) and the face-up card's value, suit and rank; it is dealt with
    :func:`~palaestra.envs.toy_text.blackjack.deal` and played with
    :func:`~palaestra.envs.toy_text.blackjack.play`, the single env's own functions.
    Observations are a tuple of three int64 arrays, as the batched ``Tuple`` space is.

    Example:
        >>> envs = BlackjackVectorEnv(num_envs=2, sab=True)
        >>> envs.reset(seed=3)[0]
        (array([ 7, 17]), array([10, 10]), array([0, 0]))
    """

    single_env_class = BlackjackEnv
    has_infos = False
    row_parameters = frozenset({"natural", "sab"})

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.parameters_changed()

    def parameters_changed(self) -> None:
        """Take each row's rules: ``natural`` and ``sab`` (a hook of the native base).

        With one rule set for all, a step plays every table at once; else it plays each rule
        set's tables together.
        """
        sets = [(values["natural"], values["sab"]) for values in self.row_parameter_sets()]
        self._row_rules = sets
        groups: dict[tuple[bool, bool], list[int]] = {}
        for row, rules in enumerate(sets):
            groups.setdefault(rules, []).append(row)
        self._rule_groups = [
            (rules, np.isin(np.arange(self.num_envs), members)) for rules, members in groups.items()
        ]

    def make_generators(self) -> TableStreams:
        """Return Generators row by row, else cards made ahead in bulk (a draw is a gather)."""
        return (
            super().make_generators() if self.row_by_row else BufferedIntegerStreams(self.num_envs)
        )

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:  # noqa: D102
        if self.state is None:
            # The base sizes its arrays from the observation space's shape; a Tuple has none.
            self.state = np.zeros((self.num_envs, 9), dtype=np.int64, order="F")
            self._observations = np.zeros((self.num_envs, 3), dtype=np.int64)
        return super().reset(seed=seed, options=options)

    def draw_states(self, rows: TableRows) -> np.ndarray:
        """Deal every table of ``rows`` (see :func:`~palaestra.envs.toy_text.blackjack.deal`)."""
        if self.row_by_row:
            draws = _RowDraws(self.generators)  # type: ignore[arg-type]
            tables = []
            for row in rows.indices.tolist():
                draws.row = row
                tables.append(_state_columns(deal(draws)))
            return np.array(tables, dtype=np.int64).reshape(len(tables), 9)
        columns = _state_columns(deal(_ArrayDraws(self.generators, rows.indices)))  # type: ignore[arg-type]
        states = np.empty((len(rows), 9), dtype=np.int64, order="F")
        for index, column in enumerate(columns):
            states[:, index] = column
        return states

    def step_states(self, states: np.ndarray, actions: np.ndarray, rows: TableRows) -> Transition:
        """Hit or stick at every table (see :func:`~palaestra.envs.toy_text.blackjack.play`)."""
        if self.row_by_row:
            return self._play_row_by_row(states, actions, rows)
        if len(self._rule_groups) == 1:
            return self._play(states, actions, rows.indices, *self._rule_groups[0][0])
        following = np.empty_like(states, order="F")
        rewards = np.empty(len(states), dtype=np.float64)
        terminations = np.empty(len(states), dtype=np.bool_)
        for rules, members in self._rule_groups:
            positions = np.flatnonzero(members[rows.indices])
            if len(positions):
                (
                    following[positions],
                    rewards[positions],
                    terminations[positions],
                ) = self._play(
                    states[positions], actions[positions], rows.indices[positions], *rules
                )
        return following, rewards, terminations

    def _play(
        self, states: np.ndarray, actions: np.ndarray, indices: np.ndarray, natural: bool, sab: bool
    ) -> Transition:
        """Hit or stick at the tables of sub-envs ``indices``, all under one rule set."""
        player, dealer, rewards, terminations = play(
            Hand(*states[:, _PLAYER].T),
            Hand(*states[:, _DEALER].T),
            actions,
            _ArrayDraws(self.generators, indices),  # type: ignore[arg-type]
            natural,
            sab,
        )
        following = np.empty_like(states, order="F")
        for index, column in enumerate((*player, *dealer)):
            following[:, index] = column
        following[:, _LOOKS] = states[:, _LOOKS]
        return following, rewards, terminations

    def _play_row_by_row(
        self, states: np.ndarray, actions: np.ndarray, rows: TableRows
    ) -> Transition:
        """Hit or stick table by table on Python ints."""
        draws = _RowDraws(self.generators)  # type: ignore[arg-type]
        rules = self._row_rules
        tables, rewards, terminations = [], [], []
        for table, action, row in zip(
            states.tolist(), actions.tolist(), rows.indices.tolist(), strict=True
        ):
            draws.row = row
            player, dealer, reward, terminated = play(
                Hand(*table[_PLAYER]), Hand(*table[_DEALER]), action, draws, *rules[row]
            )
            tables.append((*player, *dealer, *table[_LOOKS]))
            rewards.append(reward)
            terminations.append(terminated)
        return (
            np.array(tables, dtype=np.int64).reshape(len(tables), 9),
            np.array(rewards, dtype=np.float64),
            np.array(terminations, dtype=np.bool_),
        )

    def observe(self, states: np.ndarray) -> np.ndarray:
        """Return ``(player total, dealer face, usable ace)`` rows."""
        observations = np.empty((len(states), 3), dtype=np.int64)
        observations[:, 0], observations[:, 2] = hand_total(states[:, _P_RAW], states[:, _P_ACE])
        observations[:, 1] = states[:, _D_FACE]
        return observations

    def publish(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return the three columns, as the batched ``Tuple`` space holds them."""
        return tuple(observations.T.copy())  # type: ignore[return-value]

    def publish_row(self, observation: np.ndarray) -> tuple[int, int, int]:
        """One table's observation as the single env returns it: three Python ints."""
        return tuple(int(value) for value in observation)  # type: ignore[return-value]

    def show_state(self, env: Any, index: int) -> None:
        """Put table ``index`` into the single env ``env`` (a hand with the same totals)."""
        row = self.state[index]  # type: ignore[index]
        raw, ace = int(row[_P_RAW]), bool(row[_P_ACE])
        face = int(row[_D_FACE])
        env.player = [1, raw - 1] if ace else [raw]
        env.dealer = [face]
        env.dealer_top_card_suit = "CDHS"[int(row[_SUIT])]
        env.dealer_top_card_value_str = face_rank(face, int(row[_RANK]))
