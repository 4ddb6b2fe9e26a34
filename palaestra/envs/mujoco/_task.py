"""The step of the built-in MuJoCo environments, written once for one env and for a batch.

A :class:`MujocoTaskEnv` describes its task by a few hooks that read MuJoCo data fields
(``qpos``, ``xpos``, ``cfrc_ext``, ...) with the batch axes first: given an ``MjData`` they
compute one environment's observation, reward and termination; given ``(num_envs, ...)``
arrays of the same fields, as :class:`palaestra.envs.mujoco.vector.MujocoVectorEnv` binds
them, they compute the whole batch's in the same numpy operations, so that both give the
same numbers bit for bit.
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from palaestra.envs._actions import as_array_action
from palaestra.envs.mujoco.mujoco_env import DEFAULT_SIZE, MujocoEnv
from palaestra.spaces import Box
from palaestra.utils.ezpickle import EzPickle

__all__ = [
    "DEFAULT_SIZE",
    "clip",
    "col",
    "MujocoTaskEnv",
    "ForwardRunnerEnv",
    "SquaredControlCost",
    "SurvivalBonus",
    "SurvivalBonusV4",
    "flat_tail",
    "norm",
    "pow_square",
    "scalars",
    "square_sum",
]

RENDER_MODES = ["human", "rgb_array", "depth_array", "rgbd_tuple"]


def col(values: NDArray[Any], index: int) -> Any:
    """Return ``values[..., index]``: a numpy scalar for one env's 1-D field, else a column.

    Numpy scalars compute faster than the 0-d arrays ``[..., index]`` gives a 1-D array.

    Example:
        >>> col(np.array([1.0, 2.0]), 1), col(np.array([[1.0, 2.0]]), 1).tolist()
        (np.float64(2.0), [2.0])
    """
    return values[index] if values.ndim == 1 else values[..., index]


def norm(vectors: NDArray[np.float64]) -> Any:
    """Euclidean norms along the last axis, equal bit for bit to ``np.linalg.norm(v)``.

    Example:
        >>> float(norm(np.array([3.0, 4.0])))
        5.0
    """
    return np.sqrt(np.vecdot(vectors, vectors))


def pow_square(values: NDArray[np.float64]) -> Any:
    """``value ** 2`` as a numpy scalar rounds it (the C library's ``pow``), element-wise.

    Arrays square by multiplying, which differs from ``pow`` by an ulp now and then; a
    single environment's 0-d values are squared as scalars, a batch's with
    :func:`palaestra.vector.native.exact_squares.scalar_pow_square`.

    Example:
        >>> float(pow_square(np.array(3.0)))
        9.0
    """
    if values.ndim == 0:
        return values[()] ** 2
    from palaestra.vector.native.exact_squares import scalar_pow_square

    return scalar_pow_square(values)


# The trailing axes a reduction over the last n axes names (np.sum's reduction, called
# directly: the same ufunc reduce without np.sum's argument handling).
_TAILS = {axes: tuple(range(-axes, 0)) for axes in (1, 2, 3)}
_add_reduce = np.add.reduce
_all = np.logical_and.reduce


def square_sum(values: NDArray[Any], axes: int = 1) -> Any:
    """Sum the squares over the last ``axes`` axes, as ``np.sum(np.square(v))`` sums them.

    Example:
        >>> float(square_sum(np.array([1.0, 2.0])))
        5.0
    """
    if values.ndim == axes:
        return _add_reduce(np.square(values), axis=None)
    return _add_reduce(np.square(values), axis=_TAILS[axes])


def clip(values: Any, low: Any, high: Any) -> Any:
    """``np.clip(values, low, high)``, bit for bit: the same maximum, then minimum.

    Two ufunc calls, without ``np.clip``'s argument handling.

    Example:
        >>> clip(np.array([-2.0, 0.5, 3.0]), -1.0, 1.0).tolist()
        [-1.0, 0.5, 1.0]
    """
    return np.minimum(np.maximum(values, low), high)


def control_cost(weight: Any, action: Any) -> Any:
    """``weight`` times the sum of the squared controls (as numpy types it: NEP 50).

    Example:
        >>> float(control_cost(0.5, np.array([1.0, 2.0])))
        2.5
    """
    return weight * square_sum(action)


def all_along_last(values: NDArray[np.bool_]) -> Any:
    """Whether every entry along the last axis is true (one flag per environment).

    Example:
        >>> all_along_last(np.array([[True, False], [True, True]])).tolist()
        [False, True]
    """
    return _all(values, axis=-1)


def as_int(values: Any) -> Any:
    """Return flags as int64 (an array's, or one numpy flag's).

    Example:
        >>> as_int(np.array([True, False])).tolist()
        [1, 0]
    """
    return values.astype(np.int64)


def flat_tail(values: NDArray[Any], axes: int = 2) -> NDArray[Any]:
    """Flatten the last ``axes`` axes into one (per environment, row-major).

    Example:
        >>> flat_tail(np.zeros((2, 3, 4))).shape
        (2, 12)
    """
    return values.reshape((*values.shape[: values.ndim - axes], -1))


def scalars(info: dict[str, Any]) -> dict[str, Any]:
    """Turn 0-d arrays (one environment's values) into numpy scalars, in place.

    Example:
        >>> scalars({"x": np.array(1.5)})
        {'x': np.float64(1.5)}
    """
    ndarray = np.ndarray
    for key, value in info.items():
        if type(value) is ndarray and not value.shape:
            info[key] = value[()]
    return info


class _SettingsTuples:
    """Where the settings' named tuple classes live, so that pickle finds them by name.

    numba keys a cached function by the pickled types of its arguments: a class pickled by
    name pickles the same in every process.
    """


def named_tuple_class(names: tuple[str, ...]) -> type:
    """Return a named tuple class of the given attribute names (underscores off), by name.

    Example:
        >>> named_tuple_class(("dt", "_ctrl_cost_weight"))._fields
        ('dt', 'ctrl_cost_weight')
    """
    fields = tuple(name.lstrip("_") for name in names)
    key = "Settings_" + "_".join(fields)
    found = getattr(_SettingsTuples, key, None)
    if found is None:
        found = collections.namedtuple("Settings", fields)  # type: ignore[misc]
        found.__module__ = __name__
        found.__qualname__ = f"_SettingsTuples.{key}"
        setattr(_SettingsTuples, key, found)
    return found


class MujocoTaskEnv(MujocoEnv, EzPickle):
    """A MuJoCo environment whose step is described by batch-capable hooks.

    Subclasses set :attr:`read_fields` (the ``MjData`` fields their hooks read after a step)
    and implement :meth:`_reset_state`, where the step's reward depends on where something
    was before it :meth:`_progress`, and their step either as :meth:`_observe` and
    :meth:`_outcome` or, compiled by the numba accelerator too, as pure functions:
    :attr:`observe_function` ``(settings, data)`` and :attr:`step_outcome` ``(settings,
    data, before, action)`` returning the observation, reward, termination and the values
    of :attr:`info_keys`; ``settings`` is the named tuple of the attributes
    :attr:`settings_names` lists (see :meth:`settings`).
    """

    metadata = {"render_modes": RENDER_MODES}
    # The MjData fields the hooks read; the batched env binds these.
    read_fields: tuple[str, ...] = ("qpos", "qvel")
    # Whether the hooks read cfrc_ext (computed after the step by mj_rnePostConstraint).
    reads_contact_forces = False
    # The step as pure functions (staticmethods), or None: the _observe/_outcome hooks.
    observe_function: Any = None
    step_outcome: Any = None
    # The keys of step_outcome's info values, and the attributes its settings hold.
    info_keys: tuple[str, ...] = ()
    settings_names: tuple[str, ...] = ()
    # The task's own functions that step_outcome calls (compiled with it).
    outcome_helpers: tuple[Callable[..., Any], ...] = ()
    # The constructor arguments a natively batched env takes one value of per sub-env.
    sub_env_parameters: tuple[str, ...] = ()

    def _finish_init(self) -> None:
        # v5 environments derive the frame rate from the step length; v4 ones fix it.
        if "render_fps" not in type(self).metadata:
            self.metadata = {
                "render_modes": RENDER_MODES,
                "render_fps": int(np.round(1.0 / self.dt)),
            }
        # The fields the step hooks read, bound once (each attribute access of an MjData
        # field makes a new array); they stay views of self.data's memory.
        names = sorted({"qpos", "qvel", "ctrl", *self.read_fields})
        self._fields = SimpleNamespace(**{name: getattr(self.data, name) for name in names})
        self._settings_class = named_tuple_class(self.settings_names)

    def _start(
        self,
        xml_file: str,
        frame_skip: int,
        default_camera_config: Any,
        kwargs: dict[str, Any],
        observation_space: Box | None = None,
    ) -> None:
        """Load the model (MujocoEnv's constructor with ``kwargs``), then the metadata."""
        MujocoEnv.__init__(
            self,
            xml_file,
            frame_skip,
            observation_space=observation_space,
            default_camera_config=default_camera_config,
            **kwargs,
        )
        self._finish_init()

    def _set_state_observation(self, skipped: int, **extra: int) -> None:
        """Set the space and structure of observations of qpos (less ``skipped``), qvel, extras.

        Args:
            skipped: how many leading ``qpos`` entries the observation leaves out.
            **extra: the sizes of the parts that follow ``qvel``, in order.
        """
        qpos_size, qvel_size = self.data.qpos.size, self.data.qvel.size
        size = qpos_size + qvel_size - skipped + sum(extra.values())
        self.observation_space = Box(low=-np.inf, high=np.inf, shape=(size,), dtype=np.float64)
        self.observation_structure = {
            "skipped_qpos": skipped,
            "qpos": qpos_size - skipped,
            "qvel": qvel_size,
            **extra,
        }

    def _noisy_state(
        self, np_random: np.random.Generator, normal_qvel: bool = False
    ) -> tuple[NDArray, NDArray]:
        """Return the initial state plus noise of scale ``_reset_noise_scale`` (qpos's first).

        Args:
            np_random: the generator to draw from.
            normal_qvel: draw qvel's noise normal (else uniform, as qpos's always is).
        """
        scale = self._reset_noise_scale
        qpos = self.init_qpos + np_random.uniform(low=-scale, high=scale, size=self.model.nq)
        if normal_qvel:
            qvel = self.init_qvel + scale * np_random.standard_normal(self.model.nv)
        else:
            qvel = self.init_qvel + np_random.uniform(low=-scale, high=scale, size=self.model.nv)
        return qpos, qvel

    # Hooks ------------------------------------------------------------------------------

    def _progress(self, data: Any) -> Any:
        """Return what the reward compares before and after the step (``None``: nothing)."""
        return None

    def settings(self) -> Any:
        """Return the named tuple of the attributes :attr:`settings_names` lists, as they are.

        Example:
            >>> from palaestra.envs.mujoco.half_cheetah_v5 import HalfCheetahEnv
            >>> HalfCheetahEnv().settings().ctrl_cost_weight
            0.1
        """
        return self._settings_class(*[getattr(self, name) for name in self.settings_names])

    def compiled_supports(self, settings: Any) -> bool:
        """Whether the compiled outcome may take ``settings`` (a hook; checked once per kind).

        A task declines values where numpy's own result depends on more than the numbers
        (such as a clip bound of zero, whose signed-zero ties numpy may order either way).
        """
        return True

    def _observe(self, data: Any) -> NDArray[np.float64]:
        """Return the observation(s) of ``data``."""
        return self.observe_function(self.settings(), data)

    def _outcome(self, data: Any, before: Any, action: Any) -> tuple[Any, Any, dict[str, Any]]:
        """``(reward, terminated, info)`` after a step from ``before`` under ``action``."""
        if self.step_outcome is None:
            raise NotImplementedError
        return self._observe_outcome(data, before, action)[1:]

    def _observe_outcome(
        self, data: Any, before: Any, action: Any
    ) -> tuple[NDArray[np.float64], Any, Any, dict[str, Any]]:
        """``(observation, reward, terminated, info)`` after a step: both hooks at once.

        A task with a :attr:`step_outcome` runs it; another runs :meth:`_observe` and
        :meth:`_outcome`.
        """
        if self.step_outcome is None:
            return self._observe(data), *self._outcome(data, before, action)
        observation, reward, terminated, info = self.step_outcome(
            self.settings(), data, before, action
        )
        return observation, reward, terminated, dict(zip(self.info_keys, info))

    def _reset_state(self, np_random: np.random.Generator) -> tuple[NDArray, NDArray]:
        """Draw one initial ``(qpos, qvel)`` from ``np_random``."""
        raise NotImplementedError

    def _reset_info(self, data: Any) -> dict[str, Any]:
        """Return the reset ``info`` of ``data``."""
        return {}

    # The Env API ------------------------------------------------------------------------

    def step(self, action: NDArray[np.float32]) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        """Apply ``action`` for ``frame_skip`` physics steps.

        Returns:
            ``(observation, reward, terminated, False, info)``; the time limit is the
            ``TimeLimit`` wrapper's.

        Raises:
            ValueError: if the action does not have shape ``(nu,)``.
        """
        action = as_array_action(action)
        fields = self._fields
        before = self._progress(fields)
        self.do_simulation(action, self.frame_skip)
        observation, reward, terminated, info = self._observe_outcome(fields, before, action)
        if self.render_mode == "human":
            self.render()
        if isinstance(reward, np.ndarray):
            reward = reward[()]
        return observation, reward, bool(terminated), False, scalars(info)

    def reset_model(self) -> NDArray[np.float64]:
        """Draw the initial state from :attr:`np_random` and return its observation."""
        qpos, qvel = self._reset_state(self.np_random)
        self.set_state(qpos, qvel)
        return self._observe(self.data)

    def _get_reset_info(self) -> dict[str, Any]:
        return scalars(self._reset_info(self.data))


class SquaredControlCost:
    """Mixed into a task env: the control cost is quadratic in the action.

    Example:
        >>> from palaestra.envs.mujoco.half_cheetah_v5 import HalfCheetahEnv
        >>> float(HalfCheetahEnv().control_cost(np.ones(6)))
        0.6000000000000001
    """

    _ctrl_cost_weight: float

    def control_cost(self, action: Any) -> Any:
        """``ctrl_cost_weight`` times the sum of squared controls."""
        return control_cost(self._ctrl_cost_weight, action)


class SurvivalBonus:
    """Mixed into a task env whose ``_is_healthy(data)`` hook says whether it is healthy.

    Example:
        >>> from palaestra.envs.mujoco.hopper_v5 import HopperEnv
        >>> env = HopperEnv()
        >>> _ = env.reset(seed=0)
        >>> float(env.healthy_reward)
        1.0
    """

    _healthy_reward: float

    @property
    def healthy_reward(self) -> float:
        """The survival bonus of the current state."""
        return self._is_healthy(self.data) * self._healthy_reward


class SurvivalBonusV4:
    """Mixed into a version 4 env: the survival bonus is paid always while termination is on.

    Example:
        >>> from palaestra.envs.mujoco.ant_v4 import AntEnv
        >>> env = AntEnv()
        >>> _ = env.reset(seed=0)
        >>> env.healthy_reward, env.terminated
        (1.0, False)
    """

    _healthy_reward: float
    _terminate_when_unhealthy: bool

    @property
    def healthy_reward(self) -> float:
        """The survival bonus: paid while healthy, or always with termination on."""
        return float(self.is_healthy or self._terminate_when_unhealthy) * self._healthy_reward

    @property
    def terminated(self) -> bool:
        """Whether the episode ends here."""
        return (not self.is_healthy) if self._terminate_when_unhealthy else False


class ForwardRunnerEnv(SquaredControlCost, MujocoTaskEnv):
    """A task paid for forward speed less a squared control cost, with no health rule.

    Subclasses call :meth:`_setup` from their constructor.

    Example:
        >>> from palaestra.envs.mujoco.swimmer_v5 import SwimmerEnv
        >>> issubclass(SwimmerEnv, ForwardRunnerEnv)
        True
    """

    def _setup(
        self,
        xml_file: str,
        frame_skip: int,
        default_camera_config: Any,
        forward_reward_weight: float,
        ctrl_cost_weight: float,
        reset_noise_scale: float,
        exclude_current_positions_from_observation: bool,
        kwargs: dict[str, Any],
        position_axes: int,
    ) -> None:
        """Keep the weights, load the model and set the qpos/qvel observation space.

        The constructor's arguments come in its order; ``position_axes`` is how many
        leading ``qpos`` entries (the position) ``exclude_current_positions_from_observation``
        leaves out of the observation.
        """
        self._forward_reward_weight = forward_reward_weight
        self._ctrl_cost_weight = ctrl_cost_weight
        self._reset_noise_scale = reset_noise_scale
        self._exclude_current_positions_from_observation = (
            exclude_current_positions_from_observation
        )
        self._start(xml_file, frame_skip, default_camera_config, kwargs)
        self._set_state_observation(position_axes * exclude_current_positions_from_observation)
