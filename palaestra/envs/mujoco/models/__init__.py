"""The MuJoCo models of the built-in environments, written in code with ``mujoco.MjSpec``.

Gymnasium's environments name their models by file (``"ant.xml"``); here each such name maps
to a function that builds the model. :func:`build_model` compiles one.

Example:
    >>> model = build_model("inverted_pendulum.xml")
    >>> model.nq, model.nv, model.nu
    (2, 2, 1)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import mujoco

__all__ = ["MODEL_NAMES", "build_model", "build_spec"]

# Gymnasium's model file names, and the functions that build the same models.
_BUILDERS = {
    "ant.xml": "ant:ant",
    "half_cheetah.xml": "half_cheetah:half_cheetah",
    "hopper.xml": "walkers:hopper",
    "walker2d.xml": "walkers:walker2d_v4",
    "walker2d_v5.xml": "walkers:walker2d",
    "humanoid.xml": "humanoid:humanoid",
    "humanoidstandup.xml": "humanoid:humanoid_standup",
    "swimmer.xml": "swimmer:swimmer",
    "reacher.xml": "reacher:reacher",
    "pusher_v5.xml": "pusher:pusher",
    "inverted_pendulum.xml": "pendulums:inverted_pendulum",
    "inverted_double_pendulum.xml": "pendulums:inverted_double_pendulum",
}
MODEL_NAMES = tuple(_BUILDERS)


def build_spec(name: str) -> mujoco.MjSpec:
    """Return the uncompiled spec of the built-in model ``name`` (e.g. ``"ant.xml"``).

    Raises:
        KeyError: for a name that is not a built-in model.

    Example:
        >>> build_spec("swimmer.xml").modelname
        'swimmer'
    """
    if name not in _BUILDERS:
        raise KeyError(
            f"No built-in MuJoCo model is named {name!r}; the built-in models are "
            f"{', '.join(MODEL_NAMES)}. Pass a path to your own MJCF file instead."
        )
    module, function = _BUILDERS[name].split(":")
    return getattr(importlib.import_module(f"{__name__}.{module}"), function)()


def build_model(name: str) -> mujoco.MjModel:
    """Compile the built-in model ``name`` (e.g. ``"hopper.xml"``).

    A model module's ``finish(model)``, where it has one, completes the compiled model
    (the HalfCheetah's total mass).

    Raises:
        KeyError: for a name that is not a built-in model.

    Example:
        >>> build_model("reacher.xml").nu
        2
    """
    model = build_spec(name).compile()
    module = importlib.import_module(f"{__name__}.{_BUILDERS[name].split(':')[0]}")
    finish = getattr(module, "finish", None)
    if finish is not None:
        finish(model)
    return model
