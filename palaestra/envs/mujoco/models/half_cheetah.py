"""The HalfCheetah: a planar runner, a capsule torso with a head and two three-joint legs.

Example:
    >>> model = half_cheetah().compile()
    >>> model.nq, model.nv, model.nu
    (9, 9, 6)
"""

from __future__ import annotations

import mujoco

from palaestra.envs.mujoco.models._build import (
    LIMITED,
    UNLIMITED,
    add_body,
    add_geom,
    add_joint,
    add_motor,
    add_scenery,
    new_spec,
)
from palaestra.envs.mujoco.models.ant import add_tracking_camera

__all__ = ["TOTAL_MASS", "finish", "half_cheetah"]

# The cheetah's masses are scaled (densities kept in proportion) to this total.
TOTAL_MASS = 14.0

_SHIN_COLOUR = (0.9, 0.6, 0.6, 1.0)
# Each leg from the hip down, per segment: name (of body, joint and geom), position in the
# parent, joint damping, stiffness and range (radians), capsule tilt about y, centre and
# half-length, motor gear.
_LEGS = (
    (
        ("bthigh", (-0.5, 0, 0), 6.0, 240.0, (-0.52, 1.05), -3.8, (0.1, 0, -0.13), 0.145, 120),
        (
            "bshin",
            (0.16, 0, -0.25),
            4.5,
            180.0,
            (-0.785, 0.785),
            -2.03,
            (-0.14, 0, -0.07),
            0.15,
            90,
        ),
        (
            "bfoot",
            (-0.28, 0, -0.14),
            3.0,
            120.0,
            (-0.4, 0.785),
            -0.27,
            (0.03, 0, -0.097),
            0.094,
            60,
        ),
    ),
    (
        ("fthigh", (0.5, 0, 0), 4.5, 180.0, (-1.0, 0.7), 0.52, (-0.07, 0, -0.12), 0.133, 120),
        ("fshin", (-0.14, 0, -0.24), 3.0, 120.0, (-1.2, 0.87), -0.6, (0.065, 0, -0.09), 0.106, 60),
        ("ffoot", (0.13, 0, -0.18), 1.5, 60.0, (-0.5, 0.5), -0.6, (0.045, 0, -0.07), 0.07, 30),
    ),
)


def finish(model: mujoco.MjModel) -> None:
    """Scale the compiled cheetah's masses and inertias to :data:`TOTAL_MASS` kilograms.

    Example:
        >>> model = half_cheetah().compile()
        >>> finish(model)
        >>> round(float(model.body_mass.sum()), 6)
        14.0
    """
    mujoco.mj_setTotalmass(model, TOTAL_MASS)
    mujoco.mj_setConst(model, mujoco.MjData(model))


def half_cheetah() -> mujoco.MjSpec:
    """Build the HalfCheetah (capsules of radius 0.046, of density 1000 before scaling).

    The torso moves in the xz plane (slides along x and z, hinges about y); thighs, shins
    and feet hinge about y on stiff, damped joints. :func:`finish` scales the compiled
    model to its 14 kg.

    Example:
        >>> model = half_cheetah().compile()
        >>> finish(model)
        >>> round(float(model.body_mass.sum()), 6)
        14.0
    """
    spec = new_spec(
        "cheetah",
        timestep=0.01,
        degree=False,
        joint={
            "armature": 0.1,
            "damping": 0.01,
            "limited": LIMITED,
            "solimp_limit": (0.0, 0.8, 0.03),
            "solref_limit": (0.02, 1.0),
            "stiffness": 8.0,
        },
        geom={
            "conaffinity": 0,
            "condim": 3,
            "contype": 1,
            "friction": (0.4, 0.1, 0.1),
            "rgba": (0.8, 0.6, 0.4, 1.0),
            "solimp": (0.0, 0.8, 0.01),
            "solref": (0.02, 1.0),
        },
        motor={"ctrllimited": LIMITED, "ctrlrange": (-1.0, 1.0)},
        gravity=(0.0, 0.0, -9.81),
    )
    add_scenery(spec, floor={"conaffinity": 1, "condim": 3})
    torso = add_body(spec.worldbody, "torso", pos=(0, 0, 0.7))
    add_tracking_camera(torso, (0, -3, 0.3))
    free = {"armature": 0.0, "damping": 0.0, "limited": UNLIMITED, "stiffness": 0.0}
    add_joint(torso, "slide", name="rootx", axis=(1, 0, 0), **free)
    add_joint(torso, "slide", name="rootz", axis=(0, 0, 1), **free)
    add_joint(torso, "hinge", name="rooty", axis=(0, 1, 0), **free)
    add_geom(torso, "capsule", size=(0.046,), name="torso", fromto=(-0.5, 0, 0, 0.5, 0, 0))
    add_geom(
        torso,
        "capsule",
        size=(0.046, 0.15),
        name="head",
        pos=(0.6, 0, 0.1),
        axisangle=(0, 1, 0, 0.87),
    )
    for leg in _LEGS:
        parent = torso
        for index, (name, pos, damping, stiffness, limits, tilt, centre, half, _) in enumerate(leg):
            body = add_body(parent, name, pos=pos)
            add_joint(
                body,
                "hinge",
                name=name,
                axis=(0, 1, 0),
                damping=damping,
                range=limits,
                stiffness=stiffness,
            )
            colour = {} if index == 0 else {"rgba": _SHIN_COLOUR}
            add_geom(
                body,
                "capsule",
                size=(0.046, half),
                name=name,
                pos=centre,
                axisangle=(0, 1, 0, tilt),
                **colour,
            )
            parent = body
    for leg in _LEGS:
        for name, *_, gear in leg:
            add_motor(spec, name, float(gear), name=name)
    return spec
