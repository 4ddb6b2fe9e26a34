"""The name user code imports palaestra under, for messages that name a class to inherit from.

A message that tells the user which base class their object lacks (``Space``, ``Env``,
``RecordConstructorArgs``) names it as the user's code reaches it: ``palaestra.spaces.Space``
normally, ``gymnasium.spaces.Space`` when this process runs palaestra in Gymnasium's place
(``import gymnasium`` gives palaestra, or a module forwarding to it, as a compatibility shim
arranges). Code written for Gymnasium that matches on Gymnasium's message text then matches
palaestra's unchanged.
"""

from __future__ import annotations

import sys
from typing import Any

CUSTOM_ENV_DOCS = "See https://gymnasium.farama.org/introduction/create_custom_env/ for more info."
_OLD_GYM_BASES = ("<class 'gym.core.Env'>", "<class 'gym.core.Wrapper'>")


def library_name() -> str:
    """Return ``"gymnasium"`` if palaestra stands in for Gymnasium here, else ``"palaestra"``.

    Example:
        >>> library_name()  # a process where ``import gymnasium`` is Gymnasium (or fails)
        'palaestra'
    """
    # Whatever ``import gymnasium`` gives (palaestra itself or a forwarding module), its Env
    # is palaestra's exactly when palaestra stands in.
    theirs = getattr(sys.modules.get("gymnasium"), "Env", None)
    ours = getattr(sys.modules.get("palaestra.core"), "Env", None)
    return "gymnasium" if theirs is not None and theirs is ours else "palaestra"


def acting_name(gymnasium_word: str) -> str:
    """Name the library acting in a message: Gymnasium's own word when standing in for it.

    Gymnasium's messages call the library "Gymnasium", "gymnasium" or "Gym" depending on the
    sentence; standing in, palaestra repeats that word, otherwise it says ``"palaestra"``.

    Args:
        gymnasium_word: the word Gymnasium's message uses at this place.

    Example:
        >>> f"Currently, {acting_name('Gymnasium')} does not support serialising callables."
        'Currently, palaestra does not support serialising callables.'
    """
    return gymnasium_word if library_name() == "gymnasium" else "palaestra"


def not_an_env_message(env: Any) -> str:
    """Say that ``env`` is not an ``Env``: Gymnasium's text, then what to do.

    Args:
        env: the object that should have been an environment.

    Example:
        >>> not_an_env_message(3)[:57]
        'The environment must inherit from the palaestra.Env class'
    """
    name = library_name()
    if str(type(env).__base__) in _OLD_GYM_BASES:
        return (
            "Gym is incompatible with Gymnasium, please update the environment class to "
            f"`{name}.Env`. {CUSTOM_ENV_DOCS}"
        )
    message = (
        f"The environment must inherit from the {name}.Env class, actual class: {type(env)}. "
        f"{CUSTOM_ENV_DOCS}"
    )
    origins = {cls.__module__.split(".")[0] for cls in type(env).__mro__}
    origin = next((o for o in ("gymnasium", "gym") if o in origins), None)
    if name == "palaestra" and origin is not None:
        return (
            f"{message} It comes from `{origin}`: port the class to `palaestra.Env` (usually by "
            "changing its import to `import palaestra as gym`) or wrap it with "
            "`palaestra.compat.from_gymnasium(env)`."
        )
    return f"{message} Subclass `{name}.Env` and implement `reset` and `step`."
