"""Error transport: an exception raised in a worker, described, sent, and raised again.

A worker turns the exception into an :class:`ErrorReport` (picklable, with the traceback as
text); the parent turns the report back into an exception of the *same type*, whose message
keeps the original text and adds the sub-env index and the worker's traceback.
"""

from __future__ import annotations

import contextlib
import pickle
import traceback
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from palaestra.error import WorkerError

__all__ = [
    "ErrorReport",
    "failure_report",
    "locate_sub_env",
    "rebuild_exception",
    "is_argument_error",
    "lost_workers_error",
    "group_failure_error",
]


class ErrorReport(NamedTuple):
    """What a worker tells its parent about an exception.

    Attributes:
        index: the sub-env index (for a group's worker: the sub-env that raised, when the
            group knows it, see :func:`locate_sub_env`; else the group's first).
        error_type: the exception's type (``RuntimeError`` if it could not be pickled).
        message: ``str()`` of the exception.
        traceback: the worker's formatted traceback.
        fatal: whether the worker stopped; ``False`` for an argument error (bad action,
            seed or call name), after which the worker keeps serving.
        located: whether ``index`` is the very sub-env that raised inside a group.
    """

    index: int
    error_type: type
    message: str
    traceback: str
    fatal: bool = True
    located: bool = False


# The attribute under which an exception carries its sub-env's offset in a worker's group.
_OFFSET = "_palaestra_sub_env_offset"


def locate_sub_env(error: BaseException, offset: int) -> None:
    """Record in ``error`` that the sub-env at ``offset`` of a worker's group raised it.

    :func:`failure_report` adds the offset to the group's first index, so the parent names
    (and sets ``env_index`` to) that sub-env rather than the group's first. The innermost
    record wins; an exception that takes no attributes stays unlocated.

    Example:
        >>> error = ValueError("bad")
        >>> locate_sub_env(error, 1)
        >>> failure_report(2, error).index
        3
    """
    if getattr(error, _OFFSET, None) is None:
        with contextlib.suppress(AttributeError, TypeError):
            setattr(error, _OFFSET, offset)


def failure_report(index: int, error: BaseException, fatal: bool = True) -> ErrorReport:
    """Describe ``error``, raised in sub-env ``index``, so that it can cross a process boundary.

    The exception type travels by reference; a type the parent could not unpickle (defined
    in ``__main__`` under spawn, or local to a function) is replaced by :class:`RuntimeError`
    with its name kept in the message. Call it inside the ``except`` block, so that the
    current traceback is the exception's.

    Args:
        index: the sub-env index (a group's first, plus the offset :func:`locate_sub_env`
            recorded in ``error``, if any).
        error: the exception.
        fatal: whether the worker stops after reporting it.

    Example:
        >>> failure_report(2, KeyError("x"))[:3]
        (2, <class 'KeyError'>, "'x'")
    """
    error_type: type = type(error)
    message = str(error)
    try:
        pickle.loads(pickle.dumps(error_type))
    except Exception:
        error_type, message = RuntimeError, f"{type(error).__qualname__}: {message}"
    offset = getattr(error, _OFFSET, None)
    located = isinstance(offset, int)
    if located:
        index += offset
    return ErrorReport(index, error_type, message, traceback.format_exc(), fatal, located)


def rebuild_exception(
    report: ErrorReport | tuple, where: str, subject: str | None = None
) -> BaseException:
    """Build the exception a report describes, for the parent to raise.

    Args:
        report: an :class:`ErrorReport` (or Gymnasium's ``(index, type, message, trace)``).
        where: names the vector env, e.g. ``"AsyncVectorEnv(num_envs=2)"``.
        subject: names where it was raised (default ``"sub-environment <index>"``).

    Returns:
        An exception of the reported type whose message starts with the original message
        and names the sub-env, whether its worker still runs, and the worker's traceback.
        Its ``env_index`` attribute holds the sub-env index. A type that shows its message
        as a ``repr`` (``KeyError``: one line of escaped text) keeps the original message
        alone, with the rest as a note, which a traceback prints as it is.

    Example:
        >>> error = rebuild_exception(failure_report(1, ValueError("bad")), "MyVectorEnv")
        >>> type(error).__name__, str(error).splitlines()[0], error.env_index
        ('ValueError', 'bad', 1)
    """
    index, error_type, message, trace = tuple(report)[:4]
    fatal = report.fatal if isinstance(report, ErrorReport) else True
    state = (
        "its worker stopped"
        if fatal
        else "an argument error: its worker keeps running and can be used again"
    )
    subject = f"sub-environment {index}" if subject is None else subject
    details = f"Raised in {subject} of {where} ({state}); the worker's traceback:\n{trace}"
    readable = _shows_its_message(error_type)
    text = f"{message}\n\n{details}" if readable else message
    try:
        error = error_type(text)
    except Exception:
        error = error_type.__new__(error_type)
        error.args = (text,)
    if not readable:
        error.add_note(details)
    with contextlib.suppress(AttributeError):
        error.env_index = index
    return error


