"""A vector env that steps its sub-environments one after another in this process."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from copy import deepcopy
from typing import Any, Generic

import numpy as np

from palaestra.core import ActType, Env, ObsType, RenderFrame
from palaestra.error import ClosedEnvironmentError
from palaestra.vector._arguments import (
    ObservationMode,
    action_misfit,
    actions_per_env,
    autoreset_mode_from,
    observation_misfit,
    observation_space_fits,
    observation_spaces_for,
    seeds_per_env,
    split_reset_mask,
    values_per_env,
)
from palaestra.vector.episodes import DISABLED, SubEnvStepper, disabled_step_error
from palaestra.vector.utils import batch_space, concatenate, create_empty_array
from palaestra.vector.vector_env import AutoresetMode, SubEnvAttributes, VectorEnv

__all__ = ["SyncVectorEnv"]


class SyncVectorEnv(
    SubEnvAttributes, VectorEnv[ObsType, ActType, np.ndarray], Generic[ObsType, ActType]
):
    """Run sub-environments serially, in a loop, in the calling process.

    Args:
        env_fns: functions that each build one sub-environment.
        copy: return a copy of the observation batch from ``reset``/``step``; with ``False``
            the internal buffer is returned and overwritten by the next call.
        observation_mode: ``"same"`` (all sub-envs share one observation space),
            ``"different"`` (same shape and dtype, different bounds) or a pair
            ``(observation_space, single_observation_space)``.
        autoreset_mode: an :class:`~palaestra.vector.AutoresetMode` or its value string.

    Raises:
        RuntimeError: if a sub-env's observation or action space does not fit the first's;
            the message names the sub-env and both spaces.
        ValueError: for an unknown ``observation_mode`` or ``autoreset_mode``.
        TypeError: if an ``observation_mode`` pair does not hold two spaces.

    Example:
        >>> import palaestra as gym
        >>> envs = gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1")] * 2)
        >>> envs
        SyncVectorEnv(num_envs=2)
        >>> observations, infos = envs.reset(seed=42)
        >>> observations.shape
        (2, 4)
        >>> _, rewards, terminations, truncations, _ = envs.step(np.array([0, 1]))
        >>> rewards, terminations
        (array([1., 1.]), array([False, False]))
        >>> envs.close()
    """

    def __init__(
        self,
        env_fns: Sequence[Callable[[], Env]],
        copy: bool = True,
        observation_mode: ObservationMode = "same",
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
    ) -> None:
        self.env_fns = env_fns
        self.copy = copy
        self.observation_mode = observation_mode
        self.autoreset_mode = autoreset_mode_from(autoreset_mode)

        self.envs = [env_fn() for env_fn in env_fns]
        if not self.envs:
            raise ValueError("SyncVectorEnv needs at least one env function, got none.")
        first = self.envs[0]
        self.num_envs = len(self.envs)
        self.metadata = {**first.metadata, "autoreset_mode": self.autoreset_mode}
        self.render_mode = first.render_mode

        try:
            self._set_spaces(first)
        except BaseException:
            # The sub-envs would otherwise stay open (windows, files) behind the error.
            self.close_extras()
            raise

        self._steppers = [
            SubEnvStepper(env, self.autoreset_mode, index) for index, env in enumerate(self.envs)
        ]
        self._env_obs: list[Any] = [None] * self.num_envs
        self._observations = create_empty_array(
            self.single_observation_space, n=self.num_envs, fn=np.zeros
        )
        self._rewards = np.zeros((self.num_envs,), dtype=np.float64)
        self._terminations = np.zeros((self.num_envs,), dtype=np.bool_)
        self._truncations = np.zeros((self.num_envs,), dtype=np.bool_)

    def _set_spaces(self, first: Env) -> None:
        self.single_action_space = first.action_space
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.single_observation_space, self.observation_space = observation_spaces_for(
            self.observation_mode,
            first.observation_space,
            lambda: [env.observation_space for env in self.envs],
            self.num_envs,
        )
        self._check_sub_env_spaces()

    def _check_sub_env_spaces(self) -> None:
        for index, env in enumerate(self.envs):
            if not observation_space_fits(
                self.observation_mode, self.single_observation_space, env.observation_space
            ):
                raise RuntimeError(
                    observation_misfit(
                        type(self).__name__,
                        self.observation_mode,
                        index,
                        env.observation_space,
                        self.single_observation_space,
                    )
                )
            if env.action_space != self.single_action_space:
                raise RuntimeError(action_misfit(index, env.action_space, self.single_action_space))

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[ObsType, dict[str, Any]]:
        """Reset the sub-environments (all, or those in ``options["reset_mask"]``).

        Args:
            seed: ``None``, an int ``s`` (sub-env ``i`` gets ``s + i``) or one seed per sub-env.
            options: passed to every sub-env's ``reset``; a ``"reset_mask"`` boolean array of
                shape ``(num_envs,)`` selects the sub-envs to reset and is not passed on.

        Returns:
            The batched observations and the batched info of the reset sub-envs.

        Raises:
            ValueError: for a seed list of the wrong length or a bad ``reset_mask``.
            TypeError: for a ``reset_mask`` that is not a boolean numpy array.
            ClosedEnvironmentError: after :meth:`close`.
        """
        self._refuse_if_closed()
        seeds = seeds_per_env(seed, self.num_envs)
        mask, options = split_reset_mask(options, self.num_envs)
        if mask is None:
            mask = np.ones(self.num_envs, dtype=np.bool_)
        self._terminations[mask] = False
        self._truncations[mask] = False

        infos: dict[str, Any] = {}
        for i in np.flatnonzero(mask):
            self._env_obs[i], env_info = self._steppers[i].reset(seed=seeds[i], options=options)
            infos = self._add_info(infos, env_info, int(i))
        return self._batch_observations(), infos

    def step(
        self, actions: ActType
    ) -> tuple[ObsType, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every sub-env with its action, autoresetting as :attr:`autoreset_mode` says.

        Args:
            actions: an element of :attr:`action_space`.

        Returns:
            Batched ``(observations, rewards, terminations, truncations, infos)``.

        Raises:
            RuntimeError: with ``autoreset_mode=DISABLED``, if a sub-env whose episode ended
                was not reset (no sub-env is stepped then).
            ClosedEnvironmentError: after :meth:`close`.
        """
        infos = self._step_rows(actions, self._rewards, self._terminations, self._truncations)
        return (
            self._batch_observations(),
            np.copy(self._rewards),
            np.copy(self._terminations),
            np.copy(self._truncations),
            infos,
        )

    def _step_rows(
        self,
        actions: ActType,
        rewards: np.ndarray,
        terminations: np.ndarray,
        truncations: np.ndarray,
    ) -> dict[str, Any]:
        """Step every sub-env, writing rewards and flags into the given arrays.

        The observations go to ``_env_obs`` (one per sub-env, not yet batched); the batched
        infos are returned. :meth:`step` passes its own arrays; a pool worker passes its rows
        of shared memory.
        """
        self._refuse_if_closed()
        if self.autoreset_mode is DISABLED:
            ended = [s.index for s in self._steppers if s.needs_reset]
            if ended:
                raise disabled_step_error(ended, self.num_envs)
        infos: dict[str, Any] = {}
        env_obs = self._env_obs
        for i, (stepper, action) in enumerate(
            zip(self._steppers, actions_per_env(self.action_space, actions, self.num_envs))
        ):
            env_obs[i], rewards[i], terminations[i], truncations[i], env_info = stepper.step(action)
            self._add_info(infos, env_info, i)
        return infos

    def _refuse_if_closed(self) -> None:
        if self.closed:
            raise ClosedEnvironmentError(
                f"Trying to operate on `{type(self).__name__}`, after a call to `close()`; "
                "build a new vector env instead."
            )

    def _batch_observations(self) -> ObsType:
        self._observations = concatenate(
            self.single_observation_space, self._env_obs, self._observations
        )
        return deepcopy(self._observations) if self.copy else self._observations

    def render(self) -> tuple[RenderFrame, ...]:
        """Return the frame of every sub-environment."""
        return tuple(env.render() for env in self.envs)

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Call method ``name`` of every sub-env (or read attribute ``name`` if not callable).

        Args:
            name: the method or attribute name (looked up through wrappers).
            args: positional arguments for the method.
            kwargs: keyword arguments for the method.

        Returns:
            One result per sub-env.

        Raises:
            AttributeError: if a sub-env has no such attribute.
        """
        results = []
        for env in self.envs:
            attribute = env.get_wrapper_attr(name)
            results.append(attribute(*args, **kwargs) if callable(attribute) else attribute)
        return tuple(results)

    def set_attr(self, name: str, values: list[Any] | tuple[Any, ...] | Any) -> None:
        """Set attribute ``name`` of the sub-envs.

        Args:
            name: the attribute name.
            values: a list/tuple with one value per sub-env, or any other value for all.

        Raises:
            ValueError: if a list/tuple's length is not :attr:`num_envs`.
        """
        values = values_per_env(values, self.num_envs)
        for env, value in zip(self.envs, values, strict=True):
            env.set_wrapper_attr(name, value)

    def close_extras(self, **kwargs: Any) -> None:
        """Close every sub-environment."""
        for env in getattr(self, "envs", []):
            env.close()
