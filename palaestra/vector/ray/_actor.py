"""The Ray actor that hosts one group of sub-environments.

It serves the process layer's protocol over Ray method calls instead of a pipe: every command
is answered by :func:`~palaestra.vector.processes.answer` as ``(result, True)`` or
``(ErrorReport, False)``, so the parent rebuilds a sub-env's exception with its own type and
tells argument errors from failures exactly as the pool does.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from palaestra.vector.groups import group_call
from palaestra.vector.processes import answer, failure_report
from palaestra.vector.ray._channel import serve

__all__ = ["GroupHost"]


class GroupHost:
    """Build and run one group of sub-environments (the body of a Ray actor).

    Args:
        make_envs: builds the group's vector env (a sync vector env of single envs, or a
            natively batched one).
        start: the index of the group's first sub-environment.

    Example:
        >>> import palaestra as gym
        >>> host = GroupHost(lambda: gym.make_vec("CartPole-v1", 2), 0)
        >>> host.build()[1]
        True
        >>> host.run("reset", {"seed": [0, 1], "options": None})[0][0].shape
        (2, 4)
        >>> host.close()
    """

    def __init__(self, make_envs: Callable[[], Any], start: int):
        self.make_envs = make_envs
        self.start = start
        self.envs: Any = None
        self._lock = threading.Lock()  # Ray calls and the direct channel take turns

    def build(self) -> tuple[Any, bool]:
        """Build the group; reply ``((spaces, metadata, render_mode, where), True)``.

        ``where`` is ``(node id, process id)`` of the actor (``None`` outside Ray).
        """
        try:
            self.envs = self.make_envs()
        except BaseException as error:  # reported to the parent, which raises it
            return failure_report(self.start, error), False
        envs = self.envs
        description = (
            (envs.single_observation_space, envs.single_action_space),
            dict(envs.metadata),
            envs.render_mode,
            (_node_id(), os.getpid()),
        )
        return description, True

    def run(self, command: str, data: Any) -> tuple[Any, bool]:
        """Run ``"step"``, ``"reset"`` or ``"_call"`` on the group; reply as the protocol says."""
        with self._lock:
            return answer(self.start, self._handle, command, data, self.envs.action_space)

    def open_channel(self, token: bytes) -> str:
        """Serve :meth:`run` over a direct channel too; return its socket path.

        See :mod:`palaestra.vector.ray._channel`: the parent connects to the path and sends
        ``token`` first.
        """
        return serve(token, self.run)

    def _handle(self, command: str, data: Any) -> Any:
        if command == "step":
            observations, rewards, terminations, truncations, info = self.envs.step(data)
            # Plain lists pickle in half the time of small arrays (about 10 us a reply) and
            # are written back into the parent's float64/bool rows exactly.
            return (
                observations,
                np.asarray(rewards, dtype=np.float64).tolist(),
                np.asarray(terminations, dtype=np.bool_).tolist(),
                np.asarray(truncations, dtype=np.bool_).tolist(),
                info,
            )
        if command == "reset":
            return self.envs.reset(**data)
        if command == "_call":
            name, args, kwargs = data
            return group_call(self.envs, name, args, kwargs)
        raise ValueError(f"Unknown command {command!r}.")

    def close(self) -> None:
        """Close the group's vector env."""
        with self._lock:
            if self.envs is not None:
                self.envs.close()
                self.envs = None


def _node_id() -> str | None:
    """Return the Ray node id of this process, ``None`` outside a Ray worker."""
    ray = sys.modules.get("ray")
    if ray is None or not ray.is_initialized():
        return None
    try:
        return ray.get_runtime_context().get_node_id()
    except Exception:
        return None