def _shows_its_message(error_type: type) -> bool:
    """Whether ``str()`` of ``error_type(text)`` is ``text`` (not so for ``KeyError``)."""
    try:
        return str(error_type("a\nb")) == "a\nb"
    except Exception:
        return True


def is_argument_error(command: str, data: Any, action_space: Any) -> bool:
    """Whether a command failed because of its arguments rather than the environment.

    Argument errors never stop a worker: an action outside ``action_space`` for ``step``, a
    seed that is not ``None`` or a non-negative integer for ``reset``, and any failure of
    a ``call``/``get_attr``/``set_attr`` (a misspelt name, wrong arguments).

    Args:
        command: the command name (``"step"``, ``"reset"``, ``"_call"``, ``"_setattr"``).
        data: the command's data: the action, ``{"seed": ..., "options": ...}`` or a seed list.
        action_space: the space the action should belong to.

    Example:
        >>> from palaestra.spaces import Discrete
        >>> is_argument_error("step", 0.7, Discrete(2)), is_argument_error("step", 1, Discrete(2))
        (True, False)
    """
    if command in ("_call", "_setattr", "call", "set_attr"):
        return True
    if command == "step":
        try:
            return not action_space.contains(data)
        except Exception:
            return True
    if command == "reset":
        seeds = data.get("seed") if isinstance(data, dict) else data
        if not isinstance(seeds, (list, tuple)):
            seeds = [seeds]
        return not all(_valid_seed(seed) for seed in seeds)
    return False


def _valid_seed(seed: Any) -> bool:
    if seed is None:
        return True
    return isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0


def lost_workers_error(
    where: str, unit: str, lost: dict[int, str], env_indices: Sequence[Sequence[int]]
) -> WorkerError:
    """Build the error for using a vector env whose workers stopped and were not replaced.

    Args:
        where: the vector env's class name.
        unit: what a worker is called there (``"worker"``, ``"actor"``).
        lost: why each lost worker stopped, by worker index.
        env_indices: the sub-env indices each worker hosts, by worker index.

    Example:
        >>> print(lost_workers_error("PoolVectorEnv", "worker", {1: "died"}, [[0, 1], [2, 3]]))
        ... # doctest: +NORMALIZE_WHITESPACE
        PoolVectorEnv cannot continue, a worker is no longer running: worker 1
        (sub-environments [2, 3]): died. Call `close()` and create a new vector env (or pass
        `restart_failed=True`).
    """
    details = "; ".join(
        f"{unit} {i} (sub-environments {list(env_indices[i])}): {what}"
        for i, what in sorted(lost.items())
    )
    article = "an" if unit[:1] in "aeiou" else "a"
    return WorkerError(
        f"{where} cannot continue, {article} {unit} is no longer running: {details}. "
        "Call `close()` and create a new vector env (or pass `restart_failed=True`).",
        env_indices=tuple(j for i in sorted(lost) for j in env_indices[i]),
    )


def group_failure_error(
    where: str,
    unit: str,
    index: int,
    env_indices: Sequence[int],
    what: str,
    report: ErrorReport | None = None,
    note: str = "",
) -> BaseException:
    """Build the exception for a failure of worker ``index``, which hosts ``env_indices``.

    With a ``report`` (the worker raised), the sub-env's own exception type is rebuilt and its
    message names the worker's sub-envs; without one (the worker died or hung), a
    :class:`~palaestra.error.WorkerError` says ``what`` happened.

    Args:
        where: the vector env's class name.
        unit: what a worker is called there, with its kind (``"pool worker"``, ``"Ray actor"``).
        index: the worker's index.
        env_indices: the sub-env indices it hosts.
        what: what happened, for a worker that did not raise (``"died with exit code -9"``).
        report: the worker's report of the exception it raised, if it raised.
        note: appended to ``where`` and ``what`` (``" after 3 restart(s)"``).

    Example:
        >>> print(group_failure_error("PoolVectorEnv", "pool worker", 1, [2, 3], "hung"))
        PoolVectorEnv worker 1 (sub-environments [2, 3]) hung.
    """
    env_indices = list(env_indices)
    if report is not None:
        subject = f"sub-environments {env_indices} ({unit} {index})"
        if report.located:
            subject = f"sub-environment {report.index}, one of {subject}"
        return rebuild_exception(report, f"{where}{note}", subject)
    return WorkerError(
        f"{where} {unit.split()[-1]} {index} (sub-environments {env_indices}) {what}{note}.",
        env_indices=tuple(env_indices),
    )
