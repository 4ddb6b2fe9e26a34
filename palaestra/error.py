"""Exceptions raised by palaestra, named as Gymnasium names them.

Code that catches ``gymnasium.error.X`` can catch ``palaestra.error.X`` the same way.

Example:
    >>> import palaestra as gym
    >>> try:
    ...     gym.spec("NoSuchEnv-v0")
    ... except gym.error.NameNotFound as e:
    ...     print(type(e).__name__)
    NameNotFound
"""

from __future__ import annotations


class Error(Exception):
    """Base class of every palaestra-specific error."""


class UnregisteredEnv(Error):
    """No environment is registered under the requested id."""


class NamespaceNotFound(UnregisteredEnv):
    """The namespace of the requested id has no registered environments."""


class NameNotFound(UnregisteredEnv):
    """No environment of the requested name exists (in the requested namespace)."""


class VersionNotFound(UnregisteredEnv):
    """The environment exists, but not at the requested version."""


class DeprecatedEnv(Error):
    """The requested version exists but a newer one replaces it."""


class RegistrationError(Error):
    """An environment id or spec is malformed, or registering it would be ambiguous."""


class DependencyNotInstalled(Error):
    """An optional dependency (an extra) needed for this feature is not installed."""


class UnsupportedMode(Error):
    """A render mode was requested that the environment does not support."""


class InvalidMetadata(Error):
    """An environment's ``metadata`` is malformed."""


class ResetNeeded(Error):
    """The environment was stepped or rendered before ``reset`` was called."""


class InvalidAction(Error):
    """An action is not a member of the action space."""


class MissingArgument(Error):
    """A required argument is missing."""


class InvalidProbability(Error):
    """A probability mask given to ``Space.sample`` is not a valid distribution."""


class InvalidBound(Error):
    """Space bounds are malformed."""


class DeprecatedWrapper(ImportError):
    """A wrapper was removed or renamed; the message names its replacement."""


class AlreadyPendingCallError(Exception):
    """An asynchronous call was made while another one is still pending.

    Args:
        message: what went wrong.
        name: the name of the pending call (e.g. ``"step"``).
    """

    def __init__(self, message: str, name: str):
        super().__init__(message)
        self.name = name


class NoAsyncCallError(Exception):
    """A ``*_wait`` method was called without a matching ``*_async`` call.

    Args:
        message: what went wrong.
        name: the name of the call that was waited on.
    """

    def __init__(self, message: str, name: str):
        super().__init__(message)
        self.name = name


class ClosedEnvironmentError(Exception):
    """An operation was attempted on an environment that is already closed."""


class CustomSpaceError(Exception):
    """A custom ``Space`` subclass is used where only the built-in spaces are supported."""


class WorkerError(Error):
    """A worker process of a parallel vector environment died or stopped answering.

    Args:
        message: what went wrong.
        env_indices: indices of the sub-environments that the worker was running.
    """

    def __init__(self, message: str, env_indices: tuple[int, ...] = ()):
        super().__init__(message)
        self.env_indices = tuple(env_indices)
