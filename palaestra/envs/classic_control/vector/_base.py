"""The natively batched classic-control environments' common base: parameters and drawing.

Everything batched (seeding, bookkeeping, autoreset, the accelerator) comes from
:class:`palaestra.vector.native.NativeVectorEnv`; this adds the single environment's frozen
parameters (``params``), their per-sub-env values (``row_params``: one frozen parameter set
per row, once :meth:`set_attr` or the constructor gave differing values) and draws frames with
the family's :class:`Canvas`.
"""

from __future__ import annotations

import dataclasses
import numbers
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from palaestra.envs.classic_control._base import ClassicControlEnv, ParamAttribute
from palaestra.envs.classic_control.rendering import Canvas
from palaestra.vector.native import NativeVectorEnv, Transition
from palaestra.vector.native.generators import GeneratorRows

__all__ = ["ClassicControlVectorEnv", "Transition"]

GroupStep = Callable[[np.ndarray, np.ndarray, GeneratorRows, np.ndarray, Any], Transition]


class ClassicControlVectorEnv(NativeVectorEnv):
    """Base class of the natively batched classic-control environments.

    Takes the arguments of :class:`~palaestra.vector.native.NativeVectorEnv`; subclasses
    implement :meth:`draw_frame` instead of ``render_sub_env``.

    The per-sub-env parameters are the single environment's attributes that read and write
    its ``params`` (Gymnasium's names: ``gravity``, ``masspole``, ``g``...). Numbers may differ
    per sub-env; the others (strings such as ``kinematics_integrator``, tuples, and the
    :attr:`shared_parameters`) take one value for all. While every row shares one parameter
    set, :attr:`row_params` is ``None`` and the batch steps exactly as without per-row values.

    Example:
        >>> from palaestra.envs.classic_control.vector import CartPoleVectorEnv
        >>> envs = CartPoleVectorEnv(num_envs=2, render_mode="rgb_array")
        >>> _ = envs.reset(seed=0)
        >>> [frame.shape for frame in envs.render()]
        [(400, 600, 3), (400, 600, 3)]
    """

    single_env_class: type[ClassicControlEnv]
    # Numeric parameters that still take one value for all (they decide what a step draws).
    shared_parameters: frozenset[str] = frozenset()
    # Whether the numpy step rounds alike with a column of float64 values per parameter as
    # with one Python number: dynamics all in float64 and without powers of parameters.
    steps_with_parameter_columns = False

    def __init__(self, *args: Any, **kwargs: Any):
        # With a compiled path: the one-call autoreset's kernel and bounds (see below).
        self._compiled_restart: tuple[Any, np.ndarray, np.ndarray] | None = None
        super().__init__(*args, **kwargs)
        self._canvas: Canvas | None = None
        self._derive_parameters()

    def uniform_initial_bounds(self) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
        """Return ``(lows, highs)`` if an autoreset's initial state is uniform draws (a hook).

        Component ``c < len(lows)`` of an initial state is then ``Generator.uniform(lows[c],
        highs[c])`` drawn in order from the row's stream, and the other components are 0; the
        compiled path restarts such rows in one call
        (:func:`~palaestra.vector.native.compiled.compiled_restart_uniform`) instead of
        drawing and writing them in several. ``None`` (the default): draw with
        :meth:`draw_initial_states`.
        """
        return None

    def _install_compiled_advance(self, advance: Any = None) -> None:
        super()._install_compiled_advance(advance)
        self._compiled_restart = None
        bounds = self.uniform_initial_bounds()
        if bounds is not None:
            from palaestra.vector.native.compiled import compiled_restart_uniform

            lows = np.array(bounds[0], dtype=np.float64)
            # high - low per component, as Generator.uniform subtracts its Python-float bounds.
            spans = np.array(bounds[1], dtype=np.float64) - lows
            self._compiled_restart = (compiled_restart_uniform, lows, spans)

    def _autoreset(self, indices: np.ndarray) -> None:
        if self._compiled_restart is None:
            super()._autoreset(indices)
            return
        restart, lows, spans = self._compiled_restart
        streams = self.generators
        restart(
            streams._high,
            streams._low,
            streams._inc_high,
            streams._inc_low,
            indices,
            lows,
            spans,
            self.state,
            self.elapsed_steps,
            self._ended,
        )

    @classmethod
    def parameter_names(cls) -> frozenset[str]:
        """Return the single environment's attributes backed by its ``params``.

        Example:
            >>> from palaestra.envs.classic_control.vector import MountainCarVectorEnv
            >>> sorted(MountainCarVectorEnv.parameter_names())[:3]
            ['force', 'goal_position', 'goal_velocity']
        """
        return frozenset(_param_attributes(cls.single_env_class))

    def check_parameter(self, name: str, values: Sequence[Any]) -> None:
        """Check one value per sub-env of parameter ``name``.

        Raises:
            ValueError: for a value that is not a real number where the parameter is a
                number, differing values of a parameter that takes one value for all, or a
                value the parameter set refuses (such as an unknown integrator).
        """
        where = f"{type(self).__name__}.set_attr({name!r})"
        field = _param_attributes(self.single_env_class)[name].field
        numeric = _is_number(getattr(self.single_env.params, field))
        if numeric:
            for index, value in enumerate(values):
                if not _is_number(value):
                    raise ValueError(
                        f"{where} got {value!r} ({type(value).__name__}) for sub-env {index}; "
                        "expected a real number (an int or a float), or a list or tuple of "
                        "one per sub-env."
                    )
        per_row = numeric and name not in self.shared_parameters
        first = values[0]
        if not per_row and any(value != first for value in values):
            raise ValueError(
                f"{where} got differing values {list(values)!r}, but {name!r} must be the "
                "same for every sub-environment of a native batch (it decides which "
                "equations or random draws a step uses); set one value for all, or use "
                "vectorization_mode='sync'."
            )
        for value in values if per_row else values[:1]:
            # The parameter set's own checks (such as an unknown integrator's ValueError).
            dataclasses.replace(self.single_env.params, **{field: value})

    def parameters_changed(self) -> None:
        """Rebuild :attr:`params` and :attr:`row_params` from the single env and ``row_values``."""
        self._derive_parameters()

    def _derive_parameters(self) -> None:
        self.params = self.single_env.params
        self.row_params: list[Any] | None = None
        self._table: np.ndarray | None = None
        self._columns: Any = None
        if not self.row_values:
            return
        attributes = _param_attributes(self.single_env_class)
        fields = {attributes[name].field: values for name, values in self.row_values.items()}
        self.row_params = [
            dataclasses.replace(self.params, **{f: v[row] for f, v in fields.items()})
            for row in range(self.num_envs)
        ]
        # Rows with equal parameter sets step together on the numpy path.
        groups: dict[Any, int] = {}
        self._parameter_group = np.array(
            [groups.setdefault(params, len(groups)) for params in self.row_params]
        )
        self._parameter_sets = list(groups)

    def params_of(self, index: int) -> Any:
        """Return sub-environment ``index``'s parameter set.

        Example:
            >>> from palaestra.envs.classic_control.vector import PendulumVectorEnv
            >>> envs = PendulumVectorEnv(2, g=[9.81, 1.62])
            >>> envs.params_of(1).g
            1.62
        """
        return self.params if self.row_params is None else self.row_params[index]

    def advance_each_parameter_set(
        self,
        states: np.ndarray,
        actions: np.ndarray,
        rows: GeneratorRows,
        fresh: np.ndarray,
        step: GroupStep,
    ) -> Transition:
        """Step rows with differing parameters, one parameter set at a time.

        ``step(states, actions, rows, fresh, params)`` is the subclass's batched numpy step
        for one shared parameter set: the rows of each set run the very code (and Python-number
        parameters) of a batch without per-row values, so every row rounds as its own single
        environment does.
        """
        next_states = np.empty(states.shape, dtype=self.state_dtype)
        rewards = np.empty(len(states), dtype=np.float64)
        terminations = np.empty(len(states), dtype=np.bool_)
        for chosen, group_rows, params in self.parameter_sets_of(rows):
            following, group_rewards, group_terminations = step(
                states[chosen], actions[chosen], group_rows, fresh[chosen], params
            )
            next_states[chosen] = following
            rewards[chosen] = group_rewards
            terminations[chosen] = group_terminations
        return next_states, rewards, terminations

    def advance(self, states: Any, actions: Any, rows: Any, fresh: Any) -> Transition:
        """Step every row: the compiled loop, else ``_step_with`` (per parameter group if any).

        A subclass whose step is ``_step_with(states, actions, rows, fresh, params)`` and whose
        compiled loop takes ``(states, actions[, row_table])`` needs nothing more.
        """
        if self._compiled_advance is not None:
            if self.row_params is None:
                return self._compiled_advance(states, actions)
            return self._compiled_advance(states, actions, self.row_table(rows))
        if self.row_params is not None:
            return self.advance_with_row_parameters(states, actions, rows, fresh, self._step_with)
        return self._step_with(states, actions, rows, fresh, self.params)

    def advance_with_row_parameters(
        self,
        states: np.ndarray,
        actions: np.ndarray,
        rows: GeneratorRows,
        fresh: np.ndarray,
        step: GroupStep,
    ) -> Transition:
        """Step rows with differing parameters on the numpy path.

        ``step`` is as in :meth:`advance_each_parameter_set`: called once with
        :meth:`parameter_columns` where :attr:`steps_with_parameter_columns` says that rounds
        alike, else once per parameter set.
        """
        if self.steps_with_parameter_columns:
            return step(states, actions, rows, fresh, self.parameter_columns(rows))
        return self.advance_each_parameter_set(states, actions, rows, fresh, step)

    def parameter_columns(self, rows: GeneratorRows) -> Any:
        """Return the parameters of ``rows`` with each number a float64 column (one per row).

        The fields are those of :attr:`params` (string choices as they are); elementwise
        float64 arithmetic with a column rounds as with each row's own Python float.
        """
        if self._columns is None:
            table = self.row_table(self._every_row)
            numeric = [f for f in _field_names(self.params) if _is_number(getattr(self.params, f))]
            self._columns = (numeric, table)
        numeric, table = self._columns
        if rows.indices is not None:
            table = table[rows.indices]
        fields = {name: getattr(self.params, name) for name in _field_names(self.params)}
        fields.update((name, table[:, k]) for k, name in enumerate(numeric))
        return types.SimpleNamespace(**fields)

    def parameter_sets_of(self, rows: GeneratorRows) -> list[tuple[np.ndarray, Any, Any]]:
        """Split ``rows`` by parameter set (with :attr:`row_params`).

        Returns:
            ``(positions, streams, params)`` per parameter set present: the positions in
            ``rows`` of its sub-envs, their random streams, and the set.
        """
        if rows.indices is None:
            indices = np.arange(self.num_envs)
        else:
            indices = np.asarray(rows.indices)
        groups = self._parameter_group[indices]
        found = []
        for group in np.unique(groups):
            chosen = np.flatnonzero(groups == group)
            streams = self.generators.rows(indices[chosen])
            found.append((chosen, streams, self._parameter_sets[group]))
        return found

    def row_table(self, rows: GeneratorRows) -> np.ndarray | None:
        """Return the parameters of ``rows`` as the compiled loops read them (``None``: shared).

        Built from :attr:`row_params` (see ``_compiled.parameter_table``) once per change.
        """
        if self.row_params is None:
            return None
        if self._table is None:
            from palaestra.envs.classic_control.vector._compiled import parameter_table

            self._table = parameter_table(self.row_params)
        return self._table if rows.indices is None else self._table[rows.indices]

    def kernel_params(self) -> Any:
        """Return the parameter set a compiled loop is built for.

        :attr:`params` while every row shares it (its numbers become constants); with
        :attr:`row_params`, the defaults with only the shared non-numeric choices (the
        numbers come from :meth:`row_table`), so that new values need no new compilation.
        """
        if self.row_params is None:
            return self.params
        choices = {
            field.name: getattr(self.params, field.name)
            for field in dataclasses.fields(self.params)
            if field.init and not _is_number(getattr(self.params, field.name))
        }
        return dataclasses.replace(type(self.params)(), **choices)

    def draw_frame(self, canvas: Canvas, index: int) -> None:
        """Draw sub-environment ``index`` on a cleared ``canvas``."""
        raise NotImplementedError

    def render_sub_env(self, index: int) -> np.ndarray:
        """Draw sub-environment ``index`` as the single environment draws itself.

        Raises:
            palaestra.error.DependencyNotInstalled: if pygame is not installed.
        """
        if self._canvas is None:
            self._canvas = Canvas(
                self.single_env.screen_width,
                self.single_env.screen_height,
                "rgb_array" if self.render_mode == "human" else self.render_mode,
                self.metadata["render_fps"],
                title=type(self).__name__,
            )
            # "human" draws off screen too: the batch has no window, but, as Gymnasium's
            # CartPoleVectorEnv, it initialises pygame's display for the code that shows it.
            if self.render_mode == "human":
                import pygame

                pygame.display.init()
        self._canvas.clear()
        self.draw_frame(self._canvas, index)
        return self._canvas.finish()

    def close_extras(self, **kwargs: Any) -> None:
        """Release the drawing surface, if one was made."""
        if self._canvas is not None:
            self._canvas.close()
            self._canvas = None


def _param_attributes(env_class: type) -> dict[str, ParamAttribute]:
    """Return the attributes of ``env_class`` (and bases) that read and write its ``params``."""
    found: dict[str, ParamAttribute] = {}
    for klass in reversed(env_class.__mro__):
        found.update((n, v) for n, v in vars(klass).items() if isinstance(v, ParamAttribute))
    return found


def _field_names(params: Any) -> list[str]:
    return [field.name for field in dataclasses.fields(params)]


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
