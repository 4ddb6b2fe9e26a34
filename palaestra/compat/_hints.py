"""A pointer to ``palaestra.compat`` when a library written for Gymnasium rejects our objects.

It is printed after the traceback of the error that ends the program.

Stable-Baselines3 (and code like it) checks ``isinstance(x, gymnasium.Env)`` or
``isinstance(space, gymnasium.spaces.Box)`` against the real Gymnasium, so palaestra's objects
fail its checks with messages about OpenAI Gym or an unsupported space, which say nothing of
the way out. :func:`install_excepthook` chains a ``sys.excepthook`` that recognizes those errors
(the message, or a palaestra object among the locals of the frames that raised) and prints the
two ways: ``python -m palaestra.compat script.py`` or ``palaestra.compat.to_gymnasium(env)``.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any

HINT = (
    "palaestra: {what} was given a palaestra object where it expects one of the real "
    "gymnasium's. Either run the program with `python -m palaestra.compat script.py` (then "
    "`import gymnasium` is palaestra for the whole process), or pass the library "
    "`palaestra.compat.to_gymnasium(env)` (a vector env: `palaestra.compat.sb3_vec_env(envs)` "
    "for Stable-Baselines3, `to_gymnasium_vector(envs)` otherwise)."
)

REJECTIONS = (
    "not a Gymnasium environment",
    "observation space is not supported",
    "action space is not supported",
    "must be a gymnasium",
    "is not a gymnasium",
)


def _palaestra_object_in(traceback: TracebackType | None) -> bool:
    while traceback is not None:
        for value in traceback.tb_frame.f_locals.values():
            if type(value).__module__.startswith("palaestra."):
                return True
        traceback = traceback.tb_next
    return False


def _raised_in(traceback: TracebackType | None) -> str | None:
    """Return the package of the innermost frame outside palaestra that raised, if any."""
    package = None
    while traceback is not None:
        name = traceback.tb_frame.f_globals.get("__name__", "")
        if name and not name.startswith(("palaestra", "__main__")):
            package = name.split(".")[0]
        traceback = traceback.tb_next
    return package


def hint_for(error: BaseException) -> str | None:
    """Return the pointer to print for ``error``, or ``None`` when it is not such a rejection.

    Example:
        >>> import palaestra
        >>> def sb3_like(env):
        ...     raise ValueError(f"{type(env)}, not a Gymnasium environment")
        >>> try:
        ...     sb3_like(palaestra.make("CartPole-v1"))
        ... except ValueError as error:
        ...     print(hint_for(error)[:46])
        palaestra: a library written for Gymnasium was
    """
    from palaestra.compat._alias import is_active

    message = str(error)
    if is_active() or not any(text in message for text in REJECTIONS):
        return None
    if "palaestra" not in message and not _palaestra_object_in(error.__traceback__):
        return None
    package = _raised_in(error.__traceback__)
    what = f"`{package}`" if package and package != "doctest" else "a library written for Gymnasium"
    return HINT.format(what=what)


def _excepthook(previous: Any) -> Any:
    def hook(kind: type[BaseException], error: BaseException, traceback: Any) -> None:
        previous(kind, error, traceback)
        hint = hint_for(error)
        if hint:
            print(hint, file=sys.stderr)

    hook.palaestra_hint = True  # type: ignore[attr-defined]
    return hook


def install_excepthook() -> None:
    """Chain the hint printer onto ``sys.excepthook`` (once per process)."""
    if not getattr(sys.excepthook, "palaestra_hint", False):
        sys.excepthook = _excepthook(sys.excepthook)
