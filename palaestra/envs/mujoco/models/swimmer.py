"""The Swimmer: three capsule links in a viscous fluid, two hinge motors between them.

Example:
    >>> model = swimmer().compile()
    >>> model.nq, model.nv, model.nu
    (5, 5, 2)
"""

from __future__ import annotations

import mujoco

from palaestra.envs.mujoco.models._build import (
    LIMITED,
    add_body,
    add_geom,
    add_joint,
    add_motor,
    add_scenery,
    new_spec,
)
from palaestra.envs.mujoco.models.ant import add_tracking_camera

__all__ = ["swimmer"]


def swimmer() -> mujoco.MjSpec:
    """Build the Swimmer.

    Links of 1 m, radius 0.1 and density 1000 in a fluid of density 4000 and viscosity 0.1;
    the head link slides in x and y and turns about z.

    Example:
        >>> swimmer().compile().opt.viscosity
        0.1
    """
    spec = new_spec(
        "swimmer",
        timestep=0.01,
        integrator="RK4",
        density=4000.0,
        viscosity=0.1,
        joint={"armature": 0.1},
        geom={"conaffinity": 0, "condim": 1, "contype": 0, "rgba": (0.8, 0.6, 0.4, 1.0)},
    )
    add_scenery(
        spec,
        floor_size=(40, 40, 0.1),
        floor_pos=(0, 0, -0.1),
        floor={"condim": 3},
        checker_repeat=30.0,
    )
    head = add_body(spec.worldbody, "torso")
    camera_parent = head
    add_tracking_camera(camera_parent, (0, -3, 3))
    spec.camera("track").alt.xyaxes = [1, 0, 0, 0, 1, 1]
    link = {"size": (0.1,), "density": 1000.0}
    add_geom(head, "capsule", fromto=(1.5, 0, 0, 0.5, 0, 0), **link)
    add_joint(head, "slide", name="slider1", axis=(1, 0, 0))
    add_joint(head, "slide", name="slider2", axis=(0, 1, 0))
    add_joint(head, "hinge", name="free_body_rot", axis=(0, 0, 1))
    parent, pos = head, (0.5, 0, 0)
    for name, number in (("mid", 1), ("back", 2)):
        body = add_body(parent, name, pos=pos)
        add_geom(body, "capsule", fromto=(0, 0, 0, -1, 0, 0), **link)
        add_joint(
            body,
            "hinge",
            name=f"motor{number}_rot",
            axis=(0, 0, 1),
            limited=LIMITED,
            range=(-100, 100),
        )
        parent, pos = body, (-1, 0, 0)
    for number in (1, 2):
        add_motor(spec, f"motor{number}_rot", 150.0, ctrlrange=(-1, 1), ctrllimited=LIMITED)
    return spec
