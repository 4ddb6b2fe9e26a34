"""Conversion of observations, actions and infos between array libraries (the array API).

An environment computing with one library (say numpy) can be driven by an agent using another
(say PyTorch): actions are converted into the env's library and everything returned into the
agent's. Any two libraries supported by ``array-api-compat`` work; arrays move through DLPack,
so conversions share memory where the devices allow it.

Example:
    >>> import numpy as np
    >>> array_conversion({"position": np.zeros(2), "label": "left"}, module_namespace(np))
    {'position': array([0., 0.]), 'label': 'left'}
"""

from __future__ import annotations

import importlib
import numbers
from collections.abc import Iterable, Mapping
from functools import singledispatch
from types import ModuleType
from typing import Any, SupportsFloat

import numpy as np

from palaestra.core import Env, RenderFrame, Wrapper, WrapperActType, WrapperObsType
from palaestra.error import DependencyNotInstalled
from palaestra.utils import RecordConstructorArgs

try:
    from array_api_compat import array_namespace, is_array_api_obj, is_numpy_namespace, to_device
except ImportError as error:
    raise DependencyNotInstalled(
        "array-api-compat is not installed, so arrays cannot be converted between libraries; "
        'run `pip install "palaestra[torch]"` (or `palaestra[jax]`).'
    ) from error

__all__ = ["ArrayConversion", "array_conversion", "module_namespace", "module_name_to_namespace"]

Device = Any


def module_namespace(xp: ModuleType) -> ModuleType:
    """Return the array-API namespace of an array library module (e.g. ``numpy``, ``torch``).

    Args:
        xp: the library module, or already its array-API namespace.

    Raises:
        ValueError: if ``xp`` cannot create arrays the array API recognises.

    Example:
        >>> module_namespace(np).__name__
        'array_api_compat.numpy'
    """
    try:
        return array_namespace(xp.empty(0))
    except (AttributeError, TypeError) as error:
        raise ValueError(
            f"Module {xp} is not an Array API compatible module; pass a library such as "
            "numpy, torch or jax.numpy."
        ) from error


def module_name_to_namespace(name: str) -> ModuleType:
    """Import a library by name and return its array-API namespace.

    Args:
        name: an importable module name such as ``"numpy"`` or ``"torch"``.

    Example:
        >>> module_name_to_namespace("numpy").__name__
        'array_api_compat.numpy'
    """
    return module_namespace(importlib.import_module(name))


def namespace_name(xp: ModuleType) -> str:
    """Return the importable name of the library behind an array-API namespace.

    Args:
        xp: a library module or its array-API namespace.

    Example:
        >>> namespace_name(module_namespace(np))
        'numpy'
    """
    return xp.__name__.removeprefix("array_api_compat.")


@singledispatch
def array_conversion(value: Any, xp: ModuleType, device: Device | None = None) -> Any:
    """Convert ``value`` (arrays, numbers, and dicts/tuples/lists of them) into library ``xp``.

    Containers keep their type (namedtuples included) and are converted element-wise;
    numpy object arrays stay object arrays of converted elements; strings and ``None`` pass
    through unchanged.

    Args:
        value: the value to convert.
        xp: the target array-API namespace (see :func:`module_namespace`).
        device: the target device, or ``None`` for the library's default.

    Raises:
        TypeError: for a value of a type with no known conversion.

    Example:
        >>> array_conversion((1.5, [np.int64(2)]), module_namespace(np))
        (array(1.5), [array(2)])
    """
    raise TypeError(
        f"No known conversion of a {type(value)} to the array module {xp}; convert it to an "
        "array, number, mapping or sequence first, or register one with "
        "`array_conversion.register`."
    )


@array_conversion.register(numbers.Number)
@array_conversion.register(np.generic)
def _convert_scalar(value: Any, xp: ModuleType, device: Device | None = None) -> Any:
    return xp.asarray(value, device=device)


@array_conversion.register(str)
@array_conversion.register(bytes)
@array_conversion.register(type(None))
def _pass_through(value: Any, xp: ModuleType, device: Device | None = None) -> Any:
    return value


@array_conversion.register(Mapping)
def _convert_mapping(
    value: Mapping[str, Any], xp: ModuleType, device: Device | None = None
) -> Mapping[str, Any]:
    return type(value)(**{key: array_conversion(item, xp, device) for key, item in value.items()})


@array_conversion.register(Iterable)
def _convert_iterable(value: Iterable[Any], xp: ModuleType, device: Device | None = None) -> Any:
    # Object arrays (such as ``final_obs`` of a vector env) cannot cross DLPack; their
    # elements are converted one by one into an object array of the same shape.
    if isinstance(value, np.ndarray) and value.dtype == object:
        converted_elements = np.empty(value.shape, dtype=object)
        for index in np.ndindex(value.shape):
            converted_elements[index] = array_conversion(value[index], xp, device)
        return converted_elements
    # Arrays are iterable too, and there is no common base class to dispatch on.
    if is_array_api_obj(value):
        return convert_array(value, xp, device)
    converted = (array_conversion(item, xp, device) for item in value)
    if hasattr(value, "_make"):  # a namedtuple
        return type(value)._make(converted)
    return type(value)(converted)


