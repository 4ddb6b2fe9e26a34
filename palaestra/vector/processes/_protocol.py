"""The worker side of the protocol, free of any transport.

A worker receives ``(command, data)`` messages and answers each with exactly one
``(result, success)`` pair: ``(result, True)``, or ``(ErrorReport, False)`` when the command
raised. :func:`answer` runs one command and builds that pair; the transport (a pipe here,
a Ray actor method elsewhere) only moves the messages.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from palaestra.error import ResetNeeded
from palaestra.vector.processes._errors import ErrorReport, failure_report, is_argument_error

__all__ = ["answer"]


def answer(
    index: int, handle: Callable[[str, Any], Any], command: str, data: Any, action_space: Any
) -> tuple[Any, bool]:
    """Run ``handle(command, data)`` and return the reply to send back.

    Args:
        index: the sub-env index, for an error report.
        handle: runs one command and returns its result.
        command: the command name.
        data: the command's data.
        action_space: the sub-env's (or group's) action space, to tell a bad action from an
            environment failure.

    Returns:
        ``(result, True)``, or ``(report, False)`` where ``report.fatal`` says whether the
        worker must stop (``False`` for argument errors, see
        :func:`~palaestra.vector.processes.is_argument_error`, and for
        :class:`~palaestra.error.ResetNeeded`).

    Example:
        >>> from palaestra.spaces import Discrete
        >>> def handle(command, data):
        ...     if data not in (0, 1):
        ...         raise AssertionError(f"{data!r} invalid")
        ...     return data
        >>> answer(0, handle, "step", 1, Discrete(2))
        (1, True)
        >>> report, success = answer(0, handle, "step", 7, Discrete(2))
        >>> success, report.error_type.__name__, report.message, report.fatal
        (False, 'AssertionError', '7 invalid', False)
    """
    try:
        return handle(command, data), True
    except (KeyboardInterrupt, Exception) as error:
        # A step before reset (ResetNeeded) changed nothing in the sub-env, as a bad argument.
        fatal = isinstance(error, KeyboardInterrupt) or not (
            isinstance(error, ResetNeeded) or is_argument_error(command, data, action_space)
        )
        report: ErrorReport = failure_report(index, error, fatal=fatal)
        return report, False
