"""The Ant: a sphere torso on a free joint with four two-segment legs, eight hinge motors.

Example:
    >>> model = ant().compile()
    >>> model.nq, model.nv, model.nu
    (15, 14, 8)
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

__all__ = ["ant", "add_tracking_camera"]

# Per leg, in body order: the leg's name, its direction in the xy plane, the ankle's axis
# and range (degrees), and the names of the leg's three capsules (hip, thigh, shin).
_LEGS = (
    ("front_left_leg", (1, 1), (-1, 1, 0), (30, 70), ("left_leg_geom", "left_ankle_geom")),
    ("front_right_leg", (-1, 1), (1, 1, 0), (-70, -30), ("right_leg_geom", "right_ankle_geom")),
    ("back_leg", (-1, -1), (-1, 1, 0), (-70, -30), ("back_leg_geom", "third_ankle_geom")),
    (
        "right_back_leg",
        (1, -1),
        (1, 1, 0),
        (30, 70),
        ("rightback_leg_geom", "fourth_ankle_geom"),
    ),
)
# The motors' order: the right back leg first, then the others in body order.
_MOTOR_LEGS = (4, 1, 2, 3)


def add_tracking_camera(body: mujoco.MjsBody, pos: tuple[float, float, float]) -> None:
    """Add the ``"track"`` camera: it follows the centre of mass, looking along +y.

    Example:
        >>> spec = mujoco.MjSpec()
        >>> add_tracking_camera(spec.worldbody.add_body(name="b"), (0, -3, 0))
        >>> spec.camera("track") is not None
        True
    """
    camera = body.add_camera(name="track", pos=list(pos))
    camera.mode = mujoco.mjtCamLight.mjCAMLIGHT_TRACKCOM
    camera.alt.type = mujoco.mjtOrientation.mjORIENTATION_XYAXES
    camera.alt.xyaxes = [1, 0, 0, 0, 0, 1]


def ant() -> mujoco.MjSpec:
    """Build the Ant.

    Every leg: a 0.2 m hip capsule fixed to the torso, a 0.2 m thigh on a ±30° hip hinge
    about z, and a 0.4 m shin on an ankle hinge about the leg's horizontal normal; capsules
    of radius 0.08 and density 5; motors of gear 150 on all eight hinges.

    Example:
        >>> ant().compile().body("torso").pos.tolist()
        [0.0, 0.0, 0.75]
    """
    spec = new_spec(
        "ant",
        timestep=0.01,
        integrator="RK4",
        joint={"armature": 1.0, "damping": 1.0, "limited": LIMITED},
        geom={
            "conaffinity": 0,
            "condim": 3,
            "density": 5.0,
            "friction": (1.0, 0.5, 0.5),
            "margin": 0.01,
            "rgba": (0.8, 0.6, 0.4, 1.0),
        },
    )
    add_scenery(spec, floor={"conaffinity": 1, "condim": 3})
    torso = add_body(spec.worldbody, "torso", pos=(0, 0, 0.75))
    add_tracking_camera(torso, (0, -3, 0.3))
    add_geom(torso, "sphere", size=(0.25,), name="torso_geom")
    add_joint(torso, "free", name="root", armature=0.0, damping=0.0, limited=UNLIMITED, margin=0.01)
    for number, (leg_name, (x, y), ankle_axis, ankle_range, geoms) in enumerate(_LEGS, 1):
        step = (0.2 * x, 0.2 * y, 0.0)
        leg = add_body(torso, leg_name)
        add_geom(leg, "capsule", size=(0.08,), name=f"aux_{number}_geom", fromto=(0, 0, 0, *step))
        hip = add_body(leg, f"aux_{number}", pos=step)
        add_joint(hip, "hinge", name=f"hip_{number}", axis=(0, 0, 1), range=(-30, 30))
        add_geom(hip, "capsule", size=(0.08,), name=geoms[0], fromto=(0, 0, 0, *step))
        shin = add_body(hip, pos=step)
        add_joint(shin, "hinge", name=f"ankle_{number}", axis=ankle_axis, range=ankle_range)
        add_geom(
            shin, "capsule", size=(0.08,), name=geoms[1], fromto=(0, 0, 0, 0.4 * x, 0.4 * y, 0)
        )
    for number in _MOTOR_LEGS:
        for joint in (f"hip_{number}", f"ankle_{number}"):
            add_motor(spec, joint, 150.0, ctrlrange=(-1, 1), ctrllimited=LIMITED)
    return spec
