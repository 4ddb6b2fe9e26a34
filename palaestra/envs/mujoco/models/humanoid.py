"""The Humanoid, standing (Humanoid) or lying on its back (HumanoidStandup).

A torso on a free joint carries a head, two arms and a waist; the waist bends at the abdomen
and carries the pelvis and two legs. Both models are one body plan: the lying one is the
standing one with its waist and legs laid out along +x at floor height.

Example:
    >>> model = humanoid().compile()
    >>> model.nq, model.nv, model.nu
    (24, 23, 17)
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

__all__ = ["humanoid", "humanoid_standup"]

# The waist's tilt: a fifth of a degree about -y at each waist joint.
_TILT = (1.0, 0.0, -0.002, 0.0)
# Per side (y sign, name): hip joints (axis, armature), hip_y armature, knee stiffness.
_SIDES = (
    ("right", -1, ((1, 0, 0), (0, 0, 1)), 0.0080, 0.0),
    ("left", 1, ((-1, 0, 0), (0, 0, -1)), 0.01, 1.0),
)
# Per side: shoulder axes, shoulder ranges (degrees), elbow axis.
_ARMS = (
    ("right", -1, ((2, 1, 1), (0, -1, 1)), (-85, 60), (0, -1, 1)),
    ("left", 1, ((2, -1, 1), (0, 1, 1)), (-60, 85), (0, -1, -1)),
)
# Motor gears, in actuator order.
_GEARS = (
    ("abdomen_y", 100),
    ("abdomen_z", 100),
    ("abdomen_x", 100),
    *(
        (f"{side}_{joint}", gear)
        for side in ("right", "left")
        for joint, gear in (("hip_x", 100), ("hip_z", 100), ("hip_y", 300), ("knee", 200))
    ),
    *(
        (f"{side}_{joint}", 25)
        for side in ("right", "left")
        for joint in ("shoulder1", "shoulder2", "elbow")
    ),
)


def _layout(lying: bool) -> dict:
    """Return the positions that differ between the standing and the lying humanoid."""
    if lying:
        return {
            "name": "humanoidstandup",
            "torso": (0, 0, 0.105),
            "camera": (0, -3, 0.5),
            "head": (-0.15, 0, 0),
            "uwaist": (0.11, -0.06, 0, 0.11, 0.06, 0),
            "lwaist": (0.21, 0, 0),
            "pelvis": (0.165, 0, 0),
            "hip_z": 0,
            "thigh": lambda y: (0, 0, 0, 0.34, y, 0),
            "shin_pos": lambda y: (0.403, y, 0),
            "shin": (0, 0, 0, 0.3, 0, 0),
            "foot": (0.35, 0, -0.1),
            "left_hip_y": (-120, 20),
        }
    return {
        "name": "humanoid",
        "torso": (0, 0, 1.4),
        "camera": (0, -4, 0),
        "head": (0, 0, 0.19),
        "uwaist": (-0.01, -0.06, -0.12, -0.01, 0.06, -0.12),
        "lwaist": (-0.01, 0, -0.260),
        "pelvis": (0, 0, -0.165),
        "hip_z": -0.04,
        "thigh": lambda y: (0, 0, 0, 0, y, -0.34),
        "shin_pos": lambda y: (0, y, -0.403),
        "shin": (0, 0, 0, 0, 0, -0.3),
        "foot": (0, 0, -0.45),
        "left_hip_y": (-110, 20),
    }


def _build(lying: bool) -> mujoco.MjSpec:
    layout = _layout(lying)
    spec = new_spec(
        layout["name"],
        timestep=0.003,
        integrator="RK4",
        iterations=50,
        solver=mujoco.mjtSolver.mjSOL_PGS,
        joint={"armature": 1.0, "damping": 1.0, "limited": LIMITED},
        geom={
            "conaffinity": 1,
            "condim": 1,
            "contype": 1,
            "margin": 0.001,
            "rgba": (0.8, 0.6, 0.4, 1.0),
        },
        motor={"ctrllimited": LIMITED, "ctrlrange": (-0.4, 0.4)},
    )
    spec.visual.map.fogstart = 3.0
    spec.visual.map.fogend = 5.0
    add_scenery(
        spec,
        floor_size=(20, 20, 0.125),
        floor={"condim": 3, "friction": (1.0, 0.1, 0.1)},
        sky=((0.4, 0.5, 0.6), (0.0, 0.0, 0.0)),
    )
    torso = add_body(spec.worldbody, "torso", pos=layout["torso"])
    add_tracking_camera(torso, layout["camera"])
    add_joint(
        torso, "free", name="root", armature=0.0, damping=0.0, limited=UNLIMITED, stiffness=0.0
    )
    add_geom(torso, "capsule", size=(0.07,), name="torso1", fromto=(0, -0.07, 0, 0, 0.07, 0))
    add_geom(torso, "sphere", size=(0.09,), name="head", pos=layout["head"])
    add_geom(torso, "capsule", size=(0.06,), name="uwaist", fromto=layout["uwaist"])

    abdomen = {"armature": 0.02, "damping": 5.0}
    lwaist = add_body(torso, "lwaist", pos=layout["lwaist"], quat=_TILT)
    add_geom(lwaist, "capsule", size=(0.06,), name="lwaist", fromto=(0, -0.06, 0, 0, 0.06, 0))
    add_joint(
        lwaist,
        "hinge",
        name="abdomen_z",
        axis=(0, 0, 1),
        pos=(0, 0, 0.065),
        range=(-45, 45),
        stiffness=20.0,
        **abdomen,
    )
    add_joint(
        lwaist,
        "hinge",
        name="abdomen_y",
        axis=(0, 1, 0),
        pos=(0, 0, 0.065),
        range=(-75, 30),
        stiffness=10.0,
        **abdomen,
    )
    pelvis = add_body(lwaist, "pelvis", pos=layout["pelvis"], quat=_TILT)
    add_joint(
        pelvis,
        "hinge",
        name="abdomen_x",
        axis=(1, 0, 0),
        pos=(0, 0, 0.1),
        range=(-35, 35),
        stiffness=10.0,
        **abdomen,
    )
    add_geom(pelvis, "capsule", size=(0.09,), name="butt", fromto=(-0.02, -0.07, 0, -0.02, 0.07, 0))

    for side, sign, (x_axis, z_axis), hip_y_armature, knee_stiffness in _SIDES:
        thigh = add_body(pelvis, f"{side}_thigh", pos=(0, 0.1 * sign, layout["hip_z"]))
        hip = {"damping": 5.0}
        add_joint(
            thigh,
            "hinge",
            name=f"{side}_hip_x",
            axis=x_axis,
            armature=0.01,
            range=(-25, 5),
            stiffness=10.0,
            **hip,
        )
        add_joint(
            thigh,
            "hinge",
            name=f"{side}_hip_z",
            axis=z_axis,
            armature=0.01,
            range=(-60, 35),
            stiffness=10.0,
            **hip,
        )
        hip_y_range = layout["left_hip_y"] if side == "left" else (-110, 20)
        add_joint(
            thigh,
            "hinge",
            name=f"{side}_hip_y",
            axis=(0, 1, 0),
            armature=hip_y_armature,
            range=hip_y_range,
            stiffness=20.0,
            **hip,
        )
        add_geom(
            thigh,
            "capsule",
            size=(0.06,),
            name=f"{side}_thigh1",
            fromto=layout["thigh"](-0.01 * sign),
        )
        shin = add_body(thigh, f"{side}_shin", pos=layout["shin_pos"](-0.01 * sign))
        knee = {"stiffness": knee_stiffness} if knee_stiffness else {}
        add_joint(
            shin,
            "hinge",
            name=f"{side}_knee",
            axis=(0, -1, 0),
            armature=0.0060,
            pos=(0, 0, 0.02),
            range=(-160, -2),
            **knee,
        )
        add_geom(shin, "capsule", size=(0.049,), name=f"{side}_shin1", fromto=layout["shin"])
        foot = add_body(shin, f"{side}_foot", pos=layout["foot"])
        add_geom(foot, "sphere", size=(0.075,), name=f"{side}_foot", pos=(0, 0, 0.1))

    for side, sign, (axis1, axis2), shoulder_range, elbow_axis in _ARMS:
        upper = add_body(torso, f"{side}_upper_arm", pos=(0, 0.17 * sign, 0.06))
        add_joint(
            upper,
            "hinge",
            name=f"{side}_shoulder1",
            axis=axis1,
            armature=0.0068,
            range=shoulder_range,
            stiffness=1.0,
        )
        add_joint(
            upper,
            "hinge",
            name=f"{side}_shoulder2",
            axis=axis2,
            armature=0.0051,
            range=shoulder_range,
            stiffness=1.0,
        )
        add_geom(
            upper,
            "capsule",
            size=(0.04, 0.16),
            name=f"{side}_uarm1",
            fromto=(0, 0, 0, 0.16, 0.16 * sign, -0.16),
        )
        lower = add_body(upper, f"{side}_lower_arm", pos=(0.18, 0.18 * sign, -0.18))
        add_joint(
            lower,
            "hinge",
            name=f"{side}_elbow",
            axis=elbow_axis,
            armature=0.0028,
            range=(-90, 50),
            stiffness=0.0,
        )
        add_geom(
            lower,
            "capsule",
            size=(0.031,),
            name=f"{side}_larm",
            fromto=(0.01, -0.01 * sign, 0.01, 0.17, -0.17 * sign, 0.17),
        )
        add_geom(lower, "sphere", size=(0.04,), name=f"{side}_hand", pos=(0.18, -0.18 * sign, 0.18))
        if side == "right":
            lower.add_camera(pos=[0, 0, 0])

    # Each knee is coupled to its hip through a fixed tendon (knee angle minus hip angle).
    for side in ("left", "right"):
        tendon = spec.add_tendon(name=f"{side}_hipknee")
        tendon.wrap_joint(f"{side}_hip_y", -1.0)
        tendon.wrap_joint(f"{side}_knee", 1.0)
    for joint, gear in _GEARS:
        add_motor(spec, joint, float(gear), name=joint)
    return spec


def humanoid() -> mujoco.MjSpec:
    """Build the standing Humanoid (torso 1.4 m up; 3 ms RK4 steps, 50 PGS iterations).

    Example:
        >>> humanoid().compile().body("torso").pos.tolist()
        [0.0, 0.0, 1.4]
    """
    return _build(lying=False)


def humanoid_standup() -> mujoco.MjSpec:
    """Build the Humanoid lying on its back, torso 0.105 m up, for HumanoidStandup.

    Example:
        >>> humanoid_standup().compile().body("torso").pos.tolist()
        [0.0, 0.0, 0.105]
    """
    return _build(lying=True)
