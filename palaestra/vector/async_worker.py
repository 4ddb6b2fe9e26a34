"""The loop a worker process of :class:`~palaestra.vector.AsyncVectorEnv` runs.

The parent sends ``(command, data)`` tuples through a pipe and the worker answers each with
exactly one ``(result, success)`` tuple (the protocol of :mod:`palaestra.vector.processes`).
On failure the result is an :class:`~palaestra.vector.processes.ErrorReport` ``(index,
exception type, message, traceback, fatal)``; the worker shuts down after a fatal one and
keeps serving after an argument error (a bad action, seed or call name). A custom
``worker`` passed to ``AsyncVectorEnv`` speaks the same protocol (Gymnasium's protocol,
where a failure answer is ``(None, False)`` after putting the error on ``error_queue``, is
understood too).

Commands: ``reset`` (``{"seed", "options"}``), ``reset-noop``, ``step`` (an action),
``close``, ``_call`` (``(name, args, kwargs)``), ``_setattr`` (``(name, value)``),
``_check_spaces`` (``(observation_mode, single_observation_space, single_action_space)``).
"""

from __future__ import annotations

import contextlib
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any

from palaestra.vector._arguments import observation_space_fits
from palaestra.vector.episodes import SubEnvStepper
from palaestra.vector.processes import answer, failure_report
from palaestra.vector.utils import write_to_shared_memory
from palaestra.vector.vector_env import AutoresetMode

if TYPE_CHECKING:
    from multiprocessing import Queue, synchronize
    from multiprocessing.sharedctypes import SynchronizedArray

__all__ = ["async_worker", "failure_report", "COMMANDS"]

COMMANDS = ("reset", "reset-noop", "step", "close", "_call", "_setattr", "_check_spaces")
_NOT_CALLABLE = ("reset", "step", "close", "_setattr", "_check_spaces")


class _SubEnvironment:
    """One sub-environment inside a worker: its episode stepper and observation publishing."""

    def __init__(self, index: int, env: Any, shared_memory: Any, autoreset_mode: AutoresetMode):
        self.index = index
        self.env = env
        self.shared_memory = shared_memory
        self.stepper = SubEnvStepper(env, autoreset_mode, index)
        self.observation: Any = None

    def _publish(self, observation: Any) -> Any:
        """Keep the observation; with shared memory write it there and send nothing back."""
        self.observation = observation
        if not self.shared_memory:
            return observation
        write_to_shared_memory(
            self.env.observation_space, self.index, observation, self.shared_memory
        )
        return None

    def reset(self, seed: Any = None, options: Any = None) -> tuple[Any, dict[str, Any]]:
        observation, info = self.stepper.reset(seed=seed, options=options)
        return self._publish(observation), info

    def reset_noop(self) -> tuple[Any, dict[str, Any]]:
        return (None if self.shared_memory else self.observation), {}

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.stepper.step(action)
        return self._publish(observation), reward, terminated, truncated, info

    def call(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if name in _NOT_CALLABLE:
            raise ValueError(
                f"Trying to call function `{name}` with `call`, use `{name}` directly instead."
            )
        attribute = self.env.get_wrapper_attr(name)
        return attribute(*args, **kwargs) if callable(attribute) else attribute

    def check_spaces(self, mode: Any, single_observation: Any, single_action: Any) -> tuple:
        return (
            observation_space_fits(mode, single_observation, self.env.observation_space),
            single_action == self.env.action_space,
        )


def _answer(sub_env: _SubEnvironment, command: str, data: Any) -> Any:
    if command == "reset":
        return sub_env.reset(**data)
    if command == "reset-noop":
        return sub_env.reset_noop()
    if command == "step":
        return sub_env.step(data)
    if command == "_call":
        return sub_env.call(*data)
    if command == "_setattr":
        name, value = data
        sub_env.env.set_wrapper_attr(name, value)
        return None
    if command == "_check_spaces":
        return sub_env.check_spaces(*data)
    raise RuntimeError(f"Received unknown command `{command}`. Must be one of {list(COMMANDS)}.")


def async_worker(  # the annotations read as Gymnasium's, which its error messages print
    index: int,
    env_fn: Callable,
    pipe: Connection,
    parent_pipe: Connection,
    shared_memory: SynchronizedArray | dict[str, Any] | tuple[Any, ...],
    error_queue: Queue,
    autoreset_mode: AutoresetMode,
    semaphore: synchronize.Semaphore | None,
) -> None:
    """Build sub-env ``index`` and serve the parent's commands until ``close`` or an error.

    Args:
        index: the sub-env's index in the vector env.
        env_fn: builds the sub-env.
        pipe: this worker's end of the pipe.
        parent_pipe: the parent's end, closed here so a dead parent shows as EOF.
        shared_memory: observation buffer from ``create_shared_memory``, or ``None``.
        error_queue: unused by this worker (errors travel in the pipe); kept for the hook's
            signature.
        autoreset_mode: how ended episodes are reset.
        semaphore: limits how many workers are in ``reset``/``step`` at once, or ``None``.
    """
    parent_pipe.close()
    sub_env = None
    try:
        sub_env = _SubEnvironment(index, env_fn(), shared_memory, autoreset_mode)
    except (KeyboardInterrupt, Exception) as error:
        _send_quietly(pipe, (failure_report(index, error), False))
        return

    def handle(command: str, data: Any) -> Any:
        throttled = semaphore is not None and command in ("reset", "step")
        if throttled:
            semaphore.acquire()
        try:
            return _answer(sub_env, command, data)
        finally:
            if throttled:
                semaphore.release()

    try:
        while True:
            command, data = pipe.recv()
            if command == "close":
                break
            reply = answer(index, handle, command, data, sub_env.env.action_space)
            pipe.send(reply)
            if not reply[1] and reply[0].fatal:
                return
    except (KeyboardInterrupt, Exception) as error:
        _send_quietly(pipe, (failure_report(index, error), False))
        return
    finally:
        _close_quietly(sub_env.env)
    _send_quietly(pipe, (None, True))


def _close_quietly(env: Any) -> None:
    try:
        env.close()
    except Exception:
        traceback.print_exc()


def _send_quietly(pipe: Connection, message: Any) -> None:
    """Send a last message; a parent that is already gone cannot be told anything."""
    with contextlib.suppress(BrokenPipeError, EOFError, OSError):
        pipe.send(message)