def _exportable(value: Any) -> Any:
    # DLPack carries neither autograd history nor negative strides (PyTorch even aborts the
    # process on the latter), so such arrays are detached or copied first.
    if getattr(value, "requires_grad", False):
        value = value.detach()
    if isinstance(value, np.ndarray) and any(stride < 0 for stride in value.strides):
        value = np.ascontiguousarray(value)
    return value


def convert_array(value: Any, xp: ModuleType, device: Device | None = None) -> Any:
    """Move one array into library ``xp`` through DLPack, then onto ``device``.

    Args:
        value: an array of any array-API library.
        xp: the target array-API namespace.
        device: the target device, or ``None`` to keep the array where DLPack puts it.

    Example:
        >>> convert_array(np.arange(3), module_namespace(np))
        array([0, 1, 2])
    """
    if is_numpy_namespace(xp):
        device = "cpu"
    value = _exportable(value)
    try:
        converted = xp.from_dlpack(value)
    except BufferError:
        # A read-only buffer cannot be shared; hand over a writable copy instead.
        converted = xp.from_dlpack(array_namespace(value).asarray(value, copy=True))
    except RuntimeError:
        # The source lives on a device the target library cannot read; go through the CPU.
        converted = xp.from_dlpack(to_device(value, "cpu"))
    return converted if device is None else to_device(converted, device)


class _LibraryBridge:
    """The conversion state shared by the single-env and vector :class:`ArrayConversion`.

    Subclasses call :meth:`_setup_bridge` in ``__init__`` after recording their constructor
    arguments; the bridge converts values both ways, resets with converted options, and
    pickles the libraries by name.
    """

    env: Any
    _saved_kwargs: dict[str, Any]

    def _setup_bridge(
        self,
        env_xp: ModuleType,
        target_xp: ModuleType,
        env_device: Device | None,
        target_device: Device | None,
    ) -> None:
        self._env_xp = module_namespace(env_xp)
        self._target_xp = module_namespace(target_xp)
        self._env_device = env_device
        self._target_device = target_device

    def _to_env(self, value: Any) -> Any:
        return array_conversion(value, xp=self._env_xp, device=self._env_device)

    def _to_target(self, value: Any) -> Any:
        return array_conversion(value, xp=self._target_xp, device=self._target_device)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Convert the options, reset the env and convert the observation(s) and info."""
        if options:
            options = self._to_env(options)
        return self._to_target(self.env.reset(seed=seed, options=options))

    def __getstate__(self) -> dict[str, Any]:
        # Modules do not pickle: store the libraries by name.
        state = dict(self.__dict__)
        state["_env_xp"] = namespace_name(self._env_xp)
        state["_target_xp"] = namespace_name(self._target_xp)
        state["_saved_kwargs"] = {
            key: namespace_name(value) if isinstance(value, ModuleType) else value
            for key, value in self._saved_kwargs.items()
        }
        return state

    def __setstate__(self, d: dict[str, Any]) -> None:
        state = dict(d)
        state["_env_xp"] = module_name_to_namespace(state["_env_xp"])
        state["_target_xp"] = module_name_to_namespace(state["_target_xp"])
        state["_saved_kwargs"] = {
            key: importlib.import_module(value) if key.endswith("_xp") else value
            for key, value in state["_saved_kwargs"].items()
        }
        self.__dict__.update(state)


class ArrayConversion(_LibraryBridge, Wrapper, RecordConstructorArgs):
    """Let an agent using one array library drive an environment using another.

    Actions (and reset options) are converted from the agent's library ``target_xp`` into the
    env's ``env_xp``; observations, infos and render frames the other way. Rewards and flags
    become Python ``float`` and ``bool``. The wrapper pickles by library name.

    Args:
        env: the environment to wrap.
        env_xp: the env's array library (a module such as ``numpy``).
        target_xp: the agent's array library.
        env_device: the device the env's arrays go to (``None`` for the default).
        target_device: the device the agent's arrays go to (``None`` for the default).

    Raises:
        ValueError: if a module is not an array-API compatible library.

    Example:
        >>> import palaestra as gym
        >>> env = ArrayConversion(gym.make("CartPole-v1"), env_xp=np, target_xp=np)
        >>> type(env.reset(seed=0)[0]).__name__
        'ndarray'
    """

    def __init__(
        self,
        env: Env,
        env_xp: ModuleType,
        target_xp: ModuleType,
        env_device: Device | None = None,
        target_device: Device | None = None,
    ):
        # Modules cannot be deep-copied, so they are recorded as given.
        RecordConstructorArgs.__init__(
            self,
            _disable_deepcopy=True,
            env_xp=env_xp,
            target_xp=target_xp,
            env_device=env_device,
            target_device=target_device,
        )
        Wrapper.__init__(self, env)
        self._setup_bridge(env_xp, target_xp, env_device, target_device)

    def step(
        self, action: WrapperActType
    ) -> tuple[WrapperObsType, SupportsFloat, bool, bool, dict]:
        """Convert the action, step the env and convert what it returns."""
        obs, reward, terminated, truncated, info = self.env.step(self._to_env(action))
        return (
            self._to_target(obs),
            float(reward),
            bool(terminated),
            bool(truncated),
            self._to_target(info),
        )

    def render(self) -> RenderFrame | list[RenderFrame] | None:
        """Render the env and convert the frame(s)."""
        return self._to_target(self.env.render())
