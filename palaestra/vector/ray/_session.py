"""The Ray session that Ray vector envs run in: started by them, or found running.

A session the envs started is theirs: the last of them to close shuts it down (its
``gcs_server``, raylet and workers end with it). A session found running (the user's own
``ray.init``, or a cluster joined by address) is left alone. Every use checks that Ray still
runs: Ray's API starts a new local Ray on any call made after ``ray.shutdown()``, which
here would be a hidden cluster started by a thread still stepping.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from palaestra.error import WorkerError

__all__ = ["RaySession"]

_LOCK = threading.Lock()
# The node id of the Ray session the envs started (None: none running), and their count.
_OWNED_NODE: str | None = None
_USERS = 0


def _node_id(ray: Any) -> str | None:
    with contextlib.suppress(Exception):
        return ray.get_runtime_context().get_node_id()
    return None


class RaySession:
    """One env's hold on the Ray session: joins (or starts) it, checks it, lets it go.

    Args:
        ray: the ``ray`` module.
        address: the cluster to join when Ray is not initialised (``None``: a local Ray).
        init_kwargs: further ``ray.init`` arguments when starting it.
    """

    def __init__(self, ray: Any, address: str | None, init_kwargs: dict[str, Any]):
        global _OWNED_NODE, _USERS
        self.ray = ray
        self.owned = False
        with _LOCK:
            if not ray.is_initialized():
                ray.init(address=address, **init_kwargs)
                _OWNED_NODE, _USERS = _node_id(ray), 0
            self.node_id = _node_id(ray)
            if _OWNED_NODE is not None and self.node_id == _OWNED_NODE:
                self.owned = True
                _USERS += 1

    def running(self) -> bool:
        """Whether Ray still runs (``ray.shutdown()`` was not called since)."""
        return bool(self.ray.is_initialized())

    def api(self) -> Any:
        """Return the ``ray`` module, once it is known to run.

        Raises:
            palaestra.error.WorkerError: if Ray was shut down (nothing was started instead).
        """
        if not self.ray.is_initialized():
            raise WorkerError(
                "RayVectorEnv cannot continue: Ray was shut down (ray.shutdown()) while this "
                "vector env was in use, which ended its actors. Call `close()` and create a "
                "new vector env."
            )
        return self.ray

    def release(self) -> None:
        """Let the session go: the last env of a session the envs started shuts it down."""
        global _OWNED_NODE, _USERS
        if not self.owned:
            return
        self.owned = False
        with _LOCK:
            if self.node_id != _OWNED_NODE:
                return  # shut down (and maybe started again) by someone else meanwhile
            _USERS -= 1
            if _USERS > 0:
                return
            _OWNED_NODE = None
            if self.ray.is_initialized() and _node_id(self.ray) == self.node_id:
                self.ray.shutdown()
