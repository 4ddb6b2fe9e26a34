"""The Reacher: a two-link planar arm in a walled square and a target on two slides.

Example:
    >>> model = reacher().compile()
    >>> model.nq, model.nv, model.nu
    (4, 4, 2)
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
    new_spec,
)

__all__ = ["reacher"]

_PINK = (0.9, 0.4, 0.6, 1.0)
_ARM = (0.0, 0.4, 0.6, 1.0)
# The arena's four walls, (name, from, to), 1 cm above the ground.
_WALLS = (
    ("sideS", (-0.3, -0.3), (0.3, -0.3)),
    ("sideE", (0.3, -0.3), (0.3, 0.3)),
    ("sideN", (-0.3, 0.3), (0.3, 0.3)),
    ("sideW", (-0.3, -0.3), (-0.3, 0.3)),
)


def reacher() -> mujoco.MjSpec:
    """Build the Reacher.

    Links of 0.1 m, a free shoulder and an elbow within ±3 rad, motors of gear 200; the
    target's slides span ±0.27 m around (0.1, -0.1).

    Example:
        >>> reacher().compile().jnt_range[1].tolist()
        [-3.0, 3.0]
    """
    spec = new_spec(
        "reacher",
        timestep=0.01,
        integrator="RK4",
        degree=False,
        gravity=(0.0, 0.0, -9.81),
        joint={"armature": 1.0, "damping": 1.0, "limited": LIMITED},
        geom={"contype": 0, "friction": (1.0, 0.1, 0.1), "rgba": (0.7, 0.7, 0.0, 1.0)},
    )
    world = spec.worldbody
    add_geom(
        world,
        "plane",
        size=(1, 1, 10),
        name="ground",
        conaffinity=0,
        contype=0,
        rgba=(0.9, 0.9, 0.9, 1.0),
    )
    for name, start, end in _WALLS:
        add_geom(
            world,
            "capsule",
            size=(0.02,),
            name=name,
            conaffinity=0,
            fromto=(*start, 0.01, *end, 0.01),
            rgba=_PINK,
        )
    add_geom(
        world,
        "cylinder",
        size=(0.011,),
        name="root",
        conaffinity=0,
        contype=0,
        fromto=(0, 0, 0, 0, 0, 0.02),
        rgba=_PINK,
    )
    upper = add_body(world, "body0", pos=(0, 0, 0.01))
    add_geom(upper, "capsule", size=(0.01,), name="link0", fromto=(0, 0, 0, 0.1, 0, 0), rgba=_ARM)
    add_joint(upper, "hinge", name="joint0", axis=(0, 0, 1), limited=UNLIMITED)
    lower = add_body(upper, "body1", pos=(0.1, 0, 0))
    add_joint(lower, "hinge", name="joint1", axis=(0, 0, 1), limited=LIMITED, range=(-3.0, 3.0))
    add_geom(lower, "capsule", size=(0.01,), name="link1", fromto=(0, 0, 0, 0.1, 0, 0), rgba=_ARM)
    tip = add_body(lower, "fingertip", pos=(0.11, 0, 0))
    add_geom(tip, "sphere", size=(0.01,), name="fingertip", contype=0, rgba=(0.0, 0.8, 0.6, 1.0))
    target = add_body(world, "target", pos=(0.1, -0.1, 0.01))
    loose = {"armature": 0.0, "damping": 0.0, "limited": LIMITED, "stiffness": 0.0}
    add_joint(
        target, "slide", name="target_x", axis=(1, 0, 0), range=(-0.27, 0.27), ref=0.1, **loose
    )
    add_joint(
        target, "slide", name="target_y", axis=(0, 1, 0), range=(-0.27, 0.27), ref=-0.1, **loose
    )
    add_geom(
        target,
        "sphere",
        size=(0.009,),
        name="target",
        conaffinity=0,
        contype=0,
        rgba=(0.9, 0.2, 0.2, 1.0),
    )
    for joint in ("joint0", "joint1"):
        add_motor(spec, joint, 200.0, ctrlrange=(-1, 1), ctrllimited=LIMITED)
    return spec
