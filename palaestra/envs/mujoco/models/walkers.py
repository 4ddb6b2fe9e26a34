"""The planar walkers: Hopper (one leg) and Walker2d (two legs).

Both share a torso on x/z slides and a y hinge, and legs of thigh, leg and foot capsules on
hinges about -y. The Hopper's foot is longer, its joints heavier and softer in contact.

Example:
    >>> hopper().compile().nq, walker2d().compile().nq
    (6, 9)
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

__all__ = ["hopper", "walker2d", "walker2d_v4"]

# A capsule turned a quarter turn about -y: lying along x.
_FLAT = (0.70710678118654757, 0.0, -0.70710678118654746, 0.0)
_LEFT_COLOUR = (0.7, 0.3, 0.6, 1.0)
# The torso's and thigh's half-length: the torso spans z in [1.05, 1.45].
_TORSO_HALF = 0.19999999999999996
_THIGH_HALF = 0.22500000000000003


def _torso(spec: mujoco.MjSpec) -> mujoco.MjsBody:
    torso = add_body(spec.worldbody, "torso", pos=(0, 0, 1.25))
    add_tracking_camera(torso, (0, -3, -0.25))
    free = {"armature": 0.0, "damping": 0.0, "limited": UNLIMITED, "stiffness": 0.0}
    add_joint(torso, "slide", name="rootx", axis=(1, 0, 0), pos=(0, 0, -1.25), **free)
    add_joint(torso, "slide", name="rootz", axis=(0, 0, 1), pos=(0, 0, -1.25), ref=1.25, **free)
    add_joint(torso, "hinge", name="rooty", axis=(0, 1, 0), **free)
    add_geom(torso, "capsule", size=(0.05, _TORSO_HALF), name="torso_geom", friction=0.9)
    return torso


def _leg(
    torso: mujoco.MjsBody,
    suffix: str,
    foot_reach: float,
    foot_half: float,
    foot_friction: float,
    colour: dict,
) -> None:
    """Add a thigh, leg and foot; names end in ``suffix`` (``""`` or ``"_left"``).

    The foot hinges at its heel, ``foot_reach`` behind the foot body, 0.1 m up.
    """
    thigh = add_body(torso, f"thigh{suffix}", pos=(0, 0, -_TORSO_HALF))
    add_joint(thigh, "hinge", name=f"thigh{suffix}_joint", axis=(0, -1, 0), range=(-150, 0))
    add_geom(
        thigh,
        "capsule",
        size=(0.05, _THIGH_HALF),
        name=f"thigh{suffix}_geom",
        pos=(0, 0, -0.22500000000000009),
        friction=0.9,
        **colour,
    )
    # One ulp below -0.7: the knee sits where the thigh capsule's far end rounds to.
    leg = add_body(thigh, f"leg{suffix}", pos=(0, 0, -0.70000000000000007))
    add_joint(
        leg, "hinge", name=f"leg{suffix}_joint", axis=(0, -1, 0), pos=(0, 0, 0.25), range=(-150, 0)
    )
    add_geom(leg, "capsule", size=(0.04, 0.25), name=f"leg{suffix}_geom", friction=0.9, **colour)
    foot = add_body(leg, f"foot{suffix}", pos=(foot_reach, 0, -0.35))
    add_joint(
        foot,
        "hinge",
        name=f"foot{suffix}_joint",
        axis=(0, -1, 0),
        pos=(-foot_reach, 0, 0.1),
        range=(-45, 45),
    )
    add_geom(
        foot,
        "capsule",
        size=(0.06, foot_half),
        name=f"foot{suffix}_geom",
        pos=(-foot_reach / 2, 0, 0.1),
        quat=_FLAT,
        friction=foot_friction,
        **colour,
    )


def hopper() -> mujoco.MjSpec:
    """Build the Hopper: one leg with a 0.39 m foot, motors of gear 200.

    Example:
        >>> hopper().compile().actuator_gear[:, 0].tolist()
        [200.0, 200.0, 200.0]
    """
    spec = new_spec(
        "hopper",
        timestep=0.002,
        integrator="RK4",
        joint={"armature": 1.0, "damping": 1.0, "limited": LIMITED},
        geom={
            "conaffinity": 1,
            "condim": 1,
            "contype": 1,
            "margin": 0.001,
            "rgba": (0.8, 0.6, 0.4, 1.0),
            "solimp": (0.8, 0.8, 0.01),
            "solref": (0.02, 1.0),
        },
        motor={"ctrllimited": LIMITED, "ctrlrange": (-0.4, 0.4)},
    )
    spec.visual.map.znear = 0.02
    add_scenery(spec, floor_size=(20, 20, 0.125), floor={"conaffinity": 1, "condim": 3}, sky=_DUSK)
    _leg(_torso(spec), "", 0.13, 0.195, 2.0, {})
    for joint in ("thigh_joint", "leg_joint", "foot_joint"):
        add_motor(spec, joint, 200.0, ctrlrange=(-1, 1))
    return spec


_DUSK = ((0.4, 0.5, 0.6), (0.0, 0.0, 0.0))


def _walker(right_foot_friction: float) -> mujoco.MjSpec:
    spec = new_spec(
        "walker2d",
        timestep=0.002,
        integrator="RK4",
        joint={"armature": 0.01, "damping": 0.1, "limited": LIMITED},
        geom={
            "conaffinity": 0,
            "condim": 3,
            "contype": 1,
            "density": 1000.0,
            "friction": (0.7, 0.1, 0.1),
            "rgba": (0.8, 0.6, 0.4, 1.0),
        },
    )
    add_scenery(spec, floor={"conaffinity": 1, "condim": 3}, sky=_DUSK)
    torso = _torso(spec)
    _leg(torso, "", 0.2, 0.1, right_foot_friction, {})
    _leg(torso, "_left", 0.2, 0.1, 1.9, {"rgba": _LEFT_COLOUR})
    for side in ("", "_left"):
        for part in ("thigh", "leg", "foot"):
            add_motor(spec, f"{part}{side}_joint", 100.0, ctrlrange=(-1, 1), ctrllimited=LIMITED)
    return spec


def walker2d() -> mujoco.MjSpec:
    """Build Walker2d-v5's walker: two legs, both feet of friction 1.9, motors of gear 100.

    Example:
        >>> walker2d().compile().geom("foot_geom").friction[0]
        np.float64(1.9)
    """
    return _walker(1.9)


def walker2d_v4() -> mujoco.MjSpec:
    """Build Walker2d-v4's walker: as :func:`walker2d`, but the right foot's friction is 0.9.

    Example:
        >>> walker2d_v4().compile().geom("foot_geom").friction[0]
        np.float64(0.9)
    """
    return _walker(0.9)
