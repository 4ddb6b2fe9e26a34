"""The Pusher: a seven-joint arm on a table, a cylinder to push and a goal marker.

Example:
    >>> model = pusher().compile()
    >>> model.nq, model.nv, model.nu
    (11, 11, 7)
"""

from __future__ import annotations

import mujoco

from palaestra.envs.mujoco.models._build import (
    LIMITED,
    add_body,
    add_geom,
    add_joint,
    add_motor,
    new_spec,
)

__all__ = ["pusher"]

_GREY = (0.6, 0.6, 0.6, 1.0)
_PUPIL = (0.1, 0.1, 0.1, 1.0)
# The arm from the shoulder out, one link per row: body name, position in the parent,
# capsules (from-to, radius) and the joint (name, axis, range in radians, damping), if any.
_ARM = (
    (
        "r_shoulder_lift_link",
        (0.1, 0, 0),
        (("sl", (0, -0.1, 0, 0, 0.1, 0), 0.1),),
        ("r_shoulder_lift_joint", (0, 1, 0), (-0.5236, 1.3963), 1.0),
    ),
    (
        "r_upper_arm_roll_link",
        (0, 0, 0),
        (("uar", (-0.1, 0, 0, 0.1, 0, 0), 0.02),),
        ("r_upper_arm_roll_joint", (1, 0, 0), (-1.5, 1.7), 0.1),
    ),
    ("r_upper_arm_link", (0, 0, 0), (("ua", (0, 0, 0, 0.4, 0, 0), 0.06),), None),
    (
        "r_elbow_flex_link",
        (0.4, 0, 0),
        (("ef", (0, -0.02, 0, 0.0, 0.02, 0), 0.06),),
        ("r_elbow_flex_joint", (0, 1, 0), (-2.3213, 0), 0.1),
    ),
    (
        "r_forearm_roll_link",
        (0, 0, 0),
        (("fr", (-0.1, 0, 0, 0.1, 0, 0), 0.02),),
        ("r_forearm_roll_joint", (1, 0, 0), (-1.5, 1.5), 0.1),
    ),
    ("r_forearm_link", (0, 0, 0), (("fa", (0, 0, 0, 0.291, 0, 0), 0.05),), None),
    (
        "r_wrist_flex_link",
        (0.321, 0, 0),
        (("wf", (0, -0.02, 0, 0, 0.02, 0), 0.01),),
        ("r_wrist_flex_joint", (0, 1, 0), (-1.094, 0), 0.1),
    ),
)
_JOINTS = (
    "r_shoulder_pan_joint",
    "r_shoulder_lift_joint",
    "r_upper_arm_roll_joint",
    "r_elbow_flex_joint",
    "r_forearm_roll_joint",
    "r_wrist_flex_joint",
    "r_wrist_roll_joint",
)


def _puck(
    world: mujoco.MjsBody,
    name: str,
    z: float,
    size: tuple,
    density: float,
    rgba: tuple,
    contype: int,
) -> None:
    """Add a cylinder on two table-plane slides (y first, then x)."""
    body = add_body(world, name, pos=(0.45, -0.05, z))
    if name == "object":
        add_geom(body, "cylinder", size=size, density=density, rgba=rgba, contype=contype)
    for axis_name, axis in (("y", (0, 1, 0)), ("x", (1, 0, 0))):
        prefix = "obj" if name == "object" else "goal"
        add_joint(
            body,
            "slide",
            name=f"{prefix}_slide{axis_name}",
            axis=axis,
            range=(-10.3213, 10.3),
            damping=0.5,
        )
    if name != "object":
        add_geom(body, "cylinder", size=size, density=density, rgba=rgba, contype=contype)


def pusher() -> mujoco.MjSpec:
    """Build Pusher-v5's model.

    No gravity, Euler steps of 10 ms, 20 solver iterations; the puck is a 5 cm cylinder of
    density 0.01.

    Example:
        >>> pusher().compile().opt.gravity.tolist()
        [0.0, 0.0, 0.0]
    """
    spec = new_spec(
        "arm3d",
        timestep=0.01,
        degree=False,
        gravity=(0.0, 0.0, 0.0),
        iterations=20,
        joint={"armature": 0.04, "damping": 1.0, "limited": LIMITED},
        geom={
            "friction": (0.8, 0.1, 0.1),
            "density": 300.0,
            "margin": 0.002,
            "condim": 1,
            "contype": 0,
            "conaffinity": 0,
        },
    )
    world = spec.worldbody
    world.add_light(diffuse=[0.5, 0.5, 0.5], pos=[0, 0, 3], dir=[0, 0, -1])
    add_geom(
        world,
        "plane",
        size=(1, 1, 0.1),
        name="table",
        pos=(0, 0.5, -0.325),
        contype=1,
        conaffinity=1,
    )
    shoulder = add_body(world, "r_shoulder_pan_link", pos=(0, -0.6, 0))
    # Two eyes with pupils on the shoulder.
    for name, x in (("e1", -0.06), ("e2", 0.06)):
        add_geom(shoulder, "sphere", size=(0.05,), name=name, pos=(x, 0.05, 0.2), rgba=_GREY)
    for name, x in (("e1p", -0.06), ("e2p", 0.06)):
        add_geom(shoulder, "sphere", size=(0.03,), name=name, pos=(x, 0.09, 0.2), rgba=_PUPIL)
    add_geom(shoulder, "capsule", size=(0.1,), name="sp", fromto=(0, 0, -0.4, 0, 0, 0.2))
    add_joint(
        shoulder,
        "hinge",
        name="r_shoulder_pan_joint",
        axis=(0, 0, 1),
        range=(-2.2854, 1.714602),
        damping=1.0,
    )
    parent = shoulder
    for name, pos, capsules, joint in _ARM:
        body = add_body(parent, name, pos=pos)
        for geom_name, fromto, radius in capsules:
            add_geom(body, "capsule", size=(radius,), name=geom_name, fromto=fromto)
        if joint is not None:
            joint_name, axis, limits, damping = joint
            add_joint(body, "hinge", name=joint_name, axis=axis, range=limits, damping=damping)
        parent = body
    hand = add_body(parent, "r_wrist_roll_link")
    add_joint(
        hand,
        "hinge",
        name="r_wrist_roll_joint",
        axis=(1, 0, 0),
        limited=LIMITED,
        damping=0.1,
        range=(-1.5, 1.5),
    )
    tips = add_body(hand, "tips_arm")
    for name, y in (("tip_arml", -0.1), ("tip_armr", 0.1)):
        add_geom(tips, "sphere", size=(0.01,), name=name, pos=(0.1, y, 0.0))
    # The gripper: a bar across the wrist and two fingers.
    for fromto in ((0, -0.1, 0, 0, 0.1, 0), (0, -0.1, 0, 0.1, -0.1, 0), (0, 0.1, 0, 0.1, 0.1, 0)):
        add_geom(hand, "capsule", size=(0.02,), fromto=fromto, contype=1, conaffinity=1)
    _puck(world, "object", -0.275, (0.05, 0.05, 0.05), 0.01, (1, 1, 1, 1), 1)
    _puck(world, "goal", -0.3230, (0.08, 0.001, 0.1), 0.00001, (1, 0, 0, 1), 0)
    for joint in _JOINTS:
        add_motor(spec, joint, 1.0, ctrlrange=(-2.0, 2.0), ctrllimited=LIMITED)
    return spec
